//! Replicated objects, "queuez" (NS "Replicated objects, service 123"): the family
//! subscription of service 12 (facts: Sunrise's `family_subscription.cpp`, a u8 family
//! and a u64 BE root id), and the big-endian update body of service 123.

use thiserror::Error;

/// Service 12: subscribe to a family (C->S), 9 bytes.
pub const SUBSCRIBE: u16 = 12;
/// Service 121: register as a subscriber (C->S), 4 bytes.
pub const REGISTER: u16 = 121;
/// Service 123: an update push (S->C).
pub const UPDATE: u16 = 123;
/// The push that a subscription was lost (NS "The service registry": 124, qz->c sub lost,
/// 14 bytes; BAP-08).
pub const SUBSCRIPTION_LOST: u16 = 124;
/// Service 124's fixed length.
pub const SUBSCRIPTION_LOST_LEN: usize = 14;
/// The largest payload the client takes; the account object is exactly this big.
pub const MAX_PAYLOAD: usize = 96_280;
/// The family of the account and its characters.
pub const ACCOUNT_FAMILY: u32 = 4;
/// The family-4 account object's id (a definition id, fixed per slot).
pub const ACCOUNT_OBJECT: u32 = 0x32D7_B974;
/// The family-4 character object's id.
pub const CHARACTER_OBJECT: u32 = 0xE5E8_6992;
/// Encoding 3: raw bytes, copied with no clamp to the slot size (QZ-06).
pub const ENCODING_RAW: u32 = 3;
/// Encoding 4: Oodle, expanding to exactly the slot's object size (QZ-07).
pub const ENCODING_OODLE: u32 = 4;
/// The families the store has (types 0 to 7) and the object slots each has.
pub const FAMILIES: u32 = 8;
/// Object slots per family.
pub const SLOTS_PER_FAMILY: usize = 6;
/// Flags bit 0: a full snapshot, which deletes every object it does not name (QZ-04).
const FULL_SNAPSHOT: u8 = 0x01;

/// Service 12's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subscription {
    /// The family type.
    pub family: u8,
    /// The family's root id.
    pub root: u64,
}

impl Subscription {
    /// Body length.
    pub const LEN: usize = 9;

    /// The 9 bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![self.family];
        out.extend_from_slice(&self.root.to_be_bytes());
        out
    }

    /// The first 9 bytes; `None` when shorter.
    pub fn decode(body: &[u8]) -> Option<Self> {
        let root: [u8; 8] = body.get(1..9)?.try_into().ok()?;
        Some(Self {
            family: *body.first()?,
            root: u64::from_be_bytes(root),
        })
    }
}

/// A service-123 body: one update per family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Update {
    /// The family updates; none is an error (QZ-01).
    pub families: Vec<FamilyUpdate>,
}

/// One family's update: 21 bytes, then its objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyUpdate {
    /// The family type, 0 to 7.
    pub family: u32,
    /// The family's root id.
    pub root: u64,
    /// The version: the previous one plus one; -1 is an error (QZ-01).
    pub version: i32,
    /// Flags bit 0: a full snapshot.
    pub full_snapshot: bool,
    /// The objects; none is legal.
    pub objects: Vec<ObjectUpdate>,
}

/// One object: 20 bytes, then the payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectUpdate {
    /// The object id: a definition id, fixed per slot.
    pub object_id: u32,
    /// The object key, which must be the payload's first qword (QZ-01).
    pub key: u64,
    /// The encoding, 1 to 4.
    pub encoding: u32,
    /// The payload; empty deletes the object (QZ-04).
    pub payload: Vec<u8>,
}

/// A service-123 body cut short (QZ-02).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("service 123 is cut short at byte {at}: {what} needs {need} more bytes")]
pub struct UpdateError {
    /// Where the body ran out.
    pub at: usize,
    /// What was being read.
    pub what: &'static str,
    /// The bytes it needed beyond the end.
    pub need: usize,
}

impl Update {
    /// The big-endian body.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&len32(self.families.len()).to_be_bytes());
        for f in &self.families {
            out.extend_from_slice(&f.family.to_be_bytes());
            out.extend_from_slice(&f.root.to_be_bytes());
            out.extend_from_slice(&f.version.to_be_bytes());
            out.push(if f.full_snapshot { FULL_SNAPSHOT } else { 0 });
            out.extend_from_slice(&len32(f.objects.len()).to_be_bytes());
            for o in &f.objects {
                out.extend_from_slice(&o.object_id.to_be_bytes());
                out.extend_from_slice(&o.key.to_be_bytes());
                out.extend_from_slice(&len32(o.payload.len()).to_be_bytes());
                out.extend_from_slice(&o.encoding.to_be_bytes());
                out.extend_from_slice(&o.payload);
            }
        }
        out
    }

    /// Reads a body; the counts are taken as given, so a count past the body's end is an
    /// error, not an allocation.
    pub fn decode(body: &[u8]) -> Result<Self, UpdateError> {
        let mut r = Reader { body, at: 0 };
        let count = r.u32("the family count")?;
        let mut families = Vec::new();
        for _ in 0..count {
            let family = r.u32("a family type")?;
            let root = r.u64("a family root id")?;
            let version = r.u32("a family version")? as i32;
            let [flags] = r.bytes("a family's flags")?;
            let objects_count = r.u32("an object count")?;
            let mut objects = Vec::new();
            for _ in 0..objects_count {
                let object_id = r.u32("an object id")?;
                let key = r.u64("an object key")?;
                let len = r.u32("a payload length")? as usize;
                let encoding = r.u32("an encoding")?;
                let payload = r.take(len, "a payload")?.to_vec();
                objects.push(ObjectUpdate {
                    object_id,
                    key,
                    encoding,
                    payload,
                });
            }
            families.push(FamilyUpdate {
                family,
                root,
                version,
                full_snapshot: flags & FULL_SNAPSHOT != 0,
                objects,
            });
        }
        Ok(Self { families })
    }
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

struct Reader<'a> {
    body: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], UpdateError> {
        let rest = self.body.get(self.at..).unwrap_or_default();
        let (out, _) = rest.split_at_checked(n).ok_or_else(|| UpdateError {
            at: self.at,
            what,
            need: n - rest.len(),
        })?;
        self.at += n;
        Ok(out)
    }

    fn bytes<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], UpdateError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, UpdateError> {
        Ok(u32::from_be_bytes(self.bytes(what)?))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, UpdateError> {
        Ok(u64::from_be_bytes(self.bytes(what)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one() -> Update {
        Update {
            families: vec![FamilyUpdate {
                family: ACCOUNT_FAMILY,
                root: 0x9EAA_3001_0000_0001,
                version: 1,
                full_snapshot: true,
                objects: vec![ObjectUpdate {
                    object_id: CHARACTER_OBJECT,
                    key: 7,
                    encoding: ENCODING_RAW,
                    payload: 7u64.to_be_bytes().to_vec(),
                }],
            }],
        }
    }

    /// NS: 4 bytes of count, 21 per family, 20 per object, then its payload.
    #[test]
    fn the_layout_is_4_21_20_and_the_payload() {
        let bytes = one().encode();
        assert_eq!(bytes.len(), 4 + 21 + 20 + 8);
        assert_eq!(&bytes[..4], &[0, 0, 0, 1]);
        assert_eq!(bytes[4 + 16], 0x01, "flags after type, root and version");
        assert_eq!(Update::decode(&bytes), Ok(one()));
        for cut in [0, 3, 24, 44, bytes.len() - 1] {
            assert!(Update::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        // a count past the end is an error, not an allocation
        assert!(Update::decode(&[0xFF, 0xFF, 0xFF, 0xFF]).is_err());
        let s = Subscription { family: 4, root: 9 };
        assert_eq!(Subscription::decode(&s.encode()), Some(s));
        assert_eq!(Subscription::decode(&[4; 8]), None);
    }
}
