//! Messages 0, 1, 2, 4, 44 and 54 and the join burst (AH "The main messages", "Hazards
//! for a host", "join_result", "global_activity_state", "world_globals_state"; SR "The
//! join burst"; facts 4.2, 4.5, 4.6).

use crate::mode::Mode::Small as S;
use crate::mode::{Arm, Echo, Epoch, Small};
use crate::run::{idle, moves};

/// 1000 / 30 as f32, the client's own tick period.
const TICK: f32 = 1000.0 / 30.0;

breach! {
    // SLOTS-01: "Message 0 is a 1,024-byte mask"
    slots01_one_byte_short: S(Small::SlotMaskLen(1023)), idle() => Slots01;
    slots01_half: S(Small::SlotMaskLen(512)), idle() => Slots01;
    slots01_empty: S(Small::SlotMaskLen(0)), idle() => Slots01;
    // SLOTS-02: "Send it to answer a join or a message 20, never on a timer."
    slots02_grant_on_keepalive: S(Small::GrantOnKeepalive), idle() => Slots02;
    // GLOBAL-07: the initial slice set is "read only when it is 1": armed, it must name a
    // slice set of the activity's bubbles and the spawn set the selection names.
    global07_armed_without_slice_set: S(Small::Arm(Arm::NoSliceSet)), idle() => Global07;
    global07_armed_past_the_bubbles: S(Small::Arm(Arm::SliceSet(16))), idle() => Global07;
    global07_armed_wrong_spawn_hash: S(Small::Arm(Arm::SpawnHash(0x5566_7789))), idle() => Global07;
    global07_armed_zero_spawn_hash: S(Small::Arm(Arm::SpawnHash(0))), idle() => Global07;
    // GLOBAL-02: "Bubble count ... must equal the scenario's bubble count" (2).
    global02_one_less: S(Small::BubbleCount(1)), idle() => Global02;
    global02_one_more: S(Small::BubbleCount(3)), idle() => Global02;
    global02_zero: S(Small::BubbleCount(0)), idle() => Global02;
    // GLOBAL-03: "0x80 adds the bubble, 0x7F skips it"
    global03_bubble0_other_value: S(Small::BubbleState(0, 0x81)), idle() => Global03;
    // GLOBAL-04: "The activity-selection descriptor must be the client's own, replayed
    // exactly"
    global04_first_bit: S(Small::DescriptorBit(0)), idle() => Global04;
    global04_last_bit: S(Small::DescriptorBit(300)), idle() => Global04;
    // GLOBAL-01: "Message 1 is 1,161 bits (146 bytes)": the built-in descriptor makes it
    // 154 bytes; one byte short loses the tail.
    global01_one_byte_short: S(Small::GlobalLen(153)), idle() => Global01;
    global01_minimum_with_a_long_descriptor: S(Small::GlobalLen(146)), idle() => Global01;
    // WORLD-01: "Positive runs the activity clock; zero or negative freezes it."
    world01_zero: S(Small::Tick(0)), idle() => World01;
    world01_negative_zero: S(Small::Tick(0x8000_0000)), idle() => World01;
    world01_negative: S(Small::Tick((-TICK).to_bits())), idle() => World01;
    world01_negative_infinity: S(Small::Tick(f32::NEG_INFINITY.to_bits())), idle() => World01;
    // WORLD-02: "The tick period is never NaN"
    world02_quiet_nan: S(Small::Tick(0x7FC0_0000)), idle() => World02;
    world02_negative_nan: S(Small::Tick(0xFFC0_0001)), idle() => World02;
    world02_signalling_nan: S(Small::Tick(0x7F80_0001)), idle() => World02;
    // WORLD-03: "a positive period other than the client's own default, 1000 / 30 ms,
    // skews them"
    world03_thirty_three: S(Small::Tick(33.0f32.to_bits())), idle() => World03;
    world03_thirty_one_a_second: S(Small::Tick((1000.0f32 / 31.0).to_bits())), idle() => World03;
    world03_twenty_nine_a_second: S(Small::Tick((1000.0f32 / 29.0).to_bits())), idle() => World03;
    world03_sixty_a_second: S(Small::Tick((1000.0f32 / 60.0).to_bits())), idle() => World03;
    world03_smallest: S(Small::Tick(1)), idle() => World03;
    world03_infinity: S(Small::Tick(f32::INFINITY.to_bits())), idle() => World03;
    // BHS-01: "Message 54's row count is 0 to 32"
    bhs01_33_rows: S(Small::BhsRows(33)), idle() => Bhs01;
    bhs01_63_rows: S(Small::BhsRows(63)), idle() => Bhs01;
    // EPOCH-01: "A repeat or a skip ends the client"; EPOCH-02: the abort bit
    epoch01_repeat: S(Small::Epoch(Epoch::Repeat)), moves() => Epoch01;
    epoch01_skip: S(Small::Epoch(Epoch::Skip)), moves() => Epoch01;
    epoch02_abort: S(Small::Epoch(Epoch::Abort)), moves() => Epoch02;
    // JOIN-04: "result has bias 1; only logical 0 accepts"
    join04_result_one: S(Small::JoinResult(1)), idle() => Join04;
    join04_result_minus_one: S(Small::JoinResult(-1)), idle() => Join04;
    join04_result_six: S(Small::JoinResult(6)), idle() => Join04;
    // JOIN-05: "envelope session id, nonce in bits 0-31, host id in bits 32-95"
    join05_nonce: S(Small::Echo(Echo::Nonce)), idle() => Join05;
    join05_host_id: S(Small::Echo(Echo::HostId)), idle() => Join05;
    // ... and a message 4 naming another session is not routed at all (AH "pre-join ...
    // the id in join_request field 1"), which the client reports as ENV-05.
    join05_envelope_session: S(Small::JoinEnvelopeSession), idle() => Env05;
    // JOIN-06: "zero makes the router drop everything after"
    join06_host_id_zero: S(Small::Echo(Echo::HostIdZero)), idle() => Join06;
    // JOIN-07: "Keepalive interval (field 9) 0 makes the client send message 16 every tick"
    join07_keepalive_zero: S(Small::KeepaliveZero), idle() => Join07;
    // JOIN-01: "Message 4 comes first in the burst"
    join01_zero_first: S(Small::BurstZeroFirst), idle() => Join01;
    // JOIN-02: "The join burst is 4, 0, 1, 2, 54, then 12"
    join02_without_two: S(Small::BurstWithoutTwo), idle() => Join02;
}

legal! {
    // AH "Body encoding": "A body with unread bits or a trailing byte decodes fine."
    message_zero_trailing_byte_is_legal: S(Small::SlotMaskLen(1025)), idle();
    message_one_trailing_byte_is_legal: S(Small::GlobalLen(155)), idle();
    // The brief lists a burst message 1 without the slice-set bit as legal: facts 4.5 has
    // the client read the pair "only if set", and no page makes the bit required.
    burst_message_one_unarmed_is_legal: S(Small::Arm(Arm::Off)), idle();
    // AH "world_globals_state": "send the client's own default, 1000 / 30", rounded to the
    // precision a host writes it with.
    tick_exact_is_legal: S(Small::Tick(TICK.to_bits())), idle();
    tick_33_3333_is_legal: S(Small::Tick(33.3333f32.to_bits())), idle();
    tick_33_33333_is_legal: S(Small::Tick(33.33333f32.to_bits())), idle();
    // BHS-01: "0 to 32": the table full.
    bhs_32_rows_is_legal: S(Small::BhsRows(32)), idle();
    // EPOCH-01: "the previous epoch plus one (8-bit)": 255 then 0.
    epoch_wraps_is_legal: S(Small::Epoch(Epoch::Wraps)), moves();
}

legal! {
    // GLOBAL-07 and facts 4.5 say when the slice set is read, not which one it must be: any
    // slice set of the activity's bubbles is the host's to start the player in.
    armed_with_a_slice_set_of_bubble_1_is_legal: S(Small::Arm(Arm::SliceSet(8))), idle();
    armed_with_slice_set_1_is_legal: S(Small::Arm(Arm::SliceSet(1))), idle();
    // GLOBAL-03: "0x80 adds the bubble, 0x7F skips it": which of the activity's bubbles a host
    // adds is its own; what the client does when its arrival bubble is skipped is not
    // documented.
    bubble_0_skipped_is_legal: S(Small::BubbleState(0, 0x7F)), idle();
    bubble_1_skipped_is_legal: S(Small::BubbleState(1, 0x7F)), idle();
    // The pages do not say what 0x80 does past the bubble count; Sunrise writes 0x7F there
    // (facts 4.5), which is what it does, not a rule.
    bubble_2_of_two_added_is_legal: S(Small::BubbleState(2, 0x80)), idle();
}
