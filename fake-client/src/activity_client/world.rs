//! Messages 1, 2 and 54, the activity's world as the host describes it: checked as the
//! client applies them, with nothing kept (AH "global_activity_state",
//! "world_globals_state", "The main messages", "Values that crash the client";
//! GLOBAL-01 to GLOBAL-04, WORLD-01, WORLD-02, BHS-01).

use crate::rules::Rule;
use crate::verdict::{Verdict, bit_of};
use vex_wire::activity::body::Body;
use vex_wire::activity::global_state::{
    BUBBLE_COUNT_BIT, BUBBLE_ENABLED, BUBBLE_SKIPPED, BUBBLE_STATES_BIT, DESCRIPTOR_BIT,
    GlobalActivityState, SLICE_SET_BIT,
};
use vex_wire::activity::ids::{
    BUBBLE_HOST_STATE, CLAIM_AUTHORITY, CONNECTIVITY_FAILURE, WORLD_GLOBALS_STATE,
};
use vex_wire::activity::small::{BUBBLE_HOST_MAX_ROWS, BubbleHostState, WorldGlobals};
use vex_wire::activity::small::{ConnectivityFailure, EntitySlotMask};
use vex_wire::scenario::Scenario;

/// The client's own tick period (AH "world_globals_state").
const DEFAULT_TICK_MS: f32 = 1000.0 / 30.0;
/// How far from 1000 / 30 a tick period may be, relative, and skew no stat the scoreboard
/// shows: 0.1%, which the default written to four figures (33.33) is well within (WORLD-03
/// is judged on the page's "send the client's own default", not on float equality).
const TICK_TOLERANCE: f32 = 1e-3;
/// Bit offset of message 2's tick period, after its flag.
const TICK_PERIOD_BIT: usize = 1;

/// Message 1 (GLOBAL-01 to GLOBAL-04), against the client's `scenario`; the descriptor
/// and the spawn set only when the client sent its `own_selection` in service 6 (not under
/// the malformed-selection probe, where the host falls back to a selection of its own).
/// True when it decoded, so the client applied it.
pub(super) fn check_global_state(
    verdict: &mut Verdict,
    scenario: &Scenario,
    own_selection: bool,
    idx: u64,
    payload: &[u8],
) -> bool {
    let f = Some(idx);
    let m = match GlobalActivityState::decode(payload) {
        Ok(m) => m,
        Err(e) => {
            let reason = format!("message 1 of {} bytes does not decode: {e}", payload.len());
            verdict.violate(Rule::Global01, f, bit_of(&e), reason);
            return false;
        }
    };
    let want = i32::from(scenario.bubble_count);
    if m.bubble_count != want {
        let reason = format!("bubble count {}, the scenario has {want}", m.bubble_count);
        verdict.violate(Rule::Global02, f, Some(BUBBLE_COUNT_BIT), reason);
    }
    let undefined: Vec<usize> = (0..m.bubble_states.len())
        .filter(|&b| ![BUBBLE_ENABLED, BUBBLE_SKIPPED].contains(&m.bubble_states[b]))
        .collect();
    if let Some(&first) = undefined.first() {
        let reason = format!(
            "slice-set state bytes for bubbles {undefined:?} are neither 0x80 (adds the bubble) nor 0x7F (skips it); the bytes carry a bias of 128"
        );
        let bit = BUBBLE_STATES_BIT + 8 * first;
        verdict.violate(Rule::Global03, f, Some(bit), reason);
    }
    check_initial_slice_set(verdict, scenario, own_selection, idx, &m);
    let own = scenario.destination.to_bits().ok();
    if own_selection && own.as_ref() != Some(&m.descriptor) {
        let reason = "the selection descriptor is not the client's own, bit for bit: \"Waiting for Other Players\" stays up".to_string();
        verdict.violate(Rule::Global04, f, Some(DESCRIPTOR_BIT), reason);
    }
    true
}

/// Bit 0 arms the initial slice set, and only then are the slice set and the spawn-set
/// hash read (GLOBAL-07, facts 4.5): an armed one names a slice set of the activity's
/// bubbles and the spawn set the client's selection names. Leaving it unarmed is the
/// host's to choose: the client has its arrival from its own selection.
fn check_initial_slice_set(
    verdict: &mut Verdict,
    scenario: &Scenario,
    own_selection: bool,
    idx: u64,
    m: &GlobalActivityState,
) {
    let f = Some(idx);
    if !m.arm_initial_slice_set {
        return;
    }
    let bubbles = i16::from(scenario.bubble_count);
    if !(0..bubbles * 8).contains(&m.initial_slice_set) {
        let reason = format!(
            "the armed initial slice set {} is not one of the activity's {bubbles} bubbles",
            m.initial_slice_set
        );
        verdict.violate(Rule::Global07, f, Some(SLICE_SET_BIT), reason);
    }
    if let Some(want) = scenario
        .destination
        .spawn_hash
        .filter(|h| own_selection && *h != m.spawn_set_hash)
    {
        let reason = format!(
            "the armed spawn set {:#x} is not the one the client's selection names ({want:#x})",
            m.spawn_set_hash
        );
        verdict.violate(Rule::Global07, f, Some(SLICE_SET_BIT + 10), reason);
    }
}

/// Message 2: the tick period runs the activity clock only when positive (WORLD-01),
/// NaN splits the two readers (WORLD-02), and the scoreboard expects the client's own
/// default, 1000 / 30 ms (WORLD-03).
pub(super) fn check_world_globals(verdict: &mut Verdict, idx: u64, payload: &[u8]) {
    let m = match WorldGlobals::decode(payload) {
        Ok(m) => m,
        Err(e) => {
            return verdict.undecodable(Rule::Body04, idx, WORLD_GLOBALS_STATE, payload.len(), &e);
        }
    };
    let f = Some(idx);
    if m.tick_ms.is_nan() {
        let reason = "tick period is NaN: one reader runs the clock, the other freezes it".into();
        verdict.violate(Rule::World02, f, Some(TICK_PERIOD_BIT), reason);
    } else if m.tick_ms <= 0.0 {
        let reason = format!("tick period {} ms freezes the activity clock", m.tick_ms);
        verdict.violate(Rule::World01, f, Some(TICK_PERIOD_BIT), reason);
    } else if ((m.tick_ms - DEFAULT_TICK_MS) / DEFAULT_TICK_MS).abs() > TICK_TOLERANCE {
        let reason = format!(
            "tick period {} ms, not the client's own 1000 / 30: the scoreboard's per-second stats skew",
            m.tick_ms
        );
        verdict.violate(Rule::World03, f, Some(TICK_PERIOD_BIT), reason);
    }
}

/// Message 24: a 1,024-byte mask; one shorter does not decode (BODY-04).
pub(super) fn check_claim(verdict: &mut Verdict, idx: u64, payload: &[u8]) {
    if let Err(e) = EntitySlotMask::decode(payload) {
        verdict.undecodable(Rule::Body04, idx, CLAIM_AUTHORITY, payload.len(), &e);
    }
}

/// Message 37: one peer key and a 2-bit reason, 66 bits; one shorter does not decode
/// (BODY-04). It is diagnostic only (AH "The main messages").
pub(super) fn check_connectivity_failure(verdict: &mut Verdict, idx: u64, payload: &[u8]) {
    if let Err(e) = ConnectivityFailure::decode(payload) {
        verdict.undecodable(Rule::Body04, idx, CONNECTIVITY_FAILURE, payload.len(), &e);
    }
}

/// Message 54: more than 32 rows write past the client's table (BHS-01); a body that
/// does not decode is dropped (BODY-04).
pub(super) fn check_bubble_host_state(verdict: &mut Verdict, idx: u64, payload: &[u8]) {
    let m = match BubbleHostState::decode(payload) {
        Ok(m) => m,
        Err(e) => {
            return verdict.undecodable(Rule::Body04, idx, BUBBLE_HOST_STATE, payload.len(), &e);
        }
    };
    if m.row_count > BUBBLE_HOST_MAX_ROWS {
        let reason = format!("{} rows in a 32-row table", m.row_count);
        verdict.violate(Rule::Bhs01, Some(idx), Some(0), reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::global_state::{GLOBAL_STATE_LEN, MAX_BUBBLES};
    use vex_wire::vectors::global_state_example;

    /// The wire's message 1 example (two bubbles, the second skipped, and the smallest
    /// descriptor, so exactly 146 bytes) with `bubble_count`.
    fn global(bubble_count: i32) -> Vec<u8> {
        GlobalActivityState {
            bubble_count,
            ..global_state_example()
        }
        .encode()
        .unwrap()
    }

    fn global_rules(payload: &[u8]) -> Vec<Rule> {
        let mut v = Verdict::new();
        check_global_state(&mut v, &Scenario::builtin(), false, 1, payload);
        v.rules()
    }

    /// GLOBAL-01: 146 bytes (1,161 bits) decode; 145 do not.
    #[test]
    fn message_1_is_at_least_146_bytes() {
        let body = global(2);
        assert_eq!(body.len(), GLOBAL_STATE_LEN);
        assert!(global_rules(&body).is_empty(), "146 bytes");
        assert_eq!(global_rules(&body[..145]), [Rule::Global01], "145 bytes");
    }

    /// GLOBAL-02: the bubble count is the scenario's 2: one fewer and one more are caught.
    #[test]
    fn the_bubble_count_is_the_scenarios() {
        for (count, want) in [
            (2, vec![]),
            (1, vec![Rule::Global02]),
            (3, vec![Rule::Global02]),
        ] {
            assert_eq!(global_rules(&global(count)), want, "bubble count {count}");
        }
    }

    /// WORLD-01: a positive tick period runs the clock; zero and negative freeze it.
    #[test]
    fn a_tick_period_of_zero_or_less_freezes_the_clock() {
        for (tick_ms, want) in [
            (1000.0 / 30.0, vec![]),
            (0.0, vec![Rule::World01]),
            (-0.0, vec![Rule::World01]),
            (-1000.0 / 30.0, vec![Rule::World01]),
            (-f32::MIN_POSITIVE, vec![Rule::World01]),
            (f32::NEG_INFINITY, vec![Rule::World01]),
        ] {
            let body = WorldGlobals {
                flag: false,
                tick_ms,
            }
            .encode()
            .unwrap();
            let mut v = Verdict::new();
            check_world_globals(&mut v, 1, &body);
            assert_eq!(v.rules(), want, "tick period {tick_ms}");
        }
    }

    /// WORLD-03: the client's own 1000 / 30, and the same written to four or five figures,
    /// pass; a period 0.13% or more off it (33.29, 33.38), a common 60 Hz (16.67) and 50
    /// are caught.
    #[test]
    fn a_tick_period_is_the_clients_own_to_a_tenth_of_a_percent() {
        for (tick_ms, want) in [
            (1000.0 / 30.0, vec![]),
            (33.33, vec![]),
            (33.3333, vec![]),
            (33.31, vec![]),
            (33.36, vec![]),
            (33.29, vec![Rule::World03]),
            (33.38, vec![Rule::World03]),
            (16.67, vec![Rule::World03]),
            (50.0, vec![Rule::World03]),
        ] {
            let body = WorldGlobals {
                flag: false,
                tick_ms,
            }
            .encode()
            .unwrap();
            let mut v = Verdict::new();
            check_world_globals(&mut v, 1, &body);
            assert_eq!(v.rules(), want, "tick period {tick_ms}");
        }
    }

    /// GLOBAL-03: every byte 0x80 or 0x7F passes (the example, and every bubble added);
    /// a single bubble's byte unbiased (logical 0 as 0x00, logical -1 as 0xFF) or off by
    /// one from either (0x81, 0x7E), at the first bubble and the last, is caught at that
    /// byte.
    #[test]
    fn each_slice_set_state_byte_carries_its_bias() {
        let with = |states: [u8; MAX_BUBBLES]| {
            GlobalActivityState {
                bubble_states: states,
                ..global_state_example()
            }
            .encode()
            .unwrap()
        };
        let example = global_state_example().bubble_states;
        assert!(global_rules(&with(example)).is_empty(), "the example");
        let added = [BUBBLE_ENABLED; MAX_BUBBLES];
        assert!(global_rules(&with(added)).is_empty(), "every bubble added");
        for bubble in [0, MAX_BUBBLES - 1] {
            for byte in [0x00, 0xFF, 0x81, 0x7E] {
                let mut states = example;
                states[bubble] = byte;
                let mut v = Verdict::new();
                check_global_state(&mut v, &Scenario::builtin(), false, 1, &with(states));
                let got: Vec<_> = v.violations().iter().map(|x| (x.rule, x.bit)).collect();
                let at = Some(BUBBLE_STATES_BIT + 8 * bubble);
                assert_eq!(
                    got,
                    [(Rule::Global03, at)],
                    "bubble {bubble}, byte {byte:#04x}"
                );
            }
        }
    }

    /// GLOBAL-07: the burst's message 1 arms the initial slice set inside the activity
    /// (two bubbles: slice sets 0 to 15) with the selection's spawn set. Slice sets 0 and
    /// 15 pass; wire 0 (slice set -1) and 16, the first past the activity, are caught, as
    /// is bit 0 clear in the burst (not outside it), and, for a client that sent its own
    /// selection, another spawn set.
    #[test]
    fn the_burst_arms_a_slice_set_of_the_activity_with_its_spawn_set() {
        let scenario = Scenario::builtin();
        let own = GlobalActivityState {
            descriptor: scenario.destination.to_bits().unwrap(),
            spawn_set_hash: scenario.destination.spawn_hash.unwrap(),
            ..global_state_example()
        };
        let judged = |m: &GlobalActivityState| {
            let mut v = Verdict::new();
            check_global_state(&mut v, &scenario, true, 1, &m.encode().unwrap());
            v.rules()
        };
        let cases = [
            ("slice set 0", 0, true, own.spawn_set_hash, vec![]),
            ("slice set 15", 15, true, own.spawn_set_hash, vec![]),
            // facts 4.5: the pair is read only when armed, and nothing asks a host to arm it
            ("not armed", 0, false, 0, vec![]),
            ("not armed, slice set 16", 16, false, 0x5566_7789, vec![]),
            ("wire 0", -1, true, own.spawn_set_hash, vec![Rule::Global07]),
            (
                "slice set 16",
                16,
                true,
                own.spawn_set_hash,
                vec![Rule::Global07],
            ),
            (
                "another spawn set",
                8,
                true,
                0x5566_7789,
                vec![Rule::Global07],
            ),
        ];
        for (what, slice_set, armed, spawn_set_hash, want) in cases {
            let m = GlobalActivityState {
                arm_initial_slice_set: armed,
                initial_slice_set: slice_set,
                spawn_set_hash,
                ..own.clone()
            };
            assert_eq!(judged(&m), want, "{what}");
        }
    }

    /// BHS-01 at the client: 0 and 32 rows pass; 33 and 63 (the 6-bit count's largest)
    /// are caught.
    #[test]
    fn message_54_holds_at_most_32_rows() {
        for (rows, want) in [
            (0u8, vec![]),
            (32, vec![]),
            (33, vec![Rule::Bhs01]),
            (63, vec![Rule::Bhs01]),
        ] {
            let mut v = Verdict::new();
            check_bubble_host_state(&mut v, 1, &[rows << 2]);
            assert_eq!(v.rules(), want, "{rows} rows");
        }
    }

    /// Message 1 of the built-in scenario whose descriptor is `descriptor`, the rest as a
    /// host replaying the client's own selection sends it (the armed spawn set its own).
    fn global_with(descriptor: vex_wire::bits::Bits) -> Vec<u8> {
        let scenario = Scenario::builtin();
        GlobalActivityState {
            descriptor,
            spawn_set_hash: scenario.destination.spawn_hash.unwrap(),
            ..global_state_example()
        }
        .encode()
        .unwrap()
    }

    /// GLOBAL-04: the client's own descriptor replayed bit for bit passes. Its first bit
    /// (the reason), its middle one or its last (the pairs' presence bit) flipped, a
    /// rebuild from the known fields that drops the name (shorter) or adds an optional
    /// hash of 0 (longer), and the smallest descriptor of message 1's example are each
    /// caught at the descriptor's bit. A client that did not send its own selection (the
    /// malformed-selection probe) judges no descriptor.
    #[test]
    fn the_descriptor_is_the_clients_own_bit_for_bit() {
        let scenario = Scenario::builtin();
        let own_descriptor = scenario.destination.to_bits().unwrap();
        let judged = |own_selection: bool, descriptor: vex_wire::bits::Bits| {
            let mut v = Verdict::new();
            check_global_state(
                &mut v,
                &scenario,
                own_selection,
                1,
                &global_with(descriptor),
            );
            let got: Vec<_> = v.violations().iter().map(|x| (x.rule, x.bit)).collect();
            got
        };
        assert_eq!(judged(true, own_descriptor.clone()), [], "the client's own");
        let flipped = |bit: usize| {
            let mut d = own_descriptor.clone();
            d.bytes[bit / 8] ^= 0x80 >> (bit % 8);
            d
        };
        let rebuilt = |change: fn(&mut vex_wire::activity::selection::SelectionDescriptor)| {
            let mut d = scenario.destination.clone();
            change(&mut d);
            d.to_bits().unwrap()
        };
        let middle = own_descriptor.bit_len / 2;
        let last = own_descriptor.bit_len - 1;
        let other: [(&str, vex_wire::bits::Bits); 6] = [
            ("the first bit flipped", flipped(0)),
            ("the last bit flipped", flipped(last)),
            ("a bit in the middle flipped", flipped(middle)),
            ("rebuilt without the name", rebuilt(|d| d.name = None)),
            (
                "rebuilt with an optional hash of 0",
                rebuilt(|d| d.optional_hash = Some(0)),
            ),
            (
                "message 1's example descriptor",
                global_state_example().descriptor,
            ),
        ];
        for (what, descriptor) in other {
            assert_ne!(descriptor, own_descriptor, "{what}");
            assert_eq!(
                judged(true, descriptor.clone()),
                [(Rule::Global04, Some(DESCRIPTOR_BIT))],
                "{what}"
            );
            assert_eq!(
                judged(false, descriptor),
                [],
                "{what}, not the client's own selection"
            );
        }
    }

    /// WORLD-02: NaN in every form (quiet and signalling, either sign, the smallest and
    /// the largest payload), with the flag clear or set, is caught at the tick period's
    /// bit, and only as WORLD-02. Their neighbours are not NaN: the infinities (0x7F800000,
    /// 0xFF800000, one below the smallest NaN payload), the largest finite float and the
    /// client's own default are judged by WORLD-01 or WORLD-03, never WORLD-02.
    #[test]
    fn a_nan_tick_period_is_caught_in_every_form() {
        let judged = |flag: bool, bits: u32| {
            let body = WorldGlobals {
                flag,
                tick_ms: f32::from_bits(bits),
            }
            .encode()
            .unwrap();
            let mut v = Verdict::new();
            check_world_globals(&mut v, 1, &body);
            let got: Vec<_> = v.violations().iter().map(|x| (x.rule, x.bit)).collect();
            got
        };
        for flag in [false, true] {
            for bits in [
                f32::NAN.to_bits(),
                (-f32::NAN).to_bits(),
                0x7F80_0001, // the smallest signalling NaN
                0x7FBF_FFFF, // the largest signalling NaN
                0x7FC0_0000, // the canonical quiet NaN
                0x7FFF_FFFF,
                0xFF80_0001,
                0xFFFF_FFFF,
            ] {
                assert!(f32::from_bits(bits).is_nan());
                assert_eq!(
                    judged(flag, bits),
                    [(Rule::World02, Some(TICK_PERIOD_BIT))],
                    "{bits:#010x}, flag {flag}"
                );
            }
            for (bits, want) in [
                ((1000.0f32 / 30.0).to_bits(), vec![]),
                (0x7F80_0000, vec![Rule::World03]), // +inf
                (f32::MAX.to_bits(), vec![Rule::World03]),
                (0xFF80_0000, vec![Rule::World01]), // -inf
            ] {
                let got: Vec<Rule> = judged(flag, bits).into_iter().map(|(r, _)| r).collect();
                assert_eq!(got, want, "{bits:#010x}, flag {flag}");
            }
        }
    }
}
