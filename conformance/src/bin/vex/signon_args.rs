//! Where the emulated client signs on (`vex client --signon`, `vex check --signon`): the
//! host's SignOn URL, the certificate to pin and the manifest's public key.

use rsa::pkcs8::DecodePublicKey;
use std::path::PathBuf;
use vex_harness::signon::SignOnTarget;

/// SignOn's arguments.
#[derive(clap::Args)]
pub struct SignOnArgs {
    /// Sign on here first (`https://HOST:PORT`): the answer keys the hello and names the
    /// BAP server, and the manifest is verified when `--manifest-public-key` is given;
    /// `vex client` then makes the lobby calls (`--lobby-calls`) before the route.
    #[arg(long, value_name = "URL")]
    pub signon: Option<String>,
    /// The SignOn certificate's SHA-256 fingerprint to pin (`vex host --signon` prints
    /// it); any certificate is taken without it.
    #[arg(long, value_name = "HEX", requires = "signon")]
    signon_fingerprint: Option<String>,
    /// The manifest's public key (SPKI PEM, `vex host --manifest-public-key` writes it).
    #[arg(long, value_name = "PEM", requires = "signon")]
    manifest_public_key: Option<PathBuf>,
}

impl SignOnArgs {
    /// The target for Steam account `steam_id`, when `--signon` was given; an error when
    /// the key file cannot be read.
    pub fn target(&self, steam_id: u64) -> Result<Option<SignOnTarget>, String> {
        let Some(url) = &self.signon else {
            return Ok(None);
        };
        let manifest_key = match &self.manifest_public_key {
            Some(path) => {
                let pem = std::fs::read_to_string(path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let key = rsa::PublicKey::from_public_key_pem(&pem)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                Some(key)
            }
            None => None,
        };
        if self.signon_fingerprint.is_none() {
            // a notice, not a result: standard output may be JSON (`--json`)
            eprintln!("SignOn: no --signon-fingerprint, so any certificate is taken");
        }
        Ok(Some(SignOnTarget {
            url: url.clone(),
            fingerprint: self.signon_fingerprint.clone(),
            manifest_key,
            steam_id,
        }))
    }
}
