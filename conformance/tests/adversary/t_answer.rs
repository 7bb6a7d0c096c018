//! What the host answers, and when (SR "Answer what was asked", "What each client message
//! gets", "Timed sends that remain"; AH "peer_leave_request, message 15", "Hazards for a
//! host"; facts 2.2, 4.15).

use crate::mode::Mode::Answer as A;
use crate::mode::{Answer, Leave, Reply};
use crate::run::{assert_caught, caught_for, findings, idle, moves, run_mode};
use vex_fake_client::{Probe, Rule, Script};

/// `probe` at 5 s (its plain message 18 a second later).
fn probe(p: Probe) -> Script {
    Script {
        probe: Some((p, 5_000)),
        ..Script::default()
    }
}

/// One scripted action at 5 s.
fn at_five(set: fn(&mut Script)) -> Script {
    let mut s = Script::default();
    set(&mut s);
    s
}

fn leaves() -> Script {
    at_five(|s| s.leave_after_ms = Some(5_000))
}

fn refreshes() -> Script {
    at_five(|s| s.refresh_after_ms = Some(5_000))
}

fn requests_slots() -> Script {
    at_five(|s| s.slot_request_after_ms = Some(5_000))
}

fn abdicates() -> Script {
    at_five(|s| s.abdicate_after_ms = Some(5_000))
}

fn reports_identity() -> Script {
    at_five(|s| s.identity_after_ms = Some(5_000))
}

breach! {
    // HOST-01: "a report gets the state change it implies; nothing else." Message 52 (a
    // patch epoch, once a second) and 6 (Sense) imply none (SR "What each client message
    // gets": 52 "sends message 5 if a roster is owed"; 6 "decoded and passed to the host
    // runtime").
    host01_world_after_every_52: A(Answer::Report(52, Reply::World)), idle() => Host01;
    host01_world_after_sense: A(Answer::Report(6, Reply::World)), idle() => Host01;
    // ... a message 0 answering the acknowledgement 38 is caught by the rule message 0
    // has of its own (SLOTS-02: "Send it to answer a join or a message 20").
    host01_grant_after_38: A(Answer::Report(38, Reply::Grant)), idle() => Slots02;
    // HOST-01: a message the host must drop gets no answer (SR "recorded and dropped").
    host01_unknown_message_answered: A(Answer::Probe(Probe::UnknownMessage, Reply::World)), probe(Probe::UnknownMessage) => Host01;
    host01_host_message_answered_with_world: A(Answer::Probe(Probe::HostMessage, Reply::World)), probe(Probe::HostMessage) => Host01;
    // ... a message 12 answering a cut message 23 is caught as a repeat (MEMBER-03).
    host01_short_body_answered: A(Answer::Probe(Probe::ShortBody, Reply::Membership)), probe(Probe::ShortBody) => Member03;
    host01_close_after_unknown_message: A(Answer::CloseOnDrop), probe(Probe::UnknownMessage) => Host01;
    // HOST-06: "A message from a link that does not own its session is recorded and
    // dropped; the frame is still accepted."
    host06_foreign_refresh_answered_with_snapshot: A(Answer::Probe(Probe::ForeignSession, Reply::Snapshot)), probe(Probe::ForeignSession) => Host06;
    host06_close_after_foreign: A(Answer::CloseOnDrop), probe(Probe::ForeignSession) => Host06;
    // HOST-12: "no service-8 message gets a BAP response, error or empty"
    host12_response_on_8: A(Answer::Bap8Response(8, 200)), idle() => Host12;
    host12_error_on_8: A(Answer::Bap8Response(8, 500)), idle() => Host12;
    host12_response_on_9: A(Answer::Bap8Response(9, 200)), idle() => Host12;
    // HOST-16: "Messages 29, 31 and 32 are recorded as the answers ...; no reply."
    host16_world_after_29: A(Answer::Report(29, Reply::World)), idle() => Host16;
    host16_world_after_31: A(Answer::Report(31, Reply::World)), idle() => Host16;
    host16_world_after_32: A(Answer::Report(32, Reply::World)), idle() => Host16;
    // ... a message 12 or 0 as the answer is caught by their own rules.
    host16_membership_after_31: A(Answer::Report(31, Reply::Membership)), idle() => Member03;
    host16_grant_after_32: A(Answer::Report(32, Reply::Grant)), idle() => Slots02;
    // HOST-17: "Message 33 ... releases authority ...; no reply."
    host17_world_after_33: A(Answer::Report(33, Reply::World)), abdicates() => Host17;
    host17_grant_after_33: A(Answer::Report(33, Reply::Grant)), abdicates() => Slots02;
    // AUTH-16: "The first message 5 answers the first message 52 when a roster is owed;
    // later ones follow a change the host owns."
    auth16_roster_on_keepalive: A(Answer::RosterOnKeepalive), idle() => Auth16;
    auth16_roster_after_every_52: A(Answer::Report(52, Reply::Roster)), idle() => Auth16;
    // ... and the whole roster answering message 33 is caught as AUTH-16, not HOST-17.
    auth16_roster_after_33: A(Answer::Report(33, Reply::Roster)), abdicates() => Auth16;
    auth16_no_first_roster: A(Answer::NoFirstRoster), idle() => Auth16;
    auth16_no_roster_at_all: A(Answer::NoRosterAtAll), idle() => Auth16;
    // HOST-03: "Message 18 ... gets the whole snapshot: 1, 2, 12 on a private link, then 5."
    host03_refresh_unanswered: A(Answer::NoRefresh), refreshes() => Host03;
    host03_refresh_without_roster: A(Answer::RefreshWithoutRoster), refreshes() => Host03;
    // HOST-04: "Message 20 gets a message 0 grant of free slots"
    host04_slot_request_unanswered: A(Answer::SlotRequestIgnored), requests_slots() => Host04;
    host04_slot_request_empty_grant: A(Answer::EmptySlotGrant), requests_slots() => Host04;
    // HOST-15: "Message 23 commits the member identity and, on a private link, gets
    // message 12."
    host15_identity_not_committed: A(Answer::NoIdentityCommit), reports_identity() => Host15;
    // HOST-05: "Message 22 commits region, spawn and teleport state"
    host05_move_not_committed: A(Answer::NoClientStateCommit), moves() => Host05;
    // ... and the request the move owes answered with the roster of the bubble it left
    // (rules.md's HOST-05 note: "answer it in full with the roster the move owed").
    host05_stale_roster_after_move: A(Answer::StaleRosterAfterMove), moves() => Host05;
    // AUTH-13: "Between a region-change report (message 22) and the client's roster
    // request, the host sends no message 5"
    auth13_roster_at_move: A(Answer::RosterAtMove), moves() => Auth13;
    // LINK-03: "The host keepalive runs every 2 s and carries message 1"
    link03_no_keepalive: A(Answer::Keepalive(None)), idle() => Link03;
    link03_every_2_5_s: A(Answer::Keepalive(Some(2_500))), idle() => Link03;
    link03_every_4_s: A(Answer::Keepalive(Some(4_000))), idle() => Link03;
    // LEAVE-01: "one message 5 on that link that keeps every key and state byte, clears
    // the presence bit of every key that client registered, sets roster enable, and
    // carries no Auth body and no grant."
    leave01_unanswered: A(Answer::Leave(Leave::NoAnswer)), leaves() => Leave01;
    leave01_presence_kept: A(Answer::Leave(Leave::PresenceKept)), leaves() => Leave01;
    leave01_enable_off: A(Answer::Leave(Leave::EnableOff)), leaves() => Leave01;
    leave01_with_body: A(Answer::Leave(Leave::WithBody)), leaves() => Leave01;
    leave01_with_grant: A(Answer::Leave(Leave::WithGrant)), leaves() => Leave01;
    leave01_state_changed: A(Answer::Leave(Leave::StateChanged)), leaves() => Leave01;
    // LEAVE-02: "No roster goes out on that link after the leave delta."
    leave02_roster_after: A(Answer::Leave(Leave::RosterAfter)), leaves() => Leave02;
    // BODY-07: "a client body with unread bits or a trailing byte is valid"
    body07_trailing_bytes_refused: A(Answer::TrailingRefused), probe(Probe::TrailingBytes) => Body07;
}

/// LINK-01: "20,000 + 500 ms with no bytes on the Activity Host link ends the activity";
/// the program's last push is at 4 s, so with no keepalive the link is silent from then.
#[test]
fn link01_no_keepalive() {
    caught_for(A(Answer::Keepalive(None)), idle(), 30_000, Rule::Link01);
}

/// LINK-01 at its bound: a keepalive every 20.6 s leaves 20.6 s of silence.
#[test]
fn link01_silence_past_the_bound() {
    caught_for(
        A(Answer::Keepalive(Some(20_600))),
        idle(),
        45_000,
        Rule::Link01,
    );
}

/// LINK-01 just inside its bound: a keepalive every 20.4 s never leaves 20.5 s of
/// silence; only the 2-s keepalive duty (LINK-03) is broken.
#[test]
fn link01_silence_inside_the_bound() {
    let mode = A(Answer::Keepalive(Some(20_400)));
    let r = run_mode(mode, idle(), 45_000);
    assert!(!r.has_violation(Rule::Link01), "{}", findings(&r));
    assert_caught(&r, Rule::Link03, mode);
}

legal! {
    // Not judged: message 1 also rides the keepalive every 2 s (SR "Timed sends that
    // remain") on a beat the pages give no tolerance for, and lands beside a snapshot's own
    // message 1, so an extra one cannot be told from a keepalive's (`unasked` in the
    // client). These hold that no other rule fires on them.
    global_after_every_52_is_not_judged: A(Answer::Report(52, Reply::Global)), idle();
    global_after_sense_is_not_judged: A(Answer::Report(6, Reply::Global)), idle();
    host_message_answered_is_not_judged: A(Answer::Probe(Probe::HostMessage, Reply::Global)), probe(Probe::HostMessage);
    foreign_refresh_answered_with_global_is_not_judged: A(Answer::Probe(Probe::ForeignSession, Reply::Global)), probe(Probe::ForeignSession);
    global_after_29_is_not_judged: A(Answer::Report(29, Reply::Global)), idle();
    global_after_33_is_not_judged: A(Answer::Report(33, Reply::Global)), abdicates();
}
