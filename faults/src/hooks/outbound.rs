//! The bytes and frames a [`HostPlan`] changes through the outbound hook: each override
//! breaks one rule when its fault is in the plan, and changes nothing otherwise.

use super::incident::faulty_incident;
use super::one_slot;
use super::{association, lobby, qos, queuez, sensor_auth, signon};
use crate::fault::Fault;
use crate::plan::HostPlan;
use crate::variation::Variation;
use vex_host::activity::GRANTABLE;
use vex_host::outbound::{Delivery, Injected, Moment, Outbound, Payload};
use vex_wire::activity::authority::Purge;
use vex_wire::activity::body::Body;
use vex_wire::activity::envelope::{PUSH_HEADER_LEN, PushHeader};
use vex_wire::activity::ids::{
    ABDICATE_AUTHORITY, ADVANCE_REPLICATION_EPOCH, AUTHORITY_FULL_MASK, BUBBLE_HOST_STATE,
    CLAIM_AUTHORITY, CONNECTIVITY_FAILURE, ENTITY_SLOTS_ALLOCATED, GLOBAL_ACTIVITY_STATE, INCIDENT,
    JOIN_RESULT, KEEPALIVE_REQUEST, KEEPALIVE_RESPONSE, MESSAGE_COUNT, PATCH_EPOCH,
    PERF_REQUEST_REFLECT, PURGE_NOTICE, REPLICATE_MEMBERSHIP, RESET_AUTHORITY_ACK, SCRIPT_STATE,
    SENSOR_AUTH_UPDATE, WORLD_GLOBALS_STATE,
};
use vex_wire::activity::selection::SERVICE6_LEN;
use vex_wire::activity::sensor_auth::BODY_BUDGET;
use vex_wire::activity::session::SessionId;
use vex_wire::activity::small::{EntitySlotMask, SLOT_MASK_LEN, WorldGlobals};
use vex_wire::activity::table;
use vex_wire::bap::header::{FrameType, InnerHeader, MAGIC, OUTER_HEADER_LEN, outer_frame};
use vex_wire::bap::queuez::{SUBSCRIPTION_LOST, SUBSCRIPTION_LOST_LEN, Update};
use vex_wire::bap::secure::TAG_LEN;
use vex_wire::bap::services::{
    ACTIVITY_PUSH, ACTIVITY_TO_HOST, CHANNEL_START_RESPONSE, ECHO_RESPONSE, HELLO_RESPONSE,
    HOST_LOOKUP, HOST_LOOKUP_RESPONSE, HOST_REQUEST, HOST_RESPONSE, SEND_ONLY, UNHANDLED_PUSH_IDS,
};
use vex_wire::lobby::signon::SignOnResponse;

/// The bytes [`Fault::TwoRostersInOneTick`] pads every message 5 to: more than half the
/// per-tick budget (AUTH-10).
const HALF_BUDGET_ROSTER: usize = 250_000;
/// The service-9 sequence [`Fault::PushSequence`] puts on pushes (ENV-10 wants 0).
const FAULT_SEQUENCE: u32 = 5;
/// The payload_len [`Fault::PayloadLenLarger`] declares: far more than follows, yet below
/// the crashing range (ENV-03). A fuzz run found the emulated client allocating all of it.
const LARGER_PAYLOAD_LEN: u32 = 0xFFFF_0000;
/// The payload_len [`Fault::PayloadLenHuge`] declares, in the crashing range (ENV-03).
const HUGE_PAYLOAD_LEN: u32 = 0xFFFF_FF80;
/// The session id [`Fault::PushWithoutSession`] names.
const UNBOUND_SESSION: SessionId = SessionId(0x0BAD_5E55_0000_0001);
/// A service id the client drops at the header (BAP-04), for [`Fault::ServiceIdOutOfRange`].
const OUT_OF_RANGE_SERVICE: u16 = 400;
/// Message 10, start_activity_host_response: the client makes it from service 7 inside
/// its own process (SR "Service 6 and 7"), so it has no handler on the wire (ENV-04).
const LOCAL_MESSAGE: u32 = 10;
/// The frame type [`Fault::BadFrameType`] uses (BAP-01 allows 0, 1 and 2).
const BAD_FRAME_TYPE: u8 = 3;
/// The status [`Fault::ResponseStatus`] puts on service 17 (BAP-05 wants 200).
const FAULT_STATUS: u16 = 500;
/// Lengths the short-body faults cut to (JOIN-03, GLOBAL-01, BODY-04): message 2 one bit
/// short of its 33, message 5 inside its patch epoch.
const SHORT_JOIN_RESULT: usize = 700;
const SHORT_GLOBAL_STATE: usize = 100;
const SHORT_WORLD_GLOBALS: usize = 4;
const SHORT_AUTH_PREFIX: usize = 10;
/// Push ids outside the 15 (BAP-09): one the client never registers, and the last request
/// id below the limit of 308.
const UNREGISTERED_SERVICE: u16 = 52;
const LAST_REQUEST_SERVICE: u16 = 306;
/// A service-6 push body that does not decode: not its fixed 7,719 bytes (BAP-10).
const UNDECODABLE_SERVICE6: usize = 10;
/// Service 17's layout (SR "Service 16 and 17"): id, IPv4, reserved, port.
const LOOKUP_ID_LAST: usize = 7;
const LOOKUP_ADDRESS: std::ops::Range<usize> = 8..12;
const LOOKUP_RESERVED_LOW: usize = 13;
const LOOKUP_PORT: std::ops::Range<usize> = 14..16;
/// Service 7's layout (SR "Service 6 and 7"): discriminator, session id.
const SERVICE7_SESSION: std::ops::Range<usize> = 1..9;
/// Service 7's session id's index, its low 16 bits (ENV-09's shape).
const SERVICE7_INDEX: std::ops::Range<usize> = 7..9;
/// Where service 7's 128 opaque bytes start.
const SERVICE7_OPAQUE: usize = 9;
/// What [`Variation::Service7OpaqueFilled`] fills them with.
const OPAQUE_FILL: u8 = 0xA5;
/// The index of the first session our host makes: [`Fault::SharedSessionId`] gives every
/// link the first one's id.
const FIRST_SESSION_INDEX: u16 = 1;

fn zero(body: &mut [u8], range: std::ops::Range<usize>) {
    if let Some(bytes) = body.get_mut(range) {
        bytes.fill(0);
    }
}

fn flip(body: &mut [u8], at: usize, bits: u8) {
    if let Some(b) = body.get_mut(at) {
        *b ^= bits;
    }
}

impl Outbound for HostPlan {
    fn queuez(&self, update: Update) -> Vec<Vec<u8>> {
        queuez::pushes(self, update)
    }

    fn signon(&self, attempt: usize, response: &mut SignOnResponse) {
        signon::answer(self, attempt, response);
    }

    fn manifest_body(&self, body: &mut Vec<u8>) {
        signon::manifest_body(self, body);
    }

    fn manifest(&self, status: &mut u16, body: &mut Vec<u8>) {
        signon::manifest(self, status, body);
    }

    fn peer_container(&self, container: &mut Vec<u8>) {
        association::container(self, container);
    }

    fn datagram(&self, datagram: &mut Vec<u8>) -> usize {
        match datagram.first() {
            Some(&vex_wire::peer::qos::REPLY) => qos::reply(self, datagram),
            _ => association::packet(self, datagram),
        }
    }

    fn response(&self, service: u16, header: &mut InnerHeader, body: &mut Vec<u8>) -> Delivery {
        if let Some(delivery) = lobby::response(self, service, body) {
            return delivery;
        }
        match service {
            HOST_LOOKUP_RESPONSE => {
                if self.has(Fault::UnansweredLookup) {
                    return Delivery::Copies(0);
                }
                if self.has(Fault::LookupAnsweredLate) {
                    return Delivery::AfterNext;
                }
                if self.has(Fault::ZeroLookupAddress) {
                    zero(body, LOOKUP_ADDRESS);
                }
                if self.has(Fault::ZeroLookupPort) {
                    zero(body, LOOKUP_PORT);
                }
                if self.has(Fault::LookupReserved) {
                    flip(body, LOOKUP_RESERVED_LOW, 1);
                }
                if self.has(Fault::LookupWrongId) {
                    flip(body, LOOKUP_ID_LAST, 1);
                }
                if self.has(Fault::ShortLookupResponse) {
                    body.pop();
                }
                if self.has(Fault::WrongTaskEcho) {
                    header.task = header.task.wrapping_add(1);
                }
                if self.has(Fault::ResponseStatus) {
                    header.status = Some(FAULT_STATUS);
                }
            }
            HOST_RESPONSE => {
                if self.has(Fault::SharedSessionId)
                    && let Some(index) = body.get_mut(SERVICE7_INDEX)
                {
                    index.copy_from_slice(&FIRST_SESSION_INDEX.to_be_bytes());
                }
                if self.has(Fault::Service7Discriminator) {
                    flip(body, 0, 0b11); // 2 becomes 1
                }
                if self.has(Fault::ZeroSessionId) {
                    zero(body, SERVICE7_SESSION);
                }
                if self.has(Fault::ShortService7) {
                    body.pop();
                }
                if self.varies(Variation::Service7OpaqueFilled)
                    && let Some(opaque) = body.get_mut(SERVICE7_OPAQUE..)
                {
                    opaque.fill(OPAQUE_FILL);
                }
            }
            HELLO_RESPONSE if self.has(Fault::HelloBadMac) => {
                if let Some(last) = body.last_mut() {
                    *last ^= 1;
                }
            }
            HELLO_RESPONSE if self.has(Fault::HelloShort) => {
                body.pop();
            }
            HELLO_RESPONSE if self.has(Fault::HelloLengthField) => {
                if let Some(b) = body.get_mut(3) {
                    *b ^= 1; // the u32 80 in front
                }
            }
            ECHO_RESPONSE if self.has(Fault::DuplicateEcho) => return Delivery::Copies(2),
            CHANNEL_START_RESPONSE if self.has(Fault::ShortChannelStart) => {
                body.pop();
            }
            CHANNEL_START_RESPONSE if self.has(Fault::LongChannelStart) => body.push(0),
            ECHO_RESPONSE if self.has(Fault::EchoWithBody) => body.push(0),
            _ => {}
        }
        Delivery::Copies(1)
    }

    fn payload(&self, msg: u32, in_burst: bool, payload: &mut Payload<'_>) {
        match msg {
            JOIN_RESULT if self.has(Fault::ShortJoinResult) => payload.truncate(SHORT_JOIN_RESULT),
            GLOBAL_ACTIVITY_STATE if in_burst && self.has(Fault::ShortGlobalState) => {
                payload.truncate(SHORT_GLOBAL_STATE);
            }
            REPLICATE_MEMBERSHIP if in_burst && self.has(Fault::ShortBurstMembership) => {
                payload.truncate(1);
            }
            ENTITY_SLOTS_ALLOCATED => {
                let answer = !in_burst;
                if (in_burst && self.has(Fault::ShortSlotGrant))
                    || (answer && self.has(Fault::ShortSlotAnswer))
                {
                    payload.pop();
                }
                if in_burst && self.varies(Variation::SlotMaskTrailingByte) {
                    payload.resize(SLOT_MASK_LEN + 1, 0);
                }
            }
            WORLD_GLOBALS_STATE if in_burst && self.has(Fault::ShortWorldGlobals) => {
                payload.truncate(SHORT_WORLD_GLOBALS);
            }
            BUBBLE_HOST_STATE if in_burst && self.has(Fault::EmptyHostState) => payload.clear(),
            PURGE_NOTICE
                if self.varies(Variation::PurgeNoticeBareMask)
                    || self.has(Fault::PurgeNoticeBareOtherMask) =>
            {
                bare_purge_notice(payload, self.has(Fault::PurgeNoticeBareOtherMask));
            }
            SENSOR_AUTH_UPDATE => {
                sensor_auth::sensor_auth(self, payload);
                if self.has(Fault::OverBudgetAuthUpdate) {
                    payload.resize(BODY_BUDGET + 1, 0); // AUTH-10: trailing zeros the budget counts
                }
                if self.has(Fault::TwoRostersInOneTick) {
                    payload.resize(HALF_BUDGET_ROSTER, 0);
                }
                if self.has(Fault::ShortAuthPrefix) {
                    payload.truncate(SHORT_AUTH_PREFIX);
                }
                if self.has(Fault::TruncatedRoster) {
                    // the last block loses its last byte and the group ends behind it
                    payload.truncate(payload.len().saturating_sub(2));
                }
            }
            _ => {}
        }
    }

    fn push(&self, push: &mut PushHeader, sequence: &mut u32, joined: bool) {
        match push.msg_type {
            JOIN_RESULT if self.has(Fault::JoinResultWrongSession) => push.session_id ^= 0xFFFF,
            GLOBAL_ACTIVITY_STATE if self.has(Fault::PushDiscriminator) => push.discriminator = 0,
            WORLD_GLOBALS_STATE if self.has(Fault::PayloadLenLarger) => {
                push.payload_len = LARGER_PAYLOAD_LEN;
            }
            BUBBLE_HOST_STATE if self.has(Fault::PayloadLenHuge) => {
                push.payload_len = HUGE_PAYLOAD_LEN;
            }
            GLOBAL_ACTIVITY_STATE if joined && self.has(Fault::PayloadLenSmaller) => {
                push.payload_len = push.payload_len.saturating_sub(1);
            }
            _ => {}
        }
        if joined && self.has(Fault::WrongSessionAfterJoin) {
            push.session_id = push.session_id.wrapping_add(1);
        }
        if self.has(Fault::PushSequence) {
            *sequence = FAULT_SEQUENCE;
        }
    }

    fn sealed(&self, service: u16, message: Option<u32>, frame: &mut Vec<u8>) {
        match (service, message) {
            (_, Some(JOIN_RESULT)) if self.has(Fault::CorruptTag) => {
                flip(frame, OUTER_HEADER_LEN, 1); // the first byte of the GCM tag
            }
            (HOST_LOOKUP_RESPONSE, _) if self.has(Fault::BadOuterMagic) => {
                if let Some(m) = frame.first_mut() {
                    *m = MAGIC + 1;
                }
            }
            (CHANNEL_START_RESPONSE, _) if self.has(Fault::BadFrameType) => {
                *frame = vec![MAGIC, BAD_FRAME_TYPE, 0, 0, 0, 0];
            }
            (CHANNEL_START_RESPONSE, _) if self.has(Fault::EncryptedBeforeHello) => {
                // the plaintext inner message behind a zero tag, typed as encrypted
                let mut payload = vec![0u8; TAG_LEN];
                payload.extend_from_slice(frame.get(OUTER_HEADER_LEN..).unwrap_or_default());
                *frame = outer_frame(FrameType::Encrypted, &payload);
            }
            _ => {}
        }
        if self.varies(Variation::PlainTypeSwapped)
            && let Some(t) = frame.get_mut(1)
        {
            *t = match FrameType::from_byte(*t) {
                Some(FrameType::Plain) => FrameType::Bootstrap.byte(),
                Some(FrameType::Bootstrap) => FrameType::Plain.byte(),
                _ => *t,
            };
        }
    }

    fn after(&self, moment: Moment<'_>) -> Vec<Injected> {
        let mut added = Vec::new();
        match moment {
            Moment::LookupAnswered if self.has(Fault::PushWithoutSession) => {
                added.push(Injected::UnboundPush {
                    session: UNBOUND_SESSION,
                    msg: GLOBAL_ACTIVITY_STATE,
                    payload: vec![0],
                });
            }
            Moment::SessionCreated if self.has(Fault::PushBeforeJoin) => {
                added.push(Injected::GlobalState);
            }
            Moment::JoinBurst => added = self.after_burst(),
            Moment::Reported { msg, .. } if self.answers_report(msg) => {
                // HOST-01, HOST-16, HOST-17: a message that gets no reply answered with a
                // snapshot's first parts
                added.push(Injected::GlobalState);
                if let Ok(body) = WorldGlobals::default_tick().encode() {
                    added.push(Injected::Push(WORLD_GLOBALS_STATE, body));
                }
            }
            Moment::Reported {
                msg: PATCH_EPOCH,
                task,
            } if self.has(Fault::AnswerPatchEpoch) => {
                // HOST-12: a response, status 200 and no body, to a one-way report, on the
                // service after the request's, as a request would be answered
                added.push(inner(InnerHeader::response(ACTIVITY_PUSH, task), 0));
            }
            Moment::Reported {
                msg: PATCH_EPOCH,
                task,
            } if self.has(Fault::RefusePatchEpoch) => {
                // HOST-12: an error response, status 500, on the report's own service
                let mut header = InnerHeader::response(ACTIVITY_TO_HOST, task);
                header.status = Some(FAULT_STATUS);
                added.push(inner(header, 0));
            }
            Moment::FirstRoster => {
                if let Some(body) = faulty_incident(self) {
                    added.push(Injected::Push(INCIDENT, body));
                }
                if self.has(Fault::TwoRostersInOneTick) {
                    added.push(Injected::Roster);
                }
                if self.has(Fault::LostFrame) {
                    added.push(Injected::LostFrame);
                }
                if self.has(Fault::ShortMembership) {
                    added.push(Injected::Push(REPLICATE_MEMBERSHIP, vec![0x80]));
                }
                if self.has(Fault::EmptyEpochAdvance) {
                    added.push(Injected::Push(ADVANCE_REPLICATION_EPOCH, Vec::new()));
                }
                if self.has(Fault::GrantAfterFirstRoster) {
                    let mask = EntitySlotMask::with_range(GRANTABLE).0;
                    added.push(Injected::Push(ENTITY_SLOTS_ALLOCATED, mask));
                }
                if self.has(Fault::CloseAfterJoin) {
                    added.push(Injected::Close("close the link after the first roster"));
                }
            }
            Moment::Keepalive => {
                let resends = [
                    Fault::RosterOnKeepalive,
                    Fault::BlocksOnKeepalive,
                    Fault::GenerationOnEverySend,
                ];
                if resends.into_iter().any(|f| self.has(f)) {
                    added.push(Injected::Roster);
                }
                if self.has(Fault::KeepaliveResponse) {
                    added.push(Injected::Push(KEEPALIVE_RESPONSE, Vec::new()));
                }
                if self.has(Fault::PushClientOnlyMessage) {
                    added.push(Injected::Push(KEEPALIVE_REQUEST, Vec::new()));
                }
                if self.has(Fault::SlotsOnTimer) {
                    let mask = EntitySlotMask::with_range(GRANTABLE).0;
                    added.push(Injected::Push(ENTITY_SLOTS_ALLOCATED, mask));
                }
            }
            Moment::EpochSent if self.has(Fault::RosterAfterAbort) => {
                added.push(Injected::Roster);
            }
            Moment::LeaveAnswered { inputs } if self.has(Fault::RosterAfterLeave) => {
                let whole = vex_host::roster::sensor_auth(&inputs);
                if let Ok(body) = whole.and_then(|w| w.encode()) {
                    added.push(Injected::Push(SENSOR_AUTH_UPDATE, body));
                }
            }
            _ => {}
        }
        added
    }
}

impl HostPlan {
    /// Whether a fault answers the client's message `msg`, which gets no reply: a message
    /// outside the table (HOST-01), 29 or 32 (HOST-16), 33 (HOST-17).
    fn answers_report(&self, msg: u32) -> bool {
        let fault = match msg {
            RESET_AUTHORITY_ACK => Fault::AnswerResetAcknowledgement,
            AUTHORITY_FULL_MASK => Fault::AnswerFullMask,
            ABDICATE_AUTHORITY => Fault::AnswerAbdication,
            _ if !table::client_sends(msg) => Fault::AnswerUnknownMessage,
            _ => return false,
        };
        self.has(fault)
    }

    /// Frames after the join burst: inner messages too short for a header (BAP-03), a
    /// service past the limit (BAP-04), a reply on a send-only service (BAP-07), a message
    /// id past the table (ENV-04), pushes outside the 15 push ids (BAP-09), on the two
    /// without a handler (BAP-10), and push bodies that do not decode (BODY-04).
    fn after_burst(&self) -> Vec<Injected> {
        let mut added = Vec::new();
        if self.has(Fault::ShortInnerHeader) {
            // BAP-03: 4 bytes cannot hold a 6-byte inner header
            let inner = vec![0, 9, 0, 0];
            added.push(Injected::Inner { service: 9, inner });
        }
        if self.has(Fault::ShortServiceEightHeader) {
            // BAP-03: a push on service 8 with 3 of the 8 account-handle bytes
            added.push(inner(InnerHeader::request(ACTIVITY_TO_HOST, 0), 3));
        }
        if self.has(Fault::TinyInnerMessage) {
            // BAP-03: 1 byte cannot even hold a service id
            added.push(Injected::Inner {
                service: 9,
                inner: vec![0],
            });
        }
        if self.has(Fault::ServiceIdOutOfRange) {
            added.push(inner(InnerHeader::request(OUT_OF_RANGE_SERVICE, 0), 0));
        }
        // BAP-07: the client cannot parse a reply on a send-only id
        let send_only = [
            (Fault::ReplyOnSendOnly, SEND_ONLY.first()),
            (Fault::ReplyOnLastSendOnly, SEND_ONLY.last()),
        ];
        for (_, service) in send_only.into_iter().filter(|(f, _)| self.has(*f)) {
            if let Some(&service) = service {
                added.push(inner(InnerHeader::response(service, 0), 0));
            }
        }
        if self.has(Fault::UnknownMessageId) {
            added.push(Injected::Push(MESSAGE_COUNT, vec![0]));
        }
        if self.has(Fault::LocalMessagePushed) {
            added.push(Injected::Push(LOCAL_MESSAGE, vec![0]));
        }
        let messages = [
            (Fault::ScriptStatePushed, SCRIPT_STATE, 1),
            (Fault::PerfReflectPushed, PERF_REQUEST_REFLECT, 1),
            (Fault::ShortClaim, CLAIM_AUTHORITY, 10),
            (Fault::ShortConnectivityFailure, CONNECTIVITY_FAILURE, 2),
        ];
        for (fault, msg, len) in messages {
            if self.has(fault) {
                added.push(Injected::Push(msg, vec![0; len]));
            }
        }
        let pushes = [
            (Fault::PushOnRequestService, HOST_LOOKUP, 0),
            (Fault::PushOnUnregisteredService, UNREGISTERED_SERVICE, 0),
            (Fault::PushOnLastRequestService, LAST_REQUEST_SERVICE, 0),
            (Fault::PushOnService6, HOST_REQUEST, SERVICE6_LEN),
            (Fault::PushOnService161, UNHANDLED_PUSH_IDS[1], 0),
            (
                Fault::UndecodablePushOnService6,
                HOST_REQUEST,
                UNDECODABLE_SERVICE6,
            ),
            (Fault::ShortPushEnvelope, ACTIVITY_PUSH, PUSH_HEADER_LEN - 1),
            (
                Fault::SubscriptionLostShort,
                SUBSCRIPTION_LOST,
                SUBSCRIPTION_LOST_LEN - 1,
            ),
            (
                Fault::SubscriptionLostLong,
                SUBSCRIPTION_LOST,
                SUBSCRIPTION_LOST_LEN + 1,
            ),
        ];
        let whole = self.varies(Variation::SubscriptionLostPushed);
        let lost = whole.then_some((SUBSCRIPTION_LOST, SUBSCRIPTION_LOST_LEN));
        let faulty = pushes
            .into_iter()
            .filter(|(f, ..)| self.has(*f))
            .map(|(_, service, len)| (service, len));
        for (service, len) in faulty.chain(lost) {
            added.push(inner(InnerHeader::request(service, 0), len));
        }
        added
    }
}

/// A purge notice in message 27's layout turned into AH's bare 1,024-byte mask (AH "The
/// main messages": 25 carries a "1,024-byte per-bubble authority mask"); `one_fewer`
/// drops its lowest slot (HOST-08).
fn bare_purge_notice(payload: &mut Payload<'_>, one_fewer: bool) {
    let Ok(notice) = Purge::decode(payload) else {
        return;
    };
    let mut mask = notice.mask;
    if one_fewer && let Some(first) = mask.lowest() {
        mask.remove(&one_slot(first));
    }
    payload.truncate(mask.0.len());
    payload.copy_from_slice(&mask.0);
}

/// An inner message of `header` and `padding` zero bytes, pushed as it is on the link.
fn inner(header: InnerHeader, padding: usize) -> Injected {
    let mut inner = Vec::new();
    header.write(&mut inner);
    inner.resize(inner.len() + padding, 0);
    Injected::Inner {
        service: header.service,
        inner,
    }
}
