//! Breaches of the rules of the host's pushes, each at every field, position and
//! boundary its rule names, driven through a joined activity client's `on_push`: written
//! from the rules (AH "Message 5", facts 4.7, 4.8, 4.10), apart from the host's fault list.

use super::{ActivityClient, Context};
use crate::config::ClientConfig;
use crate::links::Links;
use crate::rules::Rule;
use crate::status::StatusLine;
use crate::verdict::Outcome;
use crate::verdict::Verdict;
use std::net::{Ipv4Addr, SocketAddrV4};
use vex_wire::activity::auth::participation::ParticipationAuth;
use vex_wire::activity::body::Body;
use vex_wire::activity::envelope::PushHeader;
use vex_wire::activity::ids;
use vex_wire::activity::join::{JoinRequest, JoinResult};
use vex_wire::activity::membership::{MEMBER_LANES, Member, ReplicateMembership};
use vex_wire::activity::sensor_auth::{
    AuthPart, AuthPrefix, BODY_BUDGET, EntityGroup, OBJECT_HEAD_BITS, ObjectBlock, RosterDelta,
    SensorAuthUpdate, SubBlock,
};
use vex_wire::activity::slot::{
    ClientRef, EMPTY_KEY, NEVER_DESCRIBED, TYPE_CHANNEL, TYPE_LIFETIME, TYPE_PARTICIPATION,
};
use vex_wire::activity::small::WorldGlobals;
use vex_wire::bits::{Bits, written_bits};
use vex_wire::time::Instant;

const SESSION: u64 = 0x9EAA_3001_0020_0001;
/// The built-in scenario's bubble-0 object holding the channel (type 24, index 3).
const OBJECT: u32 = 0xBBBB_0001;

/// An activity client of the built-in scenario whose join was accepted, whose join
/// burst came and which sent its first message 52, with what it reaches.
struct Joined {
    client: ActivityClient,
    config: ClientConfig,
    status: StatusLine,
    verdict: Verdict,
    links: Links,
}

impl Joined {
    fn new() -> Self {
        let config = ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1));
        let p = config.scenario.player;
        let request = JoinRequest::new(config.join_nonce, SESSION, p.member_key, p.character_id);
        let mut j = Self {
            client: ActivityClient::new(SESSION, false, false, 0),
            links: Links::new(config.target),
            config,
            status: StatusLine::default(),
            verdict: Verdict::new(),
        };
        j.push(
            ids::JOIN_RESULT,
            JoinResult::accept(&request, SESSION).encode().unwrap(),
        );
        for msg in [
            ids::ENTITY_SLOTS_ALLOCATED,
            ids::GLOBAL_ACTIVITY_STATE,
            ids::WORLD_GLOBALS_STATE,
            ids::BUBBLE_HOST_STATE,
        ] {
            j.client.join.observe(&mut j.verdict, 0, msg);
        }
        j.client
            .epochs
            .send_patch(Instant::default(), j.config.patch_epoch);
        assert!(j.verdict.rules().is_empty());
        j
    }

    fn push(&mut self, msg: u32, payload: Vec<u8>) {
        let mut cx = Context {
            now: Instant::default(),
            config: &self.config,
            status: &mut self.status,
            verdict: &mut self.verdict,
            links: &mut self.links,
        };
        let push = PushHeader::new(SESSION, msg, payload.len());
        self.client.on_push(&mut cx, 1, push, &payload);
    }
}

/// The rules one push breaks on a fresh [`Joined`] client.
fn rules_for(msg: u32, payload: Vec<u8>) -> Vec<Rule> {
    let mut j = Joined::new();
    j.push(msg, payload);
    j.verdict.rules()
}

/// Message 5 with a valid prefix, no roster delta, and `objects` in one group.
fn auth(objects: Vec<ObjectBlock>) -> Vec<u8> {
    let group = EntityGroup {
        key: OBJECT,
        filler: 0,
        objects,
    };
    auth_with(None, vec![group])
}

/// Message 5 with a valid prefix (the patch epoch the client sent), `roster` and
/// `groups`.
fn auth_with(roster: Option<RosterDelta>, groups: Vec<EntityGroup>) -> Vec<u8> {
    SensorAuthUpdate {
        prefix: AuthPrefix::echoing(
            ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1)).patch_epoch,
        ),
        roster,
        groups,
    }
    .encode()
    .unwrap()
}

/// A type-24 body whose 3-bit count says `count`, holding that many rows of {revision,
/// target 50.0, blend 1 s}.
fn channel(count: u64) -> ObjectBlock {
    let body = written_bits(|w| {
        w.write(count, 3);
        for revision in 1..=count {
            w.write(revision, 32);
            w.write(u64::from(50.0f32.to_bits()), 32);
            w.write(u64::from(1.0f32.to_bits()), 32);
        }
    })
    .unwrap();
    ObjectBlock {
        slot: ClientRef {
            key: OBJECT,
            slot_type: TYPE_CHANNEL,
            index: 3,
        },
        auth: Some(AuthPart {
            reset: true,
            body: Some(body),
        }),
        sense: None,
    }
}

/// ENV-12: messages 40, 41, 56 and 57 are decoded and discarded, each reported; a
/// message the client acts on is not.
#[test]
fn script_and_perf_messages_are_discarded() {
    for msg in [40, 41, 56, 57] {
        assert_eq!(rules_for(msg, vec![0; 4]), [Rule::Env12], "message {msg}");
    }
    let world = WorldGlobals::default_tick().encode().unwrap();
    assert!(rules_for(ids::WORLD_GLOBALS_STATE, world).is_empty());
}

/// BODY-04: a host's message 37 is its 66 bits (9 bytes) or more; 8 bytes, short of the
/// 2-bit reason, and none at all do not decode.
#[test]
fn a_connectivity_failure_short_of_its_bits_is_caught() {
    for (len, rules) in [
        (9, vec![]),
        (10, vec![]),
        (8, vec![Rule::Body04]),
        (0, vec![Rule::Body04]),
    ] {
        assert_eq!(
            rules_for(ids::CONNECTIVITY_FAILURE, vec![0xFF; len]),
            rules,
            "{len} bytes"
        );
    }
}

/// SLOT-02: a block of each of the twelve types with no descriptor is caught; a block of
/// any other type is not SLOT-02: the channel the object has passes, and a slot the
/// scenario does not hold is skipped by its remainder and never applies (AUTH-05).
#[test]
fn the_twelve_undescribed_types_never_appear_in_message_5() {
    let twelve = [12, 44, 45, 46, 47, 48, 54, 60, 61, 64, 69, 72];
    assert_eq!(NEVER_DESCRIBED, twelve);
    assert!(rules_for(ids::SENSOR_AUTH_UPDATE, auth(vec![channel(1)])).is_empty());
    for slot_type in 0..=125 {
        let block = ObjectBlock {
            slot: ClientRef {
                key: OBJECT,
                slot_type,
                index: 9,
            },
            auth: None,
            sense: None,
        };
        let want = if twelve.contains(&slot_type) {
            vec![Rule::Slot02]
        } else {
            vec![Rule::Auth05]
        };
        let got = rules_for(ids::SENSOR_AUTH_UPDATE, auth(vec![block]));
        assert_eq!(got, want, "slot type {slot_type}");
    }
}

/// T24-01: a 3-bit row count up to 4 passes; 5, 6 and 7 (with as many rows in the
/// body) write past the four rows.
#[test]
fn a_channel_holds_at_most_four_rows() {
    for count in 0..=7 {
        let want = if count <= 4 {
            vec![]
        } else {
            vec![Rule::T2401]
        };
        let got = rules_for(ids::SENSOR_AUTH_UPDATE, auth(vec![channel(count)]));
        assert_eq!(got, want, "{count} rows");
    }
}

/// The built-in scenario's player group, top-level: a type-13 slot that carries the player
/// key, a type-17 slot, and a second type-13 slot.
const PLAYER: u32 = 0xAAAA_0001;
/// The built-in scenario's bubble-0 object holding every documented type.
const EVERY: u32 = 0xBBBB_0003;
/// The built-in scenario's bubble-1 object.
const BUBBLE_1: u32 = 0xBBBB_0002;

/// The rules a fresh [`Joined`] client reports for the message 5s `bodies`, in order.
fn rules_for_all(bodies: Vec<Vec<u8>>) -> Vec<Rule> {
    let mut j = Joined::new();
    for body in bodies {
        j.push(ids::SENSOR_AUTH_UPDATE, body);
    }
    j.verdict.rules()
}

/// The group of the built-in scenario's object `key` with a reset-only block (reset 1,
/// root 0, the Sense bit 0 where the slot has one) for each of its slots.
fn seed_group(key: u32) -> EntityGroup {
    let scenario = vex_wire::scenario::Scenario::builtin();
    let object = scenario.objects.iter().find(|o| o.key == key).unwrap();
    let objects = object
        .slots
        .iter()
        .map(|d| ObjectBlock {
            slot: ClientRef {
                key,
                slot_type: d.slot_type,
                index: d.index,
            },
            auth: d.schemas.auth.then_some(AuthPart {
                reset: true,
                body: None,
            }),
            sense: d.schemas.sense.then_some(None),
        })
        .collect();
    EntityGroup {
        key,
        filler: 0,
        objects,
    }
}

/// The built-in scenario's roster for a client in bubble 0 (facts 4.7): the player
/// group top-level, bubble 0's sub-block with its two objects and bubble 1's with its
/// one, every key present, every state byte 1.
fn roster() -> RosterDelta {
    let sub = |bubble, keys: Vec<u32>| SubBlock {
        bubble,
        mask: RosterDelta::mask_for(keys.len()),
        states: vec![1; keys.len()],
        keys,
    };
    RosterDelta {
        keys: vec![PLAYER],
        mask: RosterDelta::mask_for(1),
        states: vec![1],
        sub_blocks: Some(vec![sub(0, vec![OBJECT, EVERY]), sub(1, vec![BUBBLE_1])]),
    }
}

/// The groups of every object [`roster`] registers in bubble 0, in roster order.
fn seed_groups() -> Vec<EntityGroup> {
    [PLAYER, OBJECT, EVERY].map(seed_group).to_vec()
}

/// SEED-06: past the warm-up (facts 4.7: the byte moves on each of a link's first three
/// sends), a state byte that moves on two message 5s in a row, the keys the same, is a
/// per-send counter: caught at the top-level key, at the first and the last key of the
/// current bubble's sub-block, up or down. One move (a rebuild the host asks for), moves
/// within the warm-up, a retired key of bubble 1 and a byte of bubble 1's sub-block, which
/// does not apply in bubble 0, pass.
#[test]
fn a_state_byte_moving_on_every_send_is_caught_at_every_key() {
    let first = auth_with(Some(roster()), seed_groups());
    assert_eq!(rules_for_all(vec![first.clone()]), [], "the first roster");
    type Change = fn(&mut RosterDelta, i8);
    let cases: [(&str, Change, Vec<Rule>); 6] = [
        (
            "bubble 1's key retired",
            |r, _| r.sub_blocks.as_mut().unwrap()[1].mask = [0; 3],
            vec![],
        ),
        (
            "bubble 1's key's byte: that sub-block does not apply in bubble 0",
            |r, b| r.sub_blocks.as_mut().unwrap()[1].states[0] = b,
            vec![],
        ),
        (
            "the top-level key's byte",
            |r, b| r.states[0] = b,
            vec![Rule::Seed06],
        ),
        (
            "the sub-block's first key's byte",
            |r, b| r.sub_blocks.as_mut().unwrap()[0].states[0] = b,
            vec![Rule::Seed06],
        ),
        (
            "the sub-block's last key's byte",
            |r, b| r.sub_blocks.as_mut().unwrap()[0].states[1] = b,
            vec![Rule::Seed06],
        ),
        (
            "the sub-block's last key's byte, down",
            |r, b| r.sub_blocks.as_mut().unwrap()[0].states[1] = -b,
            vec![Rule::Seed06],
        ),
    ];
    // the rosters repeat unasked (AUTH-16): only SEED-06 is looked at
    let judged = |rosters: Vec<Vec<u8>>| -> Vec<Rule> {
        let rules = rules_for_all(rosters).into_iter();
        rules.filter(|r| *r == Rule::Seed06).collect()
    };
    for (what, change, want) in cases {
        let with = |byte| {
            let mut r = roster();
            change(&mut r, byte);
            auth_with(Some(r), seed_groups())
        };
        let warm = [first.clone(), first.clone(), first.clone()];
        let twice = [warm.to_vec(), vec![with(2), with(3)]].concat();
        assert_eq!(judged(twice), want, "{what}, twice in a row");
        let once = [warm.to_vec(), vec![with(2), with(2), with(2)]].concat();
        assert_eq!(judged(once), [], "{what}, once");
        let apart = [warm.to_vec(), vec![with(2), with(2), with(3)]].concat();
        assert_eq!(judged(apart), [], "{what}, two moves apart");
        let warming = vec![first.clone(), with(2), with(3), with(3)];
        assert_eq!(judged(warming), [], "{what}, in the warm-up");
    }
}

/// AUTH-07 and AUTH-08: the full roster passes, and with bubble 1's object sent too;
/// a group keyed 0x811C9DC5 is caught wherever it sits, last or in the middle (with the
/// registered object whose blocks it held then blockless, AUTH-08, or holding an object
/// not registered in this bubble, AUTH-07 alone); a registered slot with no block is
/// caught at the top-level group's last slot, at a sub-block object's last slot, at the
/// last group's middle and last slots, and for the whole last group.
#[test]
fn a_skipped_group_and_a_missing_block_are_caught_anywhere() {
    type Change = fn(&mut Vec<EntityGroup>);
    let cases: [(&str, Change, Vec<Rule>); 10] = [
        ("every block", |_| {}, vec![]),
        (
            "bubble 1's object too",
            |g| g.push(seed_group(BUBBLE_1)),
            vec![],
        ),
        (
            "a last group keyed 0x811C9DC5 holding bubble 1's object",
            |g| {
                g.push(EntityGroup {
                    key: EMPTY_KEY,
                    ..seed_group(BUBBLE_1)
                })
            },
            vec![Rule::Auth07],
        ),
        (
            "the last group keyed 0x811C9DC5",
            |g| g[2].key = EMPTY_KEY,
            vec![Rule::Auth07, Rule::Auth08],
        ),
        (
            "the middle group keyed 0x811C9DC5",
            |g| g[1].key = EMPTY_KEY,
            vec![Rule::Auth07, Rule::Auth08],
        ),
        (
            "the top-level group's last slot missing",
            |g| drop(g[0].objects.pop()),
            vec![Rule::Auth08],
        ),
        (
            "a sub-block object's last slot missing",
            |g| drop(g[1].objects.pop()),
            vec![Rule::Auth08],
        ),
        (
            "the last group's middle slot missing",
            |g| drop(g[2].objects.remove(4)),
            vec![Rule::Auth08],
        ),
        (
            "the last group's last slot missing",
            |g| drop(g[2].objects.pop()),
            vec![Rule::Auth08],
        ),
        (
            "the last group missing",
            |g| drop(g.pop()),
            vec![Rule::Auth08],
        ),
    ];
    for (what, change, want) in cases {
        let mut groups = seed_groups();
        change(&mut groups);
        let got = rules_for(ids::SENSOR_AUTH_UPDATE, auth_with(Some(roster()), groups));
        assert_eq!(got, want, "{what}");
    }
    // a message 5 with no roster delta still has its groups read: one keyed
    // 0x811C9DC5 is skipped whole, and its blocks, a lifetime state of 11 among them,
    // are not applied
    let first = auth_with(Some(roster()), seed_groups());
    let mut skipped = seed_group(PLAYER);
    skipped.key = EMPTY_KEY;
    if let Some(auth) = skipped.objects[1].auth.as_mut() {
        auth.body = Some(lifetime_state_eleven());
    }
    let later = auth_with(None, vec![skipped]);
    assert_eq!(rules_for_all(vec![first, later]), [Rule::Auth07]);
}

/// A type-17 body of state 11 (T17-01 where the client applies it).
fn lifetime_state_eleven() -> Bits {
    let mut body = lifetime(0, 0);
    patch(&mut body.bytes, 0, 4, 12); // state 11 is wire 12
    body
}

/// MEMBER-02: a membership table without the local player ends the activity: one with
/// no member at all (whose host key then names no member either, MEMBER-01), and one
/// with only a member whose key differs from the player's in the lowest bit, in the
/// first or the last lane; the player alone, or in the last lane behind another
/// member, passes.
#[test]
fn a_table_without_the_local_player_ends_the_activity() {
    let p = vex_wire::scenario::Scenario::builtin().player;
    let me = Member::seed(p.member_key, p.account_soid, p.character_id);
    let other = Member::seed(p.member_key ^ 1, p.account_soid, p.character_id ^ 1);
    let table = |lanes: &[(usize, Member)], host: &Member| {
        let mut members = [None; MEMBER_LANES];
        for (lane, m) in lanes {
            members[*lane] = Some(*m);
        }
        ReplicateMembership::for_members(members, 1, host.member_key)
            .encode()
            .unwrap()
    };
    let last = MEMBER_LANES - 1;
    for (what, body, want) in [
        ("the player alone", table(&[(0, me)], &me), vec![]),
        (
            "the player in the last lane",
            table(&[(0, other), (last, me)], &other),
            vec![],
        ),
        (
            "no member",
            table(&[], &me),
            vec![Rule::Member02, Rule::Member01],
        ),
        (
            "another member alone",
            table(&[(0, other)], &other),
            vec![Rule::Member02],
        ),
        (
            "another member alone in the last lane",
            table(&[(last, other)], &other),
            vec![Rule::Member02],
        ),
    ] {
        let mut j = Joined::new();
        j.push(ids::REPLICATE_MEMBERSHIP, body);
        assert_eq!(j.verdict.rules(), want, "{what}");
        let ended = matches!(
            j.verdict.outcome(),
            Outcome::Ended {
                rule: Rule::Member02,
                ..
            }
        );
        assert_eq!(ended, !want.is_empty(), "{what}: the activity ends");
    }
}

/// AUTH-10: a message 5 of exactly 471,859 bytes (a body padded with zero bytes, which
/// the client's decoder accepts) fits the tick; one of 471,860 is refused and sets the
/// give-up flag, so the next message 5 is ignored (STICKY-02).
#[test]
fn a_message_5_over_the_tick_budget_is_refused() {
    let padded = |len: usize| {
        let mut body = auth(vec![channel(1)]);
        body.resize(len, 0);
        body
    };
    assert_eq!(
        rules_for(ids::SENSOR_AUTH_UPDATE, padded(BODY_BUDGET)),
        [],
        "{BODY_BUDGET} bytes"
    );
    let mut j = Joined::new();
    j.push(ids::SENSOR_AUTH_UPDATE, padded(BODY_BUDGET + 1));
    assert_eq!(
        j.verdict.rules(),
        [Rule::Auth10],
        "{} bytes",
        BODY_BUDGET + 1
    );
    assert_eq!(j.verdict.gave_up(), Some(Rule::Auth10));
    j.push(ids::SENSOR_AUTH_UPDATE, auth(vec![channel(1)]));
    assert_eq!(j.verdict.rules(), [Rule::Auth10, Rule::Sticky02]);
}

/// SLOT-01: a ClientRef whose type decodes to -1 (wire 0), whose index does (wire
/// 32767), or both, is refused, first in its group or after a block the client
/// applies; type 0, index 0 and index -2 are not -1: the client skips those blocks by
/// their remainder, the scenario having no such slot (AUTH-05, not SLOT-01).
#[test]
fn a_client_ref_of_type_or_index_minus_1_is_refused() {
    let block = |slot_type, index| ObjectBlock {
        slot: ClientRef {
            key: OBJECT,
            slot_type,
            index,
        },
        auth: None,
        sense: None,
    };
    for (slot_type, index, want) in [
        (0, 0, vec![Rule::Auth05]),
        (TYPE_CHANNEL, -2, vec![Rule::Auth05]),
        (-1, 3, vec![Rule::Slot01]),
        (TYPE_CHANNEL, -1, vec![Rule::Slot01]),
        (-1, -1, vec![Rule::Slot01]),
    ] {
        for after in [false, true] {
            let mut objects = vec![block(slot_type, index)];
            if after {
                objects.insert(0, channel(1));
            }
            let got = rules_for(ids::SENSOR_AUTH_UPDATE, auth(objects));
            assert_eq!(
                got, want,
                "type {slot_type}, index {index}, after a block {after}"
            );
        }
    }
}

/// The built-in scenario's type-17 slots: the player group's, and the one of the
/// bubble-0 object holding every documented type.
const LIFETIMES: [ClientRef; 2] = [
    ClientRef {
        key: PLAYER,
        slot_type: TYPE_LIFETIME,
        index: 1,
    },
    ClientRef {
        key: EVERY,
        slot_type: TYPE_LIFETIME,
        index: 4,
    },
];

/// A type-17 body as AH "Type 17" and facts 4.8 lay it out (20 fields, no presence
/// bits; 423 bits and 97 more per switch) whose 6-bit switch count says `switches` and
/// which holds as many, each an i32 0: state 3 (the spawn gate opens), join flag 1,
/// current bubble 0 (the client's), every spawn-point pair off, the selection cleared;
/// its last `cut` bits left off.
fn lifetime(switches: u64, cut: usize) -> Bits {
    let mut bits = written_bits(|w| {
        w.write(3 + 1, 4); // state, bias 1
        w.write(1, 3); // quality bypass 0, bias 1
        w.write(1, 1); // join_flag_inverted
        w.write(0x8000_0000, 32); // marker revision 0
        w.write(0, 32); // spawn entry hash
        w.write(0x8000_0000, 32); // current bubble 0
        w.write(switches, 6);
        for _ in 0..switches {
            w.write(0xB3C1_251B, 32); // key
            w.write(1, 1); // value present
            w.write(0x8080_0007, 32); // the runtime i32 class
            w.write(0x8000_0000, 32); // 0
        }
        w.write(0x8000_0000, 32); // unused
        for _ in 0..3 {
            w.write(0, 10); // index -1, bias 1: off
            w.write(u64::from(EMPTY_KEY), 32);
        }
        w.write(0, 1); // cycle override
        w.write(0, 32); // cycle phase
        w.write(0x7FFF_FFFF, 32); // selection id -1
        w.write(0, 32); // selection target: key 0,
        w.write(1, 7); // type 0,
        w.write(0x8000, 16); // index 0
        w.write(0, 32); // selection arg
        w.write(0, 3); // no definition refs
    })
    .unwrap();
    bits.bit_len -= cut;
    bits
}

/// `bytes` with the `width` bits at bit `at` set to `value`.
fn patch(bytes: &mut [u8], at: usize, width: usize, value: u64) {
    for i in 0..width {
        let (byte, mask) = ((at + i) / 8, 0x80u8 >> ((at + i) % 8));
        if value >> (width - 1 - i) & 1 == 1 {
            bytes[byte] |= mask;
        } else {
            bytes[byte] &= !mask;
        }
    }
}

/// Message 5 with the groups of the objects holding the type-17 slots, every block
/// reset-only but the type-17 slots', which hold `bodies[i]` with reset 1 (the
/// player's last in its group, the other inside its group); a type-17 block's
/// remainder is its own length, or `remainders[i]`.
fn lifetimes(bodies: [Bits; 2], remainders: [Option<u32>; 2]) -> Vec<u8> {
    let mut groups = [PLAYER, EVERY].map(seed_group).to_vec();
    for (slot, body) in LIFETIMES.iter().zip(bodies) {
        let block = groups
            .iter_mut()
            .flat_map(|g| g.objects.iter_mut())
            .find(|o| o.slot == *slot)
            .unwrap();
        block.auth = Some(AuthPart {
            reset: true,
            body: Some(body),
        });
    }
    let mut bytes = auth_with(None, groups);
    let blocks: Vec<usize> = SensorAuthUpdate::decode(&bytes)
        .unwrap()
        .groups
        .iter()
        .flat_map(|g| &g.objects)
        .filter(|o| o.slot.slot_type == TYPE_LIFETIME)
        .map(|o| o.at)
        .collect();
    assert_eq!(blocks.len(), 2);
    for (at, remainder) in blocks.into_iter().zip(remainders) {
        if let Some(r) = remainder {
            let remainder_at = at + OBJECT_HEAD_BITS - 32;
            patch(&mut bytes, remainder_at, 32, r.into());
        }
    }
    bytes
}

/// T17-02: a body of exactly its fields (no switch, or one) passes in both type-17
/// slots; a body one bit short, whose remainder says the bits it holds, is caught in
/// either slot: the player's, last in its group, and the other, inside its group,
/// where the client reads the short body on into the next block. (Where the remainder
/// says the whole body's length, the bytes are those of a whole body followed by a
/// message that does not decode: BODY-04, not T17-02.)
#[test]
fn a_type_17_body_one_bit_short_is_caught() {
    for switches in [0, 1] {
        let whole = || lifetime(switches, 0);
        let got = rules_for(
            ids::SENSOR_AUTH_UPDATE,
            lifetimes([whole(), whole()], [None; 2]),
        );
        assert_eq!(got, [], "{switches} switches, whole");
        for at in 0..2 {
            let mut bodies = [whole(), whole()];
            bodies[at] = lifetime(switches, 1);
            let got = rules_for(ids::SENSOR_AUTH_UPDATE, lifetimes(bodies, [None; 2]));
            assert_eq!(
                got,
                [Rule::T1702],
                "{switches} switches, one bit short in slot {at}"
            );
        }
    }
}

/// T17-03: 50 switches pass in both type-17 slots; 51, and 63 (the 6-bit count's
/// largest), with as many switches in the body, are caught in the first slot or the
/// last (the other holding 50).
#[test]
fn a_switch_list_holds_at_most_50() {
    let fifty = || lifetime(50, 0);
    let got = rules_for(
        ids::SENSOR_AUTH_UPDATE,
        lifetimes([fifty(), fifty()], [None; 2]),
    );
    assert_eq!(got, [], "50 switches");
    for switches in [51, 63] {
        for at in 0..2 {
            let mut bodies = [fifty(), fifty()];
            bodies[at] = lifetime(switches, 0);
            let got = rules_for(ids::SENSOR_AUTH_UPDATE, lifetimes(bodies, [None; 2]));
            assert_eq!(got, [Rule::T1703], "{switches} switches in slot {at}");
        }
    }
}

/// A type-17 body as [`lifetime`] lays it out with no switch, whose 3-bit
/// definition-ref count says `count` and which holds `refs` refs.
fn lifetime_with_refs(count: u64, refs: u64) -> Bits {
    written_bits(|w| {
        w.write_bits(&lifetime(0, 3)); // every field but the ref count
        w.write(count, 3);
        for r in 0..refs {
            w.write(0x0100_0000 + r, 32);
        }
    })
    .unwrap()
}

/// BODY-05: an array's count can be wider than the array, and the client does not clamp
/// it: type 17's definition refs are a 3-bit count of up to six. Six refs pass in both
/// type-17 slots; a count of 7, the count field's largest and one above the capacity,
/// with seven refs or with six, is caught in either slot (the player's, last in its
/// group, or the other, inside its group), the other slot holding six.
#[test]
fn an_array_count_above_its_capacity_is_caught() {
    let six = || lifetime_with_refs(6, 6);
    let got = rules_for(
        ids::SENSOR_AUTH_UPDATE,
        lifetimes([six(), six()], [None; 2]),
    );
    assert_eq!(got, [], "six refs");
    for refs in [7, 6] {
        for at in 0..2 {
            let mut bodies = [six(), six()];
            bodies[at] = lifetime_with_refs(7, refs);
            let got = rules_for(ids::SENSOR_AUTH_UPDATE, lifetimes(bodies, [None; 2]));
            assert_eq!(got, [Rule::Body05], "count 7, {refs} refs, in slot {at}");
        }
    }
}

/// AUTH-17: the singleton gate after the entity groups set to 1 is caught; the same
/// message with it 0 passes.
#[test]
fn a_singleton_gate_set_is_caught() {
    let body = auth_with(Some(roster()), seed_groups());
    assert_eq!(rules_for_all(vec![body.clone()]), []);
    let gate = SensorAuthUpdate::decode(&body).unwrap().gate_at;
    let mut set = body;
    set[gate / 8] |= 0x80 >> (gate % 8);
    assert_eq!(rules_for_all(vec![set]), [Rule::Auth17]);
}

/// The patch epoch the built-in client reports in its message 52.
fn own_epoch() -> [u64; 2] {
    ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1)).patch_epoch
}

/// Message 5 with `prefix`, `roster` and `groups`.
fn auth_prefixed(
    prefix: AuthPrefix,
    roster: Option<RosterDelta>,
    groups: Vec<EntityGroup>,
) -> Vec<u8> {
    SensorAuthUpdate {
        prefix,
        roster,
        groups,
    }
    .encode()
    .unwrap()
}

/// Message 1 as a host replaying the built-in client's own selection sends it.
fn own_global_state() -> Vec<u8> {
    let scenario = vex_wire::scenario::Scenario::builtin();
    vex_wire::activity::global_state::GlobalActivityState {
        descriptor: scenario.destination.to_bits().unwrap(),
        spawn_set_hash: scenario.destination.spawn_hash.unwrap(),
        ..vex_wire::vectors::global_state_example()
    }
    .encode()
    .unwrap()
}

/// Message 12 with the built-in player alone, under `revision`.
fn player_alone(revision: u32) -> Vec<u8> {
    let p = vex_wire::scenario::Scenario::builtin().player;
    let me = Member::seed(p.member_key, p.account_soid, p.character_id);
    let mut members = [None; MEMBER_LANES];
    members[0] = Some(me);
    ReplicateMembership::for_members(members, revision, me.member_key)
        .encode()
        .unwrap()
}

/// A [`Joined`] client that applied the built-in roster in bubble 0 and then reported
/// its move into bubble 1 (message 22) and swept its roster, as its region-move timer
/// does; its roster request not yet sent.
fn moved() -> Joined {
    let mut j = Joined::new();
    j.push(
        ids::SENSOR_AUTH_UPDATE,
        auth_with(Some(roster()), seed_groups()),
    );
    let now = Instant::default();
    let _report = j.client.region.report_move(now, &j.config.scenario);
    j.client.roster.sweep();
    assert_eq!(j.client.region.bubble(), 1);
    assert_eq!(j.verdict.rules(), [], "the roster before the move");
    j
}

/// The client sends a snapshot request (message 18); `after_move` when it is the roster
/// request that follows its region report, as its roster-request timer does.
fn ask_snapshot(j: &mut Joined, after_move: bool) {
    let now = Instant::default();
    if after_move {
        j.client.region.request_sent(now);
    }
    let revision = j.client.membership.acknowledged_revision();
    let bubble = j.client.region.bubble();
    let _request = j.client.refresh.ask(now, false, revision, bubble);
}

/// The whole snapshot a request is owed on a private link: messages 1, 2 and 12 (the
/// player alone, revision 1), then `auth`.
fn answer_snapshot(j: &mut Joined, auth: Vec<u8>) {
    j.push(ids::GLOBAL_ACTIVITY_STATE, own_global_state());
    j.push(
        ids::WORLD_GLOBALS_STATE,
        WorldGlobals::default_tick().encode().unwrap(),
    );
    j.push(ids::REPLICATE_MEMBERSHIP, player_alone(1));
    j.push(ids::SENSOR_AUTH_UPDATE, auth);
}

/// The groups a client in bubble 1 is owed with [`roster`]: the player's and bubble 1's
/// object, every block reset-only.
fn bubble_1_groups() -> Vec<EntityGroup> {
    [PLAYER, BUBBLE_1].map(seed_group).to_vec()
}

/// [`bubble_1_groups`] as a host that committed the move into bubble 1 builds them: the
/// player's first type-13 body names the region reported, slice set 8 (facts 4.8).
fn committed_move_groups() -> Vec<EntityGroup> {
    let key = vex_wire::scenario::Scenario::builtin().player.character_id;
    let body = ParticipationAuth {
        region: Some(8),
        player_key: Some(key),
        sync_state: 0,
    };
    let mut groups = bubble_1_groups();
    let first_type_13 = groups
        .iter_mut()
        .flat_map(|g| &mut g.objects)
        .find(|o| o.slot.slot_type == TYPE_PARTICIPATION)
        .unwrap();
    first_type_13.auth = Some(AuthPart {
        reset: true,
        body: Some({
            written_bits(|w| {
                body.write(w);
            })
            .unwrap()
        }),
    });
    groups
}

/// AUTH-02 through the push path: a joined client whose first message 52 is due but not
/// sent drops every message 5 (the full first roster, or the player's bodies alone) and
/// reports AUTH-02; the roster is not applied, so a block that resets then seeds nothing
/// (the same slots' next blocks, reset 0, are SEED-01). Once the message 52 is out, the
/// same first roster is applied with nothing reported.
#[test]
fn a_message_5_before_the_first_message_52_is_dropped() {
    let unsent = || {
        let mut j = Joined::new();
        j.client.epochs = super::epochs::Epochs::default();
        j.client.epochs.start(Instant::default(), 0, None);
        j
    };
    let first = auth_with(Some(roster()), seed_groups());
    let mut j = unsent();
    j.push(ids::SENSOR_AUTH_UPDATE, first.clone());
    assert_eq!(j.verdict.rules(), [Rule::Auth02], "the first roster");
    assert_eq!(j.client.roster.applied(), 0);
    j.client.epochs.send_patch(Instant::default(), own_epoch());
    j.push(ids::SENSOR_AUTH_UPDATE, first);
    assert_eq!(j.verdict.rules(), [Rule::Auth02], "after message 52");
    assert_eq!(j.client.roster.applied(), 1);
    let player = |reset: bool| {
        let mut g = seed_group(PLAYER);
        for o in &mut g.objects {
            o.auth = Some(AuthPart { reset, body: None });
        }
        auth_with(None, vec![g])
    };
    let mut j = unsent();
    j.push(ids::SENSOR_AUTH_UPDATE, player(true));
    j.client.epochs.send_patch(Instant::default(), own_epoch());
    j.push(ids::SENSOR_AUTH_UPDATE, player(false));
    let slots = seed_group(PLAYER).objects.len();
    let seeded: Vec<Rule> = std::iter::once(Rule::Auth02)
        .chain(std::iter::repeat_n(Rule::Seed01, slots))
        .collect();
    assert_eq!(
        j.verdict.rules(),
        seeded,
        "the player's bodies, dropped, seeded nothing"
    );
}

/// AUTH-04: roster_enable 0 drops message 5 (nothing applied), reported as AUTH-04,
/// wherever the bit sits: after no bubble-authority block (bit 201) or after one that
/// grants bubble 64 (bit 479), with the full first roster, with the player's bodies and
/// no roster, and with nothing after the prefix. The same message with the bit 1 is
/// applied; a dropped message seeds nothing, so the same slots' next blocks with reset 0
/// are SEED-01.
#[test]
fn a_message_5_with_roster_enable_0_is_dropped() {
    let prefix = |enable: bool, grant: bool| AuthPrefix {
        bubble_block: grant
            .then(|| vex_wire::activity::sensor_auth::BubbleAuthority::granting(64, 1)),
        roster_enable: enable,
        ..AuthPrefix::echoing(own_epoch())
    };
    type Content = (Option<RosterDelta>, Vec<EntityGroup>);
    type MakeContent = fn() -> Content;
    let contents: [(&str, MakeContent); 3] = [
        ("the first roster", || (Some(roster()), seed_groups())),
        ("the player's bodies", || (None, vec![seed_group(PLAYER)])),
        ("nothing after the prefix", || (None, vec![])),
    ];
    for (what, content) in contents {
        for grant in [false, true] {
            let what = format!("{what}, bubble block {grant}");
            let message = |enable| {
                let (roster, groups) = content();
                auth_prefixed(prefix(enable, grant), roster, groups)
            };
            let mut j = Joined::new();
            j.push(ids::SENSOR_AUTH_UPDATE, message(true));
            assert_eq!(j.verdict.rules(), [], "{what}, enabled");
            assert_eq!(j.client.roster.applied(), 1, "{what}, enabled");
            let enable_bit = if grant { 479 } else { 201 };
            for enable in [false, true] {
                let m = message(enable);
                let set = m[enable_bit / 8] & (0x80 >> (enable_bit % 8)) != 0;
                assert_eq!(set, enable, "{what}: roster_enable at bit {enable_bit}");
            }
            let mut j = Joined::new();
            j.push(ids::SENSOR_AUTH_UPDATE, message(false));
            assert_eq!(j.verdict.rules(), [Rule::Auth04], "{what}");
            assert_eq!(j.client.roster.applied(), 0, "{what}: dropped");
            j.push(ids::SENSOR_AUTH_UPDATE, message(true));
            assert_eq!(j.verdict.rules(), [Rule::Auth04], "{what}, then enabled");
            assert_eq!(j.client.roster.applied(), 1, "{what}, then enabled");
        }
    }
    let player = |enable: bool, reset: bool| {
        let mut g = seed_group(PLAYER);
        for o in &mut g.objects {
            o.auth = Some(AuthPart { reset, body: None });
        }
        auth_prefixed(prefix(enable, false), None, vec![g])
    };
    let mut j = Joined::new();
    j.push(ids::SENSOR_AUTH_UPDATE, player(false, true));
    j.push(ids::SENSOR_AUTH_UPDATE, player(true, false));
    let slots = seed_group(PLAYER).objects.len();
    let seeded: Vec<Rule> = std::iter::once(Rule::Auth04)
        .chain(std::iter::repeat_n(Rule::Seed01, slots))
        .collect();
    assert_eq!(j.verdict.rules(), seeded, "a dropped message seeds nothing");
}

/// AUTH-13: after the region report (message 22) the host holds every message 5 until
/// the roster request, then answers it in full. Held and answered with the whole
/// snapshot (1, 2, 12, then the roster of bubble 1) passes, and so does a later message
/// 5 with a change. A message 5 between the report and the request is caught and not
/// applied, whatever it holds: the roster the move owes, the roster of before the move,
/// bodies with no roster, a bubble-64 grant alone; each one there is caught (two, twice),
/// and the answer after it is judged as usual. A request answered in part (the message
/// 5 alone) is caught at the run's end, as HOST-03.
#[test]
fn no_message_5_between_the_region_report_and_the_roster_request() {
    let owed = || auth_with(Some(roster()), bubble_1_groups());
    let mut j = moved();
    ask_snapshot(&mut j, true);
    answer_snapshot(&mut j, owed());
    assert_eq!(j.verdict.rules(), [], "held, then answered in full");
    assert_eq!(j.client.roster.applied(), 2);
    let mut changed = bubble_1_groups();
    changed[1].objects[0].auth = Some(AuthPart {
        reset: true,
        body: Some(Bits {
            bytes: vec![0; 5],
            bit_len: vex_wire::activity::auth::CONFIGURATION_BITS,
        }),
    });
    j.push(ids::SENSOR_AUTH_UPDATE, auth_with(Some(roster()), changed));
    assert_eq!(j.verdict.rules(), [], "a change after the answer");
    let grant = AuthPrefix {
        bubble_block: Some(vex_wire::activity::sensor_auth::BubbleAuthority::granting(
            64, 1,
        )),
        ..AuthPrefix::echoing(own_epoch())
    };
    // a message 5 built for the region reported proves the host had committed the move;
    // any other may have crossed message 22 on the wire, sent before the host could see
    // it, and no host can hold that one: not applied, and not the host's fault
    let committed = || auth_with(Some(roster()), committed_move_groups());
    let only_player = || auth_with(None, committed_move_groups()[..1].to_vec());
    for (what, early, blamed) in [
        ("the roster of the region reported", committed(), true),
        (
            "the player's body naming the region reported",
            only_player(),
            true,
        ),
        (
            "the roster of before the move",
            auth_with(Some(roster()), seed_groups()),
            false,
        ),
        ("a roster naming no region", owed(), false),
        (
            "bodies with no roster",
            auth_with(None, vec![seed_group(PLAYER)]),
            false,
        ),
        ("a grant alone", auth_prefixed(grant, None, vec![]), false),
    ] {
        let want: &[Rule] = if blamed { &[Rule::Auth13] } else { &[] };
        let mut j = moved();
        j.push(ids::SENSOR_AUTH_UPDATE, early);
        assert_eq!(j.verdict.rules(), want, "{what}");
        assert_eq!(j.client.roster.applied(), 1, "{what}: not applied");
        ask_snapshot(&mut j, true);
        answer_snapshot(&mut j, owed());
        assert_eq!(j.verdict.rules(), want, "{what}, then the answer");
        assert_eq!(j.client.roster.applied(), 2, "{what}, then the answer");
    }
    let mut j = moved();
    j.push(ids::SENSOR_AUTH_UPDATE, committed());
    j.push(ids::SENSOR_AUTH_UPDATE, committed());
    assert_eq!(j.verdict.rules(), [Rule::Auth13, Rule::Auth13], "two");
    let mut j = moved();
    ask_snapshot(&mut j, true);
    j.push(ids::SENSOR_AUTH_UPDATE, owed());
    j.client
        .finish(&mut j.verdict, Instant::from_millis(crate::ANSWER_GRACE_MS));
    assert_eq!(j.verdict.rules(), [Rule::Host03], "answered in part");
}

/// HOST-05: the roster that answers the move (the first after the roster request) is the
/// region committed: it names bubble 1's object. With both bubbles' sub-blocks, or bubble
/// 1's alone, it passes, and so it does with the object retired (its presence bit clear
/// in bubble 1's sub-block: a host may retire a group); it is caught when bubble 1's
/// sub-block is missing (only bubble 0's, or none), when the object sits in a sub-block
/// naming bubble 0, and when the message 5 has no roster delta. A roster that answers no
/// move (before any move, or after the move's answer) is not judged by it.
#[test]
fn the_roster_answering_a_move_names_the_new_bubble() {
    let sub = |bubble, keys: Vec<u32>, present: bool| SubBlock {
        bubble,
        mask: RosterDelta::mask_for(if present { keys.len() } else { 0 }),
        states: vec![1; keys.len()],
        keys,
    };
    let with_subs = |subs: Option<Vec<SubBlock>>| RosterDelta {
        sub_blocks: subs,
        ..roster()
    };
    let bubble_0 = || sub(0, vec![OBJECT, EVERY], true);
    let judged = |auth: Vec<u8>| {
        let mut j = moved();
        ask_snapshot(&mut j, true);
        answer_snapshot(&mut j, auth);
        j.verdict.rules()
    };
    let answer = |r: RosterDelta| auth_with(Some(r), bubble_1_groups());
    for (what, auth, want) in [
        ("both bubbles", answer(roster()), vec![]),
        (
            "bubble 1's sub-block alone",
            answer(with_subs(Some(vec![sub(1, vec![BUBBLE_1], true)]))),
            vec![],
        ),
        (
            "bubble 0's sub-block alone",
            answer(with_subs(Some(vec![bubble_0()]))),
            vec![Rule::Host05],
        ),
        ("no sub-block", answer(with_subs(None)), vec![Rule::Host05]),
        (
            "bubble 1's object retired, its presence bit clear: the sub-block names it",
            answer(with_subs(Some(vec![
                bubble_0(),
                sub(1, vec![BUBBLE_1], false),
            ]))),
            vec![],
        ),
        (
            "bubble 1's object in a sub-block naming bubble 0",
            answer(with_subs(Some(vec![sub(
                0,
                vec![OBJECT, EVERY, BUBBLE_1],
                true,
            )]))),
            vec![Rule::Host05],
        ),
        (
            "no roster delta",
            auth_with(None, bubble_1_groups()),
            vec![Rule::Host05],
        ),
    ] {
        assert_eq!(judged(auth), want, "{what}");
    }
    let only_bubble_0 = || answer(with_subs(Some(vec![bubble_0()])));
    let mut j = Joined::new();
    j.push(
        ids::SENSOR_AUTH_UPDATE,
        auth_with(Some(with_subs(Some(vec![bubble_0()]))), seed_groups()),
    );
    assert_eq!(j.verdict.rules(), [], "no move");
    let mut j = moved();
    ask_snapshot(&mut j, true);
    answer_snapshot(&mut j, answer(roster()));
    j.push(ids::SENSOR_AUTH_UPDATE, only_bubble_0());
    assert_eq!(j.verdict.rules(), [], "after the move's answer");
}

/// The built-in roster's groups with both type-17 blocks carrying `body` (reset 1), or
/// reset-only.
fn with_lifetimes(body: Option<Bits>) -> Vec<EntityGroup> {
    let mut groups = seed_groups();
    for block in groups.iter_mut().flat_map(|g| g.objects.iter_mut()) {
        if LIFETIMES.contains(&block.slot) {
            block.auth = Some(AuthPart {
                reset: true,
                body: body.clone(),
            });
        }
    }
    groups
}

/// AUTH-09 through the push path: the message 5 of the snapshot that answers message
/// 18 (after 1, 2 and 12) resets both type-17 bodies, and the next message 5 sends them
/// again: each is caught. The same three message 5s with no request between are the
/// host's to send (reset-only is a publication).
#[test]
fn a_snapshot_answer_resetting_held_bodies_is_auth_09() {
    let live = || auth_with(Some(roster()), with_lifetimes(Some(lifetime(0, 0))));
    let reset = || auth_with(Some(roster()), with_lifetimes(None));
    let mut j = Joined::new();
    j.push(ids::SENSOR_AUTH_UPDATE, live());
    ask_snapshot(&mut j, false);
    answer_snapshot(&mut j, reset());
    assert_eq!(j.verdict.rules(), [], "the snapshot");
    j.push(ids::SENSOR_AUTH_UPDATE, live());
    assert_eq!(
        j.verdict.rules(),
        [Rule::Auth09, Rule::Auth09],
        "sent again"
    );
    let mut j = Joined::new();
    for message in [live(), reset(), live()] {
        j.push(ids::SENSOR_AUTH_UPDATE, message);
    }
    assert_eq!(j.verdict.rules(), [], "no request");
}

/// LINK-03 through the push path: the host's clock starts at the first message 1 after
/// the join, and every message 1 restarts it; message 2 alone does not.
#[test]
fn only_message_1_restarts_the_host_keepalive_clock() {
    let mut j = Joined::new();
    j.push(
        ids::WORLD_GLOBALS_STATE,
        WorldGlobals::default_tick().encode().unwrap(),
    );
    assert_eq!(j.client.keepalive.host_overdue_at(), None, "message 2");
    j.push(ids::GLOBAL_ACTIVITY_STATE, own_global_state());
    let due = Instant::default() + crate::config::HOST_KEEPALIVE_MS + 500;
    assert_eq!(j.client.keepalive.host_overdue_at(), Some(due), "message 1");
    assert_eq!(j.verdict.rules(), []);
}
