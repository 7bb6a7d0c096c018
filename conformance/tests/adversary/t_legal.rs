//! Freedoms the pages leave a host: each must draw no finding but advisory ones. The
//! legal modes of one concept sit with its breaches (`t_small`, `t_held`, `t_lifetime`,
//! `t_incident`, `t_envelope`, `t_member`); these are the rest.

use crate::mode::Mode::{Answer as A, Held as H, Lifetime as L, Roster as R, Small as S};
use crate::mode::{Answer, Held, Lifetime, Mode, Roster, Small};
use crate::run::{RUN_MS, assert_clean, idle, moves, run_pair};
use vex_fake_client::Script;

fn refreshes() -> Script {
    Script {
        refresh_after_ms: Some(5_000),
        ..Script::default()
    }
}

legal! {
    // facts 4.7 "stateSequence": "It moves (mod 128) on each of the first 3 sends per
    // link ('warm-up')."
    state_bytes_warm_up_is_legal: R(Roster::StateWarmUp(1)), idle();
    state_bytes_warm_up_wraps_is_legal: R(Roster::StateWarmUp(126)), idle();
    // AUTH-03: "The hardwipe token is checked only when SignOn named use_hardwipe_tokens."
    hardwipe_token_unchecked_is_legal: R(Roster::Hardwipe(0xA5)), idle();
    // AH "Message 5": "u64 token; /* stored, not validated */".
    token_is_legal: R(Roster::Token(u64::MAX)), idle();
    // AH "Message 5": "u32 filler; /* read and discarded */".
    filler_is_legal: R(Roster::Filler(0xFFFF_FFFF)), idle();
    // AH "Type 17": "count (6 bits) + up to 50 gameplay switches".
    fifty_switches_is_legal: L(Lifetime::Switches(50)), idle();
    no_switch_is_legal: L(Lifetime::Switches(0)), idle();
    // AH "Type 3": the array, each objective and the generation each have a presence bit.
    objective_every_field_absent_is_legal: H(Held::ObjectiveAllAbsent), idle();
    // AH "join_result": "Any value above 1,000 ms silences them"; Sunrise sends 5,000.
    keepalive_interval_5000_is_legal: S(Small::KeepaliveInterval(5_000)), idle();
    // AH "join_result": field 6 counts 673,200 ticks per second; a clock one second on.
    clock_base_is_legal: S(Small::ClockBase(673_200)), idle();
    // AH "world_globals_state": "No reader of the bool is known."
    world_flag_is_legal: S(Small::WorldFlag), idle();
    // SR "What each client message gets": 18 "sends the whole snapshot", with no deadline:
    // answered whole at the next keepalive.
    snapshot_at_keepalive_is_legal: A(Answer::SnapshotAtKeepalive), refreshes();
    // SR "The steps", step 5: the first message 5 "when a roster is owed", with no
    // deadline: answering the second 52, or the first keepalive.
    first_roster_on_second_52_is_legal: A(Answer::FirstRosterLate), idle();
    first_roster_at_keepalive_is_legal: A(Answer::FirstRosterAtKeepalive), idle();
    // AH "Hazards for a host": "The link times out after 20.5 s of silence"; the built-in
    // host's own moves.
    honest_move_is_legal: Mode::Honest, moves();
}

/// The brief's "different members in different bubbles with the current bubble kept":
/// member 2 moves into bubble 1 and each member's type-17 body names its own bubble (AH
/// "Type 17": current_bubble is "the selected region divided by 8").
#[test]
fn members_in_different_bubbles_is_legal() {
    let r = run_pair(Mode::Honest, moves(), RUN_MS);
    assert_clean(&r, Mode::Honest);
}

/// A public join with both members' rosters warming up (facts 4.7): each link's own
/// three sends.
#[test]
fn warm_up_on_two_links_is_legal() {
    let mode = R(Roster::StateWarmUp(1));
    assert_clean(&run_pair(mode, idle(), RUN_MS), mode);
}
