//! The type-17 body (AH "Type 17, activity_lifetime_sensor"; facts 4.8).

use crate::mode::Lifetime;
use crate::mode::Mode::Lifetime as L;
use crate::run::{idle, moves};

breach! {
    // SEED-05: "The player spawn gate accepts type-17 lifetime states 3, 6 and 10 only ...
    // any other state holds the player's spawn." Every other safe state, the neighbours of
    // 3, 6 and 10 first.
    seed05_state_2: L(Lifetime::State(2)), idle() => Seed05;
    seed05_state_4: L(Lifetime::State(4)), idle() => Seed05;
    seed05_state_5: L(Lifetime::State(5)), idle() => Seed05;
    seed05_state_7: L(Lifetime::State(7)), idle() => Seed05;
    seed05_state_8: L(Lifetime::State(8)), idle() => Seed05;
    seed05_state_9: L(Lifetime::State(9)), idle() => Seed05;
    seed05_state_0: L(Lifetime::State(0)), idle() => Seed05;
    seed05_state_1: L(Lifetime::State(1)), idle() => Seed05;
    seed05_state_minus_1: L(Lifetime::State(-1)), idle() => Seed05;
    // T17-01: "11 to 14 jump through a 12-entry table"
    t1701_state_11: L(Lifetime::State(11)), idle() => T1701;
    t1701_state_14: L(Lifetime::State(14)), idle() => T1701;
    // T17-05: "Only the first registered type-17 slot is read: every type-17 slot in the
    // roster gets the same body."
    t1705_second_slot_state_6: L(Lifetime::SecondSlotState(6)), idle() => T1705;
    t1705_second_slot_state_0: L(Lifetime::SecondSlotState(0)), idle() => T1705;
    // T17-06: "current_bubble is a bubble index (the selected region / 8), not a slice-set
    // index". After the move the member stands in slice set 8, bubble 1.
    t1706_slice_set_index_after_move: L(Lifetime::CurrentBubbleIsSliceSet), moves() => T1706;
    t1706_minus_one: L(Lifetime::CurrentBubble(-1)), idle() => T1706;
    t1706_past_the_bubbles: L(Lifetime::CurrentBubble(2)), idle() => T1706;
    t1706_zero_bits: L(Lifetime::CurrentBubble(i32::MIN)), idle() => T1706;
    // T17-08: "cycle_override_on stays 0 unless the host owns an authored phase"; the
    // built-in scenario authors none.
    t1708_override_phase_zero: L(Lifetime::CycleOverride(0)), idle() => T1708;
    t1708_override_phase_half: L(Lifetime::CycleOverride(0x3F00_0000)), idle() => T1708;
    // T17-09: "a neutral body sends -1 (wire 0x7FFFFFFF ... zero bits decode to INT32_MIN)";
    // 0 to 63 install a record, -1 clears it.
    t1709_zero_bits: L(Lifetime::SelectionId(i32::MIN)), idle() => T1709;
    t1709_past_63: L(Lifetime::SelectionId(64)), idle() => T1709;
    t1709_minus_two: L(Lifetime::SelectionId(-2)), idle() => T1709;
    // T17-02: "20 fields and no presence bits: all or nothing, minimum 423 bits"; the
    // host's body carries one switch (520 bits), so 519 lacks part of the last field and
    // 422 lacks more than the switch.
    t1702_one_bit_short: L(Lifetime::Cut(519)), idle() => T1702;
    t1702_below_minimum: L(Lifetime::Cut(422)), idle() => T1702;
    t1702_state_only: L(Lifetime::Cut(4)), idle() => T1702;
    // T17-03: "The switch list holds at most 50 entries."
    t1703_51_switches: L(Lifetime::Switches(51)), idle() => T1703;
    t1703_63_switches: L(Lifetime::Switches(63)), idle() => T1703;
}

legal! {
    // AH "Type 17": the spawn gate "accepts 3, 6 and 10".
    seed05_state_6_is_legal: L(Lifetime::State(6)), idle();
    seed05_state_10_is_legal: L(Lifetime::State(10)), idle();
    // AH "Type 17": "1, 2: HUD hidden"; "Send 3 for the live case": loading states shown
    // first, then 3.
    loading_then_live_is_legal: L(Lifetime::LoadingThenLive), idle();
    // AH "Type 17": "0 to 63 installs a record; -1 clears it".
    t1709_record_63_is_legal: L(Lifetime::SelectionId(63)), idle();
    t1709_record_0_is_legal: L(Lifetime::SelectionId(0)), idle();
}

/// T17-08's other side: "Keep the override off unless the host owns an authored phase"
/// (AH "Type 17"): in content that authors a phase, a host that owns it may pin it.
#[test]
fn t1708_override_with_an_authored_phase_is_legal() {
    let mode = L(Lifetime::CycleOverride(0x3F00_0000));
    let r = crate::run::run_in(mode, idle(), crate::run::RUN_MS, |s| {
        s.authored_phase = true
    });
    crate::run::assert_clean(&r, mode);
}

legal! {
    // AH "Type 17": current_bubble is "the bubble the activity treats as current", and 16 client
    // functions compare it with the player's bubble only when type 35's first field is set:
    // any bubble of the activity is the host's to name; a slice-set index is the breach.
    current_bubble_1_for_a_member_in_bubble_0_is_legal: L(Lifetime::CurrentBubble(1)), idle();
    current_bubble_0_after_a_move_into_bubble_1_is_legal: L(Lifetime::CurrentBubble(0)), moves();
}
