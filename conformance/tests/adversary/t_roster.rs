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
    // AUTH-05: "the remainder must be the exact length of the rest of the block"
    // One bit too long on a skipped block that ends its group reads, bit for bit, as a
    // block written with one more flag (a Sense bit) and an exact remainder: the client
    // cannot tell the two apart, and names it AUTH-06 with the remainder as the other
    // reading in its reason.
    auth05_skipped_remainder_plus_one: R(Roster::RemainderSkipped(1)), idle() => Auth06;
    auth05_skipped_remainder_minus_one: R(Roster::RemainderSkipped(-1)), idle() => Auth05;
    auth05_applied_remainder_plus_one: R(Roster::RemainderApplied(1)), idle() => Auth05;
    // AUTH-05: "An object block's ClientRef must resolve"
    auth05_unknown_key: R(Roster::Unresolved(Unresolved::Key)), idle() => Auth05;
    auth05_undeclared_index: R(Roster::Unresolved(Unresolved::Index)), idle() => Auth05;
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
}

legal! {
    // AH "Message 5": "The 32-bit remainder lets the client skip a block. It skips when the
    // reference does not resolve, or when the object belongs to a bubble other than the
    // current one": a skip the layout is built for. AH's "publish a bubble's objects only on
    // the link that hosts that bubble" is about two links paying twice for one object.
    a_block_of_another_bubble_with_its_remainder_exact_is_legal: R(Roster::RemainderSkipped(0)), idle();
    // SEED-06: "change it only to rebuild them": a host may rebuild the roster's objects when it
    // means to, so one move, after the warm-up or in a snapshot, is not judged; facts 4.7's
    // "moves only when the folded group set changes" is what Sunrise does, not a rule.
    a_state_byte_moved_once_after_the_warm_up_is_legal: R(Roster::StateBump { send: 3, sub: false }), idle();
    a_sub_block_state_byte_moved_once_after_the_warm_up_is_legal: R(Roster::StateBump { send: 3, sub: true }), idle();
    a_state_byte_moved_in_a_snapshot_is_legal: R(Roster::StateBump { send: 4, sub: false }), two_snapshots();
}
