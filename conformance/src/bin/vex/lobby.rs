//! `vex host --signon ADDR`: the lobby's HTTPS endpoint beside the BAP listener, SignOn
//! and the signed manifest (NS "SignOn", "The content manifest").

use getrandom::SysRng;
use rsa::pkcs8::{DecodePrivateKey, EncodePublicKey, LineEnding};
use std::net::{SocketAddr, SocketAddrV4};
use std::path::{Path, PathBuf};
use vex_host::HostConfig;
use vex_host::lobby::signon::SignOnService;
use vex_host::lobby::{self, Lobby};
use vex_server::lobby_http::{self, SIGNON_PATH, Tls};
use vex_wire::lobby::manifest;

/// The lobby's arguments to `vex host`.
#[derive(clap::Args)]
pub struct LobbyArgs {
    /// Serve SignOn over HTTPS here (`POST /SignOn`, `GET /manifest`); its success names
    /// the BAP listener and this host's hello keys.
    #[arg(long, value_name = "ADDR")]
    signon: Option<SocketAddr>,
    /// The endpoint's certificate (PEM); a self-signed one is made when not given.
    #[arg(long, value_name = "PEM", requires_all = ["signon", "tls_key"])]
    tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// The manifest's RSA-2048 private key (PKCS#8 PEM); a new one is made when not given.
    #[arg(long, value_name = "PEM", requires = "signon")]
    manifest_key: Option<PathBuf>,
    /// Write the manifest's public key (SPKI PEM) here, for `vex client
    /// --manifest-public-key`.
    #[arg(long, value_name = "FILE", requires = "signon")]
    manifest_public_key: Option<PathBuf>,
}

impl LobbyArgs {
    /// Starts the endpoint when `--signon` was given: prints its URL, the certificate's
    /// fingerprint and where the manifest's public key went.
    pub fn start(&self, config: &HostConfig, seed: [u8; 32]) -> Result<(), String> {
        let Some(addr) = self.signon else {
            return Ok(());
        };
        let tls = self.tls()?;
        let fingerprint = tls.fingerprint().ok_or("--tls-cert holds no certificate")?;
        let key = self.key()?;
        let public = key
            .to_public_key()
            .to_public_key_pem(LineEnding::LF)
            .map_err(|e| e.to_string())?;
        if let Some(path) = &self.manifest_public_key {
            std::fs::write(path, &public).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        let listener = std::net::TcpListener::bind(addr)
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let bap: SocketAddrV4 = config.advertised;
        let service = SignOnService::new(config.scenario.lobby.clone(), config.signon, bap, seed);
        let faults = config.hooks.clone();
        let lobby = Lobby::new(
            service,
            &key,
            &lobby::content(&config.scenario.name),
            faults,
            &mut SysRng,
        )
        .map_err(|e| format!("signing the manifest: {e}"))?;
        out!("SignOn: https://{addr}{SIGNON_PATH}?build=86657&platform=steam");
        out!("certificate SHA-256: {fingerprint}");
        match &self.manifest_public_key {
            Some(path) => out!("manifest public key: {}", path.display()),
            None => out!("manifest public key:\n{public}"),
        }
        tokio::spawn(async move {
            if let Err(e) = lobby_http::serve(listener, &tls, lobby).await {
                tracing::error!(%e, "the SignOn endpoint stopped");
            }
        });
        Ok(())
    }

    fn tls(&self) -> Result<Tls, String> {
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Ok(Tls {
                cert_pem: read(cert)?,
                key_pem: read(key)?,
            }),
            _ => Tls::self_signed().map_err(|e| format!("making a certificate: {e}")),
        }
    }

    fn key(&self) -> Result<rsa::PrivateKey, String> {
        match &self.manifest_key {
            Some(path) => rsa::PrivateKey::from_pkcs8_pem(&read(path)?)
                .map_err(|e| format!("{}: {e}", path.display())),
            None => manifest::new_key(&mut SysRng).map_err(|e| format!("making a key: {e}")),
        }
    }
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}
