//! The BAP services the route into an activity uses, and their fixed bodies
//! (NS "The service registry"; AH "The route into an activity"; facts 2.2 and 5).

use std::net::Ipv4Addr;
use thiserror::Error;

/// Service 6: the activity host request (C->S), 7,719 bytes.
pub const HOST_REQUEST: u16 = 6;
/// Service 7: the activity host response (S->C), 137 bytes.
pub const HOST_RESPONSE: u16 = 7;
/// Service 8: an activity message to the host (C->S).
pub const ACTIVITY_TO_HOST: u16 = 8;
/// Service 9: an activity message push from the host (S->C).
pub const ACTIVITY_PUSH: u16 = 9;
/// Service 16: where is this activity host (C->S), 8 bytes.
pub const HOST_LOOKUP: u16 = 16;
/// Service 17: the activity host's address (S->C), 16 bytes.
pub const HOST_LOOKUP_RESPONSE: u16 = 17;
/// Service 25: the secure hello (C->S).
pub const HELLO: u16 = 25;
/// Service 26: the 84-byte channel setup (S->C).
pub const HELLO_RESPONSE: u16 = 26;
/// Service 30: channel start (C->S).
pub const CHANNEL_START: u16 = 30;
/// Service 31: channel start echo (S->C).
pub const CHANNEL_START_RESPONSE: u16 = 31;
/// Service 250: echo, the keepalive (C->S).
pub const ECHO: u16 = 250;
/// Service 251: echo response, empty body (S->C).
pub const ECHO_RESPONSE: u16 = 251;

/// How a service's frames carry their inner header (NS "The frame").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderShape {
    /// 6 bytes: a request or a push.
    Request,
    /// 8 bytes: a response, with status.
    Response,
}

/// The 15 ids the client accepts pushes on (NS "Pushes", BAP-09).
pub const PUSH_IDS: [u16; 15] = [
    6, 8, 9, 20, 27, 28, 47, 51, 100, 123, 124, 150, 160, 161, 301,
];

/// The two push ids with no handler behind them: a push that decodes on either crashes
/// the client (NS "Pushes", BAP-10).
pub const UNHANDLED_PUSH_IDS: [u16; 2] = [6, 161];

/// The response ids of the client's registered services: the second id of each
/// request/response pair of NS "The service registry" (7, 11, 13, 17, 19, 22, 24, 26, 31,
/// 33, 43, 112, 122, 251, 303, 305), with the pairs facts 2.2 adds (15, 35, 37, 39, 41,
/// 45, 49, 307).
pub const RESPONSE_IDS: [u16; 24] = [
    7, 11, 13, 15, 17, 19, 22, 24, 26, 31, 33, 35, 37, 39, 41, 43, 45, 49, 112, 122, 251, 303, 305,
    307,
];

/// The response id for a request id the host answers, if it answers it: the route's own
/// services, matchmaking, the web service, and every lobby service of [`lobby_reply`].
pub fn response_for(request: u16) -> Option<u16> {
    match request {
        HOST_REQUEST => Some(HOST_RESPONSE),
        HOST_LOOKUP => Some(HOST_LOOKUP_RESPONSE),
        HELLO => Some(HELLO_RESPONSE),
        CHANNEL_START => Some(CHANNEL_START_RESPONSE),
        ECHO => Some(ECHO_RESPONSE),
        crate::bap::matchmaking::REQUEST => Some(crate::bap::matchmaking::REPLY),
        crate::bap::web_service::REQUEST => Some(crate::bap::web_service::REPLY),
        crate::bap::web_service::SERVER_REQUEST => Some(crate::bap::web_service::SERVER_REPLY),
        r if lobby_reply(r).is_some() => Some(r + 1),
        _ => None,
    }
}

/// What a lobby service's response body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Nothing: 13, 15, 122 and 303 have the empty-body codec, which accepts any body and
    /// reads nothing (NS "The service registry", BAP-20); 35, 37, 39, 41, 45, 49 and 307
    /// are answered empty as Sunrise does (facts 2.2).
    Empty,
    /// Protobuf decoded with nanopb against the client's schema (19, 22, 33, 305; BAP-21).
    /// The pages give none of these schemas: a body must at least be protobuf, and our
    /// host sends the fields Sunrise's source says each requires
    /// ([`crate::bap::registry_answers`]).
    Protobuf,
    /// Service 24's list of translated account ids (BAP-11, BAP-22).
    AccountTranslation,
}

/// The requests whose reply body is empty and read by nothing: 12, 121, 250 and 302,
/// answered on 13, 122, 251 and 303 (BAP-15).
pub const EMPTY_REPLY_REQUESTS: [u16; 4] = [12, 121, ECHO, 302];

/// The lobby services of the registry the host answers, besides the route's and the
/// web-service and matchmaking ones, and what each answer carries (NS "The service
/// registry"; facts 2.2).
pub fn lobby_reply(request: u16) -> Option<Reply> {
    Some(match request {
        12 | 14 | 34 | 36 | 38 | 40 | 44 | 48 | 121 | 302 | 306 => Reply::Empty,
        18 | 21 | 32 | 304 => Reply::Protobuf,
        23 => Reply::AccountTranslation,
        _ => return None,
    })
}

/// The send-only services: the client cannot parse a reply on these ids (NS "The body
/// codec", BAP-07).
pub const SEND_ONLY: [u16; 10] = [18, 21, 23, 32, 34, 36, 38, 40, 46, 171];

/// What a frame arriving at the client on `service` is to it: a push on one of the 15
/// push ids, a response on a response id, and on any other id a push the client has no
/// entry for (NS "Pushes": "a null call, not an ignored message"; BAP-09).
pub fn client_inbound(service: u16) -> Inbound {
    if PUSH_IDS.contains(&service) {
        Inbound::Push
    } else if RESPONSE_IDS.contains(&service) {
        Inbound::Response
    } else {
        Inbound::NullPush
    }
}

/// What a frame arriving at the client is, by its service id ([`client_inbound`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inbound {
    /// A push on one of the 15 push ids: a 6-byte inner header.
    Push,
    /// A response: an 8-byte inner header with status.
    Response,
    /// A push on an id outside the 15: a call through a null pointer (BAP-09).
    NullPush,
}

impl Inbound {
    /// The header shape the client reads the frame with; `None` for a null push, which it
    /// never reads.
    pub fn shape(self) -> Option<HeaderShape> {
        match self {
            Inbound::Response => Some(HeaderShape::Response),
            Inbound::Push => Some(HeaderShape::Request),
            Inbound::NullPush => None,
        }
    }
}

/// A fixed-length body of the wrong size (BAP-08, BAP-12, BAP-13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum FixedBodyError {
    /// The body is not the service's fixed length.
    #[error("service {service} body is {got} bytes, must be {want}")]
    Length {
        /// The service id.
        service: u16,
        /// The length received.
        got: usize,
        /// The fixed length.
        want: usize,
    },
    /// A field the client refuses.
    #[error("service {service}: {reason}")]
    Field {
        /// The service id.
        service: u16,
        /// What is wrong.
        reason: &'static str,
    },
}

fn exact<const N: usize>(service: u16, body: &[u8]) -> Result<&[u8; N], FixedBodyError> {
    body.try_into().map_err(|_| FixedBodyError::Length {
        service,
        got: body.len(),
        want: N,
    })
}

/// Service 16: the activity host id the client wants (8 bytes, big-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostLookup {
    /// The activity host id.
    pub host_id: u64,
}

impl HostLookup {
    /// Body length.
    pub const LEN: usize = 8;

    /// The 8-byte body.
    pub fn encode(&self) -> Vec<u8> {
        self.host_id.to_be_bytes().to_vec()
    }

    /// Parses exactly 8 bytes.
    pub fn decode(body: &[u8]) -> Result<Self, FixedBodyError> {
        let b = exact::<8>(HOST_LOOKUP, body)?;
        Ok(Self {
            host_id: u64::from_be_bytes(*b),
        })
    }
}

/// Service 17: echo of the host id, IPv4 address, reserved 0, port (BAP-12; facts 5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostLookupResponse {
    /// Echo of the service-16 id.
    pub host_id: u64,
    /// Where the activity host listens; never 0.0.0.0.
    pub address: Ipv4Addr,
    /// Reserved, always 0.
    pub reserved: u16,
    /// The activity host's port; never 0.
    pub port: u16,
}

impl HostLookupResponse {
    /// Body length.
    pub const LEN: usize = 16;

    /// The 16-byte body.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::LEN);
        out.extend_from_slice(&self.host_id.to_be_bytes());
        out.extend_from_slice(&self.address.octets());
        out.extend_from_slice(&self.reserved.to_be_bytes());
        out.extend_from_slice(&self.port.to_be_bytes());
        out
    }

    /// Parses exactly 16 bytes; any other size is refused (BAP-12). Field values are
    /// returned as sent so a checker can judge them.
    pub fn decode(body: &[u8]) -> Result<Self, FixedBodyError> {
        let b = exact::<16>(HOST_LOOKUP_RESPONSE, body)?;
        Ok(Self {
            host_id: u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            address: Ipv4Addr::new(b[8], b[9], b[10], b[11]),
            reserved: u16::from_be_bytes([b[12], b[13]]),
            port: u16::from_be_bytes([b[14], b[15]]),
        })
    }
}

/// Service 7: discriminator 2, a non-zero u64 session id, 128 opaque bytes (BAP-13).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostResponse {
    /// Must be 2.
    pub discriminator: u8,
    /// The activity session id; never 0.
    pub session_id: u64,
    /// Opaque activity data; Vex sends zeros as Sunrise does.
    pub activity_data: [u8; 128],
}

impl HostResponse {
    /// Body length.
    pub const LEN: usize = 137;
    /// The only discriminator the client accepts.
    pub const DISCRIMINATOR: u8 = 2;

    /// A response for `session_id` with zero activity data.
    pub fn new(session_id: u64) -> Self {
        Self {
            discriminator: Self::DISCRIMINATOR,
            session_id,
            activity_data: [0; 128],
        }
    }

    /// The 137-byte body.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::LEN);
        out.push(self.discriminator);
        out.extend_from_slice(&self.session_id.to_be_bytes());
        out.extend_from_slice(&self.activity_data);
        out
    }

    /// Parses exactly 137 bytes. Field values are returned as sent.
    pub fn decode(body: &[u8]) -> Result<Self, FixedBodyError> {
        let b = exact::<137>(HOST_RESPONSE, body)?;
        let mut sid = [0u8; 8];
        sid.copy_from_slice(&b[1..9]);
        let mut activity_data = [0u8; 128];
        activity_data.copy_from_slice(&b[9..]);
        Ok(Self {
            discriminator: b[0],
            session_id: u64::from_be_bytes(sid),
            activity_data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Facts 10.1: service 17 for id 0x1234 at 127.0.0.1:30974.
    #[test]
    fn service17_vector() {
        let r = HostLookupResponse {
            host_id: 0x1234,
            address: Ipv4Addr::LOCALHOST,
            reserved: 0,
            port: 30974,
        };
        assert_eq!(
            hex::encode_upper(r.encode()),
            "00000000000012347F000001000078FE"
        );
        assert_eq!(HostLookupResponse::decode(&r.encode()), Ok(r));
        assert!(HostLookupResponse::decode(&[0; 15]).is_err());
    }

    /// Facts 10.1: service 7 = `029EAA300100200001` + 128 zero bytes.
    #[test]
    fn service7_vector() {
        let body = HostResponse::new(0x9EAA_3001_0020_0001).encode();
        assert_eq!(body.len(), 137);
        assert_eq!(hex::encode_upper(&body[..9]), "029EAA300100200001");
        assert!(body[9..].iter().all(|&b| b == 0));
        assert_eq!(
            HostResponse::decode(&body).unwrap().session_id,
            0x9EAA_3001_0020_0001
        );
        assert!(HostResponse::decode(&body[1..]).is_err());
    }
}
