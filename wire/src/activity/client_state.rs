//! Message 22, client_authoritative_data_update (C->H): the client's own state as a sparse
//! delta: the region it stands in, its spawn state and a teleport (facts 4.11; SR "What
//! each client message gets": 22 commits region, spawn and teleport state).
//!
//! The typed codec reads the whole grammar, skipping the opaque branch and the parts a host
//! does not use, and writes only what it models: the current region leg, spawn and teleport.

use crate::activity::body::Body;
use crate::bits::{BitError, BitReader, BitWriter};

/// The region index the client reports on its way out of the activity (facts 4.11).
pub const LEAVING_REGION: i16 = -1;
/// Presence-gated widths of the opaque branch (facts 4.11, "B2").
const OPAQUE_WIDTHS: [u32; 14] = [6, 1024, 64, 64, 64, 64, 32, 32, 64, 32, 688, 688, 688, 512];
/// The opaque branch's byte list: a 14-bit count, at most 10,000.
const OPAQUE_BYTES: (u32, u64) = (14, 10_000);
/// A region leg's extra record's byte list: an 8-bit count, at most 128.
const EXTRA_BYTES: (u32, u64) = (8, 128);
/// Bits a region leg skips after its index and hash: 32, 2 and 2.
const LEG_SKIPPED_BITS: usize = 36;
/// Bits of a teleport record's tail that nothing reads.
const TELEPORT_SKIPPED_BITS: usize = 64;

/// The region the client stands in: a slice-set index (bias 1, 10 bits) and its hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegionLeg {
    /// The slice-set index; [`LEAVING_REGION`] on the way out.
    pub index: i16,
    /// The slice-set hash.
    pub hash: u32,
}

/// The spawn state: a 3-bit state (bias 1) and two opaque values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpawnState {
    /// The state.
    pub state: i8,
    /// An opaque byte.
    pub opaque_8: u8,
    /// An opaque word.
    pub opaque_64: u64,
}

/// A teleport: state (3 bits, bias 1), token, target slice set (10 bits, bias 1), hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeleportState {
    /// The state.
    pub state: i8,
    /// The token.
    pub token: u8,
    /// The target slice set.
    pub slice_set: i16,
    /// The target's hash.
    pub slice_hash: u32,
}

/// Message 22's content a host commits. Every part is optional: the body is a delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClientState {
    /// The second region leg, the player's current region (facts 4.11).
    pub region: Option<RegionLeg>,
    /// The transition token of the regions record.
    pub transition_token: Option<u8>,
    /// The spawn state.
    pub spawn: Option<SpawnState>,
    /// The teleport state.
    pub teleport: Option<TeleportState>,
}

fn optional<T>(
    r: &mut BitReader<'_>,
    read: impl FnOnce(&mut BitReader<'_>) -> Result<T, BitError>,
) -> Result<Option<T>, BitError> {
    if r.read_bool()? {
        read(r).map(Some)
    } else {
        Ok(None)
    }
}

/// A count of at most `max` in `width` bits, then that many bytes, skipped.
fn skip_byte_list(
    r: &mut BitReader<'_>,
    (width, max): (u32, u64),
    what: &'static str,
) -> Result<(), BitError> {
    let n = r.read(width)?;
    if n > max {
        return Err(BitError::Unsafe {
            what,
            value: n as i64,
        });
    }
    r.skip(8 * n as usize)
}

fn skip_opaque(r: &mut BitReader<'_>) -> Result<(), BitError> {
    for width in OPAQUE_WIDTHS {
        if r.read_bool()? {
            r.skip(width as usize)?;
        }
    }
    optional(r, |r| {
        skip_byte_list(r, OPAQUE_BYTES, "message 22 opaque byte count")
    })?;
    r.skip(1)
}

fn read_leg(r: &mut BitReader<'_>) -> Result<RegionLeg, BitError> {
    let index = r.read_biased(1, 10)? as i16;
    let hash = r.read(32)? as u32;
    r.skip(LEG_SKIPPED_BITS)?;
    optional(r, |r| r.read(8))?;
    optional(r, |r| {
        r.skip(8 + 2)?;
        skip_byte_list(r, EXTRA_BYTES, "message 22 region byte count")?;
        r.skip(64)
    })?;
    Ok(RegionLeg { index, hash })
}

fn write_leg(w: &mut BitWriter, leg: &RegionLeg) {
    w.write_biased(i64::from(leg.index), 1, 10);
    w.write(u64::from(leg.hash), 32);
    w.write_zeros(LEG_SKIPPED_BITS);
    w.write_bool(false); // no byte
    w.write_bool(false); // no extra record
}

impl Body for ClientState {
    type Decoded = Self;

    /// The root bit, no opaque branch, then the parts that are present.
    fn write(&self, w: &mut BitWriter) {
        w.write_bool(true);
        w.write_bool(false);
        w.write_bool(self.region.is_some() || self.transition_token.is_some());
        if self.region.is_some() || self.transition_token.is_some() {
            w.write_bool(false); // the first leg
            w.write_bool(self.region.is_some());
            if let Some(leg) = &self.region {
                write_leg(w, leg);
            }
            w.write_bool(self.transition_token.is_some());
            if let Some(t) = self.transition_token {
                w.write(u64::from(t), 8);
            }
            w.write_bool(false);
            w.write_bool(false);
        }
        w.write_bool(self.spawn.is_some());
        if let Some(s) = &self.spawn {
            w.write_biased(i64::from(s.state), 1, 3);
            w.write(u64::from(s.opaque_8), 8);
            w.write(s.opaque_64, 64);
        }
        w.write_bool(self.teleport.is_some());
        if let Some(t) = &self.teleport {
            w.write_biased(i64::from(t.state), 1, 3);
            w.write(u64::from(t.token), 8);
            w.write_biased(i64::from(t.slice_set), 1, 10);
            w.write(u64::from(t.slice_hash), 32);
            w.write_zeros(TELEPORT_SKIPPED_BITS);
        }
    }

    /// Reads the delta; a root bit of 0 is an empty one (facts 4.11).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let mut s = Self::default();
        if !r.read_bool()? {
            return Ok(s);
        }
        optional(r, skip_opaque)?;
        if r.read_bool()? {
            optional(r, read_leg)?;
            s.region = optional(r, read_leg)?;
            s.transition_token = optional(r, |r| r.read(8).map(|t| t as u8))?;
            optional(r, |r| r.read(8))?;
            optional(r, |r| r.read(3))?;
        }
        s.spawn = optional(r, |r| {
            Ok(SpawnState {
                state: r.read_biased(1, 3)? as i8,
                opaque_8: r.read(8)? as u8,
                opaque_64: r.read(64)?,
            })
        })?;
        s.teleport = optional(r, |r| {
            let t = TeleportState {
                state: r.read_biased(1, 3)? as i8,
                token: r.read(8)? as u8,
                slice_set: r.read_biased(1, 10)? as i16,
                slice_hash: r.read(32)? as u32,
            };
            r.skip(TELEPORT_SKIPPED_BITS)?;
            Ok(t)
        })?;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::written;
    use crate::schema::messages::CLIENT_AUTHORITATIVE_DATA_UPDATE;
    use crate::schema::{Value, decode};

    fn full() -> ClientState {
        ClientState {
            region: Some(RegionLeg {
                index: 8,
                hash: 0x1234_5678,
            }),
            transition_token: Some(3),
            spawn: Some(SpawnState {
                state: 2,
                opaque_8: 7,
                opaque_64: 9,
            }),
            teleport: Some(TeleportState {
                state: 1,
                token: 4,
                slice_set: 16,
                slice_hash: 0xABCD,
            }),
        }
    }

    #[test]
    fn round_trips_every_part() {
        for s in [
            ClientState::default(),
            full(),
            ClientState {
                region: Some(RegionLeg {
                    index: LEAVING_REGION,
                    hash: 0,
                }),
                ..ClientState::default()
            },
        ] {
            assert_eq!(ClientState::decode(&s.encode().unwrap()).unwrap(), s);
        }
        assert_eq!(
            ClientState::decode(&[0]).unwrap(),
            ClientState::default(),
            "root 0"
        );
        assert!(ClientState::decode(&[]).is_err());
    }

    /// The field of `v` at `path`, record by record.
    fn at<'a>(v: &'a Value, path: &[usize]) -> &'a Value {
        path.iter().fold(v, |v, &i| match v {
            Value::Record(fields) => &fields[i],
            other => panic!("not a record: {other:?}"),
        })
    }

    /// The typed codec and the schema walker read the same bits (design "Independence"),
    /// past an opaque branch and a first leg.
    #[test]
    fn agrees_with_the_schema() {
        let by_hand = written(|w| {
            w.write_bool(true);
            w.write_bool(true); // the opaque branch: only its 6-bit field, then the flag
            w.write_bool(true);
            w.write(0x2A, 6);
            w.write_zeros(13);
            w.write_bool(false); // no byte list
            w.write_bool(true);
            w.write_bool(true); // regions: a first leg and the current one
            w.write_bool(true);
            write_leg(w, &RegionLeg { index: 0, hash: 1 });
            w.write_bool(true);
            write_leg(w, &RegionLeg { index: 24, hash: 2 });
            w.write_zeros(3);
            w.write_bool(true); // spawn
            w.write_biased(2, 1, 3);
            w.write(5, 8);
            w.write(6, 64);
            w.write_bool(false);
        });
        for body in [by_hand.unwrap(), full().encode().unwrap()] {
            let typed = ClientState::decode(&body).unwrap();
            let walked = decode(
                &CLIENT_AUTHORITATIVE_DATA_UPDATE,
                &mut BitReader::new(&body),
            )
            .unwrap();
            let region = typed.region.unwrap();
            assert_eq!(at(&walked, &[0, 1, 1, 0]), &Value::Int(region.index.into()));
            assert_eq!(at(&walked, &[0, 1, 1, 1]), &Value::Int(region.hash.into()));
            assert_eq!(
                at(&walked, &[0, 2, 0]),
                &Value::Int(typed.spawn.unwrap().state.into())
            );
            let teleport = typed.teleport.map(|t| Value::Int(t.slice_set.into()));
            let walked_teleport = match at(&walked, &[0, 3]) {
                Value::Absent => None,
                t => Some(at(t, &[2]).clone()),
            };
            assert_eq!(walked_teleport, teleport);
        }
    }
}
