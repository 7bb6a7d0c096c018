//! SignOn over HTTPS for the emulated client (NS "SignOn", "The content manifest"): the
//! POST, the waits a queued or throttled answer asks for, then the manifest, each answer
//! judged by `SignOnClient` and kept ([`Recorder`]). The real client pins its TLS certificate; this one pins the
//! SHA-256 fingerprint it is given, or takes any certificate when given none (as
//! `curl -k`), and says so.

use crate::signon_record::{Recorder, SignOnRun};
use reqwest::Client;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;
use vex_fake_client::signon::SignOnAction;

/// The longest wait an answer may ask for before the client gives up instead: the run
/// waits in real time.
pub const MAX_WAIT: Duration = Duration::from_secs(120);
/// How long one HTTPS exchange may take.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the client signs on and how it trusts the endpoint.
#[derive(Debug, Clone)]
pub struct SignOnTarget {
    /// The endpoint's base URL, e.g. `https://127.0.0.1:8443`; SignOn is its `/SignOn`,
    /// the manifest its `/manifest`.
    pub url: String,
    /// The certificate's SHA-256 fingerprint (`AB:CD:...` or plain hex); any certificate
    /// when `None`.
    pub fingerprint: Option<String>,
    /// The manifest's public key; the manifest is not fetched when `None`.
    pub manifest_key: Option<rsa::PublicKey>,
    /// The Steam account to sign on as.
    pub steam_id: u64,
}

/// The endpoint could not be reached or spoken to: an error of the run, not a rule.
#[derive(Debug, Error)]
pub enum SignOnUnreachable {
    /// The HTTPS client could not be built.
    #[error("TLS setup: {0}")]
    Setup(String),
    /// The exchange failed (connection, TLS, a pinned fingerprint that does not match).
    #[error("{url}: {why}")]
    Exchange {
        /// The URL.
        url: String,
        /// Why, with every cause.
        why: String,
    },
}

/// Whether something listens where `url` points: a TCP connection to its host and port.
pub async fn reachable(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("{url}: {e}"))?;
    let host = parsed.host_str().ok_or(format!("{url}: no host"))?;
    let port = parsed
        .port_or_known_default()
        .ok_or(format!("{url}: no port"))?;
    tokio::net::TcpStream::connect((host, port))
        .await
        .map(drop)
        .map_err(|e| format!("{url}: {e}"))
}

/// Signs on at `target`, waiting out queued and throttled answers, then fetches and
/// verifies the manifest when it has the key.
pub async fn sign_on(target: &SignOnTarget) -> Result<SignOnRun, SignOnUnreachable> {
    let http = https_client(target.fingerprint.as_deref())?;
    let mut flow = Recorder::new(target.steam_id, target.manifest_key.clone());
    let base = target.url.trim_end_matches('/');
    loop {
        match flow.next_action() {
            SignOnAction::Post { query, body } => {
                let url = format!("{base}/SignOn?{query}");
                let (status, answer) = exchange(http.post(&url).body(body), &url).await?;
                flow.signon_answer(status, answer);
            }
            SignOnAction::Wait(s) if Duration::from_secs(u64::from(s)) > MAX_WAIT => {
                let stopped = format!(
                    "SignOn asks to wait {s} s; this run waits at most {} s",
                    MAX_WAIT.as_secs()
                );
                return Ok(flow.finish(None, Some(stopped)));
            }
            SignOnAction::Wait(s) => {
                tracing::info!(seconds = s, "SignOn asks to retry");
                tokio::time::sleep(Duration::from_secs(u64::from(s))).await;
            }
            SignOnAction::FetchManifest => {
                let url = format!("{base}/manifest");
                let (status, body) = exchange(http.get(&url), &url).await?;
                flow.manifest_answer(status, body);
            }
            SignOnAction::Done(end) => return Ok(flow.finish(Some(end), None)),
        }
    }
}

async fn exchange(
    request: reqwest::RequestBuilder,
    url: &str,
) -> Result<(u16, Vec<u8>), SignOnUnreachable> {
    let failed = |e: reqwest::Error| {
        let mut why = e.to_string();
        let mut cause = std::error::Error::source(&e);
        while let Some(c) = cause {
            why = format!("{why}: {c}");
            cause = c.source();
        }
        SignOnUnreachable::Exchange {
            url: url.to_string(),
            why,
        }
    };
    let response = request.send().await.map_err(failed)?;
    let status = response.status().as_u16();
    let body = response.bytes().await.map_err(failed)?;
    Ok((status, body.to_vec()))
}

fn https_client(fingerprint: Option<&str>) -> Result<Client, SignOnUnreachable> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let pin = fingerprint.map(|f| f.replace(':', "").to_ascii_lowercase());
    let tls = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| SignOnUnreachable::Setup(e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Pinned { pin, provider }))
        .with_no_client_auth();
    Client::builder()
        .tls_backend_preconfigured(tls)
        .timeout(EXCHANGE_TIMEOUT)
        .build()
        .map_err(|e| SignOnUnreachable::Setup(e.to_string()))
}

/// Trusts the certificate whose SHA-256 is the pin, or any when there is none; the
/// handshake's signatures are verified either way.
#[derive(Debug)]
struct Pinned {
    pin: Option<String>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(pin) = &self.pin else {
            return Ok(ServerCertVerified::assertion());
        };
        let seen = hex::encode(Sha256::digest(end_entity.as_ref()));
        if &seen == pin {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(format!(
                "the certificate's SHA-256 is {seen}, not the pinned {pin}"
            )))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
