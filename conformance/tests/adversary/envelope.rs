//! The service-9 envelope and the BAP services around the activity (AH "The activity
//! envelope", "Host to client, service 9"; NS "The service registry", "Replicated objects,
//! service 123"; facts 1.3, 4.0).

use crate::host::Adversary;
use crate::mode::{Envelope, Hello, Mode, Small};
use vex_host::outbound::{Injected, Moment};
use vex_wire::activity::envelope::PushHeader;
use vex_wire::activity::ids::{GLOBAL_ACTIVITY_STATE, JOIN_RESULT};
use vex_wire::activity::session::SessionId;
use vex_wire::bap::header::InnerHeader;
use vex_wire::bap::queuez::{
    ACCOUNT_OBJECT, ENCODING_RAW, FamilyUpdate, MAX_PAYLOAD, ObjectUpdate, SUBSCRIPTION_LOST,
    Update,
};
use vex_wire::bap::services::{HELLO_RESPONSE, HOST_RESPONSE};

/// A BAP response as the mode has it.
pub fn response(adv: &Adversary, service: u16, _header: &mut InnerHeader, body: &mut Vec<u8>) {
    match (adv.mode, service) {
        (Mode::Envelope(Envelope::SharedSession), HOST_RESPONSE) if body.len() >= 9 => {
            let mut mem = adv.mem();
            let first = *mem
                .session
                .get_or_insert_with(|| u64::from_be_bytes(body[1..9].try_into().expect("8 bytes")));
            body[1..9].copy_from_slice(&first.to_be_bytes());
        }
        (Mode::Envelope(Envelope::Hello(h)), HELLO_RESPONSE) => match h {
            Hello::LengthField(v) => body[0..4].copy_from_slice(&v.to_be_bytes()),
            Hello::Mac => {
                if let Some(b) = body.last_mut() {
                    *b ^= 1;
                }
            }
            Hello::Size(n) => body.resize(n, 0),
            Hello::Padding => {
                // plaintext byte 31 (block 2) follows ciphertext byte 20 + 15 (block 1)
                body[35] ^= 1;
                let mac = mac_of(&adv_keys(), &body[..52]);
                body[52..84].copy_from_slice(&mac);
            }
        },
        _ => {}
    }
}

/// The SignOn keys the built-in host and client share (`HostConfig::builtin`).
fn adv_keys() -> [u8; 16] {
    vex_wire::bap::secure::SignOnKeys::DEVELOPMENT.hmac
}

/// HMAC-SHA256 under `key` over `data` (facts 1.3).
fn mac_of(key: &[u8; 16], data: &[u8]) -> [u8; 32] {
    use hmac::{Hmac, KeyInit, Mac};
    let mut mac = <Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key).expect("any key");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// A push's header as the mode has it: the keepalive's message 1 once joined.
pub fn push(mode: Mode, push: &mut PushHeader, sequence: &mut u32, joined: bool) {
    let keepalive_one = joined && push.msg_type == GLOBAL_ACTIVITY_STATE;
    match mode {
        Mode::Envelope(Envelope::Discriminator(d)) if keepalive_one => push.discriminator = d,
        Mode::Envelope(Envelope::PayloadLen(d)) if keepalive_one => {
            push.payload_len = push.payload_len.wrapping_add_signed(d);
        }
        Mode::Envelope(Envelope::PayloadLenRaw(v)) if keepalive_one => push.payload_len = v,
        Mode::Envelope(Envelope::SessionAfterJoin) if keepalive_one => push.session_id ^= 1,
        Mode::Envelope(Envelope::Sequence(s)) => *sequence = s,
        Mode::Small(Small::JoinEnvelopeSession) if push.msg_type == JOIN_RESULT => {
            push.session_id ^= 1;
        }
        _ => {}
    }
}

/// Frames added at `moment`.
pub fn after(adv: &Adversary, moment: Moment<'_>) -> Vec<Injected> {
    let Mode::Envelope(e) = adv.mode else {
        return Vec::new();
    };
    let first_keepalive = matches!(moment, Moment::Keepalive) && adv.mem().keepalives == 1;
    match (e, moment) {
        (Envelope::MsgType(id), _) if first_keepalive => vec![Injected::Push(id, vec![0; 4])],
        (Envelope::Unbound, _) if first_keepalive => {
            let payload = adv
                .mem()
                .last
                .get(&GLOBAL_ACTIVITY_STATE)
                .cloned()
                .unwrap_or_default();
            vec![Injected::UnboundPush {
                session: SessionId(0x9EAA_3001_0020_7777),
                msg: GLOBAL_ACTIVITY_STATE,
                payload,
            }]
        }
        (Envelope::BeforeJoin, Moment::SessionCreated) => vec![Injected::GlobalState],
        (Envelope::SubLost(n), Moment::JoinBurst) => {
            let mut inner = Vec::new();
            InnerHeader::request(SUBSCRIPTION_LOST, 0).write(&mut inner);
            inner.resize(inner.len() + n, 0);
            vec![Injected::Inner {
                service: SUBSCRIPTION_LOST,
                inner,
            }]
        }
        _ => Vec::new(),
    }
}

/// Bytes of a service-123 message: family count, 21 a family, 20 an object.
const COUNT: usize = 4;
const FAMILY: usize = 21;
const OBJECT: usize = 20;

/// One service-123 message of exactly `len` bytes for the family `update` snapshots: raw
/// account objects, each at most 96,280 bytes and keyed by its first qword (QZ-01, QZ-06),
/// in as many consecutive versions of the family as they need.
pub fn queuez_of(update: Update, len: usize) -> Vec<u8> {
    let Some(first) = update.families.first() else {
        return update.encode();
    };
    let key = 0x9EAA_3001_0000_0001u64;
    let mut families = Vec::new();
    let mut left = len - COUNT;
    while left > 0 {
        let payload = (left - FAMILY - OBJECT).min(MAX_PAYLOAD);
        left -= FAMILY + OBJECT + payload;
        let mut bytes = key.to_be_bytes().to_vec();
        bytes.resize(payload.max(8), 0);
        families.push(FamilyUpdate {
            family: first.family,
            root: first.root,
            version: first.version + families.len() as i32,
            full_snapshot: families.is_empty(),
            objects: vec![ObjectUpdate {
                object_id: ACCOUNT_OBJECT,
                key,
                encoding: ENCODING_RAW,
                payload: bytes,
            }],
        });
    }
    let body = Update { families }.encode();
    assert_eq!(body.len(), len, "a service-123 message of the asked size");
    body
}
