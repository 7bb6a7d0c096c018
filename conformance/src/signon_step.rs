//! Signing on before the route, in-process (NS "SignOn", "The content manifest"): member 1
//! signs on at our host's lobby, as the host's configuration serves it (its faults
//! included), verifies the manifest, and the grant keys every member's hello, carries the
//! token and names the BAP server. A run that stops at SignOn is reported as such.

use getrandom::SysRng;
use std::sync::OnceLock;
use vex_fake_client::{ClientConfig, Violation};
use vex_harness::RunReport;
use vex_harness::signon::{SignOnRun, SignOnTarget, SignOnUnreachable, sign_on_in_process};
use vex_host::HostConfig;
use vex_host::lobby::{self, Lobby};
use vex_host::signon::SignOnService;
use vex_wire::lobby::manifest;
use vex_wire::time::Instant;

/// The manifest key of every in-process run: made once, as a host makes one at start.
fn manifest_key() -> Result<&'static rsa::PrivateKey, &'static str> {
    static KEY: OnceLock<Result<rsa::PrivateKey, String>> = OnceLock::new();
    KEY.get_or_init(|| manifest::new_key(&mut SysRng).map_err(|e| format!("no manifest key: {e}")))
        .as_ref()
        .map_err(String::as_str)
}

/// Member 1 of `clients` signs on at the lobby `host` serves: every client takes the
/// grant and the rules SignOn broke come back, or the report of a run that stopped at
/// SignOn.
pub fn sign_on(
    host: &HostConfig,
    clients: &mut [ClientConfig],
) -> Result<Vec<Violation>, Box<RunReport>> {
    let aborted = |why: String| Box::new(RunReport::aborted(why, Instant::from_millis(0)));
    let key = manifest_key().map_err(|e| aborted(e.to_string()))?;
    let service = SignOnService::new(
        host.scenario.lobby.clone(),
        host.signon,
        host.advertised,
        host.seed,
    );
    let content = lobby::content(&host.scenario.name);
    let mut lobby = Lobby::new(service, key, &content, host.faults.clone(), &mut SysRng)
        .map_err(|e| aborted(format!("signing the manifest: {e}")))?;
    let steam_id = host.scenario.player.steam_id;
    granted(
        sign_on_in_process(&mut lobby, steam_id, Some(key.to_public_key())),
        clients,
    )
}

/// Member 1 of `clients` signs on at `target` over HTTPS, as [`sign_on`] does in-process;
/// an endpoint that cannot be reached is an error.
pub async fn sign_on_over_https(
    target: &SignOnTarget,
    clients: &mut [ClientConfig],
) -> Result<Result<Vec<Violation>, Box<RunReport>>, SignOnUnreachable> {
    let mut target = target.clone();
    if let Some(first) = clients.first() {
        target.steam_id = first.scenario.player.steam_id;
    }
    Ok(granted(
        vex_harness::signon::sign_on(&target).await?,
        clients,
    ))
}

/// Every client takes `run`'s grant, and the rules SignOn broke come back; or the report
/// of a run that stopped at SignOn.
fn granted(run: SignOnRun, clients: &mut [ClientConfig]) -> Result<Vec<Violation>, Box<RunReport>> {
    let Some(grant) = run.end.grant else {
        let why = run.end.stopped.unwrap_or_default();
        let mut report =
            RunReport::aborted(format!("stopped at SignOn: {why}"), Instant::from_millis(0));
        report.violations = run.violations;
        return Err(Box::new(report));
    };
    for client in clients {
        client.signon = grant.keys;
        client.token = grant.token.clone();
        client.target = grant.bap;
    }
    Ok(run.violations)
}
