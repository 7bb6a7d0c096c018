//! Message 5's roster and object blocks, read the way the client reads them: a block whose
//! slot resolves is read by the slot's own schemas, and only the others are skipped by
//! their remainder (AH "How the client applies an Auth body"). Checked here: AUTH-05,
//! AUTH-06, AUTH-07, AUTH-08, AUTH-12, BODY-05, SLOT-01, SLOT-02, T17-01 and T17-03.

use crate::core::ClientCore;
use crate::rules::Rule;
use std::collections::BTreeSet;
use vex_wire::activity::sensor_auth::{
    DecodedAuthUpdate, DecodedObject, OBJECT_HEAD_BITS, RosterDelta,
};
use vex_wire::activity::slot::{ClientRef, EMPTY_KEY, NEVER_DESCRIBED, SlotSchemas, TYPE_LIFETIME};
use vex_wire::bits::BitReader;
use vex_wire::scenario::{Scenario, SlotDecl};
use vex_wire::schema::{SchemaError, Value, catalog, decode};

/// Bit offset of the bubble-authority block in message 5 (after the token and epoch).
const AUTH_PREFIX_BLOCK_BIT: usize = 136;
/// The safe type-17 states (T17-01).
const LIFETIME_STATES: std::ops::RangeInclusive<i128> = -1..=10;

/// One block as the client reads it by the slot's schemas.
enum Block {
    /// Reset and root when the slot has an Auth schema (AUTH-06), the body, and the Sense
    /// bit when it has a Sense schema: the bits they take, and the body's value.
    Read { bits: usize, body: Option<Value> },
    /// A body or a Sense override with no schema Vex knows: only the remainder delimits it.
    Unknown,
    /// A count above its array's capacity: the client writes past the array (BODY-05).
    OverCapacity {
        path: String,
        count: u64,
        capacity: u16,
    },
}

fn read_block(decl: &SlotDecl, mut r: BitReader<'_>) -> Block {
    let start = r.position();
    let mut body = None;
    if decl.schemas.auth {
        let (Ok(_reset), Ok(root)) = (r.read_bool(), r.read_bool()) else {
            return Block::Unknown;
        };
        if root {
            let Some(schema) = catalog::lookup(&format!("auth:{}", decl.slot_type)) else {
                return Block::Unknown;
            };
            match decode(schema, &mut r) {
                Ok(v) => body = Some(v),
                Err(SchemaError::OverCapacity {
                    path,
                    count,
                    capacity,
                }) => {
                    return Block::OverCapacity {
                        path,
                        count,
                        capacity,
                    };
                }
                Err(_) => return Block::Unknown,
            }
        }
    }
    if decl.schemas.sense && r.read_bool().unwrap_or(true) {
        return Block::Unknown; // a Sense override: no Sense schema is known yet
    }
    Block::Read {
        bits: r.position() - start,
        body,
    }
}

/// The schemas a block whose length is not the slot's was written for: another guess at
/// which schemas the slot has that reads exactly the block's remainder (AUTH-06). A
/// remainder off by just the bits that guess adds reads the same on the wire; the report
/// then names the schema guess and says it could be the remainder (AUTH-05).
fn written_for(decl: &SlotDecl, body: &[u8], object: &DecodedObject) -> Option<SlotSchemas> {
    let start = object.at + OBJECT_HEAD_BITS;
    let mut r = BitReader::with_bit_len(body, start + object.remainder as usize);
    r.skip(start).ok()?;
    [(true, true), (true, false), (false, true), (false, false)]
        .into_iter()
        .map(|(auth, sense)| SlotSchemas { auth, sense })
        .filter(|guess| *guess != decl.schemas)
        .find(|guess| {
            let other = SlotDecl {
                schemas: *guess,
                ..*decl
            };
            matches!(read_block(&other, r.clone()), Block::Read { bits, .. } if bits == object.remainder as usize)
        })
}

/// Which schemas a slot has, in words.
fn describe(schemas: SlotSchemas) -> &'static str {
    match (schemas.auth, schemas.sense) {
        (true, true) => "an Auth and a Sense schema",
        (true, false) => "an Auth schema and no Sense schema",
        (false, true) => "a Sense schema and no Auth schema",
        (false, false) => "neither an Auth nor a Sense schema",
    }
}

/// The keys `roster` registers while `bubble` is current: the top-level keys whose
/// presence bit is set, and those of that bubble's sub-blocks.
pub(crate) fn registered_keys(roster: &RosterDelta, bubble: u8) -> Vec<u32> {
    let present = |keys: &[u32], mask: &[u32]| -> Vec<u32> {
        keys.iter()
            .enumerate()
            .filter(|(i, _)| mask.get(i / 32).is_some_and(|w| w >> (i % 32) & 1 == 1))
            .map(|(_, k)| *k)
            .collect()
    };
    let mut registered = present(&roster.keys, &roster.mask);
    for s in roster
        .sub_blocks
        .iter()
        .flatten()
        .filter(|s| s.bubble == i32::from(bubble))
    {
        registered.extend(present(&s.keys, &s.mask));
    }
    registered
}

/// The length the client reads for `slot`'s block, when the slot resolves.
fn block_bits(scenario: &Scenario, slot: &ClientRef, r: BitReader<'_>) -> Option<usize> {
    let (_, decl) = scenario.schemas_of(slot)?;
    match read_block(&decl, r) {
        Block::Read { bits, .. } => Some(bits),
        Block::Unknown | Block::OverCapacity { .. } => None,
    }
}

impl ClientCore {
    /// Reads message 5's blocks as the client does and checks each the client resolves:
    /// the remainder is the exact length of the block (AUTH-05), every array count fits
    /// its array (BODY-05, T17-03), and a type-17 state is one the client survives
    /// (T17-01). True when the roster was read.
    pub(crate) fn read_roster(&mut self, idx: u64, message: &[u8]) -> bool {
        let scenario = &self.config.scenario;
        let m = match DecodedAuthUpdate::decode_with(message, |slot, r| {
            block_bits(scenario, slot, r)
        }) {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(%e, "message 5 roster not read by the emulated client");
                return false;
            }
        };
        let f = Some(idx);
        self.check_grants(idx, &m);
        for object in m.groups.iter().flat_map(|g| &g.objects) {
            let s = object.slot;
            if !s.is_resolvable() {
                let reason = format!(
                    "slot {:#x}/{}/{}: a type or index of -1 makes the resolver refuse it",
                    s.key, s.slot_type, s.index
                );
                self.violate(Rule::Slot01, f, Some(object.at), reason);
            }
            if NEVER_DESCRIBED.contains(&s.slot_type) {
                let reason = format!("slot type {} never has a descriptor", s.slot_type);
                self.violate(Rule::Slot02, f, Some(object.at), reason);
            }
            let Some((_, decl)) = self.config.scenario.schemas_of(&object.slot) else {
                continue; // skipped by its remainder
            };
            self.check_body_kept(idx, object, &decl);
            let (bits, body) = match read_block(&decl, object.content.reader()) {
                Block::Read { bits, body } => (bits, body),
                Block::Unknown => continue,
                Block::OverCapacity {
                    path,
                    count,
                    capacity,
                } => {
                    let switches = decl.slot_type == TYPE_LIFETIME && path == "switches";
                    let rule = if switches { Rule::T1703 } else { Rule::Body05 };
                    let reason = format!(
                        "slot {:#x}/{}/{}: {path} count {count} is above its capacity {capacity}; the client does not clamp it and writes past the array",
                        s.key, s.slot_type, s.index
                    );
                    self.violate(rule, f, Some(object.at), reason);
                    continue;
                }
            };
            if bits != object.remainder as usize {
                let slot = format!("slot {:#x}/{}/{}", s.key, s.slot_type, s.index);
                match written_for(&decl, message, object) {
                    Some(guess) => {
                        let reason = format!(
                            "{slot}: the block is written for a slot with {} but the slot has {}, and every later bit shifts (or its remainder is off by as many bits)",
                            describe(guess),
                            describe(decl.schemas)
                        );
                        self.violate(Rule::Auth06, f, Some(object.at), reason);
                    }
                    None => {
                        let reason = format!(
                            "{slot}: remainder {} but the block holds {bits} bits; a client that skips it lands elsewhere",
                            object.remainder
                        );
                        self.violate(Rule::Auth05, f, Some(object.at), reason);
                    }
                }
            }
            if decl.slot_type == TYPE_LIFETIME
                && let Some(Value::Record(fields)) = &body
                && let Some(Value::Int(state)) = fields.first()
                && !LIFETIME_STATES.contains(state)
            {
                let reason = format!(
                    "type-17 lifetime state {state}: states 11 to 14 jump through a 12-entry table"
                );
                self.violate(Rule::T1701, f, Some(object.at), reason);
            }
        }
        self.check_apply(idx, &m);
        if let Some(slot) = self.slot.as_mut() {
            slot.roster = m.roster;
        }
        true
    }

    /// A reset-only block installs the schema's defaults over the body the slot got
    /// before, so a host that still holds that body repeats it (AUTH-09).
    fn check_body_kept(&mut self, idx: u64, object: &DecodedObject, decl: &SlotDecl) {
        let Ok(parts) = object.parse(decl.schemas) else {
            return;
        };
        let Some(slot) = self.slot.as_mut() else {
            return;
        };
        let s = object.slot;
        // as the client applies it: a body is kept, reset-only installs the defaults, and
        // reset 0 with root 0 leaves the last body in place
        let reset_only = match (parts.reset, parts.root) {
            (_, Some(true)) => {
                slot.auth_bodies.insert(s);
                false
            }
            (Some(true), Some(false)) => slot.auth_bodies.remove(&s),
            _ => false,
        };
        if reset_only {
            let reason = format!(
                "slot {:#x}/{}/{}: reset-only installs the schema's defaults over the body it got before; unless the host meant to clear that state, it sends the body it still holds",
                s.key, s.slot_type, s.index
            );
            self.violate(Rule::Auth09, Some(idx), Some(object.at), reason);
        }
    }

    /// Grants for bubbles 0 to 63 pass through an arm this build leaves off; only bubble 64
    /// is applied (AUTH-12).
    fn check_grants(&mut self, idx: u64, m: &DecodedAuthUpdate) {
        let Some(block) = &m.prefix.bubble_block else {
            return;
        };
        let gated: Vec<usize> = (0..64)
            .filter(|&b| block.elements.get(b).is_some_and(|e| e.grant.is_some()))
            .collect();
        if !gated.is_empty() {
            let reason = format!(
                "grants for bubbles {gated:?}: the per-bubble arm for bubbles 0 to 63 is off in this build, so they do not apply"
            );
            self.violate(Rule::Auth12, Some(idx), Some(AUTH_PREFIX_BLOCK_BIT), reason);
        }
    }

    /// The apply is all or nothing per bubble: every slot of every registered object needs
    /// a block (AUTH-08), and a group keyed 0x811C9DC5 is skipped whole (AUTH-07).
    fn check_apply(&mut self, idx: u64, m: &DecodedAuthUpdate) {
        let f = Some(idx);
        let Some(roster) = &m.roster else {
            return;
        };
        for g in m.groups.iter().filter(|g| g.key == EMPTY_KEY) {
            let reason = format!(
                "a group keyed {EMPTY_KEY:#x}: the client skips its {} blocks",
                g.objects.len()
            );
            self.violate(Rule::Auth07, f, None, reason);
        }
        let registered = registered_keys(roster, self.config.scenario.arrival_bubble());
        let sent: BTreeSet<ClientRef> = m
            .groups
            .iter()
            .filter(|g| g.key != EMPTY_KEY)
            .flat_map(|g| g.objects.iter().map(|o| o.slot))
            .collect();
        let missing: Vec<String> = self
            .config
            .scenario
            .objects
            .iter()
            .filter(|o| registered.contains(&o.key))
            .flat_map(|o| o.slots.iter().map(move |d| (o.key, d)))
            .map(|(key, d)| ClientRef {
                key,
                slot_type: d.slot_type,
                index: d.index,
            })
            .filter(|r| !sent.contains(r))
            .map(|r| format!("{:#x}/{}/{}", r.key, r.slot_type, r.index))
            .collect();
        if !missing.is_empty() {
            let reason = format!(
                "registered slots with no block: {}; no Auth body in the bubble applies",
                missing.join(", ")
            );
            self.violate(Rule::Auth08, f, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_client::{joined, rules};
    use vex_wire::bits::Bits;

    /// The built-in scenario's type-17 block with `reset` and `root` (and no body bits:
    /// the check reads only those two).
    fn lifetime_block(reset: bool, root: bool) -> (DecodedObject, SlotDecl) {
        let scenario = Scenario::builtin();
        let slot = ClientRef {
            key: 0xAAAA_0001,
            slot_type: TYPE_LIFETIME,
            index: 1,
        };
        let (_, decl) = scenario.schemas_of(&slot).unwrap();
        let content = Bits {
            bytes: vec![(u8::from(reset) << 7) | (u8::from(root) << 6)],
            bit_len: 2,
        };
        let object = DecodedObject {
            at: 0,
            slot,
            remainder: 2,
            content,
        };
        (object, decl)
    }

    /// Reset-only after a body installs the defaults over it (AUTH-09); reset 0 with root
    /// 0 keeps the body, so only a later reset-only is reported, and only once.
    #[test]
    fn reset_only_after_a_body_is_reported() {
        let mut c = joined();
        for (reset, root) in [(true, true), (false, false), (true, false), (true, false)] {
            let (object, decl) = lifetime_block(reset, root);
            c.check_body_kept(1, &object, &decl);
        }
        assert_eq!(rules(&c), [Rule::Auth09]);
        let mut c = joined();
        let (object, decl) = lifetime_block(true, false);
        c.check_body_kept(1, &object, &decl);
        assert!(rules(&c).is_empty(), "no body before");
    }
}
