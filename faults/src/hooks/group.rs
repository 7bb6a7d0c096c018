//! The group session as the plan breaks it (PEER-01, PEER-02, PEER-14, PEER-17 to
//! PEER-22): the answer to a join-request, the established datagrams' numbering and
//! guard, and the membership the host publishes (its hash computed over the edit, so each
//! fault breaks one thing) or sends (the hash or the nanopb bytes themselves).

use crate::fault::Fault;
use crate::plan::HostPlan;
use crate::variation::Variation;
use vex_host::policy::{JoinAnswer, Membership};
use vex_wire::peer::established::{EstablishedPacket, PACKET_SEQUENCE_MOD};
use vex_wire::peer::membership::{MembershipUpdate, PlayerDelta};
use vex_wire::peer::message::refuse;

/// A protobuf key of field 1 with wire type 7, which no decoder takes.
const UNDECODABLE: u8 = 0x0F;

/// The answer to a join-request as the plan gives it.
pub(crate) fn join_answer(plan: &HostPlan, checked: JoinAnswer) -> JoinAnswer {
    match checked {
        JoinAnswer::Admit if plan.has(Fault::JoinRefusedWrongly) => {
            JoinAnswer::Refuse(refuse::PEER_VERSION_TOO_LOW)
        }
        JoinAnswer::Admit if plan.has(Fault::JoinUnanswered) => JoinAnswer::Silence,
        JoinAnswer::Admit if plan.varies(Variation::JoinRejectedByHost) => {
            JoinAnswer::Refuse(refuse::REJECTED_BY_HOST)
        }
        other => other,
    }
}

/// An established datagram as the plan sends it: numbered past the window, or guarded
/// with the wrong channel bits.
pub(crate) fn established(plan: &HostPlan, packet: &mut EstablishedPacket) {
    let skip = if plan.has(Fault::PacketFarAhead) {
        128
    } else if plan.varies(Variation::PacketsAtWindowEdge) {
        127
    } else {
        0
    };
    if let Some((head, cursor)) = packet.ack.head {
        packet.ack.head = Some(((head + skip) % PACKET_SEQUENCE_MOD, cursor));
    }
    if plan.has(Fault::EstablishedGuardWrong) {
        packet.guard ^= 1;
    }
}

/// The membership the host publishes, as the plan edits it: member 0 is the host, the
/// last member the newest joiner.
pub(crate) fn membership(plan: &HostPlan, m: &mut Membership) {
    let Membership {
        root,
        peers,
        players,
    } = m;
    if plan.has(Fault::PlayerWithoutProfile) {
        players.push(PlayerDelta {
            slot: 0,
            player_id: 0x0102_0304_0506_0708,
            member: 1,
            add_sequence: 0,
            flag: false,
        });
    }
    let resize = |len: usize| move |bytes: &mut Vec<u8>| bytes.resize(len, 0);
    if let Some(host) = root.members.first_mut() {
        let addr = host.addr.as_mut();
        let machine = host.machine_id.as_mut();
        if plan.has(Fault::MemberAddrShort) {
            addr.map(resize(85));
        } else if plan.has(Fault::MemberAddrLong) {
            addr.map(resize(87));
        } else if plan.has(Fault::MemberAddrPastSlot) {
            addr.map(resize(89));
        } else if plan.has(Fault::MemberMachineIdShort) {
            machine.map(resize(7));
        } else if plan.has(Fault::MemberMachineIdPastSlot) {
            machine.map(resize(9));
        } else if plan.has(Fault::MemberTwoPlayerSlots) {
            host.player_slot = vec![0, 1];
        } else if plan.varies(Variation::MemberOwnsOneSlot) {
            host.player_slot = vec![0];
        }
    }
    if plan.has(Fault::MemberJoinIdStale)
        && let Some(joiner) = root.members.last_mut()
    {
        joiner.join_id = joiner.join_id.map(|id| id.wrapping_add(1));
    }
    let count = root.members.len() as u32;
    if plan.has(Fault::HostIndexPastMembers) {
        root.host_index = Some(count);
    } else if plan.varies(Variation::HostIsLastMember) {
        root.host_index = Some(count - 1);
    }
    if plan.has(Fault::MemberStatePast10)
        && let Some(host) = peers.first_mut()
    {
        host.state = 11;
    }
}

/// A membership-update as the plan sends it: its hash or its nanopb bytes broken.
pub(crate) fn membership_update(plan: &HostPlan, update: &mut MembershipUpdate) {
    if plan.has(Fault::MembershipHashWrong) {
        update.hash ^= 1;
    }
    if plan.has(Fault::MembershipRootUndecodable) {
        update.root = vec![UNDECODABLE, 0];
    }
}
