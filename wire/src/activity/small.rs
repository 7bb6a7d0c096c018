//! The small fixed messages of the join and the link: 0 and 21, 2, 15, 16, 18, 20, 38,
//! 44, 52 and 54.
//!
//! AH "The main messages", "world_globals_state, message 2", "Hazards for a host";
//! facts 4.3, 4.6, 4.14.

use super::body::Body;
use crate::bits::{BitError, BitReader, BitWriter};

/// Message 0 and 24/25 mask length: 1,024 bytes, one bit per entity slot (SLOTS-01).
pub const SLOT_MASK_LEN: usize = 1024;
/// Entity slots in the mask.
pub const ENTITY_SLOTS: usize = SLOT_MASK_LEN * 8;

/// Message 0, entity_slots_allocated: a raw 1,024-byte mask, slot i at byte i/8,
/// bit 1 << (i % 8) (SLOTS-01; facts 4.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntitySlotMask(pub Vec<u8>);

impl EntitySlotMask {
    /// An empty mask.
    pub fn empty() -> Self {
        Self(vec![0; SLOT_MASK_LEN])
    }

    /// A mask with slots `range` set.
    pub fn with_range(range: std::ops::Range<usize>) -> Self {
        let mut m = Self::empty();
        for i in range.take_while(|&i| i < ENTITY_SLOTS) {
            m.set(i);
        }
        m
    }

    /// Sets slot `i` (ignored past the end).
    pub fn set(&mut self, i: usize) {
        if let Some(b) = self.0.get_mut(i / 8) {
            *b |= 1 << (i % 8);
        }
    }

    /// True when slot `i` is set.
    pub fn get(&self, i: usize) -> bool {
        self.0.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0)
    }

    /// The lowest slot set, if any.
    pub fn lowest(&self) -> Option<u16> {
        (0..self.0.len() * 8)
            .find(|&i| self.get(i))
            .and_then(|i| u16::try_from(i).ok())
    }

    /// Number of slots set.
    pub fn count(&self) -> usize {
        self.0.iter().map(|b| b.count_ones() as usize).sum()
    }

    /// Sets every slot `other` sets: message 0 is ORed into the lease (SLOTS-01).
    pub fn add(&mut self, other: &EntitySlotMask) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    /// Clears every slot `other` sets: message 21 releases held ∩ returned (facts 4.3).
    pub fn remove(&mut self, other: &EntitySlotMask) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= !b;
        }
    }
}

/// Messages 0 and 21: exactly [`SLOT_MASK_LEN`] bytes; a shorter mask is written with
/// its missing bytes clear (facts 4.3).
impl Body for EntitySlotMask {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        let mask = self.0.get(..SLOT_MASK_LEN).unwrap_or(&self.0);
        w.write_stream(mask, mask.len() * 8);
        w.write_zeros((SLOT_MASK_LEN - mask.len()) * 8);
    }

    /// Reads the first 1,024 bytes; trailing bytes are fine (BODY-07).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        Ok(Self(r.read_stream(SLOT_MASK_LEN * 8)?))
    }
}

/// Message 20, allocate_entity_indices: a signed count of slots wanted, an i32 with bias
/// 2^31; the host refuses a count of 0 or less (facts 4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotRequest {
    /// Slots wanted.
    pub count: i32,
}

/// The 4-byte body.
impl Body for SlotRequest {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write_i32(self.count);
    }

    /// Reads the first 4 bytes; trailing bytes are fine (BODY-07).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let count = r.read_i32()?;
        Ok(Self { count })
    }
}

/// Message 18, state_refresh: the membership revision the client holds and the bubble it
/// stands in, an i32 with bias 2^31; 64 bits (facts 4.14). The host answers with its whole
/// state whatever the client holds (SR "What each client message gets").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateRefresh {
    /// The membership revision the client holds.
    pub membership_revision: u32,
    /// The bubble the client stands in.
    pub bubble: i32,
}

/// The 8-byte body.
impl Body for StateRefresh {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write(self.membership_revision.into(), 32);
        w.write_i32(self.bubble);
    }

    /// Reads the first 8 bytes; trailing bytes are fine (BODY-07).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let membership_revision = r.read(32)? as u32;
        let bubble = r.read_i32()?;
        Ok(Self {
            membership_revision,
            bubble,
        })
    }
}

/// Message 38, membership_acknowledgement: the revision of message 12 the client applied,
/// 32 bits (facts 4.14; MEMBER-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MembershipAcknowledgement {
    /// The revision applied.
    pub revision: u32,
}

/// The 4-byte body.
impl Body for MembershipAcknowledgement {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write(self.revision.into(), 32);
    }

    /// Reads the first 4 bytes; trailing bytes are fine (BODY-07).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let revision = r.read(32)? as u32;
        Ok(Self { revision })
    }
}

/// Message 2, world_globals_state: a bool, then the tick period as a raw float32 (33 bits).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldGlobals {
    /// A bool with no known reader.
    pub flag: bool,
    /// The simulation tick period in ms; positive runs the clock (WORLD-01).
    pub tick_ms: f32,
}

/// Bits in message 2.
pub const WORLD_GLOBALS_BITS: usize = 33;

impl WorldGlobals {
    /// The client's own default: 1000 / 30 ms (AH).
    pub fn default_tick() -> Self {
        Self {
            flag: false,
            tick_ms: 1000.0 / 30.0,
        }
    }
}

/// The 5-byte body.
impl Body for WorldGlobals {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write_bool(self.flag);
        w.write(u64::from(self.tick_ms.to_bits()), 32);
    }

    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        Ok(Self {
            flag: r.read_bool()?,
            tick_ms: f32::from_bits(r.read(32)? as u32),
        })
    }
}

/// Message 52, patch_epoch: two u64 big-endian (facts 4.14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PatchEpoch(pub [u64; 2]);

/// Length of message 52.
pub const PATCH_EPOCH_LEN: usize = 16;

/// The 16-byte body.
impl Body for PatchEpoch {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write(self.0[0], 64);
        w.write(self.0[1], 64);
    }

    /// Reads the first 16 bytes; trailing bytes are fine (BODY-07).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        Ok(Self([r.read(64)?, r.read(64)?]))
    }
}

/// Message 37, connectivity_failure, as the client sends it: the key of the peer it lost,
/// then a 2-bit reason, raw; 66 bits (AH "Message ids": "records one peer key; diagnostic
/// only"; facts 4.14). The pages name no reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectivityFailure {
    /// The peer's key.
    pub peer_key: u64,
    /// The reason, 0 to 3.
    pub reason: u8,
}

/// The 66-bit body.
impl Body for ConnectivityFailure {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write(self.peer_key, 64);
        w.write(self.reason.into(), 2);
    }

    /// Reads the first 66 bits; trailing bits are fine (BODY-07).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let peer_key = r.read(64)?;
        let reason = r.read(2)? as u8;
        Ok(Self { peer_key, reason })
    }
}

/// Message 15, peer_leave_request: the client releases a joined, linked activity slot
/// (AH "peer_leave_request, message 15"; facts 4.14). 20 bytes: two words whose meaning
/// is unknown, the peer key low byte first, and the reason hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerLeave {
    /// Bytes 0-3, big-endian; meaning unknown.
    pub word_0: u32,
    /// Bytes 4-7, big-endian; meaning unknown.
    pub word_4: u32,
    /// Bytes 8-15, low byte first.
    pub peer_key: u64,
    /// Bytes 16-19: a bootflow reason hash; reason 0 is [`LEAVE_REASON_NONE`].
    pub reason_hash: u32,
}

/// Length of message 15.
pub const PEER_LEAVE_LEN: usize = 20;
/// The reason hash of bootflow reason 0 (AH).
pub const LEAVE_REASON_NONE: u32 = 0x03CF_BB27;

/// The 20-byte body.
impl Body for PeerLeave {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write(u64::from(self.word_0), 32);
        w.write(u64::from(self.word_4), 32);
        w.write(self.peer_key.swap_bytes(), 64);
        w.write(u64::from(self.reason_hash), 32);
    }

    /// Reads the first 20 bytes; trailing bytes are fine (BODY-07).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let word_0 = r.read(32)? as u32;
        let word_4 = r.read(32)? as u32;
        let peer_key = r.read(64)?.swap_bytes();
        let reason_hash = r.read(32)? as u32;
        Ok(Self {
            word_0,
            word_4,
            peer_key,
            reason_hash,
        })
    }
}

/// Message 16: one byte with no schema (facts 4.14).
pub const KEEPALIVE_BODY: [u8; 1] = [0];

/// Message 44, advance_replication_epoch: an 8-bit epoch and the abort bit (facts 4.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdvanceEpoch {
    /// The new epoch: the previous plus one (EPOCH-01).
    pub epoch: u8,
    /// Sets the permanent give-up flag (EPOCH-02).
    pub abort: bool,
}

/// The 2-byte body `[epoch][latch]` as Sunrise writes it: 9 bits and 7 of padding.
impl Body for AdvanceEpoch {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write(u64::from(self.epoch), 8);
        w.write_bool(self.abort);
    }

    /// Reads the epoch and the abort bit (the top bit of byte 1).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        Ok(Self {
            epoch: r.read(8)? as u8,
            abort: r.read_bool()?,
        })
    }
}

/// Message 54, bubble host state update: a 6-bit row count, 0 to 32 (BHS-01). The row
/// layout is not documented, so Vex sends only the empty table, as Sunrise does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BubbleHostState {
    /// Rows in the table.
    pub row_count: u8,
}

/// The largest row count the client's 32-row table holds (BHS-01).
pub const BUBBLE_HOST_MAX_ROWS: u8 = 32;

/// The body: the 6-bit count and padding (`00` for the empty table). A count above 32
/// is refused (BHS-01).
impl Body for BubbleHostState {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        if self.row_count > BUBBLE_HOST_MAX_ROWS {
            w.fail(BitError::Unsafe {
                what: "message 54 row count",
                value: i64::from(self.row_count),
            });
        }
        w.write(u64::from(self.row_count), 6);
    }

    /// Reads the count.
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        Ok(Self {
            row_count: r.read(6)? as u8,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_mask_layout() {
        let m = EntitySlotMask::with_range(0..9);
        assert_eq!(m.0.len(), 1024);
        assert_eq!(m.0[0], 0xFF);
        assert_eq!(m.0[1], 0x01);
        assert!(m.get(8) && !m.get(9));
        assert_eq!(m.count(), 9);
    }

    #[test]
    fn world_globals_is_33_bits() {
        let b = WorldGlobals::default_tick().encode().unwrap();
        assert_eq!(b.len(), 5);
        let back = WorldGlobals::decode(&b).unwrap();
        assert_eq!(back.tick_ms, 1000.0 / 30.0);
    }

    #[test]
    fn small_bodies() {
        assert_eq!(BubbleHostState { row_count: 0 }.encode().unwrap(), [0]);
        assert!(BubbleHostState { row_count: 32 }.encode().is_ok());
        assert!(
            BubbleHostState { row_count: 33 }.encode().is_err(),
            "BHS-01: 33 rows write past the table"
        );
        for count in [i32::MIN, -1, 0, 8, i32::MAX] {
            let r = SlotRequest { count };
            assert_eq!(SlotRequest::decode(&r.encode().unwrap()).unwrap(), r);
        }
        assert_eq!(SlotRequest { count: 0 }.encode().unwrap(), [0x80, 0, 0, 0]);
        let e = PatchEpoch([1, 2]);
        assert_eq!(e.encode().unwrap().len(), PATCH_EPOCH_LEN);
        assert_eq!(PatchEpoch::decode(&e.encode().unwrap()).unwrap(), e);
        let a = AdvanceEpoch {
            epoch: 7,
            abort: true,
        };
        assert_eq!(a.encode().unwrap(), [7, 0x80]);
        assert_eq!(AdvanceEpoch::decode(&a.encode().unwrap()).unwrap(), a);
        let mask = EntitySlotMask::with_range(3..5);
        assert_eq!(mask.encode().unwrap(), mask.0);
        assert_eq!(EntitySlotMask::decode(&mask.0).unwrap(), mask);
        assert!(EntitySlotMask::decode(&mask.0[1..]).is_err());
    }

    /// Facts 4.14: u32 BE, u32 BE, the peer key low byte first, the reason hash BE.
    #[test]
    fn peer_leave_layout() {
        let m = PeerLeave {
            word_0: 1,
            word_4: 2,
            peer_key: 0x0102_0304_0506_0708,
            reason_hash: LEAVE_REASON_NONE,
        };
        let b = m.encode().unwrap();
        assert_eq!(b.len(), PEER_LEAVE_LEN);
        assert_eq!(
            hex::encode(&b),
            "00000001000000020807060504030201".to_owned() + "03cfbb27"
        );
        assert_eq!(PeerLeave::decode(&b).unwrap(), m);
        assert!(PeerLeave::decode(&b[..19]).is_err());
        let schema = crate::schema::catalog::lookup("peer_leave_request").unwrap();
        let v = crate::schema::decode(schema, &mut BitReader::new(&b)).unwrap();
        let crate::schema::Value::Record(f) = v else {
            panic!("a record")
        };
        assert_eq!(f[3], crate::schema::Value::Int(0x03CF_BB27));
    }
}
