//! Signing on without a network: the client's SignOn flow answered by our in-process
//! lobby or by the answers a transcript recorded, and what signing on gives the run (NS
//! "SignOn", "The content manifest"). A transcript keeps the answers ([`SignOnRecord`]) so
//! a replay signs on exactly as the run did.

use crate::RunReport;
use rsa::pkcs8::{DecodePublicKey, EncodePublicKey};
use std::net::Ipv4Addr;
use vex_fake_client::signon::{SignOnAction, SignOnClient, SignOnEnd};
use vex_fake_client::{ClientConfig, Outcome, Violation};
use vex_host::lobby::Lobby;
use vex_wire::time::Instant;

/// What signing on came to: how it ended, every rule an answer broke, and the answers.
#[derive(Debug, Clone)]
pub struct SignOnRun {
    /// How it ended.
    pub end: SignOnEnd,
    /// Every rule an answer broke.
    pub violations: Vec<Violation>,
    /// The answers, as a transcript keeps them.
    pub record: SignOnRecord,
}

/// SignOn's answers as a run received them, with who signed on and the manifest key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignOnRecord {
    /// The Steam account.
    pub steam_id: u64,
    /// The manifest's public key (SPKI DER), when the client verified one.
    pub manifest_key: Option<Vec<u8>>,
    /// Every answer, in order.
    pub answers: Vec<Answer>,
}

/// One HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// True for the manifest's, false for SignOn's.
    pub manifest: bool,
    /// The HTTP status.
    pub status: u16,
    /// The body.
    pub body: Vec<u8>,
}

/// What the client asks of whoever answers it.
#[derive(Debug, Clone, Copy)]
pub enum Ask<'a> {
    /// A SignOn POST.
    SignOn {
        /// The query string.
        query: &'a str,
        /// The protobuf body.
        body: &'a [u8],
    },
    /// The manifest.
    Manifest,
}

impl SignOnRecord {
    /// The manifest key, when the record has one that parses.
    fn key(&self) -> Option<rsa::PublicKey> {
        rsa::PublicKey::from_public_key_der(self.manifest_key.as_deref()?).ok()
    }
}

/// The client's SignOn flow with every answer kept as a transcript keeps it: what both
/// drivers, in-process and over HTTPS, run.
pub struct Recorder {
    client: SignOnClient,
    record: SignOnRecord,
}

impl Recorder {
    /// `steam_id`'s client, verifying the manifest with `manifest_key` when given.
    pub fn new(steam_id: u64, manifest_key: Option<rsa::PublicKey>) -> Self {
        let record = SignOnRecord {
            steam_id,
            manifest_key: manifest_key
                .as_ref()
                .and_then(|k| k.to_public_key_der().ok())
                .map(|d| d.as_bytes().to_vec()),
            answers: Vec::new(),
        };
        Self {
            client: SignOnClient::new(steam_id, manifest_key),
            record,
        }
    }

    /// What to do next (`SignOnClient::next_action`).
    pub fn next_action(&mut self) -> SignOnAction {
        self.client.next_action()
    }

    /// SignOn's answer, judged and kept.
    pub fn signon_answer(&mut self, status: u16, body: Vec<u8>) {
        self.client.on_response(status, &body);
        self.keep(false, status, body);
    }

    /// The manifest's answer, judged and kept.
    pub fn manifest_answer(&mut self, status: u16, body: Vec<u8>) {
        let _verified = self.client.on_manifest(status, &body);
        self.keep(true, status, body);
    }

    fn keep(&mut self, manifest: bool, status: u16, body: Vec<u8>) {
        self.record.answers.push(Answer {
            manifest,
            status,
            body,
        });
    }

    /// Signing on ended with `end`; or, with `stopped`, the driver gave up.
    pub fn finish(self, end: Option<SignOnEnd>, stopped: Option<String>) -> SignOnRun {
        let end = end.unwrap_or(SignOnEnd {
            grant: None,
            stopped,
            attempts: self.client.attempts(),
        });
        SignOnRun {
            end,
            violations: self.client.violations().to_vec(),
            record: self.record,
        }
    }
}

/// Runs `steam_id`'s SignOn with `answer` answering each ask; waits take no time.
pub fn run_flow(
    steam_id: u64,
    manifest_key: Option<rsa::PublicKey>,
    mut answer: impl FnMut(Ask<'_>) -> (u16, Vec<u8>),
) -> SignOnRun {
    let mut flow = Recorder::new(steam_id, manifest_key);
    loop {
        match flow.next_action() {
            SignOnAction::Post { query, body } => {
                let (status, got) = answer(Ask::SignOn {
                    query: &query,
                    body: &body,
                });
                flow.signon_answer(status, got);
            }
            SignOnAction::Wait(_) => {}
            SignOnAction::FetchManifest => {
                let (status, got) = answer(Ask::Manifest);
                flow.manifest_answer(status, got);
            }
            SignOnAction::Done(end) => return flow.finish(Some(end), None),
        }
    }
}

/// Signs on at our in-process `lobby` as `steam_id`, verifying the manifest with
/// `manifest_key` when given.
pub fn at_lobby(
    lobby: &mut Lobby,
    steam_id: u64,
    manifest_key: Option<rsa::PublicKey>,
) -> SignOnRun {
    run_flow(steam_id, manifest_key, |ask| match ask {
        Ask::SignOn { query, body } => match lobby.sign_on(0, query, body, Ipv4Addr::LOCALHOST) {
            Ok(reply) => (200, reply.encode()),
            Err(e) => (400, e.to_string().into_bytes()),
        },
        Ask::Manifest => lobby.manifest(),
    })
}

/// Signs on again with the answers `record` kept, in order.
pub fn replay(record: &SignOnRecord) -> SignOnRun {
    let mut answers = record.answers.iter();
    run_flow(record.steam_id, record.key(), |_| {
        answers
            .next()
            .map_or((0, Vec::new()), |a| (a.status, a.body.clone()))
    })
}

/// SignOn's part of a run that went on past it: the rules it broke and its answers.
#[derive(Debug, Clone)]
pub struct SignedOn {
    violations: Vec<Violation>,
    record: SignOnRecord,
}

impl SignedOn {
    /// Puts SignOn before `run`: its violations first, its answers in the transcript.
    pub fn before(self, run: &mut RunReport) {
        run.violations.splice(0..0, self.violations);
        run.transcript.signon = Some(self.record);
    }
}

/// Every client takes `run`'s grant (the hello keys, the token, the BAP server); or the
/// report of a run that stopped at SignOn.
pub fn granted(run: SignOnRun, clients: &mut [ClientConfig]) -> Result<SignedOn, Box<RunReport>> {
    let Some(grant) = run.end.grant else {
        let why = run.end.stopped.unwrap_or_default();
        let outcome = Outcome::StoppedAtSignOn { reason: why };
        let mut report = RunReport::stopped(outcome, Instant::from_millis(0));
        report.violations = run.violations;
        report.transcript.signon = Some(run.record);
        return Err(Box::new(report));
    };
    for client in clients {
        client.signon = grant.keys;
        client.token = grant.token.clone();
        client.target = grant.bap;
    }
    Ok(SignedOn {
        violations: run.violations,
        record: run.record,
    })
}
