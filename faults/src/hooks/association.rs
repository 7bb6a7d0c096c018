//! The association's packets as the plan breaks them (PEER-07 to PEER-11, PEER-15): one
//! field of the init ack or the cookie ack, a record's MAC, or a test control in a
//! record's container.

use crate::fault::Fault;
use crate::plan::HostPlan;
use vex_wire::peer::association::{AssocCookieAck, AssocInitAck, COOKIE_ACK, DATA, INIT_ACK};
use vex_wire::peer::chain;
use vex_wire::peer::message::{PONG, PeerMessage};
use zerocopy::FromBytes;

/// Where a record's MAC sits.
const MAC_AT: usize = 8;

/// The packet as the plan sends it, and how many times.
pub(crate) fn packet(plan: &HostPlan, datagram: &mut [u8]) -> usize {
    match datagram.first() {
        Some(&INIT_ACK) => init_ack(plan, datagram),
        Some(&COOKIE_ACK) => {
            cookie_ack(plan, datagram);
            1
        }
        Some(&DATA) => {
            record(plan, datagram);
            1
        }
        _ => 1,
    }
}

/// An out-of-band container as the plan sends it: a pong's, one test control in its
/// place.
pub(crate) fn container(plan: &HostPlan, container: &mut Vec<u8>) {
    let first = chain::read_container(container)
        .messages
        .first()
        .map(PeerMessage::id);
    if plan.has(Fault::PeerTestMessage) && first == Some(PONG) {
        // the marker, the more bit, id 43, struct_size 0, the end: 1 1 101011 0...0 0
        *container = vec![0b1110_1011, 0, 0, 0];
    }
}

fn init_ack(plan: &HostPlan, datagram: &mut [u8]) -> usize {
    if plan.has(Fault::InitAckUnanswered) {
        return 0;
    }
    let Ok(ack) = AssocInitAck::mut_from_bytes(datagram) else {
        return 1;
    };
    if plan.has(Fault::InitAckSequenceSet) {
        ack.header.sequence = 1.into();
    }
    if plan.has(Fault::InitAckToOtherTag) {
        ack.header.addressed_tag = (ack.header.addressed_tag.get() ^ 1).into();
    }
    if plan.has(Fault::InitAckTagsDiffer) {
        ack.responder_tag2 = (ack.responder_tag.get() ^ 1).into();
    }
    if plan.has(Fault::InitAckRequesterTagWrong) {
        ack.requester_tag = (ack.requester_tag.get() ^ 1).into();
    }
    if plan.has(Fault::InitAckOldTagsSet) {
        ack.old_responder_tag = 1.into();
    }
    if plan.has(Fault::InitAckSecurityIdWrong) {
        ack.security_id[0] ^= 1;
    }
    1
}

fn cookie_ack(plan: &HostPlan, datagram: &mut [u8]) {
    let Ok(ack) = AssocCookieAck::mut_from_bytes(datagram) else {
        return;
    };
    if plan.has(Fault::CookieAckToOtherTag) {
        ack.header.addressed_tag = (ack.header.addressed_tag.get() ^ 1).into();
    }
    if plan.has(Fault::CookieAckSecurityIdWrong) {
        ack.security_id[7] ^= 1;
    }
    if plan.has(Fault::CookieAckKeyOffCurve) {
        // the last byte of y: the point leaves the curve
        let body = ack.public_key.get(1).copied().map_or(0, usize::from);
        if let Some(b) = ack.public_key.get_mut(1 + body) {
            *b ^= 1;
        }
    }
    if plan.has(Fault::CookieAckKeyNotExported) {
        ack.public_key = [0; 100];
    }
}

fn record(plan: &HostPlan, datagram: &mut [u8]) {
    if plan.has(Fault::RecordMacWrong)
        && let Some(b) = datagram.get_mut(MAC_AT)
    {
        *b ^= 1;
    }
}
