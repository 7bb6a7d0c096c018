//! SignOn as the client meets it (NS "SignOn", "The success fields", "The other
//! outcomes", "Protobuf in the client"): the POST it sends, and what it makes of the
//! answer: signed on with the hello keys, the token and the BAP server, a wait before it
//! asks again (queued, throttled), or a stop (an error's terminal state, denied, or an
//! answer it cannot take). Sans-IO: a driver does the HTTPS.

use crate::rules::{Choice, Rule};
use crate::violation::Violation;
use prost::Message;
use std::net::{Ipv4Addr, SocketAddrV4};
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::lobby::manifest::{self, ContentConfig, ManifestError};
use vex_wire::lobby::signon::{
    BUILD, FailureReport, KeyExchange, Outcome, PLATFORM, PROTOCOL_VERSION, PlatformCredential,
    STEAM_TICKET_LEN, SignOnRequest, SignOnResponse, SteamAccount, Success, Unknown, error_state,
    query,
};

/// Success field 1's capacity (NS "The success fields").
const RESERVED_CAPACITY: usize = 16;
/// The hello keys' length (fields 2 and 3).
const KEY_LEN: usize = 16;
/// The session token's capacity (field 4).
pub const TOKEN_CAPACITY: usize = 568;
/// The most feature names the client keeps (NS "SignOn").
const FEATURE_CAPACITY: usize = 8;
/// The wait when a throttled answer gives no delay (SIGNON-08).
pub const THROTTLED_DEFAULT_S: u32 = 60;

/// What signing on gave the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The secure hello's keys (success fields 2 and 3).
    pub keys: SignOnKeys,
    /// The session token the hello carries (field 4).
    pub token: Vec<u8>,
    /// The BAP server (fields 6 and 7): the next hop.
    pub bap: SocketAddrV4,
    /// The feature names: every feature not named is off (SIGNON-05).
    pub features: Vec<String>,
}

/// What the client does after an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignOnStep {
    /// Signed on.
    SignedOn(Grant),
    /// Ask again this many seconds later (queued or throttled).
    RetryAfter(u32),
    /// The client stops at SignOn: a terminal state or an answer it cannot take.
    Stopped(String),
}

/// The queue as the player sees it: a zero in an answer keeps the previous value
/// (SIGNON-07).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueView {
    /// The place in the queue.
    pub position: u32,
    /// The time remaining, seconds.
    pub seconds_remaining: u32,
    /// The retry delay, seconds.
    pub retry_seconds: u32,
}

/// The most answers the client takes before it gives up: queued and throttled answers
/// each ask again.
pub const MAX_ATTEMPTS: usize = 32;

/// What the client does next; a driver performs it and hands the answer back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignOnAction {
    /// POST this query string and body to SignOn ([`SignOnClient::on_response`]).
    Post {
        /// The query string: the build and the platform.
        query: String,
        /// The protobuf body.
        body: Vec<u8>,
    },
    /// Wait this many seconds, then ask for the next action.
    Wait(u32),
    /// GET the manifest ([`SignOnClient::on_manifest`]).
    FetchManifest,
    /// Signing on is over.
    Done(SignOnEnd),
}

/// How signing on ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignOnEnd {
    /// The grant, when the client signed on.
    pub grant: Option<Grant>,
    /// Why it stopped, when it did not.
    pub stopped: Option<String>,
    /// The answers taken.
    pub attempts: usize,
}

/// Where the client is in signing on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Flow {
    Ask,
    Wait(u32),
    Manifest(Grant),
    Done(Option<Grant>, Option<String>),
}

/// The client's SignOn: who it is, what it carries from one attempt to the next, and
/// every rule an answer broke.
#[derive(Debug, Clone)]
pub struct SignOnClient {
    steam_id: u64,
    manifest_key: Option<rsa::PublicKey>,
    flow: Flow,
    attempts: usize,
    cookie: Option<Vec<u8>>,
    throttled_in_a_row: u32,
    previous: Option<FailureReport>,
    queue: QueueView,
    violations: Vec<Violation>,
}

impl SignOnClient {
    /// The client of Steam account `steam_id`; after signing on it fetches the manifest
    /// and verifies it with `manifest_key`, when it has one.
    pub fn new(steam_id: u64, manifest_key: Option<rsa::PublicKey>) -> Self {
        Self {
            steam_id,
            manifest_key,
            flow: Flow::Ask,
            attempts: 0,
            cookie: None,
            throttled_in_a_row: 0,
            previous: None,
            queue: QueueView::default(),
            violations: Vec::new(),
        }
    }

    /// What to do next.
    pub fn next_action(&mut self) -> SignOnAction {
        match &self.flow {
            Flow::Ask => {
                let (query, body) = self.request();
                SignOnAction::Post { query, body }
            }
            Flow::Wait(s) => {
                let s = *s;
                self.flow = Flow::Ask;
                SignOnAction::Wait(s)
            }
            Flow::Manifest(_) => SignOnAction::FetchManifest,
            Flow::Done(grant, stopped) => SignOnAction::Done(SignOnEnd {
                grant: grant.clone(),
                stopped: stopped.clone(),
                attempts: self.attempts,
            }),
        }
    }

    /// The query string and body of the next POST: the cookie of a queued answer byte for
    /// byte (field 12), the throttled answers in a row (field 24), the previous failed
    /// attempt (field 20).
    pub fn request(&self) -> (String, Vec<u8>) {
        let body = SignOnRequest {
            protocol_version: Some(PROTOCOL_VERSION),
            platform: Some(PlatformCredential {
                steam_ticket: Some(vec![0; STEAM_TICKET_LEN]),
            }),
            ui_language: Some("en".into()),
            content_version: Some("vex".into()),
            build: Some(BUILD.to_string()),
            queue_cookie: self.cookie.clone(),
            sku: Some("north_america_digital".into()),
            audio_language: Some("en".into()),
            previous_failure: self.previous.clone(),
            account: Some(SteamAccount {
                id: Some(self.steam_id),
                name: Some("vex".into()),
                proof: Some(Vec::new()),
                country: Some("US".into()),
            }),
            throttled_in_a_row: (self.throttled_in_a_row > 0).then_some(self.throttled_in_a_row),
            ..SignOnRequest::default()
        };
        (query(BUILD, PLATFORM), body.encode_to_vec())
    }

    /// The answers taken.
    pub fn attempts(&self) -> usize {
        self.attempts
    }

    /// The queue as the player sees it.
    pub fn queue(&self) -> QueueView {
        self.queue
    }

    /// Every rule an answer broke.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    fn breach(&mut self, rule: Rule, reason: String) {
        self.violations
            .push(Violation::new(rule, None, None, reason));
    }

    /// A breach that rests on the field numbers Vex gives the sub-messages the pages name
    /// without numbering: advisory.
    fn breach_in_vex_layout(&mut self, rule: Rule, reason: String) {
        self.violations.push(Violation::on_choice(
            rule,
            Choice::SignOnLayout,
            None,
            None,
            reason,
        ));
    }

    /// Takes an answer with HTTP `status` and `body`: what it made of it, and the flow
    /// moves on (a wait, the manifest, or the end).
    pub fn on_response(&mut self, status: u16, body: &[u8]) -> SignOnStep {
        self.attempts += 1;
        let step = self.judge(status, body);
        self.flow = match step.clone() {
            SignOnStep::SignedOn(grant) if self.manifest_key.is_some() => Flow::Manifest(grant),
            SignOnStep::SignedOn(grant) => Flow::Done(Some(grant), None),
            SignOnStep::RetryAfter(_) if self.attempts == MAX_ATTEMPTS => Flow::Done(
                None,
                Some(format!("still not signed on after {MAX_ATTEMPTS} answers")),
            ),
            SignOnStep::RetryAfter(s) => Flow::Wait(s),
            SignOnStep::Stopped(why) => Flow::Done(None, Some(why)),
        };
        step
    }

    /// What the client makes of an answer with HTTP `status` and `body`.
    fn judge(&mut self, status: u16, body: &[u8]) -> SignOnStep {
        if status != 200 {
            let why = format!("HTTP {status}: no SignOn response to decode");
            self.violations.push(Violation::on_choice(
                Rule::Signon02,
                Choice::SignOnHttpStatus,
                None,
                None,
                why.clone(),
            ));
            return SignOnStep::Stopped(why);
        }
        let response = match SignOnResponse::decode(body) {
            Ok(r) => r,
            Err(e) => {
                let why = format!("the response does not decode: {e}");
                // bytes that are protobuf, but not in the layout Vex gives the fields the
                // pages do not number, may be a layout of the host's own
                match Unknown::decode(body) {
                    Ok(_) => self.breach_in_vex_layout(Rule::Pb01, why.clone()),
                    Err(_) => self.breach(Rule::Pb01, why.clone()),
                }
                return SignOnStep::Stopped(why);
            }
        };
        if response.features.len() > FEATURE_CAPACITY {
            let why = format!(
                "{} feature names: the array holds {FEATURE_CAPACITY}, so the whole response is rejected",
                response.features.len()
            );
            self.breach_in_vex_layout(Rule::Pb01, why.clone());
            return SignOnStep::Stopped(why);
        }
        let Some(field) = response.outcome else {
            return self.unanswered("field 1 (the outcome) is missing".into());
        };
        match Outcome::from_field(field) {
            Some(Outcome::Success) => self.success(&response),
            Some(Outcome::Queued) => self.queued(&response),
            Some(Outcome::Error) => self.error(&response),
            Some(Outcome::Denied) => SignOnStep::Stopped("denied: user action required".into()),
            Some(Outcome::Throttled) => self.throttled(&response),
            None => self.unanswered(format!("field 1 is {field}: no outcome has that number")),
        }
    }

    fn unanswered(&mut self, why: String) -> SignOnStep {
        self.breach(Rule::Signon02, why.clone());
        SignOnStep::Stopped(why)
    }

    /// An outcome's arm with no sub-message where Vex puts it (SIGNON-02): advisory.
    fn arm_missing(&mut self, why: String) -> SignOnStep {
        self.breach_in_vex_layout(Rule::Signon02, why.clone());
        SignOnStep::Stopped(why)
    }

    fn fail(&mut self, outcome: Outcome, reason: Option<u32>) {
        self.previous = Some(FailureReport {
            outcome: Some(outcome.field()),
            reason,
        });
    }

    /// The success arm: fields 1 to 7 present (SIGNON-01), within their capacities
    /// (PB-01), keys of 16 bytes, a token, and an address to go to (SIGNON-03).
    fn success(&mut self, response: &SignOnResponse) -> SignOnStep {
        let Some(s) = &response.success else {
            return self
                .arm_missing("outcome 0 (success) without its sub-message (field 2)".into());
        };
        let missing = missing_required(s);
        if !missing.is_empty() {
            let why = format!(
                "success field(s) {} missing: the whole parse fails",
                missing.join(", ")
            );
            self.breach(Rule::Signon01, why.clone());
            return SignOnStep::Stopped(why);
        }
        let (reserved, aes, hmac, token) = (
            s.reserved.as_deref().unwrap_or_default(),
            s.aes_key.as_deref().unwrap_or_default(),
            s.hmac_key.as_deref().unwrap_or_default(),
            s.token.as_deref().unwrap_or_default(),
        );
        let over = [
            (1, reserved.len(), RESERVED_CAPACITY),
            (2, aes.len(), KEY_LEN),
            (3, hmac.len(), KEY_LEN),
            (4, token.len(), TOKEN_CAPACITY),
        ];
        if let Some((field, len, cap)) = over.into_iter().find(|(_, len, cap)| len > cap) {
            let why = format!("success field {field} is {len} bytes; it holds {cap}: rejected");
            self.breach(Rule::Pb01, why.clone());
            return SignOnStep::Stopped(why);
        }
        let ip = Ipv4Addr::from(s.bap_ipv4.unwrap_or_default());
        let port = s.bap_port.unwrap_or_default();
        let unusable = [
            (aes.len() != KEY_LEN)
                .then(|| format!("field 2 (AES key) is {} bytes, not 16", aes.len())),
            (hmac.len() != KEY_LEN)
                .then(|| format!("field 3 (HMAC key) is {} bytes, not 16", hmac.len())),
            token
                .is_empty()
                .then(|| "field 4 (the session token) is empty".to_string()),
            ip.is_unspecified()
                .then(|| "field 6 (the BAP IPv4) is 0.0.0.0".to_string()),
            (port == 0 || port > u32::from(u16::MAX))
                .then(|| format!("field 7 (the BAP port) is {port}")),
        ];
        let unusable: Vec<String> = unusable.into_iter().flatten().collect();
        if !unusable.is_empty() {
            let why = format!("no next hop: {}", unusable.join("; "));
            self.breach(Rule::Signon03, why.clone());
            return SignOnStep::Stopped(why);
        }
        if let Some(len) = key_exchange_len(s.key_exchange.as_ref()) {
            self.breach(
                Rule::Signon01,
                format!("field 12's f4 is {len} bytes, not 128: the peer key block is discarded"),
            );
        }
        if s.block_launch == Some(true) {
            self.breach(
                Rule::Signon04,
                "field 13 is true: five UI launch handlers are blocked (the official server omits it)".into(),
            );
        }
        let mut keys = SignOnKeys::DEVELOPMENT;
        keys.aes.copy_from_slice(aes);
        keys.hmac.copy_from_slice(hmac);
        let port = u16::try_from(port).unwrap_or_default();
        SignOnStep::SignedOn(Grant {
            keys,
            token: token.to_vec(),
            bap: SocketAddrV4::new(ip, port),
            features: response.features.clone(),
        })
    }

    /// The queued arm: position, time remaining and retry delay required (SIGNON-06); a
    /// zero keeps the previous value and the cookie comes back (SIGNON-07).
    fn queued(&mut self, response: &SignOnResponse) -> SignOnStep {
        let Some(q) = &response.queued else {
            return self.arm_missing("outcome 1 (queued) without its sub-message".into());
        };
        let fields = [
            ("position", q.position),
            ("time remaining", q.seconds_remaining),
            ("retry delay", q.retry_seconds),
        ];
        let missing: Vec<&str> = fields
            .iter()
            .filter(|(_, v)| v.is_none())
            .map(|(n, _)| *n)
            .collect();
        if !missing.is_empty() {
            let why = format!("queued without its {}: the parse fails", missing.join(", "));
            self.breach_in_vex_layout(Rule::Signon06, why.clone());
            return SignOnStep::Stopped(why);
        }
        // a zero keeps the previous value: NS says so of the client, and asks nothing of
        // the host (SIGNON-07 is the client's reading, which the queue view follows)
        let keep = |new: Option<u32>, old: u32| new.filter(|v| *v != 0).unwrap_or(old);
        self.queue = QueueView {
            position: keep(q.position, self.queue.position),
            seconds_remaining: keep(q.seconds_remaining, self.queue.seconds_remaining),
            retry_seconds: keep(q.retry_seconds, self.queue.retry_seconds),
        };
        self.cookie = q.cookie.clone();
        self.throttled_in_a_row = 0;
        self.fail(Outcome::Queued, None);
        SignOnStep::RetryAfter(self.queue.retry_seconds)
    }

    /// The error arm: the reason's terminal state (SIGNON-09); the title and body show
    /// only together (SIGNON-10).
    fn error(&mut self, response: &SignOnResponse) -> SignOnStep {
        let Some(e) = &response.error else {
            return self.arm_missing("outcome 2 (error) without its sub-message".into());
        };
        if e.title.is_some() != e.body.is_some() {
            self.breach_in_vex_layout(
                Rule::Signon10,
                "the error has a title or a body but not both: the denial screen shows neither"
                    .into(),
            );
        }
        if e.reason.is_none() {
            self.breach_in_vex_layout(
                Rule::Signon09,
                "the error names no reason: the client takes the catch-all _denied".into(),
            );
        }
        let reason = e.reason.unwrap_or_default();
        self.fail(Outcome::Error, Some(reason));
        SignOnStep::Stopped(format!("error {reason}: {}", error_state(reason)))
    }

    /// The throttled arm: no delay means 60 s, an explicit zero means zero (SIGNON-08).
    fn throttled(&mut self, response: &SignOnResponse) -> SignOnStep {
        let Some(t) = &response.throttled else {
            return self.arm_missing("outcome 4 (throttled) without its sub-message".into());
        };
        if t.message.is_none() {
            self.breach_in_vex_layout(
                Rule::Signon08,
                "throttled without its message: the player is told nothing".into(),
            );
        }
        self.throttled_in_a_row += 1;
        self.fail(Outcome::Throttled, None);
        SignOnStep::RetryAfter(t.retry_seconds.unwrap_or(THROTTLED_DEFAULT_S))
    }

    /// The manifest fetched after SignOn with HTTP `status` and `body`, verified against
    /// the client's key (MANIFEST-01); a failure records its code (MANIFEST-02). What the
    /// client does after a failure is not documented: this one goes on with its grant.
    pub fn on_manifest(
        &mut self,
        status: u16,
        body: &[u8],
    ) -> Result<ContentConfig, ManifestError> {
        let grant = match std::mem::replace(&mut self.flow, Flow::Done(None, None)) {
            Flow::Manifest(grant) => Some(grant),
            other => {
                self.flow = other;
                None
            }
        };
        let Some(key) = &self.manifest_key else {
            return Err(ManifestError::Http("no manifest key to verify with".into()));
        };
        let result = match status {
            200 => manifest::verify(key, body),
            404 => Err(ManifestError::NotFound),
            other => Err(ManifestError::Http(format!("HTTP {other}"))),
        };
        if let Err(e) = &result {
            let rule = match e {
                ManifestError::Short(_) | ManifestError::Signature(_) => Rule::Manifest01,
                _ => Rule::Manifest02,
            };
            self.breach(rule, format!("the manifest is refused, {e}"));
        }
        if grant.is_some() {
            self.flow = Flow::Done(grant, None);
        }
        result
    }
}

/// Success fields 1 to 7 that are absent.
fn missing_required(s: &Success) -> Vec<String> {
    let present = [
        s.reserved.is_some(),
        s.aes_key.is_some(),
        s.hmac_key.is_some(),
        s.token.is_some(),
        s.expiry.is_some(),
        s.bap_ipv4.is_some(),
        s.bap_port.is_some(),
    ];
    (1..)
        .zip(present)
        .filter(|(_, p)| !p)
        .map(|(f, _)| f.to_string())
        .collect()
}

/// Field 12's f4 length when it is present and not 128 bytes.
fn key_exchange_len(k: Option<&KeyExchange>) -> Option<usize> {
    let len = k?.public.as_ref()?.len();
    (len != KeyExchange::PUBLIC_LEN).then_some(len)
}
