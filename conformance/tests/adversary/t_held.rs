//! The Auth bodies the host holds (AH "How the client applies an Auth body", "Type 3,
//! objective_sensor", "Type 65, ghost_link_sensor"; SR "Auth state goes out").
//!
//! The breaches drop or change a held body in a message 5 no change of the host's caused
//! (the first snapshot after the program's last change), and the next snapshot shows the
//! host still held it. The legal modes make the same change with a commit of the host's
//! own and keep it.

use crate::mode::Held;
use crate::mode::Mode::Held as H;
use crate::run::{idle, three_snapshots, two_snapshots};

breach! {
    // T3-01: "a clear presence bit hands the applier a zero and resets that objective;
    // re-send the current byte to keep it."
    t301_objective_dropped_once: H(Held::ObjectiveDropped), two_snapshots() => T301;
    t301_objective_array_dropped_once: H(Held::ObjectiveArrayDropped), two_snapshots() => T301;
    // T3-02: "a change clears the objective's latch bits, so re-send the same generation
    // to keep them."
    // Vex takes three sends in a row that move the generation alone as the host not
    // re-sending the one it holds; one or two may be resets it means.
    t302_generation_every_send: H(Held::GenerationEverySend), three_snapshots() => T302;
    t302_generation_dropped_once: H(Held::GenerationDropped), two_snapshots() => T302;
    // AUTH-09: "Reset-only (reset 1, root 0) installs the schema's defaults and overwrites
    // any earlier body, so every message 5 repeats every Auth body the host still holds."
    auth09_reset_only_once: H(Held::ResetOnlyOnce), two_snapshots() => Auth09;
    // T65-01: "A ghost_link change acts only with a generation above the stored one:
    // raise .0 every time .1 changes."
    t6501_generation_kept: H(Held::GhostGenerationKept), idle() => T6501;
    t6501_generation_lowered: H(Held::GhostGenerationLowered), idle() => T6501;
    // T65-02: "a Sense override with fraction above 1.0 and the current generation;
    // exactly 1.0 does not finish."
    t6502_fraction_exactly_one: H(Held::GhostFinish(1.0)), idle() => T6502;
    t6502_generation_behind: H(Held::GhostFinishGeneration(-1)), idle() => T6502;
    t6502_generation_ahead: H(Held::GhostFinishGeneration(1)), idle() => T6502;
}

legal! {
    // Two sends in a row that move the generation alone may be two resets the host means.
    a_generation_moved_on_two_sends_is_legal: H(Held::GenerationEverySend), two_snapshots();
    // AH "Type 3": "A clear presence bit hands the applier a zero": a host that means the
    // zero (resets the objective) sends it absent.
    objective_reset_by_commit_is_legal: H(Held::ObjectiveResetByCommit), two_snapshots();
    generation_absent_by_commit_is_legal: H(Held::GenerationAbsentByCommit), two_snapshots();
    // AH "reset = 1, root = 0 installs the schema's defaults": a cleared body goes out
    // reset-only after a body.
    reset_only_after_a_body_is_legal: H(Held::ClearedByCommit), two_snapshots();
    // AH "Type 65": "only a value above the stored one acts".
    ghost_generation_leap_is_legal: H(Held::GhostGenerationLeap), idle();
    // AH "Type 65": "a fraction above 1.0".
    ghost_fraction_above_one_is_legal: H(Held::GhostFinish(1.5)), idle();
}

legal! {
    // AH "Message 5": reset 0 and root 0 leave the client's copy as it is: the block is there and
    // what the client holds is what the host holds, so the answer is not in part; AUTH-09's
    // duty follows from reset-only overwriting, which this block does not do.
    a_snapshot_block_with_reset_0_and_root_0_is_legal: H(Held::NotRepeated), two_snapshots();
    // T65-02: a fraction at or below 1.0 does not finish the bar; 0.999 is progress, not a
    // finish the host meant (exactly 1.0 is caught as the finish it looks like).
    a_ghost_fraction_below_one_is_legal: H(Held::GhostFinish(0.999)), idle();
    // T3-02: a changed generation clears the latch bits, which a host may mean when it
    // answers a request for its whole state; only a generation that moves on sends in a
    // row, the objectives unchanged, shows a host not re-sending the one it holds.
    a_generation_raised_in_the_answers_to_18_and_11_is_legal: H(Held::GenerationOnSnapshots), two_snapshots();
}
