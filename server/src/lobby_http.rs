//! The lobby's HTTPS endpoint (NS "SignOn", "The content manifest"): `POST /SignOn` with
//! the build and platform in the query string, and `GET /manifest`, the content manifest
//! signed under the host's key. TLS through rustls, a self-signed certificate made at
//! start unless one is given; every connection bounded (the TLS handshake, the first
//! request, the body size), so slow or half-open connections cost a timer each.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum_server::tls_rustls::{RustlsAcceptor, RustlsConfig};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use sha2::{Digest, Sha256};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use vex_host::lobby::Lobby;
use vex_host::lobby::signon::{MAX_REQUEST_BYTES, SignOnRefusal};

/// The SignOn route.
pub const SIGNON_PATH: &str = "/SignOn";
/// The manifest route.
pub const MANIFEST_PATH: &str = "/manifest";
/// How long a TLS handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a connection may take to send its first whole request.
const FIRST_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// The content type of both answers.
const PROTOBUF: &str = "application/x-protobuf";

/// The endpoint's certificate and key, PEM.
#[derive(Debug, Clone)]
pub struct Tls {
    /// The certificate chain.
    pub cert_pem: String,
    /// The private key.
    pub key_pem: String,
}

impl Tls {
    /// A self-signed certificate for `localhost` and 127.0.0.1.
    pub fn self_signed() -> Result<Self, rcgen::Error> {
        let names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
        let made = rcgen::generate_simple_self_signed(names)?;
        Ok(Self {
            cert_pem: made.cert.pem(),
            key_pem: made.signing_key.serialize_pem(),
        })
    }

    /// The SHA-256 fingerprint of the first certificate, as `AB:CD:...`, which a client
    /// pins; `None` when the PEM holds no certificate.
    pub fn fingerprint(&self) -> Option<String> {
        let der = pem_certificates(&self.cert_pem).into_iter().next()?;
        Some(fingerprint(&der))
    }
}

/// The SHA-256 fingerprint of a DER certificate, as `AB:CD:...`.
pub fn fingerprint(der: &[u8]) -> String {
    Sha256::digest(der)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// The DER certificates of a PEM text.
fn pem_certificates(pem: &str) -> Vec<Vec<u8>> {
    CertificateDer::pem_slice_iter(pem.as_bytes())
        .filter_map(Result::ok)
        .map(|c| c.to_vec())
        .collect()
}

/// What the endpoint serves, shared by its connections.
type Shared = Arc<Mutex<Lobby>>;

/// Serves `lobby` on `listener` with `tls` until the task is dropped.
pub async fn serve(
    listener: std::net::TcpListener,
    tls: &Tls,
    lobby: Lobby,
) -> std::io::Result<()> {
    let config =
        RustlsConfig::from_pem(tls.cert_pem.clone().into(), tls.key_pem.clone().into()).await?;
    let lobby: Shared = Arc::new(Mutex::new(lobby));
    let app = Router::new()
        .route(SIGNON_PATH, post(sign_on))
        .route(MANIFEST_PATH, get(manifest_route))
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .with_state(lobby);
    listener.set_nonblocking(true)?;
    let acceptor = RustlsAcceptor::new(config).handshake_timeout(HANDSHAKE_TIMEOUT);
    axum_server::from_tcp(listener)?
        .acceptor(acceptor)
        .first_request_timeout(FIRST_REQUEST_TIMEOUT)
        .serve(app.into_make_service_with_connect_info::<SocketAddr>())
        .await
}

/// `POST /SignOn?build=86657&platform=steam`: the protobuf answer, or 400 with why the
/// body was refused.
async fn sign_on(
    State(lobby): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Response {
    let now_s = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let peer_v4 = match peer.ip() {
        IpAddr::V4(v4) => v4,
        IpAddr::V6(v6) => v6.to_ipv4_mapped().unwrap_or(Ipv4Addr::UNSPECIFIED),
    };
    let answered = lock(&lobby).sign_on(now_s, query.as_deref().unwrap_or(""), &body, peer_v4);
    match answered {
        Ok(reply) => {
            tracing::info!(%peer, account = ?reply.steam_id, outcome = ?reply.outcome(), "SignOn");
            ([(header::CONTENT_TYPE, PROTOBUF)], reply.encode()).into_response()
        }
        Err(e) => refused(peer, &e),
    }
}

fn refused(peer: SocketAddr, e: &SignOnRefusal) -> Response {
    tracing::warn!(%peer, reason = %e, "SignOn refused");
    (StatusCode::BAD_REQUEST, e.to_string()).into_response()
}

/// `GET /manifest`: the signed content manifest.
async fn manifest_route(State(lobby): State<Shared>) -> Response {
    let (status, body) = lock(&lobby).manifest();
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, [(header::CONTENT_TYPE, PROTOBUF)], body).into_response()
}

/// The lobby, also after a panic elsewhere poisoned the lock (it holds plain data).
fn lock(lobby: &Shared) -> std::sync::MutexGuard<'_, Lobby> {
    lobby
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
