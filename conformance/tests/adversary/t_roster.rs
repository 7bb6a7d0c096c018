//! Message 5's prefix and structure (AH "Message 5: Auth, and the client roster", "The
//! bubble-authority block", "How the client applies an Auth body"; facts 4.7).

use crate::mode::Mode::Roster as R;
use crate::mode::{Missing, Roster, Unresolved};
use crate::run::{idle, two_snapshots};
use vex_fake_client::Script;

/// The epoch changes at 5 s, and a snapshot at 6 s owes a message 5 echoing the new one.
fn epoch_changes() -> Script {
    Script {
        change_epoch_after_ms: Some(5_000),
        refresh_after_ms: Some(6_000),
        ..Script::default()
    }
}

breach! {
    // AUTH-01: "The patch epoch in message 5 echoes the client's latest message 52."
    auth01_word0_plus_one: R(Roster::EpochWord(0, 1)), idle() => Auth01;
    auth01_word1_plus_one: R(Roster::EpochWord(1, 1)), idle() => Auth01;
    auth01_word1_minus_one: R(Roster::EpochWord(1, -1)), idle() => Auth01;
    auth01_top_bit_of_word0: R(Roster::EpochBit(0)), idle() => Auth01;
    auth01_low_bit_of_word0: R(Roster::EpochBit(63)), idle() => Auth01;
    auth01_top_bit_of_word1: R(Roster::EpochBit(64)), idle() => Auth01;
    auth01_low_bit_of_word1: R(Roster::EpochBit(127)), idle() => Auth01;
    auth01_words_swapped: R(Roster::EpochSwapped), idle() => Auth01;
    auth01_stale_after_change: R(Roster::EpochStale), epoch_changes() => Auth01;
    // AUTH-02: "No message 5 before the client's first message 52."
    auth02_in_burst_zero_epoch: R(Roster::InBurst { guessed: false }), idle() => Auth02;
    auth02_in_burst_guessed_epoch: R(Roster::InBurst { guessed: true }), idle() => Auth02;
    // AUTH-04: "roster_enable must be 1."
    auth04_enable_off_first: R(Roster::EnableOffFrom(0)), idle() => Auth04;
    auth04_enable_off_later: R(Roster::EnableOffFrom(1)), idle() => Auth04;
    // AUTH-05: "An object block's ClientRef must ... belong to the current bubble (or a
    // bubble above 63)"; AH "Publish a bubble's objects only on the link that hosts it."
    #[ignore = "MISS: AUTH-05: a block of a bubble-1 object sent to a member in bubble 0 (remainder exact) draws nothing"]
    auth05_other_bubble_exact_remainder: R(Roster::RemainderSkipped(0)), idle() => Auth05;
    // AUTH-05: "the remainder must be the exact length of the rest of the block"
    #[ignore = "MISS: AUTH-05: a skipped block's remainder one too long is reported as AUTH-06 (a schema guess), not AUTH-05"]
    auth05_skipped_remainder_plus_one: R(Roster::RemainderSkipped(1)), idle() => Auth05;
    auth05_skipped_remainder_minus_one: R(Roster::RemainderSkipped(-1)), idle() => Auth05;
    auth05_applied_remainder_plus_one: R(Roster::RemainderApplied(1)), idle() => Auth05;
    // AUTH-05: "An object block's ClientRef must resolve"
    #[ignore = "MISS: AUTH-05: a block whose ClientRef names a registry key no placed object has draws nothing"]
    auth05_unknown_key: R(Roster::Unresolved(Unresolved::Key)), idle() => Auth05;
    #[ignore = "MISS: AUTH-05: a block whose ClientRef names a slot index the object does not declare draws nothing"]
    auth05_undeclared_index: R(Roster::Unresolved(Unresolved::Index)), idle() => Auth05;
    #[ignore = "MISS: AUTH-05: a block whose ClientRef names a slot type the object does not declare draws nothing"]
    auth05_undeclared_type: R(Roster::Unresolved(Unresolved::Type)), idle() => Auth05;
    // AUTH-08: "one registered object with no block keeps every Auth body in that bubble
    // from applying"
    auth08_ghost_missing: R(Roster::Missing(Missing::Ghost)), idle() => Auth08;
    auth08_ghost_missing_later: R(Roster::Missing(Missing::GhostLater)), idle() => Auth08;
    auth08_object_missing: R(Roster::Missing(Missing::Group)), idle() => Auth08;
    // AUTH-17: "The singleton gate bit after the entity groups is 0"
    auth17_gate_first: R(Roster::GateFrom(0)), idle() => Auth17;
    auth17_gate_later: R(Roster::GateFrom(1)), idle() => Auth17;
    // AUTH-18, AUTH-19: "header_present is 0", "host_token_present is 0"
    auth18_header: R(Roster::BubbleHeader), idle() => Auth18;
    auth19_host_token: R(Roster::HostToken), idle() => Auth19;
    // SEED-06: "change it only to rebuild them"; facts 4.7: after the three warm-up sends
    // "it moves only when the folded group set changes"
    #[ignore = "MISS: SEED-06: a state byte moved after the three warm-up sends, the group set unchanged, draws nothing"]
    seed06_top_state_on_fourth_send: R(Roster::StateBump { send: 3, sub: false }), idle() => Seed06;
    #[ignore = "MISS: SEED-06: a state byte moved after the three warm-up sends, the group set unchanged, draws nothing"]
    seed06_sub_state_on_fourth_send: R(Roster::StateBump { send: 3, sub: true }), idle() => Seed06;
    #[ignore = "MISS: SEED-06: a state byte moved after the three warm-up sends, the group set unchanged, draws nothing"]
    seed06_top_state_on_snapshot: R(Roster::StateBump { send: 4, sub: false }), two_snapshots() => Seed06;
}
