//! What the host answers and when: pushes no client message asked for, answers held back,
//! the leave delta broken (SR "Answer what was asked", "What each client message gets";
//! AH "peer_leave_request, message 15"; facts 2.2, 4.15).

use crate::host::Adversary;
use crate::mode::{Answer, Leave, Mode, Reply};
use vex_fake_client::Probe;
use vex_host::outbound::{Injected, Moment};
use vex_host::policy::{RosterInputs, RosterSend};
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::{
    CLIENT_IDENTITY_UPDATE, ENTITY_SLOTS_ALLOCATED, PATCH_EPOCH, REPLICATE_MEMBERSHIP,
    SENSOR_AUTH_UPDATE, STATE_REFRESH, WORLD_GLOBALS_STATE,
};
use vex_wire::activity::sensor_auth::{BubbleAuthority, SensorAuthUpdate};
use vex_wire::activity::small::WorldGlobals;
use vex_wire::bap::header::InnerHeader;
use vex_wire::bits::BitError;

/// The activity message a probe sends (fake-client `Probe`'s documentation).
fn probe_msg(p: Probe) -> u32 {
    match p {
        Probe::ForeignSession => STATE_REFRESH,
        Probe::UnknownMessage => 200,
        Probe::HostMessage => SENSOR_AUTH_UPDATE,
        Probe::ShortBody => CLIENT_IDENTITY_UPDATE,
        _ => u32::MAX,
    }
}

/// The push `reply` stands for.
pub fn reply(adv: &Adversary, r: Reply) -> Vec<Injected> {
    let last = |msg: u32| adv.mem().last.get(&msg).cloned();
    match r {
        Reply::Global => vec![Injected::GlobalState],
        Reply::World => WorldGlobals::default_tick()
            .encode()
            .map(|b| vec![Injected::Push(WORLD_GLOBALS_STATE, b)])
            .unwrap_or_default(),
        Reply::Roster => vec![Injected::Roster],
        Reply::Membership => last(REPLICATE_MEMBERSHIP)
            .map(|b| vec![Injected::Push(REPLICATE_MEMBERSHIP, b)])
            .unwrap_or_default(),
        Reply::Grant => last(ENTITY_SLOTS_ALLOCATED)
            .map(|b| vec![Injected::Push(ENTITY_SLOTS_ALLOCATED, b)])
            .unwrap_or_default(),
        Reply::Snapshot => [
            Reply::Global,
            Reply::World,
            Reply::Membership,
            Reply::Roster,
        ]
        .into_iter()
        .flat_map(|r| reply(adv, r))
        .collect(),
    }
}

/// Frames added at `moment`.
pub fn after(adv: &Adversary, moment: Moment<'_>) -> Vec<Injected> {
    let Mode::Answer(a) = adv.mode else {
        return Vec::new();
    };
    let seen = |msg: u32| adv.mem().reports.get(&msg).copied().unwrap_or(0);
    match (a, moment) {
        (Answer::Report(m, r), Moment::Reported { msg, .. }) if msg == m => reply(adv, r),
        (Answer::Probe(p, r), Moment::Reported { msg, .. })
            if msg == probe_msg(p) && seen(msg) == 1 =>
        {
            reply(adv, r)
        }
        (Answer::Bap8Response(service, status), Moment::Reported { msg, task })
            if msg == PATCH_EPOCH && seen(msg) == 1 =>
        {
            let mut inner = Vec::new();
            InnerHeader {
                service,
                task,
                status: Some(status),
            }
            .write(&mut inner);
            vec![Injected::Inner { service, inner }]
        }
        (Answer::RosterOnKeepalive, Moment::Keepalive) => vec![Injected::Roster],
        (Answer::FirstRosterAtKeepalive, Moment::Keepalive) if adv.mem().keepalives == 1 => {
            vec![Injected::Roster]
        }
        (Answer::SnapshotAtKeepalive, Moment::Keepalive)
            if seen(STATE_REFRESH) > adv.mem().answered =>
        {
            adv.mem().answered += 1;
            reply(adv, Reply::Snapshot)
        }
        (Answer::FirstRosterLate, Moment::Reported { msg, .. })
            if msg == PATCH_EPOCH && seen(msg) == 2 =>
        {
            vec![Injected::Roster]
        }
        (Answer::Leave(Leave::RosterAfter), Moment::LeaveAnswered { inputs }) => {
            vex_host::roster::sensor_auth(&inputs)
                .and_then(|m| m.encode())
                .map(|b| vec![Injected::Push(SENSOR_AUTH_UPDATE, b)])
                .unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// A snapshot's message 5 replaced by the last one built before it, epoch kept: after a
/// region move, the roster of the bubble the member left.
pub fn stale(adv: &Adversary, m: SensorAuthUpdate, send: RosterSend) -> SensorAuthUpdate {
    let mut mem = adv.mem();
    if !send.snapshot {
        mem.roster = Some(m.clone());
        return m;
    }
    match mem.roster.clone() {
        Some(mut old) => {
            old.prefix = m.prefix;
            old
        }
        None => m,
    }
}

/// The leave delta as the mode has it.
pub fn leave_delta(
    mode: Mode,
    mut delta: SensorAuthUpdate,
    inputs: RosterInputs<'_>,
) -> Result<SensorAuthUpdate, BitError> {
    let Mode::Answer(Answer::Leave(l)) = mode else {
        return Ok(delta);
    };
    match l {
        Leave::PresenceKept => crate::roster::all_present(&mut delta),
        Leave::EnableOff => delta.prefix.roster_enable = false,
        Leave::WithBody => delta.groups = vex_host::roster::sensor_auth(&inputs)?.groups,
        Leave::WithGrant => {
            delta.prefix.bubble_block = Some(BubbleAuthority::granting(64, 2));
        }
        Leave::StateChanged => crate::roster::bump(&mut delta, false, 1),
        Leave::NoAnswer | Leave::RosterAfter => {}
    }
    Ok(delta)
}
