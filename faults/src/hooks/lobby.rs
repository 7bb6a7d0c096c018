//! The lobby services' faults (`fault.rs`) and variations (`variation.rs`), applied
//! through the outbound hook to the response our host built: each fault breaks one rule
//! of service 24, 19, 305, 45, 43, 11, 13, 122 or 303 when it is in the plan, each
//! variation takes a freedom the pages leave, and an empty plan changes nothing.

use crate::fault::Fault;
use crate::plan::HostPlan;
use crate::variation::Variation;
use prost::Message;
use vex_host::outbound::Delivery;
use vex_wire::bap::matchmaking::{self, Reply};
use vex_wire::bap::web_service::{self, EQUIP, NO_REVISION, SUBSCRIBE, Shape, WsReply};

/// Service 24's last identity byte: `00 01 0C FF`, then the identity's 8 bytes.
const TRANSLATED_IDENTITY_LAST: usize = 11;
/// Service 24's entry count, its low byte: `00 01` for the one identity.
const TRANSLATION_COUNT_LOW: usize = 1;
/// Service 24's smallest answer, the empty list (facts 2.2; BAP-11, BAP-22).
const SMALLEST_TRANSLATION: [u8; 4] = [0x00, 0x00, 0xFF, 0xFF];
/// A protobuf body whose length runs past its end (BAP-21).
const LENGTH_PAST_END: [u8; 2] = [0x0A, 0x05];
/// A lone field key, no value (BAP-21).
const LONE_KEY: [u8; 1] = [0x08];
/// The status [`Variation::WebServiceRefused`] answers: an error (NS "The reply's version
/// barrier": anything but 0, 7 and 16 is an error).
const SUBSCRIBE_ERROR: i32 = 2;
/// Service 19, the client config (answering 18); 305, the Steam certificate; 45, clan.
const CLIENT_CONFIG: u16 = 19;
const STEAM_CERTIFICATE: u16 = 305;
const CLAN: u16 = 45;
/// Services 13, 122 and 303: the empty replies to 12, 121 and 302 (BAP-15).
const SUBSCRIBE_REPLY: u16 = 13;
const QUEUEZ_REGISTER_REPLY: u16 = 122;
const RELAY_REPLY: u16 = 303;

/// How lobby response `service` with `body` goes out under `plan`; `None` for a service
/// that is not a lobby service's.
pub fn response(plan: &HostPlan, service: u16, body: &mut Vec<u8>) -> Option<Delivery> {
    match service {
        vex_wire::bap::account_translation::RESPONSE => {
            if plan.has(Fault::AccountTranslationEmpty) {
                body.clear();
            }
            if plan.has(Fault::AccountTranslationWrongIdentity)
                && let Some(b) = body.get_mut(TRANSLATED_IDENTITY_LAST)
            {
                *b ^= 1;
            }
            if plan.has(Fault::AccountTranslationCountMismatch)
                && let Some(count) = body.get_mut(TRANSLATION_COUNT_LOW)
            {
                *count += 1;
            }
            if plan.varies(Variation::AccountTranslationSmallest) {
                *body = SMALLEST_TRANSLATION.to_vec();
            }
        }
        CLIENT_CONFIG if plan.has(Fault::ClientConfigNotProtobuf) => {
            *body = LENGTH_PAST_END.to_vec();
        }
        STEAM_CERTIFICATE if plan.has(Fault::SteamCertificateNotProtobuf) => {
            *body = LONE_KEY.to_vec();
        }
        CLAN if plan.has(Fault::ClanUnanswered) => return Some(Delivery::Copies(0)),
        SUBSCRIBE_REPLY if plan.has(Fault::SubscribeReplyWithBody) => body.push(0),
        QUEUEZ_REGISTER_REPLY if plan.has(Fault::QueuezRegisterReplyWithBody) => {
            body.resize(16, 0xFF);
        }
        RELAY_REPLY if plan.has(Fault::RelayReplyWithBody) => body.push(1),
        matchmaking::REPLY => matchmaking_reply(plan, body),
        web_service::REPLY => web_service_reply(plan, body),
        CLIENT_CONFIG
        | STEAM_CERTIFICATE
        | CLAN
        | SUBSCRIBE_REPLY
        | QUEUEZ_REGISTER_REPLY
        | RELAY_REPLY => {}
        _ => return None,
    }
    Some(Delivery::Copies(1))
}

/// Service 43, in the shape our host answered its kind with.
fn matchmaking_reply(plan: &HostPlan, body: &mut Vec<u8>) {
    let Ok(mut reply) = Reply::decode(body.as_slice()) else {
        return;
    };
    let empty = reply == Reply::default();
    if reply.configuration.is_some() {
        if plan.has(Fault::MatchmakingConfigurationEmpty) {
            reply.configuration = None;
        } else if plan.has(Fault::MatchmakingWrongShape) {
            reply.search = reply.configuration.take();
        } else if plan.varies(Variation::ConfigurationBare) {
            reply.configuration = Some(Vec::new());
        }
    }
    // the empty replies are the deletes' (and a locate's that found nothing)
    if empty && plan.has(Fault::MatchmakingDeleteAnswered) {
        reply.configuration = Some(Vec::new());
    }
    if let Some(ad) = reply.advertisement.as_mut()
        && plan.has(Fault::MatchmakingZeroAdvertisementId)
    {
        ad.id = Some(0);
    }
    if let Some(ad) = reply.advertisement.as_mut()
        && plan.has(Fault::MatchmakingAdvertisementIdMissing)
    {
        ad.id = None;
    }
    if plan.varies(Variation::AdvertisementRefused) && reply.assignment.is_some() {
        reply.assignment = None;
        reply.advertisement = None;
    }
    if plan.varies(Variation::SearchResultsOmitted) {
        reply.search = None;
    }
    let located = reply.located.as_mut().and_then(|l| l.descriptor.as_mut());
    if let Some(bytes) = located.and_then(|d| d.bytes.as_mut()) {
        if plan.has(Fault::LocatedDescriptorShort) {
            bytes.pop();
        } else if plan.has(Fault::LocatedDescriptorLong) {
            bytes.push(0);
        }
    }
    *body = reply.encode_to_vec();
}

/// Service 11, read in the shape of the opcode it answers.
fn web_service_reply(plan: &HostPlan, body: &mut Vec<u8>) {
    let Some(opcode) = body.get(..2).map(|o| u16::from_be_bytes([o[0], o[1]])) else {
        return;
    };
    let shape = Shape::of(opcode);
    let Ok(mut reply) = WsReply::decode(body, shape) else {
        return;
    };
    if let Some(status) = reply.status.as_mut() {
        if opcode == SUBSCRIBE && plan.varies(Variation::WebServiceRefused) {
            status.code = SUBSCRIBE_ERROR;
        }
        if opcode == EQUIP && plan.has(Fault::WsErrorWithRevision) {
            status.value = i32::MIN; // a zero on the wire: a revision request
        }
        if opcode == EQUIP && status.value != NO_REVISION && plan.has(Fault::WsRevisionAhead) {
            status.value += 1;
        }
    }
    if plan.has(Fault::WsOpcodeNotEchoed) {
        reply.opcode ^= 1;
    }
    if plan.has(Fault::WsTransactionNotEchoed) {
        reply.transaction ^= 1;
    }
    *body = reply.encode(shape);
}
