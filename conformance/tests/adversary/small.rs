//! Messages 0, 1, 2, 4, 44 and 54 and the join burst, broken field by field (AH "The main
//! messages", "join_result", "global_activity_state", "world_globals_state", "Hazards for
//! a host"; SR "The join burst"; facts 4.2, 4.5, 4.6).

use crate::host::Adversary;
use crate::mode::{Arm, Echo, Epoch, Mode, Small};
use vex_host::outbound::{Injected, Moment, Payload};
use vex_host::policy::Burst;
use vex_wire::activity::global_state::GlobalActivityState;
use vex_wire::activity::ids::{ENTITY_SLOTS_ALLOCATED, GLOBAL_ACTIVITY_STATE, WORLD_GLOBALS_STATE};
use vex_wire::activity::join::JoinResult;
use vex_wire::activity::small::AdvanceEpoch;

/// join_result as the mode has it.
pub fn join_result(mode: Mode, mut r: JoinResult) -> JoinResult {
    match mode {
        Mode::Small(Small::JoinResult(v)) => r.result = v,
        Mode::Small(Small::KeepaliveZero) => r.keepalive_interval_ms = 0,
        Mode::Small(Small::Epoch(Epoch::Wraps)) => r.initial_epoch = 255,
        Mode::Small(Small::KeepaliveInterval(ms)) => r.keepalive_interval_ms = ms,
        Mode::Small(Small::ClockBase(t)) => r.clock_base = t,
        _ => {}
    }
    r
}

/// The echoed join_request record: bits 0 to 31 the nonce, 32 to 95 the host id.
pub fn join_echo(mode: Mode, mut record: Vec<u8>) -> Vec<u8> {
    let Mode::Small(Small::Echo(e)) = mode else {
        return record;
    };
    match e {
        Echo::Nonce => {
            let n = u32::from_be_bytes(record[0..4].try_into().expect("4 bytes"));
            record[0..4].copy_from_slice(&n.wrapping_add(1).to_be_bytes());
        }
        Echo::HostId => {
            let id = u64::from_be_bytes(record[4..12].try_into().expect("8 bytes"));
            record[4..12].copy_from_slice(&id.wrapping_add(1).to_be_bytes());
        }
        Echo::HostIdZero => record[4..12].fill(0),
    }
    record
}

/// Message 1 as the mode has it.
pub fn global_state(mode: Mode, mut s: GlobalActivityState, in_burst: bool) -> GlobalActivityState {
    let Mode::Small(small) = mode else {
        return s;
    };
    match small {
        Small::Arm(Arm::Off) if in_burst => s.arm_initial_slice_set = false,
        Small::Arm(Arm::NoSliceSet) => s.initial_slice_set = -1,
        Small::Arm(Arm::SliceSet(v)) => s.initial_slice_set = v,
        Small::Arm(Arm::SpawnHash(h)) => s.spawn_set_hash = h,
        Small::BubbleCount(n) => s.bubble_count = n,
        Small::BubbleState(b, v) => s.bubble_states[b] = v,
        Small::DescriptorBit(k) => s.descriptor.bytes[k / 8] ^= 0x80 >> (k % 8),
        _ => {}
    }
    s
}

/// The join burst as the mode has it.
pub fn burst(mode: Mode, mut b: Burst) -> Burst {
    match mode {
        Mode::Small(Small::BurstZeroFirst) => b.swap(0, 1),
        Mode::Small(Small::BurstWithoutTwo) => b.retain(|(m, _)| *m != WORLD_GLOBALS_STATE),
        _ => {}
    }
    b
}

/// Message 44 after the epoch the client holds.
pub fn next_epoch(mode: Mode, holds: u8) -> AdvanceEpoch {
    let (epoch, abort) = match mode {
        Mode::Small(Small::Epoch(Epoch::Repeat)) => (holds, false),
        Mode::Small(Small::Epoch(Epoch::Skip)) => (holds.wrapping_add(2), false),
        Mode::Small(Small::Epoch(Epoch::Abort)) => (holds.wrapping_add(1), true),
        _ => (holds.wrapping_add(1), false),
    };
    AdvanceEpoch { epoch, abort }
}

/// Bodies cut or grown.
pub fn payload(mode: Mode, msg: u32, p: &mut Payload<'_>) {
    match mode {
        Mode::Small(Small::SlotMaskLen(n)) if msg == ENTITY_SLOTS_ALLOCATED => p.resize(n, 0),
        Mode::Small(Small::GlobalLen(n)) if msg == GLOBAL_ACTIVITY_STATE => p.resize(n, 0),
        _ => {}
    }
}

/// A grant of what the member holds already, on every keepalive (SLOTS-02).
pub fn after(adv: &Adversary, moment: Moment<'_>) -> Vec<Injected> {
    match (adv.mode, moment) {
        (Mode::Small(Small::GrantOnKeepalive), Moment::Keepalive) => adv
            .mem()
            .last
            .get(&ENTITY_SLOTS_ALLOCATED)
            .map(|g| vec![Injected::Push(ENTITY_SLOTS_ALLOCATED, g.clone())])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}
