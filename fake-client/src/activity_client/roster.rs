//! The roster of an activity client: message 5's roster and object blocks, checked as the
//! client applies them (AH "Message 5", "How the client applies an Auth body"; AUTH-05 to
//! AUTH-09, AUTH-12, BODY-05, SLOT-01, SLOT-02, T17-01, T17-03).

use super::auth_blocks::{Block, ReadBlocks, Side, Spares, applies_in, by_remainder, read_block};
use super::auth_cause::Said;
use super::block_judge::{mismatch, misread_block, skipped_block, why_misread};
use super::player_key::{Place, check_player_key};
use super::slot_bodies::{self, At, Part, Standing};
use super::state_bytes::StateBytes;
use crate::had_time_to_answer;
use crate::rules::Rule;
use crate::verdict::{Verdict, key_of};
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use vex_wire::activity::ids;
use vex_wire::activity::sensor_auth::{
    AuthPrefix, DecodedAuthUpdate, DecodedObject, KnownRoster, RosterDelta,
};
use vex_wire::activity::slot::{
    ClientRef, EMPTY_KEY, NEVER_DESCRIBED, TYPE_CHANNEL, TYPE_LIFETIME, TYPE_OBJECTIVE,
    TYPE_PARTICIPATION,
};
use vex_wire::bits::{BitError, BitReader, Bits};
use vex_wire::scenario::{Scenario, SlotDecl};
use vex_wire::schema::Value;
use vex_wire::time::Instant;

/// Sends in a row that move a type-3 generation alone before the host is taken not to
/// re-send the one it holds (T3-02).
const LONE_GENERATION_MOVES: u32 = 3;

/// The message 5s of a link during which its state bytes may move: Sunrise moves them on
/// each of its first three sends (facts 4.7, "warm-up").
const STATE_BYTE_WARM_UP: u32 = 3;

/// What the client holds of the host's message 5s (AH "Message 5", "How the client
/// applies an Auth body").
#[derive(Debug, Default)]
pub(crate) struct Roster {
    /// Message 5 bodies applied.
    applied: u32,
    /// The roster of the last message 5 applied.
    last: Option<RosterDelta>,
    /// The message `last` was read from, from its first bit through the delta: a message
    /// that starts with the same bits has the same delta, copied (a read depends on its
    /// bits alone).
    last_head: Bits,
    /// The keys the last roster sent registers in a bubble's sub-block and not at the top
    /// level: they stay so through message 5s that carry none (SEED-03).
    sub_block_only: Vec<u32>,
    /// The keys the last roster sent registers where the client stands, in order: they stay
    /// registered through message 5s that carry none (T17-05).
    registered: Vec<u32>,
    /// The last body applied to each slot, which a later body is judged against.
    held: BTreeMap<ClientRef, Held>,
    /// The blocks of the message being read as they were measured: kept between messages
    /// for its capacity.
    measured: ReadBlocks,
    /// The message 5 being read: its prefix, read first (`Epochs::check_auth_prefix`),
    /// then the rest; kept between messages for its vectors, boxed so that taking it out
    /// to read into moves a pointer.
    incoming: Option<Box<DecodedAuthUpdate>>,
    /// The bits the prefix `incoming` holds was read from; empty when it holds none. A
    /// prefix of the same bits is the one held.
    prefix_bits: Bits,
    /// The Sense overrides of the last message 5 read.
    overrides: Vec<(ClientRef, Value)>,
    /// The blocks of the last message 5 read, slot and content.
    blocks: Vec<(ClientRef, Bits)>,
    /// A block of the last message 5 was misread: the reader left where the host wrote
    /// (AUTH-05, AUTH-06, T17-02), so what the client read is not what the host said.
    misread: bool,
    /// The slots that had their first block (SEED-01), each with whether its last Auth
    /// state came with a body (AUTH-09): one lookup a block for both.
    seeded: BTreeMap<ClientRef, bool>,
    /// Where the player spawn gate stands (SEED-05).
    spawn_gate: SpawnGate,
    /// The parts of held bodies the last message 5 reset while it answered a snapshot
    /// request, judged against the next (AUTH-09, T3-01, T3-02).
    forgotten: Vec<Forgotten>,
    /// The state bytes of the rosters read, judged from one message to the next
    /// (SEED-06).
    state_bytes: StateBytes,
    /// The type-3 slots whose last bodies moved the generation alone, and how many in a
    /// row (T3-02).
    lone_generation_moves: BTreeMap<ClientRef, u32>,
}

/// The body a slot holds, and the block content it was read from when that block carried
/// no Sense override: a block with the same content carries the same body
/// (`Block::Same`).
#[derive(Debug)]
struct Held {
    body: Value,
    from: Option<Bits>,
}

/// The body a block carries: read from it, or the one its slot holds already, when the
/// block's content is the one that body was read from.
enum Carried {
    Read(Value),
    Held,
}

/// A part of a held body that a snapshot's message 5 reset. A reset is the host's to make
/// (AH: reset-only installs the defaults; an absent objective is a zero): a breach only
/// when the host shows it still held the part, by sending it again in its next message 5,
/// having left it out of the answer to a request for its whole state (SR "Answer what was
/// asked": "A request is never answered in part").
#[derive(Debug, Clone)]
struct Forgotten {
    slot: ClientRef,
    at: At,
    part: Part,
}

/// The player spawn gate as the type-17 bodies applied leave it (AH "Type 17"; facts 4.8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum SpawnGate {
    /// No type-17 body yet.
    #[default]
    Unseen,
    /// The last type-17 body, in frame `idx`, holds the spawn with `state`; the gate has
    /// been held since `since`.
    Held {
        idx: u64,
        state: i128,
        since: Instant,
    },
    /// A body opened it: the player spawned.
    Open,
}

impl SpawnGate {
    /// A type-17 `body` in frame `idx`, read at `now`, reached the player spawn gate: one
    /// of the states it accepts opens it for good (SEED-05).
    fn pass(&mut self, (idx, now): (u64, Instant), body: &Value) {
        let since = match *self {
            SpawnGate::Open => return,
            SpawnGate::Held { since, .. } => since,
            SpawnGate::Unseen => now,
        };
        if let Some(state) = slot_bodies::lifetime_state(body) {
            *self = if slot_bodies::opens_spawn_gate(state) {
                SpawnGate::Open
            } else {
                SpawnGate::Held { idx, state, since }
            };
        }
    }
}

impl Roster {
    /// At the run's end `now`: a spawn gate type-17 bodies reached and none opened holds
    /// the player out of the world for good (SEED-05, effect hang). A loading state sent
    /// before the live one is no breach, nor one the host had less than
    /// [`crate::ANSWER_GRACE_MS`] to follow.
    pub(super) fn check_spawned(&self, verdict: &mut Verdict, now: Instant) {
        if let SpawnGate::Held { idx, state, since } = self.spawn_gate
            && had_time_to_answer(since, now)
        {
            let reason = format!(
                "the player never spawned: the last type-17 lifetime state, {state}, is not one the spawn gate accepts (3, 6 or 10)"
            );
            verdict.violate(Rule::Seed05, Some(idx), None, reason);
        }
    }

    /// Message 5 bodies applied so far.
    pub(crate) fn applied(&self) -> u32 {
        self.applied
    }

    /// The roster of the last message 5 applied, if any.
    pub(crate) fn last(&self) -> Option<&RosterDelta> {
        self.last.as_ref()
    }

    /// One more message 5 body was applied.
    pub(super) fn count_applied(&mut self) {
        self.applied += 1;
    }

    /// Reads message 5's blocks after its prefix, which took its first `prefix_bits` bits
    /// (read by [`Roster::read_prefix`] and judged first, see `Epochs::check_auth_prefix`),
    /// as the client does and checks each the client resolves:
    /// the remainder is the exact length of the block (AUTH-05), every array count fits
    /// its array (BODY-05, T17-03, T24-01), and each body keeps its slot type's rules
    /// against the one held before (`slot_bodies`). A message the client cannot read is
    /// dropped: reported for the block that makes it so (`block_judge::misread_block`:
    /// T17-02, AUTH-05 or AUTH-06), else BODY-04. True when the roster was read.
    pub(super) fn read(
        &mut self,
        verdict: &mut Verdict,
        scenario: &Scenario,
        (bubble, snapshot): (u8, bool),
        (idx, now): (u64, Instant),
        message: &[u8],
        prefix_bits: usize,
    ) -> bool {
        let mut read = std::mem::take(&mut self.measured);
        read.clear();
        let mut m = self.incoming.take().unwrap_or_default();
        let held = &self.held;
        let known = (self.last.as_ref()).map(|delta| KnownRoster {
            delta,
            head: &self.last_head,
        });
        let decoded = m.read_rest(message, prefix_bits, known, |slot, r| {
            let kept = held.get(slot).and_then(|h| h.from.as_ref());
            read.measure((scenario, bubble), slot, r, kept)
        });
        if let Err(e) = decoded {
            (self.measured, self.incoming) = (read, Some(m));
            if !misread_block(verdict, scenario, (bubble, idx), message) {
                let (msg, len) = (ids::SENSOR_AUTH_UPDATE, message.len());
                verdict.undecodable(Rule::Body04, idx, msg, len, &e);
            }
            return false;
        }
        let f = Some(idx);
        for (slot, sense) in self.overrides.drain(..) {
            read.spares.keep((slot.slot_type, Side::Sense), sense);
        }
        let forgotten = std::mem::take(&mut self.forgotten);
        let found_before = verdict.violations().len();
        // the slot whose held body is the first type-17 body of the message (T17-05)
        let mut first_lifetime: Option<ClientRef> = None;
        if let Some(r) = &m.roster {
            let subs = r.sub_blocks.iter().flatten().flat_map(|b| &b.keys);
            self.sub_block_only.clear();
            self.sub_block_only
                .extend(subs.filter(|k| !r.keys.contains(k)));
            self.sub_block_only.sort_unstable();
            self.sub_block_only.dedup();
            registered_keys_into(r, bubble, &mut self.registered);
        }
        // a message without the first registered type-17 slot's block is judged against
        // the body that slot holds (T17-05)
        let first_slot = self.first_registered(scenario, TYPE_LIFETIME);
        if !m
            .groups
            .iter()
            .flat_map(|g| &g.objects)
            .any(|o| Some(o.slot) == first_slot)
        {
            first_lifetime = first_slot.filter(|f| self.held.contains_key(f));
        }
        for (group, object) in m
            .groups
            .iter()
            .flat_map(|g| g.objects.iter().map(move |o| (g, o)))
        {
            let s = object.slot;
            if !s.is_resolvable() {
                let reason =
                    format!("slot {s}: a type or index of -1 makes the resolver refuse it");
                verdict.violate(Rule::Slot01, f, Some(object.at), reason);
            }
            if NEVER_DESCRIBED.contains(&s.slot_type) {
                let reason = format!("slot type {} never has a descriptor", s.slot_type);
                verdict.violate(Rule::Slot02, f, Some(object.at), reason);
            }
            let Some((object_bubble, decl)) = scenario.schemas_of(&object.slot) else {
                // skipped by its remainder; a reference SLOT-01 or SLOT-02 refuses is named there
                if s.is_resolvable() && !NEVER_DESCRIBED.contains(&s.slot_type) {
                    let reason = format!(
                        "slot {s} does not resolve in the client's content: the block is skipped by its remainder, and its body never applies"
                    );
                    verdict.violate(Rule::Auth05, f, Some(object.at), reason);
                }
                continue;
            };
            if group.key == EMPTY_KEY || !applies_in(object_bubble, bubble) {
                skipped_block(verdict, f, &decl, message, object); // AUTH-07, AUTH-05
                continue;
            }
            let kept = self.held.get(&s).and_then(|h| h.from.as_ref());
            let (bits, body, sense) = match read.take(&decl, object, kept) {
                Block::Read { bits, body, sense } => (bits, body.map(Carried::Read), sense),
                Block::Same { bits } => (bits, Some(Carried::Held), None),
                Block::Unknown => {
                    self.check_body_kept(verdict, (idx, snapshot), object, &decl);
                    continue;
                }
                block @ (Block::Short(_) | Block::EndsBefore(_)) => {
                    if let Some(why) = why_misread(&decl, &block, object.remainder) {
                        mismatch(verdict, f, &decl, message, object, why);
                    }
                    continue;
                }
                Block::OverCapacity {
                    path,
                    count,
                    capacity,
                } => {
                    self.check_body_kept(verdict, (idx, snapshot), object, &decl);
                    let rule = match (decl.slot_type, path.as_str()) {
                        (TYPE_LIFETIME, "switches") => Rule::T1703,
                        (TYPE_CHANNEL, "rows") => Rule::T2401,
                        _ => Rule::Body05,
                    };
                    let reason = format!(
                        "slot {s}: {path} count {count} is above its capacity {capacity}; the client does not clamp it and writes past the array"
                    );
                    verdict.violate(rule, f, Some(object.at), reason);
                    continue;
                }
            };
            if bits != object.remainder as usize {
                // read by the remainder, a type-17 body short of its fields (T17-02)
                let by_remainder = by_remainder(message, object).map(|r| read_block(&decl, r));
                let short = by_remainder
                    .and_then(|b| why_misread(&decl, &b, object.remainder))
                    .filter(|(rule, _)| *rule == Rule::T1702);
                let lifetime_short = short.is_some();
                let why = short.map_or_else(
                    || {
                        let remainder = object.remainder;
                        let why = format!(
                            "remainder {remainder} but the block holds {bits} bits; a client that skips it lands elsewhere"
                        );
                        (Rule::Auth05, why)
                    },
                    |(rule, why)| (rule, format!("{why}: the client reads {bits} bits, on into the next block")),
                );
                if mismatch(verdict, f, &decl, message, object, why) || lifetime_short {
                    continue; // what the client read there is not the body the host wrote
                }
            }
            self.check_body_kept(verdict, (idx, snapshot), object, &decl);
            if let Some(carried) = body {
                let at = At {
                    idx,
                    bit: object.at,
                };
                let before = self.held.get(&s).map(|h| &h.body);
                let body = match (&carried, before) {
                    (Carried::Held, Some(held)) => held,
                    (Carried::Read(body), _) => body,
                    (Carried::Held, None) => continue, // `take` gives Same only for a held body
                };
                if s.slot_type == TYPE_LIFETIME {
                    // the body goes into `held` below, so the first is held from here on
                    match first_lifetime.map(|first| self.held.get(&first).map(|h| &h.body)) {
                        None => first_lifetime = Some(s),
                        Some(first) if first != Some(body) => {
                            let reason = format!(
                                "slot {s}: another type-17 body than the first type-17 slot's; only the first is read"
                            );
                            verdict.violate(Rule::T1705, f, Some(object.at), reason);
                        }
                        Some(_) => {}
                    }
                }
                let standing = Standing {
                    bubble_count: scenario.bubble_count,
                    authored_phase: scenario.authored_phase,
                };
                slot_bodies::check(verdict, at, s.slot_type, body, before, standing);
                if s.slot_type == TYPE_LIFETIME {
                    self.spawn_gate.pass((idx, now), body);
                }
                if s.slot_type == TYPE_PARTICIPATION {
                    let first = group
                        .objects
                        .iter()
                        .find(|o| o.slot.slot_type == s.slot_type);
                    let place = Place {
                        top_level: self.sub_block_only.binary_search(&group.key).is_err(),
                        first_in_group: first.map(|o| o.at) == Some(object.at),
                    };
                    check_player_key(verdict, at, s, place, body);
                }
                if s.slot_type == TYPE_OBJECTIVE {
                    let moves = &mut self.lone_generation_moves;
                    check_generation_moves(moves, verdict, (at, s), body, before);
                }
                if snapshot {
                    let resets = slot_bodies::objective_resets(body, before);
                    let parts = resets
                        .into_iter()
                        .map(|part| Forgotten { slot: s, at, part });
                    self.forgotten.extend(parts);
                }
                if let Carried::Read(body) = carried {
                    let from = sense.is_none().then_some(&object.content);
                    self.hold(s, body, from, &mut read.spares);
                }
            }
            if let Some(sense) = sense {
                let at = At {
                    idx,
                    bit: object.at,
                };
                let held = self.held.get(&s).map(|h| &h.body);
                slot_bodies::check_sense(verdict, at, s.slot_type, &sense, held);
                self.overrides.push((s, sense));
            }
        }
        self.check_remembered(verdict, idx, forgotten);
        // a block misread leaves the reader elsewhere than the host wrote: the blocks and
        // the gate it reads after are no bits the host set
        let misread = verdict.violations()[found_before..]
            .iter()
            .any(|v| matches!(v.rule, Rule::Auth05 | Rule::Auth06 | Rule::T1702));
        self.misread = misread;
        if !misread {
            check_apply(verdict, scenario, &self.registered, idx, &m);
        }
        if m.singleton_gate && !misread {
            let reason = "the singleton gate after the entity groups is 1: it leads into a section the pages do not describe, where 0 ends the message".to_string();
            verdict.violate(Rule::Auth17, f, Some(m.gate_at), reason);
        }
        // the blocks' contents trade places with the last message's: each buffer is read
        // into again
        let count = m.groups.iter().map(|g| g.objects.len()).sum();
        self.blocks.resize_with(count, Default::default);
        let contents = m.groups.iter_mut().flat_map(|g| &mut g.objects);
        for ((slot, content), o) in self.blocks.iter_mut().zip(contents) {
            *slot = o.slot;
            std::mem::swap(content, &mut o.content);
        }
        if self.applied == 0
            && let Some(roster) = &m.roster
        {
            check_spawn_gate_slots(verdict, scenario, idx, roster, bubble);
        }
        if let (Some(before), Some(now)) = (&self.last, &m.roster) {
            let past_warm_up = self.applied >= STATE_BYTE_WARM_UP;
            let rosters = (before, now);
            self.state_bytes
                .judge(verdict, idx, rosters, (bubble, past_warm_up));
        }
        std::mem::swap(&mut self.last, &mut m.roster);
        (self.last_head).copy_range(message, 0..m.roster_at.end);
        (self.measured, self.incoming) = (read, Some(m));
        true
    }

    /// Reads the prefix of message 5 `message` into the message the client reads next and
    /// gives the bits it took, with the prefix; a prefix of the same bits as the one held
    /// is that one.
    pub(super) fn read_prefix(&mut self, message: &[u8]) -> Result<(usize, &AuthPrefix), BitError> {
        let m = self.incoming.get_or_insert_default();
        let held = self.prefix_bits.bit_len;
        if held > 0 && BitReader::new(message).starts_with(&self.prefix_bits) {
            return Ok((held, &m.prefix));
        }
        self.prefix_bits.clear();
        let bits = m.read_prefix(message)?;
        self.prefix_bits.copy_range(message, 0..bits);
        Ok((bits, &m.prefix))
    }

    /// The prefix of the message 5 read last.
    pub(super) fn prefix(&self) -> Option<&AuthPrefix> {
        self.incoming.as_ref().map(|m| &m.prefix)
    }

    /// The slots whose last body is of `slot_type`, with that body.
    pub(super) fn held_of(&self, slot_type: i8) -> impl Iterator<Item = (&ClientRef, &Value)> {
        self.held
            .iter()
            .filter(move |(s, _)| s.slot_type == slot_type)
            .map(|(s, h)| (s, &h.body))
    }

    /// `body`, read from a block of `slot` whose content was `from` (none when it carried
    /// a Sense override), becomes the body the slot holds; the one it held, a spare.
    fn hold(&mut self, slot: ClientRef, body: Value, from: Option<&Bits>, spares: &mut Spares) {
        let Some(held) = self.held.get_mut(&slot) else {
            let from = from.cloned();
            self.held.insert(slot, Held { body, from });
            return;
        };
        let before = std::mem::replace(&mut held.body, body);
        spares.keep((slot.slot_type, Side::Auth), before);
        match (from, &mut held.from) {
            (Some(from), Some(kept)) => kept.copy_from(from),
            (from, kept) => *kept = from.cloned(),
        }
    }

    /// What the last message 5 read said, its roster and blocks (AUTH-16), when the
    /// client read its blocks where the host wrote them.
    pub(super) fn said(&self) -> Option<Said<'_>> {
        (!self.misread).then_some((self.last.as_ref(), self.blocks.as_slice()))
    }

    /// The Sense overrides the last message 5 carried.
    pub(super) fn overrides(&self) -> &[(ClientRef, Value)] {
        &self.overrides
    }

    /// The client retires its whole roster: after a region report it sweeps it (AH "How
    /// the client applies an Auth body").
    pub(crate) fn sweep(&mut self) {
        self.last = None;
        self.sub_block_only.clear();
        self.registered.clear();
        self.lone_generation_moves.clear();
        self.held.clear();
        self.seeded.clear();
    }

    /// The first slot of `slot_type` the client registered: the registered keys in roster
    /// order, each object's slots by index (facts 4.7: "Slots are sorted by index").
    fn first_registered(&self, scenario: &Scenario, slot_type: i8) -> Option<ClientRef> {
        self.registered.iter().find_map(|key| {
            let object = scenario.objects.iter().find(|o| o.key == *key)?;
            let slots = object.slots.iter().filter(|d| d.slot_type == slot_type);
            slots.min_by_key(|d| d.index).map(|d| ClientRef {
                key: *key,
                slot_type,
                index: d.index,
            })
        })
    }

    /// Message 5 in frame `idx` applied: a part the snapshot before it reset, which this
    /// one sends again, was a part the host still held and left out of its whole state
    /// (AUTH-09, T3-01, T3-02).
    fn check_remembered(&self, verdict: &mut Verdict, idx: u64, forgotten: Vec<Forgotten>) {
        for Forgotten { slot, at, part } in forgotten {
            if part.back_in(self.held.get(&slot).map(|h| &h.body)) {
                let reason = format!(
                    "slot {slot}: the message 5 answering a snapshot request reset {}, and the next one (frame {idx}) sends it again: the host still held it, and a request is never answered in part",
                    part.what()
                );
                verdict.violate(part.rule(), Some(at.idx), Some(at.bit), reason);
            }
        }
    }

    /// A slot's first block sends reset 1 (SEED-01). A reset-only block installs the
    /// schema's defaults over the body the slot got before (AUTH-09): in a `snapshot`'s
    /// message 5 that body is remembered, so the next can show whether the host still held
    /// it. Judged on blocks whose flags the client reads where they were written: a block
    /// misread by its slot's schemas is AUTH-05 or AUTH-06.
    fn check_body_kept(
        &mut self,
        verdict: &mut Verdict,
        (idx, snapshot): (u64, bool),
        object: &DecodedObject,
        decl: &SlotDecl,
    ) {
        let Ok(parts) = object.parse(decl.schemas) else {
            return;
        };
        let s = object.slot;
        let entry = self.seeded.entry(s);
        let first = matches!(entry, Entry::Vacant(_));
        let auth_body = entry.or_insert(false);
        if first && parts.reset == Some(false) {
            let reason = format!(
                "slot {s}: its first block has reset 0, so its body is a delta on whatever the client holds"
            );
            verdict.violate(Rule::Seed01, Some(idx), Some(object.at), reason);
        }
        // as the client applies it: a body is kept, reset-only installs the defaults, and
        // reset 0 with root 0 leaves the last body in place
        match (parts.reset, parts.root) {
            (_, Some(true)) => *auth_body = true,
            (Some(true), Some(false)) => {
                let had_body = std::mem::take(auth_body);
                let held = self.held.remove(&s); // the schema's defaults
                if had_body
                    && snapshot
                    && let Some(Held { body, .. }) = held
                {
                    let at = At {
                        idx,
                        bit: object.at,
                    };
                    let part = Part::Body(body);
                    self.forgotten.push(Forgotten { slot: s, at, part });
                }
            }
            _ => {}
        }
    }
}

/// T3-02: a type-3 body at `at` for `slot` that moves the generation from `held`'s with
/// every objective byte kept, as the two bodies before it did: the host clears the latch
/// bits on every send, not re-sending the generation it holds. A move, or two, is a reset
/// the host may mean (AH "Type 3"). `moves` counts the lone moves in a row by slot.
fn check_generation_moves(
    moves: &mut BTreeMap<ClientRef, u32>,
    verdict: &mut Verdict,
    (at, slot): (At, ClientRef),
    body: &Value,
    held: Option<&Value>,
) {
    let Some(generation) = slot_bodies::lone_generation_move(body, held) else {
        moves.remove(&slot);
        return;
    };
    let moves = moves.entry(slot).or_default();
    *moves += 1;
    if *moves == LONE_GENERATION_MOVES {
        let reason = format!(
            "slot {slot}: the generation moves on {LONE_GENERATION_MOVES} sends in a row, now to {generation}, with every objective byte kept: each send clears the latch bits; re-send the generation held to keep them"
        );
        verdict.violate(Rule::T302, Some(at.idx), Some(at.bit), reason);
    }
}

/// The first roster registers a type-13 and a type-17 slot, which the player spawn gate
/// reads (SEED-02).
fn check_spawn_gate_slots(
    verdict: &mut Verdict,
    scenario: &Scenario,
    idx: u64,
    roster: &RosterDelta,
    bubble: u8,
) {
    let registered = registered_keys(roster, bubble);
    let has = |t: i8| {
        scenario
            .objects
            .iter()
            .filter(|o| registered.contains(&o.key))
            .any(|o| o.slots.iter().any(|s| s.slot_type == t))
    };
    let missing: Vec<&str> = [(TYPE_PARTICIPATION, "type-13"), (TYPE_LIFETIME, "type-17")]
        .into_iter()
        .filter(|(t, _)| !has(*t))
        .map(|(_, name)| name)
        .collect();
    if !missing.is_empty() {
        let reason = format!(
            "the first roster registers no {} slot: the player spawn gate reads both, and the player never spawns",
            missing.join(" or ")
        );
        verdict.violate(Rule::Seed02, Some(idx), None, reason);
    }
}

/// The keys `roster` registers while `bubble` is current: the top-level keys whose
/// presence bit is set, and those of that bubble's sub-blocks.
pub(super) fn registered_keys(roster: &RosterDelta, bubble: u8) -> Vec<u32> {
    let mut registered = Vec::new();
    registered_keys_into(roster, bubble, &mut registered);
    registered
}

/// [`registered_keys`] into `out`, which it clears first (its capacity kept).
fn registered_keys_into(roster: &RosterDelta, bubble: u8, out: &mut Vec<u32>) {
    out.clear();
    let mut add = |keys: &[u32], mask: &[u32]| {
        let set = |i: usize| mask.get(i / 32).is_some_and(|w| w >> (i % 32) & 1 == 1);
        out.extend(
            keys.iter()
                .enumerate()
                .filter(|(i, _)| set(*i))
                .map(|(_, k)| *k),
        );
    };
    add(&roster.keys, &roster.mask);
    for s in roster
        .sub_blocks
        .iter()
        .flatten()
        .filter(|s| s.bubble == i32::from(bubble))
    {
        add(&s.keys, &s.mask);
    }
}

/// The keys `roster` names for `bubble`, registered or retired (a clear presence bit keeps
/// the key named: AH "How the client applies an Auth body"): the top-level keys and the
/// keys of `bubble`'s sub-block.
pub(super) fn named_keys(roster: &RosterDelta, bubble: u8) -> Vec<u32> {
    let local = roster
        .sub_blocks
        .iter()
        .flatten()
        .filter(|s| s.bubble == i32::from(bubble))
        .flat_map(|s| s.keys.iter());
    roster.keys.iter().chain(local).copied().collect()
}

/// The apply is all or nothing per bubble: every slot of every `registered` object needs
/// a block (AUTH-08), and a group keyed 0x811C9DC5 is skipped whole (AUTH-07). Each is
/// reported once for what it names, then counted.
fn check_apply(
    verdict: &mut Verdict,
    scenario: &Scenario,
    registered: &[u32],
    idx: u64,
    m: &DecodedAuthUpdate,
) {
    let f = Some(idx);
    for g in m.groups.iter().filter(|g| g.key == EMPTY_KEY) {
        let blocks = g.objects.len();
        verdict.violate_again(Rule::Auth07, (f, None), blocks as u64, || {
            format!("a group keyed {EMPTY_KEY:#x}: the client skips its {blocks} blocks")
        });
    }
    if m.roster.is_none() {
        return;
    }
    let sent = |r: &ClientRef| {
        m.groups
            .iter()
            .filter(|g| g.key != EMPTY_KEY)
            .any(|g| g.objects.iter().any(|o| o.slot == *r))
    };
    let missing = || {
        scenario
            .objects
            .iter()
            .filter(|o| registered.contains(&o.key))
            .flat_map(|o| o.slots.iter().map(move |d| (o.key, d)))
            .map(|(key, d)| ClientRef {
                key,
                slot_type: d.slot_type,
                index: d.index,
            })
            .filter(|r| !sent(r))
    };
    if missing().next().is_none() {
        return;
    }
    let key = key_of(missing().map(|r| {
        u64::from(r.key) << 32 | u64::from(r.slot_type as u8) << 16 | u64::from(r.index as u16)
    }));
    verdict.violate_again(Rule::Auth08, (f, None), key, || {
        let names: Vec<String> = missing().map(|r| r.to_string()).collect();
        format!(
            "registered slots with no block: {}; no Auth body in the bubble applies",
            names.join(", ")
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ANSWER_GRACE_MS;
    use vex_wire::activity::auth::AuthBody;
    use vex_wire::activity::auth::lifetime::LifetimeAuth;
    use vex_wire::activity::body::Body;
    use vex_wire::activity::sensor_auth::{
        AuthPart, AuthPrefix, EntityGroup, ObjectBlock, SensorAuthUpdate,
    };
    use vex_wire::activity::slot::SlotSchemas;
    use vex_wire::bits::Bits;
    use vex_wire::vectors::sensor_auth_full_example;

    /// When the tests' messages are read.
    const T0: Instant = Instant::from_millis(0);
    /// The tests' run's end: the grace after [`T0`], when whatever is owed is judged.
    const END: Instant = Instant::from_millis(ANSWER_GRACE_MS);

    /// The spawn gate's group of the schema-pairs scenario, its type-17 slot carrying
    /// `lifetime` (a body, or reset-only for none).
    fn lifetime_message(lifetime: Option<Bits>) -> Vec<u8> {
        let scenario = vex_wire::scenario_file::parse(SCHEMA_PAIRS).unwrap();
        let slot = |slot_type, index| ClientRef {
            key: 0xAAAA_0001,
            slot_type,
            index,
        };
        let participation = slot(TYPE_PARTICIPATION, 0);
        let mut objects = vec![block_for(
            participation,
            scenario.schemas_of(&participation).unwrap().1.schemas,
        )];
        objects.push(ObjectBlock {
            slot: slot(TYPE_LIFETIME, 1),
            auth: Some(AuthPart {
                reset: true,
                body: lifetime,
            }),
            sense: None,
        });
        message_of(vec![EntityGroup {
            key: 0xAAAA_0001,
            filler: 0,
            objects,
        }])
    }

    /// Reads `messages` in order into one roster, each `(message, answers a snapshot)`.
    fn read_in_turn(messages: &[(&[u8], bool)]) -> Vec<Rule> {
        let scenario = vex_wire::scenario_file::parse(SCHEMA_PAIRS).unwrap();
        let (mut roster, mut v) = (Roster::default(), Verdict::new());
        for (i, (message, snapshot)) in messages.iter().enumerate() {
            let at = roster.read_prefix(message).unwrap().0;
            assert!(roster.read(
                &mut v,
                &scenario,
                (0, *snapshot),
                (i as u64, T0),
                message,
                at
            ));
        }
        v.rules()
    }

    /// AUTH-09: reset-only installs the defaults, which a host may mean. Judged only when
    /// the message 5 answering a snapshot request resets a body and the next one sends it
    /// again: the host still held it. A reset outside a snapshot, a body not sent again, or
    /// another body after, draws nothing.
    #[test]
    fn a_body_a_snapshot_leaves_out_and_the_next_sends_again_is_auth_09() {
        let live = AuthBody::Lifetime({
            let mut a = LifetimeAuth::sunrise_default(3);
            a.join_flag_inverted = true;
            a
        })
        .to_bits()
        .unwrap();
        let other = AuthBody::Lifetime({
            let mut a = LifetimeAuth::sunrise_default(6);
            a.join_flag_inverted = true;
            a
        })
        .to_bits()
        .unwrap();
        let body = lifetime_message(Some(live));
        let cleared = lifetime_message(None);
        let changed = lifetime_message(Some(other));
        assert_eq!(
            read_in_turn(&[(&body, false), (&cleared, true), (&body, false)]),
            [Rule::Auth09]
        );
        assert!(read_in_turn(&[(&body, false), (&cleared, false), (&body, false)]).is_empty());
        assert!(read_in_turn(&[(&body, false), (&cleared, true), (&cleared, false)]).is_empty());
        assert!(read_in_turn(&[(&body, false), (&cleared, true), (&changed, false)]).is_empty());
        assert!(
            read_in_turn(&[(&cleared, true), (&body, false)]).is_empty(),
            "no body before"
        );
    }

    /// Beside the group the spawn gate needs, one group of four slots, one for each pair
    /// of schemas a slot can have (65 with both, 8 with Auth only, 65 declared with Sense
    /// only, 31 with neither). A Sense bit is read as 1 only where Vex knows the Sense
    /// schema, type 65's: the override is then read, and its length is known.
    const SCHEMA_PAIRS: &str = r#"
name = "schema_pairs"
activity_host_id = "0x1"
bubble_count = 1
arrival_slice_set = 0
[destination]
reason = 2
source_activity = 1
destination_activity = 2
arrival_hash = "0x1"
spawn_hash = "0x2"
name = "schema_pairs"
[player]
member_key = "0x1"
character_id = "0x2"
account_soid = "0x9EAA300100000001"
[[object]]
key = "0xAAAA0001"
slots = [
    { type = 13, index = 0, auth = true, sense = true },
    { type = 17, index = 1, auth = true, sense = false },
]
[[object]]
key = "0xCCCC0001"
slots = [
    { type = 65, index = 0, auth = true, sense = true },
    { type = 8, index = 1, auth = true, sense = false },
    { type = 65, index = 2, auth = false, sense = true },
    { type = 31, index = 3, auth = false, sense = false },
]
"#;

    /// `slot`'s block written for `schemas`: reset-only (SEED-01) and the Sense bit 0, so
    /// the client reads no body under any guess and the block's length is the only tell.
    fn block_for(slot: ClientRef, schemas: SlotSchemas) -> ObjectBlock {
        ObjectBlock {
            slot,
            auth: schemas.auth.then_some(AuthPart {
                reset: true,
                body: None,
            }),
            sense: schemas.sense.then_some(None),
        }
    }

    /// The rules the client reports for a message 5 whose block `at` of the group is
    /// written for `written`, and every other block for its slot's own schemas.
    fn judge_blocks(at: usize, written: SlotSchemas) -> Vec<Rule> {
        let scenario = vex_wire::scenario_file::parse(SCHEMA_PAIRS).unwrap();
        let spawn_gate = [(TYPE_PARTICIPATION, 0), (TYPE_LIFETIME, 1)].map(|(slot_type, index)| {
            let slot = ClientRef {
                key: 0xAAAA_0001,
                slot_type,
                index,
            };
            block_for(slot, scenario.schemas_of(&slot).unwrap().1.schemas)
        });
        let slots: Vec<ClientRef> = (0..4)
            .map(|index| {
                let slot_type = [65, 8, 65, 31][index as usize];
                ClientRef {
                    key: 0xCCCC_0001,
                    slot_type,
                    index,
                }
            })
            .collect();
        let objects = slots
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                let (_, decl) = scenario.schemas_of(slot).unwrap();
                block_for(*slot, if i == at { written } else { decl.schemas })
            })
            .collect();
        let message = message_of(vec![
            EntityGroup {
                key: 0xAAAA_0001,
                filler: 0,
                objects: spawn_gate.to_vec(),
            },
            EntityGroup {
                key: 0xCCCC_0001,
                filler: 0,
                objects,
            },
        ]);
        read_message(&scenario, 0, &message).1
    }

    /// Message 5 of `groups`, with no roster delta.
    fn message_of(groups: Vec<EntityGroup>) -> Vec<u8> {
        let prefix = AuthPrefix::echoing([1, 2]);
        let roster = None;
        SensorAuthUpdate {
            prefix,
            roster,
            groups,
        }
        .encode()
        .unwrap()
    }

    /// Whether a fresh roster in `bubble` applied message 5 `message`, and the rules it
    /// reported.
    fn read_message(scenario: &Scenario, bubble: u8, message: &[u8]) -> (bool, Vec<Rule>) {
        let (mut roster, mut v) = (Roster::default(), Verdict::new());
        let at = roster.read_prefix(message).unwrap().0;
        let applied = roster.read(&mut v, scenario, (bubble, false), (1, T0), message, at);
        (applied, v.rules())
    }

    /// The built-in scenario's objects with a timer slot (type 18, Auth only) in bubble 1.
    fn with_bubble_one_timer() -> (Scenario, ClientRef) {
        let mut scenario = Scenario::builtin();
        let key = 0xDDDD_0001;
        let timer = SlotDecl {
            slot_type: vex_wire::activity::slot::TYPE_TIMER,
            index: 0,
            schemas: SlotSchemas {
                auth: true,
                sense: false,
            },
        };
        scenario.objects.push(vex_wire::scenario::PlacedObject {
            key,
            bubble: Some(1),
            slots: vec![timer],
        });
        let slot = ClientRef {
            key,
            slot_type: timer.slot_type,
            index: 0,
        };
        (scenario, slot)
    }

    /// The rules a client in `bubble` reports for a message 5 of one block: the bubble-1
    /// timer with a zeroed clock window (SLOT-03 where the client applies it), its
    /// remainder moved by `remainder_off` bits.
    fn judge_timer_in(bubble: u8, remainder_off: i64) -> Vec<Rule> {
        let (scenario, slot) = with_bubble_one_timer();
        let zeroed = Bits {
            bytes: vec![0; 49],
            bit_len: 386,
        };
        let block = ObjectBlock {
            slot,
            auth: Some(AuthPart {
                reset: true,
                body: Some(zeroed),
            }),
            sense: None,
        };
        let mut message = message_of(vec![EntityGroup {
            key: slot.key,
            filler: 0,
            objects: vec![block],
        }]);
        let m = SensorAuthUpdate::decode(&message).unwrap();
        let object = &m.groups[0].objects[0];
        let at = object.at + 1 + vex_wire::activity::slot::CLIENT_REF_BITS;
        let remainder = (i64::from(object.remainder) + remainder_off) as u32;
        for (i, bit) in (0..32).rev().map(|b| (remainder >> b) & 1 == 1).enumerate() {
            let (byte, mask) = ((at + i) / 8, 0x80 >> ((at + i) % 8));
            if bit {
                message[byte] |= mask;
            } else {
                message[byte] &= !mask;
            }
        }
        read_message(&scenario, bubble, &message).1
    }

    /// AUTH-05's bubble: a block of an object in another bubble (0 to 63) is skipped by
    /// its remainder, so its body is not judged, but a remainder short or long still is;
    /// in the object's own bubble the body is applied and judged.
    #[test]
    fn blocks_of_other_bubbles_are_skipped_by_their_remainder() {
        assert_eq!(judge_timer_in(0, 0), [], "skipped: the body is not applied");
        for off in [-1, -8, 2] {
            let rules = judge_timer_in(0, off);
            assert!(
                rules.first() == Some(&Rule::Auth05),
                "remainder {off:+}: {rules:?}"
            );
        }
        // one bit more reads as a Sense bit: the report names the guess (AUTH-06)
        assert_eq!(judge_timer_in(0, 1).first(), Some(&Rule::Auth06));
        // a remainder past the message's end: the message does not decode
        assert_eq!(judge_timer_in(0, 64), [Rule::Body04]);
        assert_eq!(
            judge_timer_in(1, 0),
            [Rule::Slot03],
            "applied in its bubble"
        );
    }

    /// A type-17 body of 100 bits as the message's last block, its remainder saying so:
    /// the client's read of its 20 fields runs past the message's end, so the message is
    /// dropped (not applied) and the short body named (T17-02).
    #[test]
    fn a_read_past_the_message_end_drops_the_message() {
        let scenario = Scenario::builtin();
        let slot = |slot_type, index| ClientRef {
            key: 0xAAAA_0001,
            slot_type,
            index,
        };
        let short = Bits {
            bytes: vec![0x40; 13],
            bit_len: 100,
        };
        let objects = vec![
            ObjectBlock {
                slot: slot(TYPE_PARTICIPATION, 0),
                auth: Some(AuthPart {
                    reset: true,
                    body: None,
                }),
                sense: Some(None),
            },
            ObjectBlock {
                slot: slot(TYPE_LIFETIME, 1),
                auth: Some(AuthPart {
                    reset: true,
                    body: Some(short),
                }),
                sense: None,
            },
        ];
        let message = message_of(vec![EntityGroup {
            key: 0xAAAA_0001,
            filler: 0,
            objects,
        }]);
        let (applied, rules) = read_message(&scenario, 0, &message);
        assert!(!applied, "the message is dropped");
        assert_eq!(rules, [Rule::T1702]);
    }

    /// SEED-02 for each slot the spawn gate reads, wherever the roster registers it: a
    /// type-13 slot on a top-level key and a type-17 slot on a key of the current bubble's
    /// sub-block pass; either missing, left on a cleared presence bit, or registered only
    /// in another bubble's sub-block is caught.
    #[test]
    fn the_first_roster_registers_both_spawn_gate_slots() {
        const TOP: u32 = 0xA;
        const IN_BUBBLE: u32 = 0xB;
        let slot = |slot_type| SlotDecl {
            slot_type,
            index: 0,
            schemas: SlotSchemas {
                auth: true,
                sense: false,
            },
        };
        let mut scenario = Scenario::builtin();
        scenario.objects = vec![
            vex_wire::scenario::PlacedObject {
                key: TOP,
                bubble: None,
                slots: vec![slot(TYPE_PARTICIPATION)],
            },
            vex_wire::scenario::PlacedObject {
                key: IN_BUBBLE,
                bubble: Some(0),
                slots: vec![slot(TYPE_LIFETIME)],
            },
        ];
        let roster = |top: &[u32], top_mask: u32, bubble: i32, sub: &[u32]| RosterDelta {
            keys: top.to_vec(),
            mask: std::array::from_fn(|w| if w == 0 { top_mask } else { 0 }),
            states: vec![0; top.len()],
            sub_blocks: Some(vec![vex_wire::activity::sensor_auth::SubBlock {
                bubble,
                keys: sub.to_vec(),
                mask: RosterDelta::mask_for(sub.len()),
                states: vec![0; sub.len()],
            }]),
        };
        let judge = |r: RosterDelta| {
            let mut v = Verdict::new();
            check_spawn_gate_slots(&mut v, &scenario, 1, &r, 0);
            v.rules()
        };
        assert_eq!(judge(roster(&[TOP], 1, 0, &[IN_BUBBLE])), []);
        for (what, r) in [
            ("no type-17", roster(&[TOP], 1, 0, &[])),
            ("no type-13", roster(&[], 0, 0, &[IN_BUBBLE])),
            ("neither", roster(&[], 0, 0, &[])),
            ("type-13 cleared", roster(&[TOP], 0, 0, &[IN_BUBBLE])),
            ("type-17 in bubble 1", roster(&[TOP], 1, 1, &[IN_BUBBLE])),
        ] {
            assert_eq!(judge(r), [Rule::Seed02], "{what}");
        }
    }

    /// AUTH-06 at every pair: each of the four slots' blocks written for each of the three
    /// other schema pairs (reset and root for a slot without an Auth schema, or left out
    /// for one with it; the Sense bit for a slot without a Sense schema, or left out for
    /// one with it), first, inside and last in its group, is caught; every block written
    /// for its own slot passes.
    #[test]
    fn a_block_written_for_other_schemas_is_auth_06() {
        let pairs = [(true, true), (true, false), (false, true), (false, false)]
            .map(|(auth, sense)| SlotSchemas { auth, sense });
        for (at, own) in pairs.iter().enumerate() {
            assert_eq!(judge_blocks(at, *own), [], "slot {at} as its own");
            for written in pairs.iter().filter(|w| *w != own) {
                assert_eq!(
                    judge_blocks(at, *written),
                    [Rule::Auth06],
                    "slot {at} ({own:?}) written for {written:?}"
                );
            }
        }
    }

    /// Where a violation was reported: its rule, frame and bit.
    type Found = (Rule, Option<u64>, Option<usize>);

    /// A type-17 body of the live shape (join flag 1, so no T17-07) in lifetime `state`.
    fn lifetime_in(state: i8) -> Bits {
        let mut a = LifetimeAuth::sunrise_default(state);
        a.join_flag_inverted = true;
        AuthBody::Lifetime(a).to_bits().unwrap()
    }

    /// `value` written with `schema`: an Auth body.
    fn body_of(schema: &vex_wire::schema::Schema, value: &Value) -> Bits {
        vex_wire::schema::encode_bits(schema, value).unwrap()
    }

    /// A type-65 body: generation `generation`, active, interaction hash 0.
    fn ghost_body(generation: i128) -> Bits {
        let value = Value::Record(vec![
            Value::Int(generation),
            Value::Bool(true),
            Value::Int(0),
        ]);
        body_of(&vex_wire::schema::tables::GHOST_LINK, &value)
    }

    /// One step of a run of message 5s into one roster: a message (answering a snapshot
    /// request or not), or the sweep the client makes when it reports a region change.
    enum Step<'a> {
        Read(&'a [u8], bool),
        Sweep,
    }

    /// A roster of `scenario` in bubble 0 after `steps`, and what it reported; frame `i`
    /// is the `i`-th message read. Every run is also made by a roster that forgets, before
    /// each message, the bits its bodies were read from, so it reads every block anew: the
    /// two report the same, word for word (a block with the held body's bits carries that
    /// body, `Block::Same`).
    fn run(scenario: &Scenario, steps: &[Step<'_>]) -> (Roster, Verdict) {
        let run_with = |forget: bool| {
            let (mut roster, mut v) = (Roster::default(), Verdict::new());
            let mut idx = 0u64;
            for step in steps {
                match step {
                    Step::Read(message, snapshot) => {
                        if forget {
                            roster.held.values_mut().for_each(|h| h.from = None);
                        }
                        let at = roster.read_prefix(message).unwrap().0;
                        assert!(roster.read(
                            &mut v,
                            scenario,
                            (0, *snapshot),
                            (idx, T0),
                            message,
                            at
                        ));
                        idx += 1;
                    }
                    Step::Sweep => roster.sweep(),
                }
            }
            (roster, v)
        };
        let (roster, v) = run_with(false);
        let (anew, read_anew) = run_with(true);
        assert_eq!(
            v.violations(),
            read_anew.violations(),
            "each block read anew"
        );
        let bodies = |r: &Roster| {
            r.held
                .iter()
                .map(|(s, h)| (*s, h.body.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(bodies(&roster), bodies(&anew), "the bodies held");
        (roster, v)
    }

    /// A block with the bits the slot's body was read from carries that body, judged as
    /// reading it would be; a block of the same slot before it in the message that gives
    /// the slot another body makes the repeat a block read anew (`run` holds the two ways
    /// equal). The slot holds the body of its last block in the message.
    #[test]
    fn a_block_repeating_the_held_bits_carries_the_held_body() {
        let scenario = Scenario::builtin();
        let held = objective_body(Some(held_objectives()), Some(1));
        let mut other_bytes = held_objectives();
        other_bytes[0] = Some(9);
        let other = objective_body(Some(other_bytes), Some(2));
        let part = |b: &Bits| AuthPart {
            reset: true,
            body: Some(b.clone()),
        };
        let first = builtin_with((1, 1), part(&held));
        let mut groups: Vec<EntityGroup> = [0xAAAA_0001, 0xBBBB_0001]
            .map(|key| seed_group_of(&scenario, key))
            .to_vec();
        let mut repeat = groups[1].objects[1].clone();
        repeat.auth = Some(part(&held));
        groups[1].objects[1].auth = Some(part(&other));
        groups[1].objects.insert(2, repeat);
        let twice = message_of(groups);
        let steps = [
            Step::Read(&first, false),
            Step::Read(&first, false),
            Step::Read(&twice, false),
        ];
        let (roster, _) = run(&scenario, &steps);
        let slot = ClientRef {
            key: 0xBBBB_0001,
            slot_type: 3,
            index: 1,
        };
        let schema = vex_wire::schema::catalog::auth(3).unwrap();
        let want = vex_wire::schema::decode(schema, &mut held.reader()).unwrap();
        assert_eq!(roster.held.get(&slot).map(|h| &h.body), Some(&want));
        assert!(roster.held.get(&slot).is_some_and(|h| h.from.is_some()));
    }

    /// A body sent again with the bits it was read from is judged again: a type-17 body
    /// with join_flag_inverted 0 in three message 5s in a row is T17-07 once, fired again
    /// twice, the last at frame 2.
    #[test]
    fn a_repeated_body_is_judged_again() {
        let scenario = Scenario::builtin();
        let body = AuthBody::Lifetime(LifetimeAuth::sunrise_default(3))
            .to_bits()
            .unwrap();
        let message = builtin_with(
            (0, 1),
            AuthPart {
                reset: true,
                body: Some(body),
            },
        );
        let steps = [false; 3].map(|snapshot| Step::Read(&message, snapshot));
        let (_, v) = run(&scenario, &steps);
        let again = v
            .violations()
            .iter()
            .filter(|x| x.rule == Rule::T1707)
            .map(|x| x.again)
            .collect::<Vec<_>>();
        let twice = Some(crate::violation::Again {
            times: 2,
            last_frame: Some(2),
        });
        assert_eq!(again, [twice]);
    }

    /// Each violation `v` holds: its rule, frame and bit.
    fn found(v: &Verdict) -> Vec<Found> {
        v.violations()
            .iter()
            .map(|x| (x.rule, x.frame, x.bit))
            .collect()
    }

    /// `scenario`'s object `key` as one group, each slot's block reset-only with the Sense
    /// bit 0 where it has one.
    fn seed_group_of(scenario: &Scenario, key: u32) -> EntityGroup {
        let object = scenario.objects.iter().find(|o| o.key == key).unwrap();
        let objects = object
            .slots
            .iter()
            .map(|d| {
                let slot = ClientRef {
                    key,
                    slot_type: d.slot_type,
                    index: d.index,
                };
                block_for(slot, d.schemas)
            })
            .collect();
        EntityGroup {
            key,
            filler: 0,
            objects,
        }
    }

    /// Bit offset of block `object` of group `group` in message 5 `message`.
    fn block_at(message: &[u8], group: usize, object: usize) -> usize {
        SensorAuthUpdate::decode(message).unwrap().groups[group].objects[object].at
    }

    /// SEED-01: a slot with an Auth schema whose first block has reset 0 is caught at
    /// that block, whether it carries no body (root 0) or a body (a delta on nothing),
    /// at each such slot of the message: the first (type 13), the last of its group (type
    /// 17), the first of the next group (type 65) and one with a body Vex cannot read
    /// (type 8). Reset 0 on a later block of a slot seeded before is a delta and passes,
    /// and the slots with no Auth schema have no reset bit. A slot is new again after the
    /// sweep of a region change; a first block the client skipped (its group keyed
    /// 0x811C9DC5, AUTH-07) seeded nothing.
    #[test]
    fn a_slots_first_block_has_reset_1() {
        let scenario = vex_wire::scenario_file::parse(SCHEMA_PAIRS).unwrap();
        let groups = || {
            [0xAAAA_0001, 0xCCCC_0001]
                .map(|key| seed_group_of(&scenario, key))
                .to_vec()
        };
        let seeded = message_of(groups());
        let participation =
            AuthBody::Participation(vex_wire::activity::auth::participation::ParticipationAuth {
                region: Some(0),
                player_key: Some(2),
                sync_state: 0,
            })
            .to_bits()
            .unwrap();
        let configuration = Bits {
            bytes: vec![0; 5],
            bit_len: vex_wire::activity::auth::CONFIGURATION_BITS,
        };
        let slots = [
            ("type 13, first", (0, 0), participation),
            ("type 17, last of its group", (0, 1), lifetime_in(3)),
            ("type 65, first of the next group", (1, 0), ghost_body(1)),
            ("type 8, a body Vex cannot read", (1, 1), configuration),
        ];
        assert_eq!(found(&run(&scenario, &[Step::Read(&seeded, false)]).1), []);
        for (what, (g, o), body) in slots {
            for body in [None, Some(body)] {
                let with = |reset: bool, key: Option<u32>| {
                    let mut gs = groups();
                    gs[g].objects[o].auth = Some(AuthPart {
                        reset,
                        body: body.clone(),
                    });
                    if let Some(key) = key {
                        gs[g].key = key;
                    }
                    message_of(gs)
                };
                let delta = with(false, None);
                let at = block_at(&delta, g, o);
                let what = format!("{what}, root {}", body.is_some());
                let first = run(&scenario, &[Step::Read(&delta, false)]).1;
                assert_eq!(found(&first), [(Rule::Seed01, Some(0), Some(at))], "{what}");
                let later = [Step::Read(&seeded, false), Step::Read(&delta, false)];
                assert_eq!(
                    found(&run(&scenario, &later).1),
                    [],
                    "{what}, seeded before"
                );
                let reset = with(true, None);
                let later = [Step::Read(&reset, false), Step::Read(&delta, true)];
                assert_eq!(found(&run(&scenario, &later).1), [], "{what}, reset before");
                let swept = [
                    Step::Read(&seeded, false),
                    Step::Sweep,
                    Step::Read(&delta, false),
                ];
                let got = found(&run(&scenario, &swept).1);
                assert_eq!(
                    got,
                    [(Rule::Seed01, Some(1), Some(at))],
                    "{what}, after a sweep"
                );
                let skipped = with(true, Some(EMPTY_KEY));
                let got = run(
                    &scenario,
                    &[Step::Read(&skipped, false), Step::Read(&delta, false)],
                );
                assert_eq!(
                    found(&got.1),
                    [
                        (Rule::Auth07, Some(0), None),
                        (Rule::Seed01, Some(1), Some(at))
                    ],
                    "{what}, the first block skipped"
                );
            }
        }
    }

    /// The schema-pairs message whose type-17 block carries `body` (reset 1), or is
    /// reset-only, its group keyed `key`.
    fn lifetime_keyed(body: Option<Bits>, key: u32) -> Vec<u8> {
        let scenario = vex_wire::scenario_file::parse(SCHEMA_PAIRS).unwrap();
        let mut group = seed_group_of(&scenario, 0xAAAA_0001);
        group.key = key;
        group.objects[1].auth = Some(AuthPart { reset: true, body });
        message_of(vec![group])
    }

    /// SEED-05 at the run's end, for a run of type-17 states each sent in its own
    /// message 5 (`None`: reset-only).
    fn spawn_gate_after(states: &[Option<i8>]) -> Vec<Found> {
        let scenario = vex_wire::scenario_file::parse(SCHEMA_PAIRS).unwrap();
        let messages: Vec<Vec<u8>> = states
            .iter()
            .map(|s| lifetime_message(s.map(lifetime_in)))
            .collect();
        let steps: Vec<Step<'_>> = messages.iter().map(|m| Step::Read(m, false)).collect();
        let (roster, mut v) = run(&scenario, &steps);
        assert_eq!(found(&v), [], "{states:?}: nothing before the end");
        roster.check_spawned(&mut v, END);
        found(&v)
    }

    /// SEED-05 at a run's end: a gate held since less than [`ANSWER_GRACE_MS`] before the
    /// end may have its live state on the wire and is not judged; one held that long is.
    /// The gate is held since its first holding state, not its last.
    #[test]
    fn a_spawn_gate_held_just_before_the_end_is_not_judged() {
        let scenario = vex_wire::scenario_file::parse(SCHEMA_PAIRS).unwrap();
        let judged_at = |reads: &[u64], end: u64| {
            let (mut roster, mut v) = (Roster::default(), Verdict::new());
            for (idx, at) in reads.iter().enumerate() {
                let message = lifetime_message(Some(lifetime_in(2)));
                let bits = roster.read_prefix(&message).unwrap().0;
                let now = Instant::from_millis(*at);
                let read = (idx as u64, now);
                assert!(roster.read(&mut v, &scenario, (0, false), read, &message, bits));
            }
            roster.check_spawned(&mut v, Instant::from_millis(end));
            v.rules()
        };
        let grace = ANSWER_GRACE_MS;
        assert_eq!(
            judged_at(&[5_000], 5_000 + grace - 1),
            [],
            "within the grace"
        );
        assert_eq!(judged_at(&[5_000], 5_000 + grace), [Rule::Seed05]);
        assert_eq!(
            judged_at(&[5_000, 5_500], 5_000 + grace),
            [Rule::Seed05],
            "held since the first loading state"
        );
    }

    /// SEED-05: each lifetime state from -1 to 10 as the only type-17 body: 3, 6 and 10
    /// open the spawn gate; every other (2 and 4 beside 3, 5 and 7 beside 6, 9 beside 10,
    /// and 7 and 8, which only the second predicate accepts) holds it, reported at the
    /// run's end for the frame of the last body. A loading state before the live one
    /// holds nothing; a state after the spawn holds nothing either; two holding states
    /// are reported once, at the last. A live state the client skips (its group keyed
    /// 0x811C9DC5) opens nothing.
    #[test]
    fn the_spawn_gate_opens_on_3_6_and_10_only() {
        for state in -1..=10i8 {
            let want = if [3, 6, 10].contains(&state) {
                vec![]
            } else {
                vec![(Rule::Seed05, Some(0), None)]
            };
            assert_eq!(spawn_gate_after(&[Some(state)]), want, "state {state}");
        }
        let held = |frame: u64| vec![(Rule::Seed05, Some(frame), None)];
        for (states, want) in [
            (vec![Some(2), Some(3)], vec![]),
            (vec![Some(-1), Some(0), Some(1), Some(2), Some(6)], vec![]),
            (vec![Some(4), Some(10)], vec![]),
            (vec![Some(3), Some(5)], vec![]),
            (vec![Some(10), Some(0), Some(7)], vec![]),
            (vec![Some(3), None], vec![]),
            (vec![Some(5), Some(7)], held(1)),
            (vec![Some(2), Some(9), Some(8)], held(2)),
        ] {
            assert_eq!(spawn_gate_after(&states), want, "{states:?}");
        }
        let scenario = vex_wire::scenario_file::parse(SCHEMA_PAIRS).unwrap();
        let loading = lifetime_message(Some(lifetime_in(2)));
        let skipped = lifetime_keyed(Some(lifetime_in(3)), EMPTY_KEY);
        let (roster, mut v) = run(
            &scenario,
            &[Step::Read(&loading, false), Step::Read(&skipped, false)],
        );
        roster.check_spawned(&mut v, END);
        assert_eq!(
            found(&v),
            [(Rule::Auth07, Some(1), None), (Rule::Seed05, Some(0), None)],
            "the live state skipped"
        );
    }

    /// The built-in scenario with a third type-17 slot in bubble 0 and a fourth in bubble
    /// 1, on objects of their own.
    fn with_more_lifetimes() -> Scenario {
        let mut scenario = Scenario::builtin();
        for (key, bubble) in [(0xDDDD_0001, 0), (0xDDDD_0002, 1)] {
            scenario.objects.push(vex_wire::scenario::PlacedObject {
                key,
                bubble: Some(bubble),
                slots: vec![SlotDecl {
                    slot_type: TYPE_LIFETIME,
                    index: 0,
                    schemas: SlotSchemas {
                        auth: true,
                        sense: false,
                    },
                }],
            });
        }
        scenario
    }

    /// The groups holding [`with_more_lifetimes`]'s type-17 slots, in that order: the
    /// player's (registered first, top-level), the bubble-0 object's holding every type,
    /// the third (bubble 0) and the fourth (bubble 1); every block reset-only but the
    /// type-17 blocks, each `parts[i]` (`None`: reset-only).
    fn lifetime_groups(scenario: &Scenario, parts: [Option<AuthPart>; 4]) -> Vec<EntityGroup> {
        let mut groups: Vec<EntityGroup> = [0xAAAA_0001, 0xBBBB_0003, 0xDDDD_0001, 0xDDDD_0002]
            .map(|key| seed_group_of(scenario, key))
            .to_vec();
        for (group, part) in groups.iter_mut().zip(parts) {
            if let Some(part) = part {
                let block = group
                    .objects
                    .iter_mut()
                    .find(|o| o.slot.slot_type == TYPE_LIFETIME)
                    .unwrap();
                block.auth = Some(part);
            }
        }
        groups
    }

    /// Bit offsets of the type-17 blocks of message 5 `message`, in order.
    fn lifetime_blocks(message: &[u8]) -> Vec<usize> {
        SensorAuthUpdate::decode(message)
            .unwrap()
            .groups
            .iter()
            .flat_map(|g| &g.objects)
            .filter(|o| o.slot.slot_type == TYPE_LIFETIME)
            .map(|o| o.at)
            .collect()
    }

    /// T17-05 across messages: after a roster that registers the player group and bubble
    /// 0's object with the live body in both type-17 slots, a message 5 carrying only bubble
    /// 0's type-17 block is judged against the body the first registered slot holds:
    /// another state is caught, the same body passes, and so does a message that carries
    /// the first slot's block too.
    #[test]
    fn a_later_type_17_block_alone_is_judged_against_the_first_slots_body() {
        let scenario = Scenario::builtin();
        let live = lifetime_in(3);
        let with_lifetime = |key: u32, body: &Bits| {
            let mut g = seed_group_of(&scenario, key);
            let block = g
                .objects
                .iter_mut()
                .find(|o| o.slot.slot_type == TYPE_LIFETIME);
            block.unwrap().auth = Some(AuthPart {
                reset: true,
                body: Some(body.clone()),
            });
            g
        };
        let roster = RosterDelta {
            keys: vec![0xAAAA_0001],
            mask: RosterDelta::mask_for(1),
            states: vec![1],
            sub_blocks: Some(vec![vex_wire::activity::sensor_auth::SubBlock {
                bubble: 0,
                keys: vec![0xBBBB_0001, 0xBBBB_0003],
                mask: RosterDelta::mask_for(2),
                states: vec![1, 1],
            }]),
        };
        let groups = vec![
            with_lifetime(0xAAAA_0001, &live),
            seed_group_of(&scenario, 0xBBBB_0001),
            with_lifetime(0xBBBB_0003, &live),
        ];
        let first = SensorAuthUpdate {
            prefix: AuthPrefix::echoing([1, 2]),
            roster: Some(roster),
            groups,
        }
        .encode()
        .unwrap();
        let alone = |body: &Bits| message_of(vec![with_lifetime(0xBBBB_0003, body)]);
        let other = lifetime_in(6);
        let both = message_of(vec![
            with_lifetime(0xAAAA_0001, &other),
            with_lifetime(0xBBBB_0003, &other),
        ]);
        let rules = |second: &[u8]| {
            let (_, v) = run(
                &scenario,
                &[Step::Read(&first, false), Step::Read(second, false)],
            );
            found(&v).into_iter().map(|f| f.0).collect::<Vec<_>>()
        };
        assert_eq!(rules(&alone(&other)), [Rule::T1705], "another state alone");
        assert_eq!(rules(&alone(&live)), [], "the held body alone");
        assert_eq!(rules(&both), [], "both slots moved together");
    }

    /// T17-05: only the first registered type-17 slot is read, so every one in the
    /// roster gets the same body. The same live body in all three of bubble 0 passes,
    /// and so do three reset-only blocks; a body other than the first slot's is caught at
    /// its block, in the second slot or the third (the last), whether it differs in the
    /// state (3 against 6, both live) or only in the last field (selection_arg), and also
    /// when the first slot's body is the odd one. A different body in the bubble-1 slot,
    /// which the client skips by its remainder, passes, and in a group keyed 0x811C9DC5
    /// it is only AUTH-07.
    #[test]
    fn every_type_17_slot_gets_the_first_ones_body() {
        let scenario = with_more_lifetimes();
        let body = |b: Bits| {
            Some(AuthPart {
                reset: true,
                body: Some(b),
            })
        };
        let live = || body(lifetime_in(3));
        let other_state = || body(lifetime_in(6));
        let other_arg = {
            let mut a = LifetimeAuth::sunrise_default(3);
            a.join_flag_inverted = true;
            a.selection_arg = 1;
            AuthBody::Lifetime(a).to_bits().unwrap()
        };
        let judged = |parts: [Option<AuthPart>; 4]| {
            let message = message_of(lifetime_groups(&scenario, parts));
            let at = lifetime_blocks(&message);
            (found(&run(&scenario, &[Step::Read(&message, false)]).1), at)
        };
        let (got, _) = judged([live(), live(), live(), live()]);
        assert_eq!(got, [], "the same body everywhere");
        let reset_only = || {
            Some(AuthPart {
                reset: true,
                body: None,
            })
        };
        let (got, _) = judged([reset_only(), reset_only(), reset_only(), reset_only()]);
        assert_eq!(got, [], "reset-only everywhere");
        let (got, _) = judged([live(), live(), live(), other_state()]);
        assert_eq!(got, [], "another body in bubble 1's slot, skipped");
        for (what, odd) in [
            ("another state", lifetime_in(6)),
            ("another selection_arg", other_arg),
        ] {
            for at in 1..3 {
                let mut parts = [live(), live(), live(), live()];
                parts[at] = body(odd.clone());
                let (got, blocks) = judged(parts);
                assert_eq!(
                    got,
                    [(Rule::T1705, Some(0), Some(blocks[at]))],
                    "{what} in slot {at}"
                );
            }
            let (got, blocks) = judged([body(odd.clone()), live(), live(), live()]);
            let want: Vec<Found> = [1, 2]
                .map(|i| (Rule::T1705, Some(0), Some(blocks[i])))
                .to_vec();
            assert_eq!(got, want, "{what} in the first slot");
        }
        let mut groups = lifetime_groups(&scenario, [live(), live(), live(), live()]);
        let mut skipped = seed_group_of(&scenario, 0xDDDD_0001);
        skipped.key = EMPTY_KEY;
        skipped.objects[0].auth = other_state();
        groups.push(skipped);
        let message = message_of(groups);
        let got = found(&run(&scenario, &[Step::Read(&message, false)]).1);
        assert_eq!(got, [(Rule::Auth07, Some(0), None)], "in a skipped group");
    }

    /// The built-in scenario's player group and its bubble-0 object holding an
    /// objective, a timer, a channel and a ghost link, every block reset-only but block
    /// `at` (group, object), which is `part`.
    fn builtin_with(at: (usize, usize), part: AuthPart) -> Vec<u8> {
        let scenario = Scenario::builtin();
        let mut groups: Vec<EntityGroup> = [0xAAAA_0001, 0xBBBB_0001]
            .map(|key| seed_group_of(&scenario, key))
            .to_vec();
        groups[at.0].objects[at.1].auth = Some(part);
        message_of(groups)
    }

    /// A type-3 body: objective `i` is `bytes[i]` (`None`: its presence bit clear), the
    /// whole array absent when `bytes` is `None`, and the generation.
    fn objective_body(bytes: Option<[Option<i128>; 24]>, generation: Option<i128>) -> Bits {
        let array = bytes.map_or(Value::Absent, |bytes| {
            Value::Array(
                bytes
                    .iter()
                    .map(|b| Value::Record(vec![b.map_or(Value::Absent, Value::Int)]))
                    .collect(),
            )
        });
        let generation = generation.map_or(Value::Absent, Value::Int);
        body_of(
            &vex_wire::schema::tables::OBJECTIVE,
            &Value::Record(vec![array, generation]),
        )
    }

    /// The built-in scenario's bodies for AUTH-09, by slot: what it is, its block (group,
    /// object), a body and another body.
    fn held_bodies() -> Vec<(&'static str, (usize, usize), Bits, Bits)> {
        let participation = |sync_state| {
            AuthBody::Participation(vex_wire::activity::auth::participation::ParticipationAuth {
                region: Some(0),
                player_key: Some(Scenario::builtin().player.character_id),
                sync_state,
            })
            .to_bits()
            .unwrap()
        };
        let real = |v: f32| Value::Raw {
            bits: u128::from(v.to_bits()),
            width: 32,
        };
        let timer = |value: i128| {
            let window = Value::Record(vec![
                Value::Bool(true),
                Value::Int(0),
                Value::Int(365 * 86_400_000),
                Value::Int(value),
                Value::Int(value),
                Value::Int(0),
                real(1.0),
            ]);
            let v = Value::Record(vec![window, Value::Bool(false), Value::Int(0)]);
            body_of(&vex_wire::schema::tables::ACTIVITY_TIMER, &v)
        };
        let channel = |revision: i128| {
            let row = Value::Record(vec![Value::Int(revision), real(50.0), real(1.0)]);
            let v = Value::Record(vec![Value::Array(vec![row])]);
            body_of(&vex_wire::schema::tables::CHANNEL, &v)
        };
        let mut objectives = [Some(0); 24];
        objectives[0] = Some(3);
        let mut others = objectives;
        others[0] = Some(4);
        vec![
            (
                "type 13, the message's first block",
                (0, 0),
                participation(0),
                participation(2),
            ),
            ("type 17", (0, 1), lifetime_in(3), lifetime_in(6)),
            (
                "type 3",
                (1, 1),
                objective_body(Some(objectives), Some(1)),
                objective_body(Some(others), Some(1)),
            ),
            ("type 18", (1, 2), timer(5_000), timer(6_000)),
            ("type 24", (1, 3), channel(1), channel(2)),
            (
                "type 65, the message's last block",
                (1, 4),
                ghost_body(1),
                ghost_body(2),
            ),
        ]
    }

    /// AUTH-09: reset-only overwrites an earlier body, so a message 5 that answers a
    /// snapshot request and resets a body the host still holds (it sends it again in the
    /// next) is caught at the reset block, for a body of each type Vex reads, at the
    /// message's first block and its last. Silent: the same reset outside a snapshot; a
    /// snapshot that re-sends the body, or leaves it in place (reset 0, root 0); a next
    /// message 5 that keeps the reset or sends another body; and a reset of a slot that
    /// never had a body.
    #[test]
    fn a_snapshot_resetting_a_held_body_is_auth_09_at_each_type() {
        let scenario = Scenario::builtin();
        for (what, at, body, other) in held_bodies() {
            let with = |reset: bool, body: Option<&Bits>| {
                builtin_with(
                    at,
                    AuthPart {
                        reset,
                        body: body.cloned(),
                    },
                )
            };
            let sent = with(true, Some(&body));
            let reset_only = with(true, None);
            let kept = with(false, None);
            let changed = with(true, Some(&other));
            let judged = |steps: &[(&Vec<u8>, bool)]| {
                let steps: Vec<Step<'_>> = steps.iter().map(|(m, s)| Step::Read(m, *s)).collect();
                found(&run(&scenario, &steps).1)
            };
            let bit = block_at(&reset_only, at.0, at.1);
            assert_eq!(
                judged(&[(&sent, false), (&reset_only, true), (&sent, false)]),
                [(Rule::Auth09, Some(1), Some(bit))],
                "{what}"
            );
            for (case, steps) in [
                (
                    "reset outside a snapshot",
                    [(&sent, false), (&reset_only, false), (&sent, false)],
                ),
                (
                    "re-sent by the snapshot",
                    [(&sent, false), (&sent, true), (&sent, false)],
                ),
                (
                    "left in place by the snapshot",
                    [(&sent, false), (&kept, true), (&sent, false)],
                ),
                (
                    "the reset kept",
                    [(&sent, false), (&reset_only, true), (&reset_only, false)],
                ),
                (
                    "another body next",
                    [(&sent, false), (&reset_only, true), (&changed, false)],
                ),
                (
                    "no body before",
                    [(&reset_only, false), (&reset_only, true), (&sent, false)],
                ),
            ] {
                assert_eq!(judged(&steps), [], "{what}: {case}");
            }
        }
    }

    /// The objective bytes of T3-01's held body: objective 0 holds 1 (the smallest
    /// byte), 11 holds 64, 23 (the last) holds 127 (the largest 7-bit byte), the rest 0.
    fn held_objectives() -> [Option<i128>; 24] {
        let mut bytes = [Some(0); 24];
        bytes[0] = Some(1);
        bytes[11] = Some(64);
        bytes[23] = Some(127);
        bytes
    }

    /// The rules and their places for three message 5s whose objective slot carries
    /// `first`, then `snapshot` (answering a snapshot request when `asked`), then `next`.
    fn objective_run(first: &Bits, snapshot: &Bits, asked: bool, next: &Bits) -> Vec<Found> {
        let scenario = Scenario::builtin();
        let message = |b: &Bits| {
            builtin_with(
                (1, 1),
                AuthPart {
                    reset: true,
                    body: Some(b.clone()),
                },
            )
        };
        let [a, b, c] = [first, snapshot, next].map(message);
        let steps = [
            Step::Read(&a, false),
            Step::Read(&b, asked),
            Step::Read(&c, false),
        ];
        found(&run(&scenario, &steps).1)
    }

    /// T3-01: a clear presence bit hands the applier a zero, so a snapshot's objective
    /// whose byte is left out, where the next message 5 re-sends the byte the host still
    /// held, is caught at the snapshot's block: objective 0 (byte 1), 11 (byte 64) and 23
    /// (byte 127), in a delta (reset 0) too, and once per objective when the whole array
    /// is left out. Silent: an
    /// objective left out that held 0; an explicit 0 (a reset the host asks for); the
    /// byte re-sent in the snapshot; left out again, or another byte, next; and the same
    /// body outside a snapshot.
    #[test]
    fn an_objective_byte_a_snapshot_leaves_out_is_t3_01() {
        let held = objective_body(Some(held_objectives()), Some(1));
        let bit = block_at(
            &builtin_with(
                (1, 1),
                AuthPart {
                    reset: true,
                    body: None,
                },
            ),
            1,
            1,
        );
        let caught = |n: usize| vec![(Rule::T301, Some(1), Some(bit)); n];
        for i in [0, 11, 23] {
            let mut bytes = held_objectives();
            bytes[i] = None;
            let dropped = objective_body(Some(bytes), Some(1));
            assert_eq!(
                objective_run(&held, &dropped, true, &held),
                caught(1),
                "objective {i}"
            );
            assert_eq!(
                objective_run(&held, &dropped, false, &held),
                [],
                "objective {i}, outside a snapshot"
            );
            assert_eq!(
                objective_run(&held, &dropped, true, &dropped),
                [],
                "objective {i}, left out next too"
            );
            let mut other = held_objectives();
            other[i] = Some(2);
            let other = objective_body(Some(other), Some(1));
            assert_eq!(
                objective_run(&held, &dropped, true, &other),
                [],
                "objective {i}, another byte next"
            );
            let mut zero = held_objectives();
            zero[i] = Some(0);
            let zero = objective_body(Some(zero), Some(1));
            assert_eq!(
                objective_run(&held, &zero, true, &held),
                [],
                "objective {i}, an explicit 0"
            );
        }
        let no_array = objective_body(None, Some(1));
        assert_eq!(
            objective_run(&held, &no_array, true, &held),
            caught(3),
            "no array"
        );
        // a delta (reset 0) has no leave-alone encoding either
        let mut bytes = held_objectives();
        bytes[0] = None;
        let part = |reset, b: &Bits| AuthPart {
            reset,
            body: Some(b.clone()),
        };
        let first = builtin_with((1, 1), part(true, &held));
        let delta = builtin_with((1, 1), part(false, &objective_body(Some(bytes), Some(1))));
        let steps = [
            Step::Read(&first, false),
            Step::Read(&delta, true),
            Step::Read(&first, false),
        ];
        let got = found(&run(&Scenario::builtin(), &steps).1);
        assert_eq!(got, caught(1), "objective 0, left out of a delta");
        let mut bytes = held_objectives();
        bytes[5] = None;
        let held_zero = objective_body(Some(bytes), Some(1));
        assert_eq!(
            objective_run(&held, &held_zero, true, &held),
            [],
            "an objective that held 0"
        );
        assert_eq!(objective_run(&held, &held, true, &held), [], "re-sent");
    }

    /// T3-02: the generation is a reset generation, and a clear presence bit changes it
    /// to 0, which clears the latch bits: a snapshot that leaves a held generation out
    /// (1, the smallest, or 0x7FFFFFFF, the largest 31-bit one), where the next message 5
    /// re-sends it, is caught at the snapshot's block; with an objective byte left out too,
    /// both are. Silent: a held generation of 0 left out (no change); a new generation in
    /// the snapshot (a reset the host asks for); the generation re-sent; left out again,
    /// or another, next; and the same body outside a snapshot.
    #[test]
    fn a_generation_a_snapshot_leaves_out_is_t3_02() {
        let bit = block_at(
            &builtin_with(
                (1, 1),
                AuthPart {
                    reset: true,
                    body: None,
                },
            ),
            1,
            1,
        );
        let bytes = Some(held_objectives());
        for generation in [1, 0x7FFF_FFFF] {
            let held = objective_body(bytes, Some(generation));
            let dropped = objective_body(bytes, None);
            let g = format!("generation {generation}");
            assert_eq!(
                objective_run(&held, &dropped, true, &held),
                [(Rule::T302, Some(1), Some(bit))],
                "{g}"
            );
            assert_eq!(
                objective_run(&held, &dropped, false, &held),
                [],
                "{g}, not a snapshot"
            );
            assert_eq!(
                objective_run(&held, &dropped, true, &dropped),
                [],
                "{g}, out next"
            );
            let other = objective_body(bytes, Some(2));
            assert_eq!(
                objective_run(&held, &dropped, true, &other),
                [],
                "{g}, another next"
            );
            assert_eq!(
                objective_run(&held, &other, true, &held),
                [],
                "{g}, a new one"
            );
            assert_eq!(objective_run(&held, &held, true, &held), [], "{g}, re-sent");
            let mut both = held_objectives();
            both[0] = None;
            let both = objective_body(Some(both), None);
            assert_eq!(
                objective_run(&held, &both, true, &held),
                [
                    (Rule::T301, Some(1), Some(bit)),
                    (Rule::T302, Some(1), Some(bit))
                ],
                "{g}, objective 0 left out too"
            );
        }
        let zero = objective_body(bytes, Some(0));
        let dropped = objective_body(bytes, None);
        assert_eq!(
            objective_run(&zero, &dropped, true, &zero),
            [],
            "generation 0"
        );
    }

    /// A prefix of the bits read last is the one held; one a bit apart (its last bit,
    /// `roster_enable`), and one after a prefix cut short, are read again.
    #[test]
    fn a_prefix_is_read_again_unless_its_bits_are_the_ones_read_last() {
        let mut roster = Roster::default();
        let m = sensor_auth_full_example();
        let body = m.encode().unwrap();
        let (bits, prefix) = roster.read_prefix(&body).unwrap();
        assert_eq!(prefix, &m.prefix);
        assert_eq!(roster.read_prefix(&body).unwrap(), (bits, &m.prefix));
        let mut other = m.clone();
        other.prefix.roster_enable = false;
        let other_body = other.encode().unwrap();
        assert_eq!(roster.read_prefix(&other_body).unwrap().1, &other.prefix);
        // cut in the patch epoch, once the hardwipe token before it is read
        let mut cut = m.clone();
        cut.prefix.hardwipe_token ^= 1;
        assert!(roster.read_prefix(&cut.encode().unwrap()[..10]).is_err());
        assert_eq!(roster.read_prefix(&other_body).unwrap().1, &other.prefix);
    }

    /// The roster the client holds is the last message's, read or known, through rosters
    /// that repeat, change, move (a longer prefix before them) and go absent.
    #[test]
    fn the_roster_held_is_the_last_messages_through_repeats_and_changes() {
        let scenario = vex_wire::scenario_file::parse(SCHEMA_PAIRS).unwrap();
        let full = sensor_auth_full_example();
        let a = full.roster.clone();
        let mut b = a.clone();
        if let Some(r) = &mut b {
            r.keys.push(7);
            r.states.push(1);
        }
        let with = |roster: &Option<RosterDelta>, tokens: bool| {
            let mut m = SensorAuthUpdate {
                roster: roster.clone(),
                groups: vec![],
                ..full.clone()
            };
            if let Some(block) = m.prefix.bubble_block.as_mut().filter(|_| tokens) {
                block.set_host_token(5, Some(9));
            }
            m.encode().unwrap()
        };
        let (mut roster, mut v) = (Roster::default(), Verdict::new());
        let turns = [
            (&a, false),
            (&a, false),
            (&b, false),
            (&b, true),
            (&a, true),
            (&None, false),
            (&a, false),
            (&a, false),
        ];
        for (i, (held, tokens)) in turns.into_iter().enumerate() {
            let message = with(held, tokens);
            let at = roster.read_prefix(&message).unwrap().0;
            assert!(roster.read(&mut v, &scenario, (0, false), (i as u64, T0), &message, at));
            assert_eq!(roster.last(), held.as_ref(), "turn {i}");
        }
    }
}
