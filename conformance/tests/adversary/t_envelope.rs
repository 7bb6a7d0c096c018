//! The service-9 envelope and the BAP services around the activity (AH "The activity
//! envelope", "Host to client, service 9"; NS "The service registry", "Replicated
//! objects, service 123"; facts 1.3, 4.0).

use crate::mode::Mode::Envelope as E;
use crate::mode::{Envelope, Hello};
use crate::run::{assert_caught, assert_clean, idle, run_pair};
use vex_fake_client::{Rule, Script};

fn lobby_calls() -> Script {
    Script {
        lobby_calls: true,
        ..Script::default()
    }
}

breach! {
    // ENV-01: "Service 9 push: discriminator must be 1."
    env01_zero: E(Envelope::Discriminator(0)), idle() => Env01;
    env01_two: E(Envelope::Discriminator(2)), idle() => Env01;
    env01_255: E(Envelope::Discriminator(255)), idle() => Env01;
    // ENV-02: "payload_len must equal the bytes that follow."
    env02_one_more: E(Envelope::PayloadLen(1)), idle() => Env02;
    env02_one_less: E(Envelope::PayloadLen(-1)), idle() => Env02;
    env02_just_below_the_crash: E(Envelope::PayloadLenRaw(0xFFFF_FF6F)), idle() => Env02;
    // ENV-03: "payload_len of 0xFFFFFF70 or more."
    env03_at_the_bound: E(Envelope::PayloadLenRaw(0xFFFF_FF70)), idle() => Env03;
    env03_max: E(Envelope::PayloadLenRaw(u32::MAX)), idle() => Env03;
    // ENV-04: "msg_type is 0 to 58."
    env04_59: E(Envelope::MsgType(59)), idle() => Env04;
    env04_max: E(Envelope::MsgType(u32::MAX)), idle() => Env04;
    // ENV-05: "no match is dropped silently"; after the join the client names the
    // established arm's rule, ENV-07 (a push naming a session no client has).
    env05_unbound_session: E(Envelope::Unbound), idle() => Env07;
    // ENV-06: "Before a join is accepted only message 4 routes"
    env06_message_1_before_join: E(Envelope::BeforeJoin), idle() => Env06;
    // ENV-07: "After an accepted join_result every push must carry the host id that
    // join_result stored."
    env07_keepalive_other_session: E(Envelope::SessionAfterJoin), idle() => Env07;
    // ENV-09: "A session id has the account's id shape: account half in the high 32 bits,
    // class 0x0020, then an index. A bare counter such as 1 is dropped."
    env09_bare_counter: E(Envelope::SessionId(1)), idle() => Env09;
    env09_wrong_class: E(Envelope::SessionId(0x9EAA_3001_0021_0001)), idle() => Env09;
    env09_no_account_half: E(Envelope::SessionId(0x0000_0000_0020_0001)), idle() => Env09;
    env09_other_account: E(Envelope::SessionId(0x9EAA_3002_0020_0001)), idle() => Env09;
    // ENV-10: "Service 9's sequence has no reader; send zero."
    env10_sequence_one: E(Envelope::Sequence(1)), idle() => Env10;
    // BAP-17: "Service 26 ... is 84 bytes: u32 BE 80, a 16-byte IV, 32 bytes of AES-128-CBC
    // ..., then an HMAC-SHA256 ... over bytes 0 to 51."
    bap17_length_field_81: E(Envelope::Hello(Hello::LengthField(81))), idle() => Bap17;
    bap17_length_field_79: E(Envelope::Hello(Hello::LengthField(79))), idle() => Bap17;
    bap17_length_field_84: E(Envelope::Hello(Hello::LengthField(84))), idle() => Bap17;
    bap17_mac_bit: E(Envelope::Hello(Hello::Mac)), idle() => Bap17;
    bap17_padding_under_a_good_mac: E(Envelope::Hello(Hello::Padding)), idle() => Bap17;
    bap17_one_byte_short: E(Envelope::Hello(Hello::Size(83))), idle() => Bap17;
    bap17_one_byte_long: E(Envelope::Hello(Hello::Size(85))), idle() => Bap17;
    // BAP-08: "The 19 fixed-length services reject a body of any other size"; NS: 124,
    // "qz->c sub lost", 14 bytes.
    bap08_sub_lost_13: E(Envelope::SubLost(13)), idle() => Bap08;
    bap08_sub_lost_15: E(Envelope::SubLost(15)), idle() => Bap08;
    bap08_sub_lost_empty: E(Envelope::SubLost(0)), idle() => Bap08;
    // QZ-08: "46,973 bytes work, 143,285 bytes end the BAP link."
    qz08_143285: E(Envelope::Queuez(143_285)), lobby_calls() => Qz08;
    qz08_143286: E(Envelope::Queuez(143_286)), lobby_calls() => Qz08;
}

legal! {
    // NS "The service registry": 124, "qz->c sub lost", S->C, 14 bytes.
    sub_lost_14_is_legal: E(Envelope::SubLost(14)), idle();
    // QZ-08: "46,973 bytes work".
    queuez_46973_is_legal: E(Envelope::Queuez(46_973)), lobby_calls();
}

/// ENV-08: "Every activity session has its own id": the second member's service 7 names
/// the first member's session.
#[test]
fn env08_two_members_one_session() {
    let mode = E(Envelope::SharedSession);
    assert_caught(
        &run_pair(mode, idle(), crate::run::RUN_MS),
        Rule::Env08,
        mode,
    );
}

/// SR "The join burst": a public join names a session another member hosts; both members
/// then share one activity session, each told its own in service 7.
#[test]
fn public_join_is_legal() {
    let mode = crate::mode::Mode::Honest;
    assert_clean(&run_pair(mode, idle(), crate::run::RUN_MS), mode);
}
