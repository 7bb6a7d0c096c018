//! SignOn over HTTPS for the emulated client (NS "SignOn", "The content manifest"): the
//! POST, the waits a queued or throttled answer asks for, then the manifest, each answer
//! judged by [`SignOnClient`]. The real client pins its TLS certificate; this one pins the
//! SHA-256 fingerprint it is given, or takes any certificate when given none (as
//! `curl -k`), and says so.

use reqwest::Client;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;
use vex_fake_client::signon::{Grant, SignOnClient, SignOnStep};
use vex_fake_client::violation::Violation;

/// How many answers the client takes before it gives up: queued and throttled answers
/// each ask again.
pub const MAX_ATTEMPTS: usize = 32;
/// The longest wait an answer may ask for before the client gives up instead.
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

/// What signing on came to.
#[derive(Debug, Clone)]
pub struct SignOnRun {
    /// The grant, when the client signed on.
    pub grant: Option<Grant>,
    /// Why it stopped, when it did not.
    pub stopped: Option<String>,
    /// Every rule an answer broke.
    pub violations: Vec<Violation>,
    /// The answers taken.
    pub attempts: usize,
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

/// Signs on at `target`, waiting out queued and throttled answers, then fetches and
/// verifies the manifest.
pub async fn sign_on(target: &SignOnTarget) -> Result<SignOnRun, SignOnUnreachable> {
    let http = https_client(target.fingerprint.as_deref())?;
    let mut client = SignOnClient::new(target.steam_id);
    let base = target.url.trim_end_matches('/');
    let mut attempts = 0;
    let (grant, stopped) = loop {
        let (query, body) = client.request();
        let url = format!("{base}/SignOn?{query}");
        let (status, answer) = exchange(http.post(&url).body(body), &url).await?;
        attempts += 1;
        match client.on_response(status, &answer) {
            SignOnStep::SignedOn(grant) => break (Some(grant), None),
            SignOnStep::Stopped(why) => break (None, Some(why)),
            SignOnStep::RetryAfter(_) if attempts == MAX_ATTEMPTS => {
                break (
                    None,
                    Some(format!("still not signed on after {attempts} answers")),
                );
            }
            SignOnStep::RetryAfter(s) if Duration::from_secs(u64::from(s)) > MAX_WAIT => {
                break (
                    None,
                    Some(format!(
                        "asked to wait {s} s; the run waits at most {} s",
                        MAX_WAIT.as_secs()
                    )),
                );
            }
            SignOnStep::RetryAfter(s) => {
                tracing::info!(seconds = s, "SignOn asks to retry");
                tokio::time::sleep(Duration::from_secs(u64::from(s))).await;
            }
        }
    };
    if let (Some(_), Some(key)) = (&grant, &target.manifest_key) {
        let url = format!("{base}/manifest");
        let (status, body) = exchange(http.get(&url), &url).await?;
        if let Ok(config) = client.on_manifest(status, &body, key) {
            tracing::info!(packages = config.packages.len(), "manifest verified");
        }
    }
    Ok(SignOnRun {
        grant,
        stopped,
        violations: client.violations().to_vec(),
        attempts,
    })
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
        let seen: String = Sha256::digest(end_entity.as_ref())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
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
