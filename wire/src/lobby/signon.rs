//! SignOn's protobuf messages: the client's POST body and the response whose field 1
//! picks the outcome (NS "SignOn", "The success fields", "The other outcomes").
//!
//! Written with `prost` in proto2 form, so the presence of every field is kept: the client
//! decodes with nanopb, where a missing required field fails the whole message (PB-01);
//! [`super::nanopb`] holds those rules. Where the pages give a field's number it is theirs;
//! the root numbers of the success message (2), the client-config sub-message (4), the silo
//! id (5), the content build (6), the capability bits (8), the server time (12), the
//! environment (13) and the external IPv4 (14) are facts from Sunrise's
//! `middleware/signon/response.cpp`. The pages and Sunrise give no number for the queued,
//! error and throttled sub-messages, the feature names, or the fields inside the
//! non-success arms and the request's sub-messages: Vex puts them at the numbers below,
//! one place ([`layout`]) a team can compare with its own.

use prost::Message;

/// The request's protocol version on this build (NS "SignOn": field 1).
pub const PROTOCOL_VERSION: u32 = 16;
/// The build the query string names.
pub const BUILD: u32 = 86_657;
/// The platform the query string names on PC.
pub const PLATFORM: &str = "steam";
/// The length of the Steam encrypted app ticket in request field 2.
pub const STEAM_TICKET_LEN: usize = 90;

/// Field numbers the pages do not give, as Vex writes and reads them.
pub mod layout {
    /// Root: the queued arm's sub-message.
    pub const QUEUED: u32 = 3;
    /// Root: the error arm's sub-message.
    pub const ERROR: u32 = 7;
    /// Root: the throttled arm's sub-message.
    pub const THROTTLED: u32 = 9;
    /// Root: the feature names, repeated.
    pub const FEATURES: u32 = 11;
}

/// The client's POST body: 21 root fields, of which the pages describe these; fields 9,
/// 10, 14 and 16 do not exist (NS "SignOn").
#[derive(Clone, PartialEq, Message)]
pub struct SignOnRequest {
    /// 1: the protocol version, [`PROTOCOL_VERSION`].
    #[prost(uint32, optional, tag = "1")]
    pub protocol_version: Option<u32>,
    /// 2: the platform credential; on PC the 90-byte Steam encrypted app ticket.
    #[prost(message, optional, tag = "2")]
    pub platform: Option<PlatformCredential>,
    /// 3: the UI language, e.g. `en`.
    #[prost(string, optional, tag = "3")]
    pub ui_language: Option<String>,
    /// 5: the content version.
    #[prost(string, optional, tag = "5")]
    pub content_version: Option<String>,
    /// 6: the build string.
    #[prost(string, optional, tag = "6")]
    pub build: Option<String>,
    /// 12: the cookie of a previous queued response, byte for byte (SIGNON-07).
    #[prost(bytes = "vec", optional, tag = "12")]
    pub queue_cookie: Option<Vec<u8>>,
    /// 15: owned entitlements, up to 64.
    #[prost(string, repeated, tag = "15")]
    pub entitlements: Vec<String>,
    /// 17: the SKU type, e.g. `north_america_digital`.
    #[prost(string, optional, tag = "17")]
    pub sku: Option<String>,
    /// 19: the audio language.
    #[prost(string, optional, tag = "19")]
    pub audio_language: Option<String>,
    /// 20: a report of the previous failed attempt, only after one.
    #[prost(message, optional, tag = "20")]
    pub previous_failure: Option<FailureReport>,
    /// 22: the Steam account.
    #[prost(message, optional, tag = "22")]
    pub account: Option<SteamAccount>,
    /// 23: the client's half of the peer key exchange (the type of success field 12).
    #[prost(message, optional, tag = "23")]
    pub key_exchange: Option<KeyExchange>,
    /// 24: how many throttled responses came in a row (SIGNON-08).
    #[prost(uint32, optional, tag = "24")]
    pub throttled_in_a_row: Option<u32>,
}

/// Request field 2.
#[derive(Clone, PartialEq, Message)]
pub struct PlatformCredential {
    /// The Steam encrypted app ticket, [`STEAM_TICKET_LEN`] bytes.
    #[prost(bytes = "vec", optional, tag = "1")]
    pub steam_ticket: Option<Vec<u8>>,
}

/// Request field 20.
#[derive(Clone, PartialEq, Message)]
pub struct FailureReport {
    /// The outcome of the failed attempt (response field 1).
    #[prost(uint32, optional, tag = "1")]
    pub outcome: Option<u32>,
    /// The error reason, for an error outcome.
    #[prost(uint32, optional, tag = "2")]
    pub reason: Option<u32>,
}

/// Request field 22: the Steam account. The client cannot check the proof; only the real
/// backend could (NS "SignOn").
#[derive(Clone, PartialEq, Message)]
pub struct SteamAccount {
    /// The Steam id.
    #[prost(uint64, optional, tag = "1")]
    pub id: Option<u64>,
    /// The account name.
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    /// The signed proof.
    #[prost(bytes = "vec", optional, tag = "3")]
    pub proof: Option<Vec<u8>>,
    /// The country.
    #[prost(string, optional, tag = "4")]
    pub country: Option<String>,
}

/// Success field 12 and request field 23: a half of the peer key exchange. Only f4 is
/// described: exactly [`KeyExchange::PUBLIC_LEN`] bytes, or the block is discarded
/// (SIGNON-01); the client relays it into the peer handshake unchecked.
#[derive(Clone, PartialEq, Message)]
pub struct KeyExchange {
    /// f1: a flag.
    #[prost(uint32, optional, tag = "1")]
    pub flag: Option<u32>,
    /// f3: a block.
    #[prost(bytes = "vec", optional, tag = "3")]
    pub block: Option<Vec<u8>>,
    /// f4: the public half.
    #[prost(bytes = "vec", optional, tag = "4")]
    pub public: Option<Vec<u8>>,
}

impl KeyExchange {
    /// The only length of f4 the client keeps.
    pub const PUBLIC_LEN: usize = 128;
}

/// The response: field 1 picks the outcome, and each arm but denied has its sub-message.
#[derive(Clone, PartialEq, Message)]
pub struct SignOnResponse {
    /// 1: the outcome, [`Outcome`] as a number.
    #[prost(uint32, optional, tag = "1")]
    pub outcome: Option<u32>,
    /// 2: the success arm.
    #[prost(message, optional, tag = "2")]
    pub success: Option<Success>,
    /// [`layout::QUEUED`]: the queued arm.
    #[prost(message, optional, tag = "3")]
    pub queued: Option<Queued>,
    /// 4: the client-config sub-message.
    #[prost(message, optional, tag = "4")]
    pub client_config: Option<ClientConfig>,
    /// 5: the silo id, printed as `Silo ID: N`.
    #[prost(uint32, optional, tag = "5")]
    pub silo_id: Option<u32>,
    /// 6: the content build.
    #[prost(string, optional, tag = "6")]
    pub content_build: Option<String>,
    /// [`layout::ERROR`]: the error arm.
    #[prost(message, optional, tag = "7")]
    pub error: Option<SignOnError>,
    /// 8: the six capability bits; they feed an account-status report only.
    #[prost(uint32, optional, tag = "8")]
    pub capabilities: Option<u32>,
    /// [`layout::THROTTLED`]: the throttled arm.
    #[prost(message, optional, tag = "9")]
    pub throttled: Option<Throttled>,
    /// [`layout::FEATURES`]: the feature names, up to eight: the only feature flags
    /// (SIGNON-05).
    #[prost(string, repeated, tag = "11")]
    pub features: Vec<String>,
    /// 12: the server time, epoch seconds.
    #[prost(uint64, optional, tag = "12")]
    pub server_time: Option<u64>,
    /// 13: the environment, e.g. `live`.
    #[prost(string, optional, tag = "13")]
    pub environment: Option<String>,
    /// 14: the client's external IPv4, which it saves as its address.
    #[prost(uint32, optional, tag = "14")]
    pub external_ipv4: Option<u32>,
}

/// The success arm (NS "The success fields"); fields 1 to 7 are required (SIGNON-01).
#[derive(Clone, PartialEq, Message)]
pub struct Success {
    /// 1: up to 16 bytes, never read; the official server sends it empty.
    #[prost(bytes = "vec", optional, tag = "1")]
    pub reserved: Option<Vec<u8>>,
    /// 2: the AES-128 key of the secure hello.
    #[prost(bytes = "vec", optional, tag = "2")]
    pub aes_key: Option<Vec<u8>>,
    /// 3: the HMAC-SHA256 key of the secure hello.
    #[prost(bytes = "vec", optional, tag = "3")]
    pub hmac_key: Option<Vec<u8>>,
    /// 4: the session token (`cs_signon_token`), up to 568 bytes.
    #[prost(bytes = "vec", optional, tag = "4")]
    pub token: Option<Vec<u8>>,
    /// 5: an absolute expiry, epoch seconds, stored where nothing reads it.
    #[prost(uint64, optional, tag = "5")]
    pub expiry: Option<u64>,
    /// 6: the BAP server's IPv4, as a number (most significant byte first).
    #[prost(uint32, optional, tag = "6")]
    pub bap_ipv4: Option<u32>,
    /// 7: the BAP server's port.
    #[prost(uint32, optional, tag = "7")]
    pub bap_port: Option<u32>,
    /// 9: three values read as floats, copied and logged only.
    #[prost(fixed32, repeated, packed = "false", tag = "9")]
    pub floats: Vec<u32>,
    /// 11: a relative expiry, seconds, into the same unread slot as 5.
    #[prost(uint64, optional, tag = "11")]
    pub relative_expiry: Option<u64>,
    /// 12: the peer key-exchange block, relayed into the peer handshake.
    #[prost(message, optional, tag = "12")]
    pub key_exchange: Option<KeyExchange>,
    /// 13: blocks five UI launch handlers; the official server omits it (SIGNON-04).
    #[prost(bool, optional, tag = "13")]
    pub block_launch: Option<bool>,
    /// 14: the city, copied into a report only.
    #[prost(string, optional, tag = "14")]
    pub city: Option<String>,
    /// 15: the country.
    #[prost(string, optional, tag = "15")]
    pub country: Option<String>,
    /// 16: the ISP.
    #[prost(string, optional, tag = "16")]
    pub isp: Option<String>,
}

/// The queued arm: position, time remaining and retry delay are required; a zero keeps
/// the previous value (SIGNON-06, SIGNON-07).
#[derive(Clone, PartialEq, Message)]
pub struct Queued {
    /// 1: the place in the queue.
    #[prost(uint32, optional, tag = "1")]
    pub position: Option<u32>,
    /// 2: the time remaining, seconds.
    #[prost(uint32, optional, tag = "2")]
    pub seconds_remaining: Option<u32>,
    /// 3: when to ask again, seconds.
    #[prost(uint32, optional, tag = "3")]
    pub retry_seconds: Option<u32>,
    /// 4: picks the message the player sees.
    #[prost(bool, optional, tag = "4")]
    pub server_offline: Option<bool>,
    /// 5: the cookie the next request echoes in its field 12.
    #[prost(bytes = "vec", optional, tag = "5")]
    pub cookie: Option<Vec<u8>>,
}

/// The error arm: the reason picks a terminal state (SIGNON-09); the title and body show
/// only when both are present (SIGNON-10).
#[derive(Clone, PartialEq, Message)]
pub struct SignOnError {
    /// 1: the reason.
    #[prost(uint32, optional, tag = "1")]
    pub reason: Option<u32>,
    /// 2: the title.
    #[prost(string, optional, tag = "2")]
    pub title: Option<String>,
    /// 3: the body.
    #[prost(string, optional, tag = "3")]
    pub body: Option<String>,
}

/// The throttled arm: a message and an optional retry delay; none means 60 s, an
/// explicit zero means zero (SIGNON-08).
#[derive(Clone, PartialEq, Message)]
pub struct Throttled {
    /// 1: the message.
    #[prost(string, optional, tag = "1")]
    pub message: Option<String>,
    /// 2: the retry delay, seconds.
    #[prost(uint32, optional, tag = "2")]
    pub retry_seconds: Option<u32>,
}

/// Response field 4 (Sunrise's CommonInfo).
#[derive(Clone, PartialEq, Message)]
pub struct ClientConfig {
    /// 1: an id.
    #[prost(uint64, optional, tag = "1")]
    pub id: Option<u64>,
    /// 2: the silo.
    #[prost(uint32, optional, tag = "2")]
    pub silo: Option<u32>,
    /// 3: a config blob.
    #[prost(bytes = "vec", optional, tag = "3")]
    pub blob: Option<Vec<u8>>,
}

/// Response field 1 (NS "SignOn").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// 0: the session token, the BAP address and the hello keys.
    Success,
    /// 1: wait in the queue and ask again with the cookie.
    Queued,
    /// 2: an error with a numeric reason.
    Error,
    /// 3: denied, user action required.
    Denied,
    /// 4: throttled, retry later.
    Throttled,
}

impl Outcome {
    /// The outcome field 1 names, if any.
    pub fn from_field(value: u32) -> Option<Self> {
        Some(match value {
            0 => Self::Success,
            1 => Self::Queued,
            2 => Self::Error,
            3 => Self::Denied,
            4 => Self::Throttled,
            _ => return None,
        })
    }

    /// Field 1's value.
    pub fn field(self) -> u32 {
        match self {
            Self::Success => 0,
            Self::Queued => 1,
            Self::Error => 2,
            Self::Denied => 3,
            Self::Throttled => 4,
        }
    }
}

/// The client's terminal state for an error reason (NS "The other outcomes"; SIGNON-09).
pub fn error_state(reason: u32) -> &'static str {
    match reason {
        1 => "_suspended",
        4 => "_prelaunch",
        5 => "_platform_error",
        6 => "_configuration_error",
        7 => "_commercialization_error",
        8 => "_version_mismatch_error",
        10 => "_internal_server_error",
        11 => "_sms_validation_required",
        12 => "_free_license_limit_exceeded",
        13 => "_korea_cinderella_law",
        14 => "_excessive_mtx_debt",
        _ => "_denied",
    }
}

/// The query string of the POST: the build and the platform (NS "SignOn").
pub fn query(build: u32, platform: &str) -> String {
    format!("build={build}&platform={platform}")
}

/// Encodes any of the messages above.
pub fn encode<M: Message>(message: &M) -> Vec<u8> {
    message.encode_to_vec()
}

/// The secure hello's body (service 25), as Sunrise reads it on the primary link: field 1
/// the SignOn token, field 2 protocol version 1 (facts 1.2; `0A 20 <32 bytes> 10 01` for
/// Sunrise's 32-byte token).
#[derive(Clone, PartialEq, Message)]
pub struct HelloRequest {
    /// 1: SignOn success field 4.
    #[prost(bytes = "vec", optional, tag = "1")]
    pub token: Option<Vec<u8>>,
    /// 2: the hello's protocol version, 1.
    #[prost(uint32, optional, tag = "2")]
    pub version: Option<u32>,
}

impl HelloRequest {
    /// The hello carrying `token`.
    pub fn new(token: &[u8]) -> Self {
        Self {
            token: Some(token.to_vec()),
            version: Some(1),
        }
    }
}

/// A message whose schema the pages do not give (services 19, 22, 33 and 305): decoding
/// into it checks only that the bytes are protobuf (BAP-21), its fields skipped.
#[derive(Clone, PartialEq, Message)]
pub struct Unknown {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arms and the features sit at the field numbers [`layout`] names.
    #[test]
    fn the_layout_is_what_goes_on_the_wire() {
        let tag = |field: u32| ((field << 3) | 2) as u8; // length-delimited
        let arms = [
            (
                layout::QUEUED,
                SignOnResponse {
                    queued: Some(Queued::default()),
                    ..Default::default()
                },
            ),
            (
                layout::ERROR,
                SignOnResponse {
                    error: Some(SignOnError::default()),
                    ..Default::default()
                },
            ),
            (
                layout::THROTTLED,
                SignOnResponse {
                    throttled: Some(Throttled::default()),
                    ..Default::default()
                },
            ),
            (
                layout::FEATURES,
                SignOnResponse {
                    features: vec!["f".into()],
                    ..Default::default()
                },
            ),
        ];
        for (field, response) in arms {
            assert_eq!(encode(&response)[0], tag(field), "field {field}");
        }
    }

    /// Facts 1.2: the hello Sunrise expects is `0A 20 <32-byte token> 10 01`.
    #[test]
    fn the_hello_has_sunrises_shape() {
        let body = encode(&HelloRequest::new(&[7; 32]));
        assert_eq!(&body[..2], &[0x0A, 0x20]);
        assert_eq!(&body[2..34], &[7; 32]);
        assert_eq!(&body[34..], &[0x10, 0x01]);
    }
}
