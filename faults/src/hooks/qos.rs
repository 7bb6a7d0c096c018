//! The QoS reply as the plan breaks it (QOS-01 to QOS-06) or takes a freedom in it: each
//! fault edits one field of the reply, its payload length, or one field of the
//! advertisement's header, after the host built it.

use crate::fault::Fault;
use crate::plan::HostPlan;
use crate::variation::Variation;
use vex_wire::bits::{BitReader, written};
use vex_wire::peer::advertisement::{
    AdvertisementHeader, FULL_ADVERTISEMENT, HEADER_BYTES, KIND, PROTOCOL_VERSION,
};
use vex_wire::peer::qos::{self, QosReplyHead};
use zerocopy::FromBytes;

/// The head's length.
const HEAD: usize = size_of::<QosReplyHead>();
/// A hold time the host may report: the reply waited a quarter second.
const HELD_S: f32 = 0.25;

/// The QoS reply as the plan sends it, and how many times.
pub(crate) fn reply(plan: &HostPlan, datagram: &mut Vec<u8>) -> usize {
    if plan.has(Fault::QosUnanswered) {
        return 0;
    }
    edit_header(plan, datagram);
    if plan.has(Fault::QosPayloadEmpty) {
        datagram.truncate(HEAD);
    }
    if plan.has(Fault::QosPayloadShort) {
        datagram.truncate(HEAD + HEADER_BYTES); // the header's bytes, no descriptor
    }
    let follows = datagram.len().saturating_sub(HEAD);
    let Ok((head, _)) = QosReplyHead::mut_from_prefix(datagram) else {
        return 1;
    };
    head.payload_len = (follows as u32).into();
    if plan.has(Fault::QosPayloadLenLong) {
        head.payload_len = (follows as u32 + 1).into();
    }
    if plan.has(Fault::QosPayloadLenShort) {
        head.payload_len = (follows as u32 - 1).into();
    }
    edit_head(plan, head);
    1
}

/// The head's fields: the echoes, the type, accepted, the hold time.
fn edit_head(plan: &HostPlan, head: &mut QosReplyHead) {
    if plan.has(Fault::QosProbeIdWrong) {
        head.probe_id = (head.probe_id.get() ^ 1).into();
    }
    if plan.has(Fault::QosSendTimeWrong) {
        head.send_time = (head.send_time.get() + 1).into();
    }
    if plan.has(Fault::QosSecurityIdWrong) {
        head.security_id = (head.security_id.get() ^ 0x8000_0000).into();
    }
    if plan.has(Fault::QosReplyTypeWrong) {
        head.kind = qos::REQUEST;
    }
    if plan.has(Fault::QosRefused) {
        head.accepted = 0;
    }
    if plan.varies(Variation::QosHeld) {
        head.hold_time = HELD_S.into();
    }
}

/// The advertisement header's fields, the bits after it kept as they were.
fn edit_header(plan: &HostPlan, datagram: &mut Vec<u8>) {
    let Some(payload) = datagram.get(HEAD..) else {
        return;
    };
    let mut r = BitReader::new(payload);
    let Ok(mut header) = AdvertisementHeader::read(&mut r) else {
        return;
    };
    let before = header;
    if plan.has(Fault::QosVersionWrong) {
        header.protocol_version = PROTOCOL_VERSION - 1;
    }
    if plan.has(Fault::QosKindWrong) {
        header.kind = KIND - 1;
    }
    if plan.has(Fault::QosBuildHighOld) {
        header.build_high -= 1;
    }
    if plan.has(Fault::QosBuildLowNew) {
        header.build_low += 1;
    }
    if plan.has(Fault::QosPayloadTypeFull) {
        header.payload_type = FULL_ADVERTISEMENT;
    }
    if plan.has(Fault::QosSessionIdWrong) {
        header.session_id ^= 1;
    }
    if plan.varies(Variation::QosBuildsWide) {
        (header.build_high, header.build_low) = (i32::MAX as u32, 1);
    }
    if header == before {
        return;
    }
    let edited = written(|w| {
        header.write(w);
        while let Ok(bit) = r.read(1) {
            w.write(bit, 1);
        }
    });
    if let Ok(edited) = edited {
        datagram.truncate(HEAD);
        datagram.extend_from_slice(&edited);
    }
}
