//! Message 1, global_activity_state (AH "global_activity_state, message 1"; facts 4.5).

use super::body::Body;
use super::selection::{DescriptorBits, SelectionDescriptor};
use crate::bits::{BitError, BitReader, BitWriter};

/// The documented body: 1,161 bits with the minimal 372-bit descriptor (GLOBAL-01).
pub const GLOBAL_STATE_BITS: usize = 1161;
/// The documented body in bytes (GLOBAL-01).
pub const GLOBAL_STATE_LEN: usize = 146;
/// Bit offset of the bubble count (GLOBAL-02).
pub const BUBBLE_COUNT_BIT: usize = 67;
/// Bit offset of the 64 slice-set state bytes (GLOBAL-03).
pub const BUBBLE_STATES_BIT: usize = 99;
/// Bubbles in the state table.
pub const MAX_BUBBLES: usize = 64;
/// Raw state byte that adds a bubble: logical 0 plus the bias of 128 (GLOBAL-03).
pub const BUBBLE_ENABLED: u8 = 0x80;
/// Raw state byte that skips a bubble.
pub const BUBBLE_SKIPPED: u8 = 0x7F;
/// Bit offset of the initial slice-set index + 1.
pub const SLICE_SET_BIT: usize = 611;
/// Bit offset of the selection descriptor (facts 4.5).
pub const DESCRIPTOR_BIT: usize = 686;
/// Zero bits after the descriptor.
pub const TAIL_BITS: usize = 103;

/// Message 1 as Vex writes it (facts 4.5 layout; the pages' 1,161 bits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalActivityState {
    /// Bit 0: arms the initial slice set; the pair at 611/621 is read only when set.
    pub arm_initial_slice_set: bool,
    /// The bubble count; must equal the scenario's (GLOBAL-02).
    pub bubble_count: i32,
    /// Raw state byte per bubble: 0x80 adds the bubble, 0x7F skips it (GLOBAL-03).
    pub bubble_states: [u8; MAX_BUBBLES],
    /// Initial slice-set index, or -1 for none (10 bits, bias 1).
    pub initial_slice_set: i16,
    /// Spawn-set name hash.
    pub spawn_set_hash: u32,
    /// The client's own selection descriptor, replayed bit for bit (GLOBAL-04).
    pub descriptor: DescriptorBits,
}

/// The body on the wire: 1,161 bits with the minimal descriptor (GLOBAL-01).
impl Body for GlobalActivityState {
    type Decoded = Self;

    fn capacity_bits(&self) -> usize {
        DESCRIPTOR_BIT + self.descriptor.bit_len + TAIL_BITS
    }

    fn write(&self, w: &mut BitWriter) {
        w.write_bool(self.arm_initial_slice_set);
        w.write_zeros(BUBBLE_COUNT_BIT - 1);
        w.write_i32(self.bubble_count);
        w.write_stream(&self.bubble_states, MAX_BUBBLES * 8);
        w.write_biased(i64::from(self.initial_slice_set), 1, 10);
        w.write(u64::from(self.spawn_set_hash), 32);
        w.write_zeros(DESCRIPTOR_BIT - SLICE_SET_BIT - 42);
        w.write_bits(&self.descriptor);
        w.write_zeros(TAIL_BITS);
    }

    /// Reads message 1, parsing the descriptor to find where it ends.
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let arm_initial_slice_set = r.read_bool()?;
        r.skip(BUBBLE_COUNT_BIT - 1)?;
        let bubble_count = r.read_i32()?;
        let mut bubble_states = [0u8; MAX_BUBBLES];
        for eight in bubble_states.chunks_exact_mut(8) {
            eight.copy_from_slice(&r.read(64)?.to_be_bytes());
        }
        let initial_slice_set = r.read_biased(1, 10)? as i16;
        let spawn_set_hash = r.read(32)? as u32;
        r.skip(DESCRIPTOR_BIT - SLICE_SET_BIT - 42)?;
        let mut copy = r.clone();
        let start = r.position();
        SelectionDescriptor::read(r)?;
        let bit_len = r.position() - start;
        r.skip(TAIL_BITS)?;
        let descriptor = copy.read_bits(bit_len)?;
        Ok(Self {
            arm_initial_slice_set,
            bubble_count,
            bubble_states,
            initial_slice_set,
            spawn_set_hash,
            descriptor,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vectors::{GLOBAL_STATE_EXAMPLE, global_state_example};

    /// Facts 10.1: name "abc", bubbles [0x80, 0x7F], slice 8, spawn 0xDEADBEEF.
    #[test]
    fn global_state_vector() {
        let m = global_state_example();
        let body = m.encode().unwrap();
        assert_eq!(m.measure(), Ok(GLOBAL_STATE_BITS));
        assert_eq!(body.len(), GLOBAL_STATE_LEN);
        assert_eq!(hex::encode_upper(&body), GLOBAL_STATE_EXAMPLE);
        assert_eq!(GlobalActivityState::decode(&body).unwrap(), m);
    }

    #[test]
    fn short_body_fails_to_decode() {
        let body = global_state_example().encode().unwrap();
        assert!(GlobalActivityState::decode(&body[..140]).is_err());
    }
}
