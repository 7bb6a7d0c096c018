//! The Auth bodies of the slot types whose rules the pages give, checked as the client
//! applies each against the body it held before (AH "Key slot types", "Values that crash
//! the client"; T17-01, T17-04, T17-06, T17-07, T17-09, T65-01, T65-02, SLOT-03), and the
//! parts of a type-3 body a new one resets (T3-01, T3-02), which the roster judges.

use crate::rules::Rule;
use crate::verdict::{Verdict, key_of};
use vex_wire::activity::slot::{TYPE_GHOST_LINK, TYPE_LIFETIME, TYPE_TIMER};
use vex_wire::schema::Value;
use vex_wire::tag::FNV1_EMPTY;

/// Type-17 field indices (AH "Type 17").
mod lifetime {
    pub(super) const STATE: usize = 0;
    pub(super) const JOIN_FLAG_INVERTED: usize = 2;
    pub(super) const CURRENT_BUBBLE: usize = 5;
    pub(super) const SPAWN_OVERRIDE: usize = 8;
    pub(super) const CYCLE_OVERRIDE_ON: usize = 9;
    pub(super) const SELECTION_ID: usize = 11;
}
/// The safe type-17 states (T17-01).
const LIFETIME_STATES: std::ops::RangeInclusive<i128> = -1..=10;
/// The lifetime states the player spawn gate accepts (SEED-05).
const SPAWN_STATES: [i128; 3] = [3, 6, 10];
/// selection_id: 0 to 63 installs a record, -1 clears it (T17-09).
const SELECTION_IDS: std::ops::RangeInclusive<i128> = -1..=63;
/// A spawn-point pair's index when the pair is off: wire 0 (T17-04).
const PAIR_OFF_INDEX: i128 = -1;

/// What the client's packages say of the activity a body applies in: its bubbles (the
/// bubble count message 1 carries, GLOBAL-02), and whether it authors a cycle phase.
#[derive(Debug, Clone, Copy)]
pub(super) struct Standing {
    pub(super) bubble_count: u8,
    pub(super) authored_phase: bool,
}

/// The lifetime state of `body`, a type-17 body.
pub(super) fn lifetime_state(body: &Value) -> Option<i128> {
    match body {
        Value::Record(f) => int(f, lifetime::STATE),
        _ => None,
    }
}

/// True when lifetime `state` opens the player spawn gate (SEED-05).
pub(super) fn opens_spawn_gate(state: i128) -> bool {
    SPAWN_STATES.contains(&state)
}

/// Where a body sits, for reports: the frame, and the block's bit offset.
#[derive(Debug, Clone, Copy)]
pub(super) struct At {
    pub(super) idx: u64,
    pub(super) bit: usize,
}

fn int(fields: &[Value], i: usize) -> Option<i128> {
    match fields.get(i) {
        Some(Value::Int(v)) => Some(*v),
        _ => None,
    }
}

fn report(verdict: &mut Verdict, at: At, rule: Rule, reason: String) {
    verdict.violate(rule, Some(at.idx), Some(at.bit), reason);
}

/// A breach a body of every message may repeat: reported once for what `key` names, then
/// counted (`Verdict::violate_again`).
fn again(verdict: &mut Verdict, at: At, rule: Rule, key: u64, reason: impl FnOnce() -> String) {
    verdict.violate_again(rule, (Some(at.idx), Some(at.bit)), key, reason);
}

/// A body of `slot_type` the client applies over `held`, the body it had before.
pub(super) fn check(
    verdict: &mut Verdict,
    at: At,
    slot_type: i8,
    body: &Value,
    held: Option<&Value>,
    standing: Standing,
) {
    let Value::Record(fields) = body else {
        return;
    };
    let held = match held {
        Some(Value::Record(h)) => Some(h.as_slice()),
        _ => None,
    };
    match slot_type {
        TYPE_LIFETIME => check_lifetime(verdict, at, fields, standing),
        TYPE_GHOST_LINK => check_ghost(verdict, at, fields, held),
        TYPE_TIMER => check_timer(verdict, at, fields),
        _ => {}
    }
}

/// Type 17: a state the client survives (T17-01); current_bubble one of the activity's
/// bubbles, not a slice set (T17-06: "the bubble the activity treats as current", which
/// need not be the one this member stands in); cycle_override_on only where the activity
/// authors a phase (T17-08); join_flag_inverted 1 (T17-07); each
/// spawn-point pair either on or off in both halves (T17-04); selection_id -1 to 63
/// (T17-09). Whether the spawn gate ever opens (SEED-05) is judged at the run's end
/// (`Roster::check_spawned`): a loading state before the live one holds nothing for good.
fn check_lifetime(verdict: &mut Verdict, at: At, fields: &[Value], standing: Standing) {
    if let Some(state) = int(fields, lifetime::STATE).filter(|s| !LIFETIME_STATES.contains(s)) {
        again(verdict, at, Rule::T1701, key_of([state as u64]), || {
            format!("type-17 lifetime state {state}: states 11 to 14 jump through a 12-entry table")
        });
    }
    let bubbles = 0..i128::from(standing.bubble_count);
    if let Some(current) = int(fields, lifetime::CURRENT_BUBBLE).filter(|c| !bubbles.contains(c)) {
        again(verdict, at, Rule::T1706, key_of([current as u64]), || {
            let what = if current > 0 && current % 8 == 0 {
                format!("{current}, a slice set (bubble {})", current / 8)
            } else {
                current.to_string()
            };
            format!(
                "type-17 current_bubble is {what}, not a bubble of the activity's {}: the client's current-bubble tests fail",
                standing.bubble_count
            )
        });
    }
    if fields.get(lifetime::CYCLE_OVERRIDE_ON) == Some(&Value::Bool(true))
        && !standing.authored_phase
    {
        again(verdict, at, Rule::T1708, 0, || {
            "type-17 cycle_override_on is 1 in an activity that authors no cycle phase: the host owns no phase to pin, and the client's phase is pinned to cycle_phase".to_string()
        });
    }
    if fields.get(lifetime::JOIN_FLAG_INVERTED) == Some(&Value::Bool(false)) {
        again(verdict, at, Rule::T1707, 0, || {
            "type-17 join_flag_inverted is 0: it raises bit 3 of the join-policy flags, which the character data carries back to the server".to_string()
        });
    }
    if let Some(Value::Array(pairs)) = fields.get(lifetime::SPAWN_OVERRIDE) {
        for (i, pair) in pairs.iter().enumerate() {
            let Value::Record(p) = pair else { continue };
            let (Some(index), Some(hash)) = (int(p, 0), int(p, 1)) else {
                continue;
            };
            let off_hash = hash == i128::from(FNV1_EMPTY);
            if off_hash != (index == PAIR_OFF_INDEX) {
                let key = key_of([i as u64, index as u64, hash as u64]);
                again(verdict, at, Rule::T1704, key, || {
                    format!(
                        "type-17 spawn-point pair {i} is half off: index {index} (wire {}) with hash {hash:#x}; off is index 0 on the wire with hash {FNV1_EMPTY:#x}",
                        index + 1
                    )
                });
            }
        }
    }
    if let Some(id) = int(fields, lifetime::SELECTION_ID).filter(|id| !SELECTION_IDS.contains(id)) {
        again(verdict, at, Rule::T1709, key_of([id as u64]), || {
            format!(
                "type-17 selection_id {id}: 0 to 63 installs a record and -1 clears it (zero bits decode to INT32_MIN)"
            )
        });
    }
}

/// A part of a held body that a new body resets: the part and what it held.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Part {
    /// The whole body: a reset-only block installs the schema's defaults (AUTH-09).
    Body(Value),
    /// A type-3 objective's byte: a clear presence bit hands the applier a zero (T3-01).
    Objective(usize, i128),
    /// A type-3 reset generation: a change clears the latch bits (T3-02).
    Generation(i128),
}

impl Part {
    /// The rule a forgotten part breaks.
    pub(super) fn rule(&self) -> Rule {
        match self {
            Part::Body(_) => Rule::Auth09,
            Part::Objective(..) => Rule::T301,
            Part::Generation(_) => Rule::T302,
        }
    }

    /// True when `body`, the body the slot holds now, holds the part again.
    pub(super) fn back_in(&self, body: Option<&Value>) -> bool {
        let fields = match body {
            Some(Value::Record(f)) => f.as_slice(),
            _ => return false,
        };
        match self {
            Part::Body(held) => body == Some(held),
            Part::Objective(i, byte) => objective_bytes(fields).get(*i) == Some(byte),
            Part::Generation(g) => int(fields, 1) == Some(*g),
        }
    }

    /// What the part held, for a report.
    pub(super) fn what(&self) -> String {
        match self {
            Part::Body(_) => "the body it held".into(),
            Part::Objective(i, byte) => format!("objective {i}'s byte {byte}"),
            Part::Generation(g) => format!("reset generation {g}"),
        }
    }
}

fn objective_bytes(fields: &[Value]) -> Vec<i128> {
    match fields.first() {
        Some(Value::Array(entries)) => entries
            .iter()
            .map(|e| match e {
                Value::Record(v) => int(v, 0).unwrap_or(0),
                _ => 0,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The parts of `held`, a type-3 body, that `body` resets: an objective that held a byte
/// and comes without one is handed a zero and reset (T3-01); a generation that comes
/// without a value after one was held changes to zero, which clears the latch bits
/// (T3-02). Either may be what the host means (AH "Type 3, objective_sensor"): the roster
/// judges them only where the host cannot have meant them.
pub(super) fn objective_resets(body: &Value, held: Option<&Value>) -> Vec<Part> {
    let (Value::Record(fields), Some(Value::Record(held))) = (body, held) else {
        return Vec::new();
    };
    let (before, now) = (objective_bytes(held), objective_bytes(fields));
    let mut parts: Vec<Part> = before
        .iter()
        .enumerate()
        .filter(|(i, b)| **b != 0 && now.get(*i).copied().unwrap_or(0) == 0 && absent(fields, *i))
        .map(|(i, b)| Part::Objective(i, *b))
        .collect();
    let held_generation = int(held, 1).filter(|g| *g != 0);
    if let (Some(g), Some(Value::Absent)) = (held_generation, fields.get(1)) {
        parts.push(Part::Generation(g));
    }
    parts
}

/// The generation a type-3 `body` moves to from `held`'s with every objective byte kept,
/// if it does: the latch bits are cleared and nothing else changed (T3-02).
pub(super) fn lone_generation_move(body: &Value, held: Option<&Value>) -> Option<i128> {
    let (Value::Record(fields), Some(Value::Record(held))) = (body, held) else {
        return None;
    };
    let generation = int(fields, 1)?;
    let moved = int(held, 1) != Some(generation);
    (moved && objective_bytes(held) == objective_bytes(fields)).then_some(generation)
}

/// True when objective `i` of a type-3 body, or the whole array, has its presence bit clear.
fn absent(fields: &[Value], i: usize) -> bool {
    match fields.first() {
        Some(Value::Array(entries)) => {
            matches!(entries.get(i), Some(Value::Record(v)) if v.first() == Some(&Value::Absent))
        }
        _ => true,
    }
}

/// Type 65: a change of `.1` acts only with a generation above the stored one (T65-01).
fn check_ghost(verdict: &mut Verdict, at: At, fields: &[Value], held: Option<&[Value]>) {
    let Some(held) = held else { return };
    let (Some(stored), Some(generation)) = (int(held, 0), int(fields, 0)) else {
        return;
    };
    if fields.get(1) != held.get(1) && generation <= stored {
        let reason = format!(
            "type-65 active changes with generation {generation}, not above the stored {stored}: the change does nothing"
        );
        report(verdict, at, Rule::T6501, reason);
    }
}

/// Type 18: a body whose clock window (its first field) has every field zero is no
/// neutral stand-in for an authored timer, so a slot without a real timer goes
/// reset-only (SLOT-03; AH "How an Auth table is encoded": the constructor seeds the
/// maximum with 365 days). Type 35 carries the window too; Vex has no type-35 body.
fn check_timer(verdict: &mut Verdict, at: At, fields: &[Value]) {
    let Some(Value::Record(window)) = fields.first() else {
        return;
    };
    if window.iter().all(Value::is_zero) {
        let reason = "type-18 body with a zeroed clock window (not running, minimum, maximum, value, remaining, epoch and rate all 0): not a neutral timer; without a real timer the slot goes reset-only".to_string();
        report(verdict, at, Rule::Slot03, reason);
    }
}

/// A Sense override of `slot_type` over the Auth body `held`: a ghost link's finishes the
/// scan only with a fraction above 1.0 and the Auth's current generation (T65-02).
pub(super) fn check_sense(
    verdict: &mut Verdict,
    at: At,
    slot_type: i8,
    sense: &Value,
    held: Option<&Value>,
) {
    let (TYPE_GHOST_LINK, Value::Record(fields)) = (slot_type, sense) else {
        return;
    };
    let fraction = match fields.get(1) {
        Some(Value::Raw { bits, width: 32 }) => f32::from_bits(*bits as u32),
        _ => return,
    };
    if fraction == 1.0 {
        let reason = "type-65 Sense override with fraction exactly 1.0: the scan bar does not finish; a fraction above 1.0 does".to_string();
        report(verdict, at, Rule::T6502, reason);
    }
    if fraction > 1.0 && fields.first() != Some(&Value::Bool(true)) {
        let reason = "type-65 Sense override above 1.0 with active false: the scan bar finishes only with active true".to_string();
        report(verdict, at, Rule::T6502, reason);
    }
    let current = match held {
        Some(Value::Record(h)) => int(h, 0),
        _ => None,
    };
    let generation = int(fields, 2);
    if fraction >= 1.0 && generation != current {
        let reason = format!(
            "type-65 Sense override with generation {generation:?}, not the Auth's current {current:?}: the scan bar does not finish"
        );
        report(verdict, at, Rule::T6502, reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lifetime_body() -> Vec<Value> {
        let pair = |index: i128, hash: u32| {
            Value::Record(vec![Value::Int(index), Value::Int(hash.into())])
        };
        let mut f = vec![Value::Int(0); 15];
        f[lifetime::STATE] = Value::Int(3);
        f[lifetime::JOIN_FLAG_INVERTED] = Value::Bool(true);
        f[lifetime::CURRENT_BUBBLE] = Value::Int(1);
        f[lifetime::SPAWN_OVERRIDE] = Value::Array(vec![
            pair(-1, FNV1_EMPTY),
            pair(8, 0x1234),
            pair(-1, FNV1_EMPTY),
        ]);
        f[lifetime::SELECTION_ID] = Value::Int(-1);
        f
    }

    fn rules(slot_type: i8, body: Vec<Value>, held: Option<Vec<Value>>) -> Vec<Rule> {
        let mut v = Verdict::new();
        let held = held.map(Value::Record);
        check(
            &mut v,
            At { idx: 1, bit: 0 },
            slot_type,
            &Value::Record(body),
            held.as_ref(),
            Standing {
                bubble_count: 2,
                authored_phase: false,
            },
        );
        v.rules()
    }

    /// A body that keeps every type-17 rule passes; each breach, at each field and
    /// boundary the rules name, is caught by its own rule.
    #[test]
    fn every_lifetime_field_is_judged() {
        assert!(rules(TYPE_LIFETIME, lifetime_body(), None).is_empty());
        let breaches: Vec<(usize, Value, Rule)> = vec![
            (lifetime::STATE, Value::Int(11), Rule::T1701),
            (lifetime::STATE, Value::Int(-2), Rule::T1701),
            (lifetime::CURRENT_BUBBLE, Value::Int(8), Rule::T1706),
            (lifetime::CURRENT_BUBBLE, Value::Int(2), Rule::T1706),
            (lifetime::CURRENT_BUBBLE, Value::Int(-1), Rule::T1706),
            (
                lifetime::CURRENT_BUBBLE,
                Value::Int(i32::MIN.into()),
                Rule::T1706,
            ),
            (
                lifetime::JOIN_FLAG_INVERTED,
                Value::Bool(false),
                Rule::T1707,
            ),
            (lifetime::SELECTION_ID, Value::Int(64), Rule::T1709),
            (
                lifetime::SELECTION_ID,
                Value::Int(i32::MIN.into()),
                Rule::T1709,
            ),
        ];
        for (field, value, rule) in breaches {
            let mut body = lifetime_body();
            body[field] = value.clone();
            assert_eq!(
                rules(TYPE_LIFETIME, body, None),
                [rule],
                "{field} = {value:?}"
            );
        }
        for (field, edge, want) in [
            (lifetime::STATE, 10, vec![]),
            (lifetime::STATE, 6, vec![]),
            (lifetime::STATE, -1, vec![]),
            (lifetime::STATE, 1, vec![]),
            (lifetime::CURRENT_BUBBLE, 0, vec![]),
            (lifetime::CURRENT_BUBBLE, 1, vec![]),
            (lifetime::SELECTION_ID, 63, vec![]),
            (lifetime::SELECTION_ID, -1, vec![]),
        ] {
            let mut body = lifetime_body();
            body[field] = Value::Int(edge);
            assert_eq!(rules(TYPE_LIFETIME, body, None), want, "{field} = {edge}");
        }
    }

    /// T17-08: cycle_override_on set in an activity that authors no phase is caught; off,
    /// or set where the activity authors one, passes (whatever cycle_phase holds, which is
    /// read only while the override is on).
    #[test]
    fn the_cycle_override_needs_an_authored_phase() {
        for (on, authored, want) in [
            (true, false, vec![Rule::T1708]),
            (false, false, vec![]),
            (true, true, vec![]),
            (false, true, vec![]),
        ] {
            let mut body = lifetime_body();
            body[lifetime::CYCLE_OVERRIDE_ON] = Value::Bool(on);
            body[lifetime::CYCLE_OVERRIDE_ON + 1] = Value::Raw {
                bits: u128::from(0.75f32.to_bits()),
                width: 32,
            };
            let mut v = Verdict::new();
            let standing = Standing {
                bubble_count: 2,
                authored_phase: authored,
            };
            let at = At { idx: 1, bit: 0 };
            check(
                &mut v,
                at,
                TYPE_LIFETIME,
                &Value::Record(body),
                None,
                standing,
            );
            assert_eq!(v.rules(), want, "override {on}, authored phase {authored}");
        }
    }

    /// A spawn pair is off in both halves or on in both; every half-off pair, at each of
    /// the three positions, is T17-04.
    #[test]
    fn half_off_spawn_pairs_are_caught_at_every_position() {
        for i in 0..3 {
            for (index, hash) in [(0, FNV1_EMPTY), (-1, 0), (-1, 0x1234)] {
                let mut body = lifetime_body();
                if let Value::Array(pairs) = &mut body[lifetime::SPAWN_OVERRIDE] {
                    pairs[i] = Value::Record(vec![Value::Int(index), Value::Int(hash.into())]);
                }
                assert_eq!(
                    rules(TYPE_LIFETIME, body, None),
                    [Rule::T1704],
                    "pair {i}: {index}, {hash:#x}"
                );
            }
        }
    }

    fn objective(bytes: &[Option<i128>], generation: Option<i128>) -> Vec<Value> {
        let entries = bytes
            .iter()
            .map(|b| Value::Record(vec![b.map_or(Value::Absent, Value::Int)]))
            .collect();
        vec![
            Value::Array(entries),
            generation.map_or(Value::Absent, Value::Int),
        ]
    }

    /// T3-01: an objective that held a byte comes absent; re-sending it, or an absent one
    /// that held zero, resets nothing. T3-02: a held generation comes absent; a new one is
    /// a reset asked for. Each reset part is back in a body that holds it again.
    #[test]
    fn objective_resets_are_each_part_a_body_loses() {
        let held = Value::Record(objective(&[Some(3), Some(0), Some(5)], Some(1)));
        let resets = |body: Vec<Value>| objective_resets(&Value::Record(body), Some(&held));
        assert!(resets(objective(&[Some(3), None, Some(5)], Some(1))).is_empty());
        for dropped in [0, 2] {
            let mut bytes = [Some(3), Some(0), Some(5)];
            bytes[dropped] = None;
            let byte = if dropped == 0 { 3 } else { 5 };
            assert_eq!(
                resets(objective(&bytes, Some(1))),
                [Part::Objective(dropped, byte)],
                "objective {dropped}"
            );
        }
        assert_eq!(
            resets(vec![Value::Absent, Value::Int(1)]),
            [Part::Objective(0, 3), Part::Objective(2, 5)]
        );
        let no_generation = resets(objective(&[Some(3), Some(0), Some(5)], None));
        assert_eq!(no_generation, [Part::Generation(1)]);
        assert_eq!(no_generation[0].rule(), Rule::T302);
        assert!(
            resets(objective(&[Some(3), Some(0), Some(5)], Some(2))).is_empty(),
            "a reset asked for"
        );
        assert!(Part::Objective(0, 3).back_in(Some(&held)));
        assert!(!Part::Objective(1, 3).back_in(Some(&held)));
        assert!(Part::Generation(1).back_in(Some(&held)));
        assert!(!Part::Generation(2).back_in(Some(&held)));
        assert!(Part::Body(held.clone()).back_in(Some(&held)));
        assert!(!Part::Body(held).back_in(None));
    }

    /// T65-01: active changes only with a generation above the stored one; equal and
    /// lower are caught, higher passes, and the same active with any generation passes.
    #[test]
    fn a_ghost_change_needs_a_higher_generation() {
        let ghost = |g: i128, active: bool| vec![Value::Int(g), Value::Bool(active), Value::Int(0)];
        let held = Some(ghost(2, true));
        assert_eq!(
            rules(TYPE_GHOST_LINK, ghost(2, false), held.clone()),
            [Rule::T6501]
        );
        assert_eq!(
            rules(TYPE_GHOST_LINK, ghost(1, false), held.clone()),
            [Rule::T6501]
        );
        assert!(rules(TYPE_GHOST_LINK, ghost(3, false), held.clone()).is_empty());
        assert!(rules(TYPE_GHOST_LINK, ghost(2, true), held).is_empty());
    }

    fn timer(window: [Value; 7]) -> Vec<Value> {
        vec![
            Value::Record(window.to_vec()),
            Value::Bool(false),
            Value::Int(0),
        ]
    }

    /// SLOT-03: a type-18 window with every field zero is caught; one that keeps any one
    /// field (running, a bound, the value, the remaining time, the epoch, the rate) is a
    /// timer and passes, and so does a window whose rate is -0.0 (its bits are not zero).
    #[test]
    fn a_zeroed_timer_window_is_caught() {
        let zero = || {
            [
                Value::Bool(false),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                Value::Raw { bits: 0, width: 32 },
            ]
        };
        assert_eq!(rules(TYPE_TIMER, timer(zero()), None), [Rule::Slot03]);
        let mut tail = timer(zero());
        tail[1] = Value::Bool(true);
        tail[2] = Value::Int(5);
        assert_eq!(
            rules(TYPE_TIMER, tail, None),
            [Rule::Slot03],
            "the tail is not the window"
        );
        for i in 0..7 {
            let mut window = zero();
            window[i] = match i {
                0 => Value::Bool(true),
                6 => Value::Raw {
                    bits: u128::from(1.0f32.to_bits()),
                    width: 32,
                },
                _ => Value::Int(1),
            };
            assert!(
                rules(TYPE_TIMER, timer(window), None).is_empty(),
                "field {i}"
            );
        }
        let mut negative_zero = zero();
        negative_zero[6] = Value::Raw {
            bits: u128::from((-0.0f32).to_bits()),
            width: 32,
        };
        assert!(rules(TYPE_TIMER, timer(negative_zero), None).is_empty());
    }

    /// T65-02: a finishing override needs active true, a fraction above 1.0 (1.0 does not
    /// finish) and the Auth's current generation.
    #[test]
    fn a_ghost_finish_is_judged_at_each_field() {
        let held = Value::Record(vec![Value::Int(3), Value::Bool(true), Value::Int(0)]);
        let sense = |active: bool, fraction: f32, generation: i128| {
            Value::Record(vec![
                Value::Bool(active),
                Value::Raw {
                    bits: fraction.to_bits().into(),
                    width: 32,
                },
                Value::Int(generation),
            ])
        };
        let rules = |s: Value| {
            let mut v = Verdict::new();
            check_sense(
                &mut v,
                At { idx: 1, bit: 0 },
                TYPE_GHOST_LINK,
                &s,
                Some(&held),
            );
            v.rules()
        };
        assert!(rules(sense(true, 1.5, 3)).is_empty());
        assert!(
            rules(sense(true, 0.5, 3)).is_empty(),
            "progress, not a finish"
        );
        assert_eq!(rules(sense(true, 1.0, 3)), [Rule::T6502]);
        assert_eq!(rules(sense(false, 1.5, 3)), [Rule::T6502]);
        assert_eq!(rules(sense(true, 1.5, 2)), [Rule::T6502]);
    }

    /// T3-02's lone move: a generation moved with every byte kept is one; a byte moved with
    /// it, the generation kept, or no body held before, is none.
    #[test]
    fn a_generation_moved_alone_is_seen() {
        let body = |byte: i128, generation: Value| {
            let entries = vec![Value::Record(vec![Value::Int(byte)]); 24];
            Value::Record(vec![Value::Array(entries), generation])
        };
        let held = body(1, Value::Int(4));
        let moved = body(1, Value::Int(5));
        assert_eq!(lone_generation_move(&moved, Some(&held)), Some(5));
        assert_eq!(
            lone_generation_move(&body(2, Value::Int(5)), Some(&held)),
            None
        );
        assert_eq!(lone_generation_move(&held, Some(&held)), None);
        assert_eq!(lone_generation_move(&moved, None), None);
        assert_eq!(
            lone_generation_move(&body(1, Value::Absent), Some(&held)),
            None
        );
    }
}
