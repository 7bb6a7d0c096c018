//! Type 17, activity_lifetime_sensor: the Auth body (AH "Type 17"; facts 4.8).
//!
//! 20 fields and no presence bits: a host sends all of it or none (T17-02). The minimum
//! body is 423 bits; one i32 switch adds 97 (520 bits).

use crate::activity::body::Body;
use crate::activity::slot::{ClientRef, EMPTY_KEY};
use crate::bits::{BitError, BitReader, BitWriter};

/// The smallest body: no switches, no definition refs (T17-02).
pub const LIFETIME_MIN_BITS: usize = 423;
/// The bias of the 4-bit state.
pub const STATE_BIAS: i64 = 1;
/// The lowest safe state (T17-01).
pub const STATE_MIN: i8 = -1;
/// The highest safe state; 11 to 14 crash the client (T17-01).
pub const STATE_MAX: i8 = 10;
/// At most 50 switches (T17-03); the count field is 6 bits.
pub const MAX_SWITCHES: usize = 50;
/// The switch list's 6-bit count starts at this bit of the body (AH "Type 17").
pub const SWITCH_COUNT_BIT: usize = 104;
/// Bit offset of current_bubble in the body, an i32 with [`crate::bits::I32_BIAS`] (facts 4.8).
pub const CURRENT_BUBBLE_BIT: usize = 72;
/// The value-class handle of a runtime i32 switch value (facts 4.8).
pub const SWITCH_CLASS_I32: u32 = 0x8080_0007;
/// The "waiting" switch Sunrise forces to 0 (facts 4.8).
pub const SWITCH_WAITING: u32 = 0xB3C1_251B;
/// Spawn-point pairs in the body.
pub const SPAWN_PAIRS: usize = 3;

/// One gameplay switch: a key and an optional i32 value (AH: key, presence, value-class
/// handle, value). Only the i32 value class is documented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switch {
    /// The switch key.
    pub key: u32,
    /// The i32 value, when present.
    pub value: Option<i32>,
}

/// A spawn-point pair: 10-bit index with bias 1, then a 32-bit hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpawnPair {
    /// Logical index; -1 (wire 0) turns the pair off.
    pub index: i16,
    /// Name hash; 0x811C9DC5 with index -1 turns the pair off (T17-04).
    pub hash: u32,
}

impl SpawnPair {
    /// The "off" pair: index 0 on the wire and the empty hash (T17-04).
    pub const OFF: SpawnPair = SpawnPair {
        index: -1,
        hash: EMPTY_KEY,
    };
}

/// The type-17 Auth record, in wire order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LifetimeAuth {
    /// 4 bits, bias 1; safe -1 to 10 (T17-01).
    pub state: i8,
    /// 3 bits, bias 1; 4 skips the network-quality check.
    pub quality_bypass: i8,
    /// 1 bit; the one field whose absent value is 1: sent as 0 it raises join-policy
    /// bit 3 (AH). Sunrise sends 0.
    pub join_flag_inverted: bool,
    /// i32; a change rebuilds the directive markers.
    pub marker_revision: i32,
    /// Selects an authored spawn entry by name hash.
    pub spawn_entry_hash: u32,
    /// i32: the bubble the activity treats as current.
    pub current_bubble: i32,
    /// 6-bit count, at most 50 (T17-03).
    pub switches: Vec<Switch>,
    /// i32, decoded and never read.
    pub unused: i32,
    /// Three spawn-point pairs.
    pub spawn_pairs: [SpawnPair; SPAWN_PAIRS],
    /// 1 bit.
    pub cycle_override_on: bool,
    /// Raw float32 bits of a phase in [0, 1).
    pub cycle_phase: u32,
    /// i32: 0 to 63 installs a selection record; -1 clears it.
    pub selection_id: i32,
    /// The selection target.
    pub selection_target: ClientRef,
    /// u32 argument.
    pub selection_arg: u32,
}

/// The 3-bit definition-ref count that ends the body. The entry layout is not documented,
/// so Vex writes 0 and refuses to read a body with entries.
const DEFINITION_REF_COUNT_BITS: u32 = 3;

impl LifetimeAuth {
    /// The body Sunrise sends, with `state`: one "waiting" switch forced to 0, no spawn
    /// override, selection cleared (facts 4.8).
    pub fn sunrise_default(state: i8) -> Self {
        Self {
            state,
            quality_bypass: 0,
            join_flag_inverted: false,
            marker_revision: 0,
            spawn_entry_hash: 0,
            current_bubble: 0,
            switches: vec![Switch {
                key: SWITCH_WAITING,
                value: Some(0),
            }],
            unused: 0,
            spawn_pairs: [SpawnPair::OFF; SPAWN_PAIRS],
            cycle_override_on: false,
            cycle_phase: 0,
            selection_id: -1,
            selection_target: ClientRef {
                key: 0,
                slot_type: 0,
                index: 0,
            },
            selection_arg: 0,
        }
    }
}

/// The type-17 Auth body (AH "Type 17, activity_lifetime_sensor"; facts 4.8).
impl Body for LifetimeAuth {
    type Decoded = Self;

    /// Writes the body; the switch list is clamped to 50 (BODY-05, T17-03), and a state
    /// outside -1 to 10 is refused (T17-01).
    fn write(&self, w: &mut BitWriter) {
        if !(STATE_MIN..=STATE_MAX).contains(&self.state) {
            w.fail(BitError::Unsafe {
                what: "type-17 lifetime state",
                value: i64::from(self.state),
            });
        }
        w.write_biased(i64::from(self.state), STATE_BIAS, 4);
        w.write_biased(i64::from(self.quality_bypass), 1, 3);
        w.write_bool(self.join_flag_inverted);
        w.write_i32(self.marker_revision);
        w.write(u64::from(self.spawn_entry_hash), 32);
        w.write_i32(self.current_bubble);
        let switches = self.switches.get(..MAX_SWITCHES).unwrap_or(&self.switches);
        w.write(switches.len() as u64, 6);
        for s in switches {
            w.write(u64::from(s.key), 32);
            w.write_bool(s.value.is_some());
            if let Some(v) = s.value {
                w.write(u64::from(SWITCH_CLASS_I32), 32);
                w.write_i32(v);
            }
        }
        w.write_i32(self.unused);
        for p in self.spawn_pairs {
            w.write_biased(i64::from(p.index), 1, 10);
            w.write(u64::from(p.hash), 32);
        }
        w.write_bool(self.cycle_override_on);
        w.write(u64::from(self.cycle_phase), 32);
        w.write_i32(self.selection_id);
        self.selection_target.write(w);
        w.write(u64::from(self.selection_arg), 32);
        w.write(0, DEFINITION_REF_COUNT_BITS);
    }

    /// Reads the body. A switch value of a class other than i32 cannot be sized, so it
    /// fails the read at that bit.
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let state = r.read_biased(STATE_BIAS, 4)? as i8;
        let quality_bypass = r.read_biased(1, 3)? as i8;
        let join_flag_inverted = r.read_bool()?;
        let marker_revision = r.read_i32()?;
        let spawn_entry_hash = r.read(32)? as u32;
        let current_bubble = r.read_i32()?;
        let count = r.read(6)?;
        let mut switches = Vec::new();
        for _ in 0..count {
            let key = r.read(32)? as u32;
            let value = if r.read_bool()? {
                let class = r.read(32)?;
                if class != u64::from(SWITCH_CLASS_I32) {
                    return Err(BitError::UnknownShape {
                        at: r.position() - 32,
                        what: "a switch value of a class other than i32",
                    });
                }
                Some(r.read_i32()?)
            } else {
                None
            };
            switches.push(Switch { key, value });
        }
        let unused = r.read_i32()?;
        let mut spawn_pairs = [SpawnPair::OFF; SPAWN_PAIRS];
        for p in &mut spawn_pairs {
            p.index = r.read_biased(1, 10)? as i16;
            p.hash = r.read(32)? as u32;
        }
        let body = Self {
            state,
            quality_bypass,
            join_flag_inverted,
            marker_revision,
            spawn_entry_hash,
            current_bubble,
            switches,
            unused,
            spawn_pairs,
            cycle_override_on: r.read_bool()?,
            cycle_phase: r.read(32)? as u32,
            selection_id: r.read_i32()?,
            selection_target: ClientRef::read(r)?,
            selection_arg: r.read(32)? as u32,
        };
        let at = r.position();
        match r.read(DEFINITION_REF_COUNT_BITS)? {
            0 => Ok(body),
            _ => Err(BitError::UnknownShape {
                at,
                what: "type-17 definition refs",
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::written_bits;

    fn bits_of(a: &LifetimeAuth) -> usize {
        let mut w = BitWriter::measuring();
        a.write(&mut w);
        w.bit_len()
    }

    #[test]
    fn minimum_is_423_bits_and_one_switch_is_520() {
        let mut a = LifetimeAuth::sunrise_default(3);
        assert_eq!(bits_of(&a), 520);
        a.switches.clear();
        assert_eq!(bits_of(&a), LIFETIME_MIN_BITS);
    }

    #[test]
    fn round_trip_and_switch_clamp() {
        let mut a = LifetimeAuth::sunrise_default(10);
        a.switches = vec![
            Switch {
                key: 1,
                value: Some(-5)
            };
            60
        ];
        assert_eq!(a.measure(), Ok(LIFETIME_MIN_BITS + 50 * 97));
        let bytes = a.encode().unwrap();
        let back = LifetimeAuth::read(&mut BitReader::new(&bytes)).unwrap();
        assert_eq!(back.switches.len(), 50);
        assert_eq!(back.state, 10);
    }

    /// T17-01: states 11 to 14 crash the client, so the encoder refuses them.
    #[test]
    fn crashing_states_are_refused() {
        for state in [-1, 10] {
            assert!(
                LifetimeAuth::sunrise_default(state).encode().is_ok(),
                "state {state}"
            );
        }
        assert!(matches!(
            LifetimeAuth::sunrise_default(11).encode(),
            Err(BitError::Unsafe { value: 11, .. })
        ));
    }

    #[test]
    fn definition_refs_cannot_be_read() {
        let mut bits = written_bits(|w| LifetimeAuth::sunrise_default(3).write(w)).unwrap();
        let last = bits.bit_len - 1; // the low bit of the 3-bit count
        bits.bytes[last / 8] |= 0x80 >> (last % 8);
        assert!(matches!(
            LifetimeAuth::read(&mut bits.reader()),
            Err(BitError::UnknownShape { .. })
        ));
    }

    #[test]
    fn state_wire_is_state_plus_one() {
        let bytes = LifetimeAuth::sunrise_default(3).encode().unwrap();
        assert_eq!(bytes[0] >> 4, 4, "state 3 goes on the wire as 4");
    }
}
