//! The entity-slot authority messages (AH "The main messages": 24, 25, 28 to 33; facts
//! 4.14 for the client's layouts): a host's reset (28) and query (30) carry a 32-bit
//! token the client's answers (29; 31 then 32) carry back; the client's purge request
//! (27) gets a purge notice (25) that keeps its mask and reason (SR "What each client
//! message gets"); the client abdicates slots with 33.
//!
//! Message 25's layout is not on the pages beyond "1,024-byte per-bubble authority
//! masks"; a notice that keeps the client's mask and reason is read here as message 27's
//! own layout, the 3-bit reason then the mask.

use crate::activity::body::Body;
use crate::activity::small::{EntitySlotMask, SLOT_MASK_LEN};
use crate::bits::{BitError, BitReader, BitWriter};

/// Width of the purge reason (3 bits, bias 1: -1 to 6).
const REASON_BITS: u32 = 3;
/// Bias of the purge reason.
const REASON_BIAS: i64 = 1;
/// Bits of a mask: one per entity slot.
const MASK_BITS: usize = SLOT_MASK_LEN * 8;

fn write_mask(w: &mut BitWriter, mask: &EntitySlotMask) {
    mask.write(w);
}

fn read_mask(r: &mut BitReader<'_>) -> Result<EntitySlotMask, BitError> {
    Ok(EntitySlotMask(r.read_stream(MASK_BITS)?))
}

/// Messages 28 and 30, and the client's 29: a 32-bit token (SLOTS-05).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthorityToken(pub u32);

impl Body for AuthorityToken {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write(u64::from(self.0), 32);
    }

    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        Ok(Self(r.read(32)? as u32))
    }
}

/// Message 31: the query's token, a bubble selector and the client's mask in that bubble.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BubbleMaskAnswer {
    /// The token of the message 30 it answers.
    pub token: u32,
    /// The bubble selector.
    pub selector: u8,
    /// The slots the client has authority over in that bubble.
    pub mask: EntitySlotMask,
}

impl Body for BubbleMaskAnswer {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write(u64::from(self.token), 32);
        w.write(u64::from(self.selector), 8);
        write_mask(w, &self.mask);
    }

    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        Ok(Self {
            token: r.read(32)? as u32,
            selector: r.read(8)? as u8,
            mask: read_mask(r)?,
        })
    }
}

/// Message 32: the query's token and the client's whole authority mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullMaskAnswer {
    /// The token of the message 30 it answers.
    pub token: u32,
    /// Every slot the client has authority over.
    pub mask: EntitySlotMask,
}

impl Body for FullMaskAnswer {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write(u64::from(self.token), 32);
        write_mask(w, &self.mask);
    }

    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        Ok(Self {
            token: r.read(32)? as u32,
            mask: read_mask(r)?,
        })
    }
}

/// Message 33: the client gives up authority over the slots of a bubble selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abdication {
    /// The bubble selector.
    pub selector: u8,
    /// The slots given up.
    pub mask: EntitySlotMask,
}

impl Body for Abdication {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write(u64::from(self.selector), 8);
        write_mask(w, &self.mask);
    }

    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        Ok(Self {
            selector: r.read(8)? as u8,
            mask: read_mask(r)?,
        })
    }
}

/// Message 27, the client's purge request, and message 25, the host's purge notice that
/// keeps its mask and reason: the 3-bit reason (bias 1), then the mask, not byte
/// aligned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Purge {
    /// The reason, -1 to 6.
    pub reason: i8,
    /// The slots to purge.
    pub mask: EntitySlotMask,
}

impl Body for Purge {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write_biased(i64::from(self.reason), REASON_BIAS, REASON_BITS);
        write_mask(w, &self.mask);
    }

    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        Ok(Self {
            reason: r.read_biased(REASON_BIAS, REASON_BITS)? as i8,
            mask: read_mask(r)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::messages::{ABDICATE_AUTHORITY, AUTHORITY_BUBBLE_MASK, PURGE_REQUEST};
    use crate::schema::{Value, decode};

    fn mask() -> EntitySlotMask {
        EntitySlotMask::with_range(3..9)
    }

    /// Each body round-trips, and the typed codec reads what the schema walker reads
    /// (design "Independence").
    #[test]
    fn bodies_round_trip_and_agree_with_the_schemas() {
        let purge = Purge {
            reason: 2,
            mask: mask(),
        };
        let bytes = purge.encode().unwrap();
        assert_eq!(Purge::decode(&bytes).unwrap(), purge);
        let Value::Record(f) = decode(&PURGE_REQUEST, &mut BitReader::new(&bytes)).unwrap() else {
            panic!("a record")
        };
        assert_eq!(f[0], Value::Int(2));
        let answer = BubbleMaskAnswer {
            token: 7,
            selector: 64,
            mask: mask(),
        };
        let bytes = answer.encode().unwrap();
        assert_eq!(BubbleMaskAnswer::decode(&bytes).unwrap(), answer);
        let Value::Record(f) = decode(&AUTHORITY_BUBBLE_MASK, &mut BitReader::new(&bytes)).unwrap()
        else {
            panic!("a record")
        };
        assert_eq!((&f[0], &f[1]), (&Value::Int(7), &Value::Int(64)));
        let abdication = Abdication {
            selector: 1,
            mask: mask(),
        };
        let bytes = abdication.encode().unwrap();
        assert_eq!(Abdication::decode(&bytes).unwrap(), abdication);
        assert!(decode(&ABDICATE_AUTHORITY, &mut BitReader::new(&bytes)).is_ok());
        let full = FullMaskAnswer {
            token: 9,
            mask: mask(),
        };
        assert_eq!(
            FullMaskAnswer::decode(&full.encode().unwrap()).unwrap(),
            full
        );
        assert_eq!(
            AuthorityToken::decode(&AuthorityToken(5).encode().unwrap()).unwrap(),
            AuthorityToken(5)
        );
        assert!(Purge::decode(&bytes[..1000]).is_err(), "short");
    }
}
