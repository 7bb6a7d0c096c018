//! Signing on before the route, in-process (NS "SignOn", "The content manifest"): member 1
//! signs on at our host's lobby, as the host's configuration serves it (its faults
//! included), verifies the manifest, and the grant keys every member's hello, carries the
//! token and names the BAP server. A run that stops at SignOn is reported as such.

use chacha20::ChaCha20Rng;
use chacha20::rand_core::SeedableRng;
use std::sync::OnceLock;
use vex_fake_client::ClientConfig;
use vex_harness::RunReport;
use vex_harness::signon::{SignOnTarget, SignOnUnreachable};
use vex_harness::signon_record::{self, SignedOn, granted};
use vex_host::HostConfig;
use vex_host::lobby::signon::SignOnService;
use vex_host::lobby::{self, Lobby};
use vex_wire::lobby::manifest;
use vex_wire::time::Instant;

/// The seed of the in-process manifest key: runs are deterministic, so the key, the
/// signature's salt and every transcript are the same run after run.
const KEY_SEED: [u8; 32] = [0x6D; 32];

/// The manifest key of every in-process run: made once, as a host makes one at start.
fn manifest_key() -> Result<&'static rsa::PrivateKey, &'static str> {
    static KEY: OnceLock<Result<rsa::PrivateKey, String>> = OnceLock::new();
    KEY.get_or_init(|| {
        manifest::new_key(&mut ChaCha20Rng::from_seed(KEY_SEED))
            .map_err(|e| format!("no manifest key: {e}"))
    })
    .as_ref()
    .map_err(String::as_str)
}

/// Member 1 of `clients` signs on at the lobby `host` serves: every client takes the
/// grant, or the report of a run that stopped at SignOn.
pub fn sign_on(
    host: &HostConfig,
    clients: &mut [ClientConfig],
) -> Result<SignedOn, Box<RunReport>> {
    let aborted = |why: String| Box::new(RunReport::aborted(why, Instant::from_millis(0)));
    let key = manifest_key().map_err(|e| aborted(e.to_string()))?;
    let service = SignOnService::new(
        host.scenario.lobby.clone(),
        host.signon,
        host.advertised,
        host.seed,
    );
    let content = lobby::content(&host.scenario.name);
    let mut salt = ChaCha20Rng::from_seed(host.seed);
    let mut lobby = Lobby::new(service, key, &content, host.hooks.clone(), &mut salt)
        .map_err(|e| aborted(format!("signing the manifest: {e}")))?;
    let steam_id = host.scenario.player.steam_id;
    granted(
        signon_record::at_lobby(&mut lobby, steam_id, Some(key.to_public_key())),
        clients,
    )
}

/// `target`'s account (the run's scenario's player) signs on over HTTPS, as [`sign_on`]
/// does in-process, and every client of `clients` takes the grant; an endpoint that
/// cannot be reached is an error.
pub async fn sign_on_over_https(
    target: &SignOnTarget,
    clients: &mut [ClientConfig],
) -> Result<Result<SignedOn, Box<RunReport>>, SignOnUnreachable> {
    Ok(granted(
        vex_harness::signon::sign_on(target).await?,
        clients,
    ))
}
