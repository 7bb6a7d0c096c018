//! The host's SignOn: the POST body in, the response whose field 1 picks the outcome out,
//! from what the scenario sets for the account (NS "SignOn", "The success fields", "The
//! other outcomes"). Sans-IO: the HTTPS server (`vex_server::lobby_http`) passes the time
//! and the bytes.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddrV4};
use thiserror::Error;
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::lobby::signon::{
    self, BUILD, ClientConfig, Outcome, PLATFORM, PROTOCOL_VERSION, Queued, SignOnError,
    SignOnRequest, SignOnResponse, Success, Throttled,
};
use vex_wire::scenario_lobby::{Lobby, SignOnAnswer};

/// The largest POST body the endpoint reads. The request's largest parts are 64
/// entitlements and a 90-byte ticket: 64 KiB is far past any real one.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;
/// The session token's length: Sunrise's (facts 1.1); the client takes up to 568.
pub const TOKEN_LEN: usize = 32;
/// How long a session token lives, seconds (success field 5 is absolute, unread).
const TOKEN_LIFETIME_S: u64 = 86_400;
/// Error reason 8: the client's `_version_mismatch_error`.
const VERSION_MISMATCH: u32 = 8;
/// Error reason 5: `_platform_error`, for a request without its Steam account.
const PLATFORM_ERROR: u32 = 5;
/// The silo the host names.
const SILO: u32 = 1;

/// A request the endpoint refuses before answering: HTTP 400 with this reason.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SignOnRefusal {
    /// The body is larger than [`MAX_REQUEST_BYTES`].
    #[error("the body is {0} bytes; the endpoint reads at most {MAX_REQUEST_BYTES}")]
    TooLarge(usize),
    /// The body is not SignOn's protobuf.
    #[error("the body is not a SignOn request: {0}")]
    Malformed(String),
}

/// What the endpoint answers.
#[derive(Debug, Clone, PartialEq)]
pub struct SignOnReply {
    /// The response.
    pub response: SignOnResponse,
    /// The account it answered, when the request named one.
    pub steam_id: Option<u64>,
    /// The account's attempt it answered, 0 first.
    pub attempt: usize,
}

impl SignOnReply {
    /// The response's bytes.
    pub fn encode(&self) -> Vec<u8> {
        signon::encode(&self.response)
    }

    /// The outcome it carries.
    pub fn outcome(&self) -> Option<Outcome> {
        self.response.outcome.and_then(Outcome::from_field)
    }
}

/// The SignOn service: what the scenario sets per account, the keys of the secure hello
/// and the BAP server's address, and each account's attempts so far.
#[derive(Debug)]
pub struct SignOnService {
    lobby: Lobby,
    keys: SignOnKeys,
    bap: SocketAddrV4,
    attempts: BTreeMap<u64, usize>,
    rng: ChaCha20Rng,
}

impl SignOnService {
    /// A service handing out `keys` (success fields 2 and 3, which key every link's hello)
    /// and `bap` (fields 6 and 7); tokens and cookies come from `seed`.
    pub fn new(lobby: Lobby, keys: SignOnKeys, bap: SocketAddrV4, seed: [u8; 32]) -> Self {
        Self {
            lobby,
            keys,
            bap,
            attempts: BTreeMap::new(),
            rng: ChaCha20Rng::from_seed(seed),
        }
    }

    /// Answers a POST with `query` and `body` at `now_s` (epoch seconds) from `peer`.
    /// A build or protocol other than this one's gets error 8 (`_version_mismatch_error`),
    /// a request without its Steam account error 5; otherwise the account's next answer.
    pub fn answer(
        &mut self,
        now_s: u64,
        query: &str,
        body: &[u8],
        peer: Ipv4Addr,
    ) -> Result<SignOnReply, SignOnRefusal> {
        if body.len() > MAX_REQUEST_BYTES {
            return Err(SignOnRefusal::TooLarge(body.len()));
        }
        let request = <SignOnRequest as prost::Message>::decode(body)
            .map_err(|e| SignOnRefusal::Malformed(e.to_string()))?;
        let steam_id = request.account.as_ref().and_then(|a| a.id);
        let mut attempt = 0;
        let answer = match (version_mismatch(query, &request), steam_id) {
            (Some(why), _) => {
                tracing::info!(%why, "SignOn: version mismatch");
                error(VERSION_MISMATCH, "Version mismatch", &why)
            }
            (None, None) => error(
                PLATFORM_ERROR,
                "No account",
                "the request names no Steam account (field 22)",
            ),
            (None, Some(id)) => {
                let attempts = self.attempts.entry(id).or_default();
                attempt = *attempts;
                *attempts += 1;
                self.lobby.answer(id, attempt)
            }
        };
        let response = self.response(now_s, &answer, peer);
        Ok(SignOnReply {
            response,
            steam_id,
            attempt,
        })
    }

    fn response(&mut self, now_s: u64, answer: &SignOnAnswer, peer: Ipv4Addr) -> SignOnResponse {
        let mut r = SignOnResponse {
            client_config: Some(ClientConfig {
                id: Some(1),
                silo: Some(SILO),
                blob: None,
            }),
            silo_id: Some(SILO),
            server_time: Some(now_s),
            environment: Some("vex".into()),
            external_ipv4: Some(u32::from(peer)),
            ..SignOnResponse::default()
        };
        let outcome = match answer {
            SignOnAnswer::Success => {
                r.success = Some(self.success(now_s));
                r.features = self.lobby.features.clone();
                Outcome::Success
            }
            SignOnAnswer::Queued {
                position,
                seconds_remaining,
                retry_seconds,
                server_offline,
            } => {
                let mut cookie = vec![0; 16];
                self.rng.fill_bytes(&mut cookie);
                r.queued = Some(Queued {
                    position: Some(*position),
                    seconds_remaining: Some(*seconds_remaining),
                    retry_seconds: Some(*retry_seconds),
                    server_offline: Some(*server_offline),
                    cookie: Some(cookie),
                });
                Outcome::Queued
            }
            SignOnAnswer::Error {
                reason,
                title,
                body,
            } => {
                r.error = Some(SignOnError {
                    reason: Some(*reason),
                    title: title.clone(),
                    body: body.clone(),
                });
                Outcome::Error
            }
            SignOnAnswer::Denied => Outcome::Denied,
            SignOnAnswer::Throttled {
                message,
                retry_seconds,
            } => {
                r.throttled = Some(Throttled {
                    message: Some(message.clone()),
                    retry_seconds: *retry_seconds,
                });
                Outcome::Throttled
            }
        };
        r.outcome = Some(outcome.field());
        r
    }

    /// Fields 1 to 7, all required (SIGNON-01): field 1 empty as the official server
    /// sends it, the hello keys, a fresh token, the expiry and the BAP address.
    fn success(&mut self, now_s: u64) -> Success {
        let mut token = vec![0; TOKEN_LEN];
        self.rng.fill_bytes(&mut token);
        Success {
            reserved: Some(Vec::new()),
            aes_key: Some(self.keys.aes.to_vec()),
            hmac_key: Some(self.keys.hmac.to_vec()),
            token: Some(token),
            expiry: Some(now_s + TOKEN_LIFETIME_S),
            bap_ipv4: Some(u32::from(*self.bap.ip())),
            bap_port: Some(u32::from(self.bap.port())),
            ..Success::default()
        }
    }
}

fn error(reason: u32, title: &str, body: &str) -> SignOnAnswer {
    SignOnAnswer::Error {
        reason,
        title: Some(title.into()),
        body: Some(body.into()),
    }
}

/// Why the query string's build and platform or the request's protocol version are not
/// this build's (NS "SignOn": build 86657, protocol 16), if they are not.
fn version_mismatch(query: &str, request: &SignOnRequest) -> Option<String> {
    let param = |name: &str| {
        query
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
    };
    let build = BUILD.to_string();
    if param("build") != Some(build.as_str()) {
        return Some(format!("build {:?}, not {BUILD}", param("build")));
    }
    if param("platform") != Some(PLATFORM) {
        return Some(format!("platform {:?}, not {PLATFORM}", param("platform")));
    }
    if request.protocol_version != Some(PROTOCOL_VERSION) {
        return Some(format!(
            "protocol {:?}, not {PROTOCOL_VERSION}",
            request.protocol_version
        ));
    }
    None
}
