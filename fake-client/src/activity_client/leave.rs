//! The leave of an activity client: the scripted message 15, peer_leave_request, releases
//! the client's activity slot, and the host's answer is judged (AH "peer_leave_request,
//! message 15"; LEAVE-01, LEAVE-02).
//!
//! The host answers with one message 5 that removes the client's roster: every key and
//! state byte kept, the presence bit of every key the client registered cleared, roster
//! enable set, no Auth body and no grant. No roster follows it on that link.
//!
//! A message 5 the host sent before it read the leave may still come after it: the client
//! cannot tell it from a wrong answer. So a message 5 that is not the leave delta is a
//! finding only when no leave delta follows it by the run's end.

use super::roster::registered_keys;
use crate::had_time_to_answer;
use crate::links::Outgoing;
use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids;
use vex_wire::activity::sensor_auth::{DecodedAuthUpdate, RosterDelta, SensorAuthUpdate};
use vex_wire::activity::small::{LEAVE_REASON_NONE, PeerLeave};
use vex_wire::scenario::Scenario;
use vex_wire::time::Instant;

/// What the client held when it left.
#[derive(Debug)]
struct Departure {
    /// When it left.
    at: Instant,
    /// The roster it had applied, if any.
    roster: Option<RosterDelta>,
    /// The keys that roster registered; none means no answer is owed.
    registered: Vec<u32>,
    /// The bubble it stood in.
    bubble: u8,
    /// The host's answer has arrived.
    answered: bool,
    /// The first message 5 after the leave that is not the leave delta: its frame and how
    /// it falls short. It may have left the host before the leave arrived.
    not_delta: Option<(u64, String)>,
}

/// Message 15 and what the client held when it sent it (AH "peer_leave_request, message
/// 15").
#[derive(Debug, Default)]
pub(crate) struct Leave {
    /// When the client sends message 15 (LEAVE-01).
    at: Option<Instant>,
    /// How long after the leave the client joins again.
    rejoin_after: Option<u64>,
    /// When the client joins again.
    rejoin_at: Option<Instant>,
    /// The client left: what it held then, to judge the host's answer by.
    departure: Option<Departure>,
}

impl Leave {
    /// Message 15 is sent at `at`, if the script sends one, and the client joins again
    /// `rejoin_after` milliseconds after it.
    pub(super) fn schedule(&mut self, at: Option<Instant>, rejoin_after: Option<u64>) {
        self.at = at;
        self.rejoin_after = rejoin_after;
    }

    /// When the client joins again, once it left.
    pub(crate) fn rejoin_due(&self) -> Option<Instant> {
        self.rejoin_at
    }

    /// When message 15 is due.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.at
    }

    /// True once the client left.
    pub(crate) fn left(&self) -> bool {
        self.departure.is_some()
    }

    /// Message 15 at `now` (see `Script::leave_after_ms`) from `peer_key`, holding
    /// `roster`, the last the client applied, while `bubble` is current.
    pub(crate) fn depart(
        &mut self,
        now: Instant,
        roster: Option<&RosterDelta>,
        bubble: u8,
        peer_key: u64,
    ) -> Outgoing {
        self.at = None;
        self.rejoin_at = self.rejoin_after.map(|ms| now + ms);
        let registered = roster
            .map(|r| registered_keys(r, bubble))
            .unwrap_or_default();
        self.departure = Some(Departure {
            at: now,
            roster: roster.cloned(),
            registered,
            bubble,
            answered: false,
            not_delta: None,
        });
        let body = PeerLeave {
            word_0: 0,
            word_4: 0,
            peer_key,
            reason_hash: LEAVE_REASON_NONE,
        }
        .encode()
        .unwrap_or_default(); // 160 bits: never fails
        Outgoing {
            message: ids::PEER_LEAVE_REQUEST,
            body,
        }
    }

    /// A message 5 after the leave: the leave delta answers it (LEAVE-01), which is owed
    /// only when the client had registered keys; none may follow it (LEAVE-02). One before
    /// the delta that is not it is kept, to judge at the run's end if no delta follows.
    pub(super) fn on_auth(
        &mut self,
        verdict: &mut Verdict,
        scenario: &Scenario,
        idx: u64,
        payload: &[u8],
    ) {
        let Some(departure) = self.departure.as_mut() else {
            return;
        };
        if departure.answered {
            let reason = "a message 5 after the leave delta: the client has retired its keys, and no roster may follow on this link".to_string();
            return verdict.violate(Rule::Leave02, Some(idx), None, reason);
        }
        let problems = match SensorAuthUpdate::decode(payload) {
            Ok(m) => leave_delta_problems(departure, &m, scenario),
            Err(e) => vec![format!("it does not parse: {e}")],
        };
        if problems.is_empty() {
            departure.answered = true;
        } else if departure.not_delta.is_none() {
            departure.not_delta = Some((idx, problems.join("; ")));
        }
    }

    /// At the deadline `now`: a client that left with keys registered got no leave delta
    /// in the time the host had (LEAVE-01): the first message 5 after the leave was not it
    /// and none followed, or none came.
    pub(super) fn check_answered(&self, verdict: &mut Verdict, now: Instant) {
        let Some(d) = self
            .departure
            .as_ref()
            .filter(|d| !d.answered && !d.registered.is_empty() && had_time_to_answer(d.at, now))
        else {
            return;
        };
        let (frame, reason) = match &d.not_delta {
            Some((idx, problems)) => (
                Some(*idx),
                format!(
                    "the message 5 answering the leave is not the leave delta, and none followed: {problems}"
                ),
            ),
            None => (
                None,
                "no message 5 answered the leave: the client's keys were never retired".to_string(),
            ),
        };
        verdict.violate(Rule::Leave01, frame, None, reason);
    }
}

/// The same keys and state bytes, top-level and per bubble; presence bits aside.
fn same_array(a: &RosterDelta, b: &RosterDelta) -> bool {
    let subs = |r: &RosterDelta| -> Vec<(i32, Vec<u32>, Vec<i8>)> {
        r.sub_blocks
            .iter()
            .flatten()
            .map(|s| (s.bubble, s.keys.clone(), s.states.clone()))
            .collect()
    };
    a.keys == b.keys && a.states == b.states && subs(a) == subs(b)
}

/// How `m` falls short of the leave delta for `departure`.
fn leave_delta_problems(
    departure: &Departure,
    m: &DecodedAuthUpdate,
    scenario: &Scenario,
) -> Vec<String> {
    let bubble = departure.bubble;
    let mut problems = Vec::new();
    match &m.roster {
        None => problems.push("it has no roster delta".to_string()),
        Some(now) => {
            if departure
                .roster
                .as_ref()
                .is_some_and(|held| !same_array(held, now))
            {
                problems.push("the roster array's keys or state bytes changed".to_string());
            }
            let still: Vec<String> = registered_keys(now, bubble)
                .iter()
                .filter(|k| departure.registered.contains(k))
                .map(|k| format!("{k:#x}"))
                .collect();
            if !still.is_empty() {
                problems.push(format!("keys {} stay present", still.join(", ")));
            }
        }
    }
    if !m.prefix.roster_enable {
        problems.push("roster enable is 0".to_string());
    }
    let grants = m
        .prefix
        .bubble_block
        .as_ref()
        .is_some_and(|b| !b.grants().is_empty());
    if grants {
        problems.push("it carries a grant".to_string());
    }
    let bodies: Vec<String> = m
        .groups
        .iter()
        .flat_map(|g| &g.objects)
        .filter(|o| {
            scenario
                .schemas_of(&o.slot)
                .is_some_and(|(_, decl)| o.parse(decl.schemas).is_ok_and(|p| p.root == Some(true)))
        })
        .map(|o| o.slot.to_string())
        .collect();
    if !bodies.is_empty() {
        problems.push(format!("it carries Auth bodies for {}", bodies.join(", ")));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ANSWER_GRACE_MS;
    use vex_wire::activity::sensor_auth::{
        AuthPart, AuthPrefix, BubbleAuthority, EntityGroup, ObjectBlock, SensorAuthUpdate, SubBlock,
    };
    use vex_wire::activity::slot::{ClientRef, TYPE_CONFIGURATION};
    use vex_wire::bits::Bits;

    fn left(registered: Vec<u32>, roster: Option<RosterDelta>) -> Leave {
        Leave {
            at: None,
            rejoin_after: None,
            rejoin_at: None,
            departure: Some(Departure {
                at: Instant::default(),
                roster,
                registered,
                bubble: 0,
                answered: false,
                not_delta: None,
            }),
        }
    }

    /// The run's end, the grace after the leave.
    const END: Instant = Instant::from_millis(ANSWER_GRACE_MS);

    fn delta(keys: Vec<u32>, present: usize) -> SensorAuthUpdate {
        SensorAuthUpdate {
            prefix: AuthPrefix::echoing([1, 2]),
            roster: Some(RosterDelta {
                states: vec![1; keys.len()],
                keys,
                mask: RosterDelta::mask_for(present),
                sub_blocks: None,
            }),
            groups: Vec::new(),
        }
    }

    fn answer(l: &mut Leave, v: &mut Verdict, idx: u64, m: &SensorAuthUpdate) {
        l.on_auth(v, &Scenario::builtin(), idx, &m.encode().unwrap());
    }

    /// The delta with every presence bit clear answers the leave; a second message 5
    /// does not follow it (LEAVE-02).
    #[test]
    fn the_leave_delta_passes_and_nothing_follows_it() {
        let held = delta(vec![0xA], 1).roster;
        let (mut l, mut v) = (left(vec![0xA], held), Verdict::new());
        answer(&mut l, &mut v, 1, &delta(vec![0xA], 0));
        assert!(v.rules().is_empty());
        answer(&mut l, &mut v, 2, &delta(vec![0xA], 0));
        assert_eq!(v.rules(), [Rule::Leave02]);
    }

    /// A delta that keeps the key present does not retire it (LEAVE-01): judged at the
    /// run's end, for its frame, when no leave delta followed it.
    #[test]
    fn a_key_left_present_is_caught() {
        let held = delta(vec![0xA], 1).roster;
        let (mut l, mut v) = (left(vec![0xA], held), Verdict::new());
        answer(&mut l, &mut v, 1, &delta(vec![0xA], 1));
        assert!(v.rules().is_empty(), "a delta may still follow");
        l.check_answered(&mut v, END);
        assert_eq!(v.rules(), [Rule::Leave01]);
        assert_eq!(v.violations()[0].frame, Some(1));
    }

    /// Rosters the host sent before it read the leave may come after it: the leave delta
    /// following them answers the leave, and nothing is found; a roster after the delta is
    /// LEAVE-02 as ever.
    #[test]
    fn rosters_in_flight_before_the_leave_delta_are_no_breach() {
        let held = delta(vec![0xA], 1).roster;
        let (mut l, mut v) = (left(vec![0xA], held), Verdict::new());
        answer(&mut l, &mut v, 1, &delta(vec![0xA], 1));
        answer(&mut l, &mut v, 2, &delta(vec![0xA], 1));
        answer(&mut l, &mut v, 3, &delta(vec![0xA], 0));
        l.check_answered(&mut v, END);
        assert!(v.rules().is_empty(), "{:?}", v.rules());
        answer(&mut l, &mut v, 4, &delta(vec![0xA], 1));
        assert_eq!(v.rules(), [Rule::Leave02]);
    }

    /// A leave the host had less than the grace period to answer is not judged.
    #[test]
    fn an_unanswered_leave_is_judged_after_the_grace_period() {
        let (l, mut v) = (left(vec![0xA], None), Verdict::new());
        l.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS - 1));
        assert!(v.rules().is_empty());
        l.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert_eq!(v.rules(), [Rule::Leave01]);
    }

    /// A client that registered nothing is owed no answer, and may still get one.
    #[test]
    fn an_answer_to_a_leave_with_nothing_registered_is_fine() {
        let (mut l, mut v) = (left(Vec::new(), None), Verdict::new());
        l.check_answered(&mut v, Instant::from_millis(ANSWER_GRACE_MS));
        assert!(v.rules().is_empty(), "no answer owed");
        answer(&mut l, &mut v, 1, &delta(Vec::new(), 0));
        assert!(v.rules().is_empty(), "an answer accepted");
    }

    /// The roster a client in bubble 0 held when it left: top-level keys 0xA and 0xB,
    /// bubble 0's sub-block with 0xC and 0xD (all four registered), bubble 1's with 0xE
    /// (not registered by this client), every key present, each its own state byte.
    fn held() -> RosterDelta {
        RosterDelta {
            keys: vec![0xA, 0xB],
            mask: RosterDelta::mask_for(2),
            states: vec![1, 2],
            sub_blocks: Some(vec![
                SubBlock {
                    bubble: 0,
                    keys: vec![0xC, 0xD],
                    mask: RosterDelta::mask_for(2),
                    states: vec![3, 4],
                },
                SubBlock {
                    bubble: 1,
                    keys: vec![0xE],
                    mask: RosterDelta::mask_for(1),
                    states: vec![5],
                },
            ]),
        }
    }

    /// The leave delta for [`held`]: every key and state byte kept, every presence bit
    /// clear, roster enable set, no Auth body, no grant.
    fn leave_delta() -> SensorAuthUpdate {
        let mut roster = held();
        roster.mask = [0; 8];
        for s in roster.sub_blocks.iter_mut().flatten() {
            s.mask = [0; 3];
        }
        SensorAuthUpdate {
            roster: Some(roster),
            ..delta(Vec::new(), 0)
        }
    }

    /// A block of the built-in scenario's type-8 slot (Auth schema only) with its 35-bit
    /// body when `body`, else reset-only.
    fn configuration(body: bool) -> EntityGroup {
        let slot = ClientRef {
            key: 0xBBBB_0001,
            slot_type: TYPE_CONFIGURATION,
            index: 0,
        };
        let body = body.then(|| Bits {
            bytes: vec![0; 5],
            bit_len: 35,
        });
        EntityGroup {
            key: slot.key,
            filler: 0,
            objects: vec![ObjectBlock {
                slot,
                auth: Some(AuthPart { reset: true, body }),
                sense: None,
            }],
        }
    }

    /// LEAVE-01, each part of it: the leave delta passes, and with the presence of a key
    /// the client never registered (bubble 1's) left set, or a reset-only block; each
    /// breach is caught alone: a key changed (top-level first and last, in the sub-block,
    /// one dropped, the sub-blocks dropped), a state byte changed (top-level, sub-block),
    /// roster enable 0, an Auth body, a grant (bubble 64, bubble 0), no roster delta, and
    /// a registered key left present (top-level first and last, sub-block first and last).
    #[test]
    fn each_part_of_the_leave_delta_is_judged() {
        type Change = fn(&mut SensorAuthUpdate);
        fn roster(m: &mut SensorAuthUpdate) -> &mut RosterDelta {
            m.roster.as_mut().unwrap()
        }
        fn sub(m: &mut SensorAuthUpdate, b: usize) -> &mut SubBlock {
            &mut roster(m).sub_blocks.as_mut().unwrap()[b]
        }
        let passes: [(&str, Change); 3] = [
            ("the leave delta", |_| {}),
            ("an unregistered key left present", |m| {
                sub(m, 1).mask[0] = 1
            }),
            ("a reset-only block", |m| {
                m.groups.push(configuration(false))
            }),
        ];
        let breaches: [(&str, Change); 18] = [
            ("the first top-level key changed", |m| {
                roster(m).keys[0] = 0xF
            }),
            ("the last top-level key changed", |m| {
                roster(m).keys[1] = 0xF
            }),
            ("a sub-block key changed", |m| sub(m, 0).keys[1] = 0xF),
            ("another bubble's key changed", |m| sub(m, 1).keys[0] = 0xF),
            ("a key dropped", |m| {
                roster(m).keys.pop();
                roster(m).states.pop();
            }),
            ("the sub-blocks dropped", |m| roster(m).sub_blocks = None),
            ("the last top-level state byte changed", |m| {
                roster(m).states[1] = 3
            }),
            ("a sub-block state byte changed", |m| {
                sub(m, 0).states[1] = 5
            }),
            ("roster enable 0", |m| m.prefix.roster_enable = false),
            ("an Auth body", |m| m.groups.push(configuration(true))),
            ("a grant of bubble 64", |m| {
                m.prefix.bubble_block = Some(BubbleAuthority::granting(64, 1))
            }),
            ("a grant of bubble 0", |m| {
                m.prefix.bubble_block = Some(BubbleAuthority::granting(0, 1))
            }),
            ("no roster delta", |m| m.roster = None),
            ("the first top-level key present", |m| {
                roster(m).mask[0] = 0b01
            }),
            ("the last top-level key present", |m| {
                roster(m).mask[0] = 0b10
            }),
            ("the first sub-block key present", |m| {
                sub(m, 0).mask[0] = 0b01
            }),
            ("the last sub-block key present", |m| {
                sub(m, 0).mask[0] = 0b10
            }),
            ("every key present", |m| m.roster = Some(held())),
        ];
        let judged = |change: Change| {
            let registered = registered_keys(&held(), 0);
            assert_eq!(registered, [0xA, 0xB, 0xC, 0xD]);
            let (mut l, mut v) = (left(registered, Some(held())), Verdict::new());
            let mut m = leave_delta();
            change(&mut m);
            answer(&mut l, &mut v, 1, &m);
            l.check_answered(&mut v, END);
            v.rules()
        };
        for (what, change) in passes {
            assert_eq!(judged(change), [], "{what}");
        }
        for (what, change) in breaches {
            assert_eq!(judged(change), [Rule::Leave01], "{what}");
        }
    }
}
