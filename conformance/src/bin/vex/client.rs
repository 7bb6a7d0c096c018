//! `vex client` and `vex replay`: one emulated client against a host, or against a
//! recorded transcript.

use crate::{Keys, error, load_scenario};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use std::net::SocketAddrV4;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use vex_fake_client::{ClientConfig, Outcome, Probe};
use vex_harness::transcript::Transcript;
use vex_host::HostConfig;

/// `vex client`'s arguments.
#[derive(clap::Args)]
pub struct ClientArgs {
    /// The host's lobby address; with `--signon`, SignOn's answer names it.
    #[arg(long, required_unless_present = "signon", conflicts_with = "signon")]
    target: Option<SocketAddrV4>,
    #[command(flatten)]
    signon: crate::signon_args::SignOnArgs,
    /// How long to stay, in seconds.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// The scenario the client's packages hold, a TOML file (default: the built-in).
    #[arg(long)]
    scenario: Option<PathBuf>,
    #[command(flatten)]
    script: Script,
    #[command(flatten)]
    keys: Keys,
}

/// `vex replay`'s arguments.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A transcript, as `vex check --transcripts` writes it.
    file: PathBuf,
    #[command(flatten)]
    keys: Keys,
}

/// What the emulated client does after the join, each this many milliseconds after it.
#[derive(clap::Args)]
struct Script {
    /// Ask for the whole snapshot with message 18.
    #[arg(long, value_name = "MS")]
    refresh_after: Option<u64>,
    /// Return 32 entity slots with message 21 and ask for 8 with message 20.
    #[arg(long, value_name = "MS")]
    request_slots_after: Option<u64>,
    /// Leave with message 15.
    #[arg(long, value_name = "MS")]
    leave_after: Option<u64>,
    /// Report the member identity with message 23.
    #[arg(long, value_name = "MS")]
    identity_after: Option<u64>,
    /// Join again (service 6, then message 3) this long after leaving.
    #[arg(long, value_name = "MS", requires = "leave_after")]
    rejoin_after: Option<u64>,
    /// Move into the next bubble with message 22, then ask for its roster with message 18.
    #[arg(long, value_name = "MS")]
    move_region_after: Option<u64>,
    /// Ask to start the activity anew with message 11.
    #[arg(long, value_name = "MS")]
    start_activity_after: Option<u64>,
    /// Ask the host to purge the lowest 8 leased slots with message 27.
    #[arg(long, value_name = "MS")]
    purge_after: Option<u64>,
    /// Give up authority over the lowest 8 leased slots with message 33.
    #[arg(long, value_name = "MS")]
    abdicate_after: Option<u64>,
    /// Post an incident with message 19.
    #[arg(long, value_name = "MS")]
    incident_after: Option<u64>,
    /// Change the patch epoch and report the new one with message 52 at once (AUTH-01:
    /// every message 5 answering a later request echoes it).
    #[arg(long, value_name = "MS")]
    change_epoch_after: Option<u64>,
    /// Probe the session with QoS over UDP this long after the join (the Activity Host's
    /// address, the UDP port of its number).
    #[arg(long, value_name = "MS")]
    qos_probe_after: Option<u64>,
    /// Open a bdNet association with the Activity Host's UDP port this long after the join,
    /// ping over it, and join the host's group session.
    #[arg(long, value_name = "MS")]
    associate_after: Option<u64>,
    /// Probe the host with one of the `probe.*` cases' messages (`vex check --list`).
    /// discriminator-two also wants a plain --refresh-after before --probe-after.
    #[arg(long, value_name = "NAME", value_parser = probe_names())]
    probe: Option<Probe>,
    /// When the probe's own message goes out.
    #[arg(long, value_name = "MS", default_value_t = 3_000)]
    probe_after: u64,
    /// Call every lobby service of the registry on the lobby link before the route
    /// (BAP-06, BAP-11, BAP-21, BAP-22).
    #[arg(long)]
    lobby_calls: bool,
    /// Advertise the activity with matchmaking once service 7 names it.
    #[arg(long)]
    advertise: bool,
    /// Find the activity to join with a matchmaking locate, and join it (a second client
    /// joining the first one's activity).
    #[arg(long)]
    locate: bool,
}

/// `--probe`'s values: every probe's name, listed in the help.
fn probe_names() -> impl TypedValueParser<Value = Probe> {
    PossibleValuesParser::new(Probe::ALL.map(Probe::name))
        .try_map(|name| Probe::named(&name).ok_or("no such probe"))
}

impl Script {
    /// The client's script.
    fn script(&self) -> vex_fake_client::Script {
        vex_fake_client::Script {
            refresh_after_ms: self.refresh_after,
            slot_request_after_ms: self.request_slots_after,
            leave_after_ms: self.leave_after,
            identity_after_ms: self.identity_after,
            rejoin_after_ms: self.rejoin_after,
            move_region_after_ms: self.move_region_after,
            start_activity_after_ms: self.start_activity_after,
            purge_after_ms: self.purge_after,
            abdicate_after_ms: self.abdicate_after,
            incident_after_ms: self.incident_after,
            change_epoch_after_ms: self.change_epoch_after,
            qos_probe_after_ms: self.qos_probe_after,
            associate_after_ms: self.associate_after,
            probe: self.probe.map(|p| (p, self.probe_after)),
            lobby_calls: self.lobby_calls,
            advertise: self.advertise,
            locate: self.locate,
        }
    }
}

/// Runs one client against `--target`; a host that cannot be reached is an error (exit 2).
pub async fn run(args: ClientArgs) -> ExitCode {
    crate::init_logs("error");
    let mut config = ClientConfig::builtin(args.target.unwrap_or(HostConfig::default_address()));
    config.signon = args.keys.keys();
    config.script = args.script.script();
    match load_scenario(args.scenario.as_deref()) {
        Ok(Some(s)) => config.scenario = s,
        Ok(None) => {}
        Err(code) => return code,
    }
    let mut signon_broken = 0;
    if let Some(url) = &args.signon.signon {
        match sign_on(&args.signon, &mut config).await {
            Ok(Ok(broken)) => signon_broken = broken,
            Ok(Err(code)) => return code,
            Err(why) => {
                eprintln!("vex client: --signon {url}: {why}");
                return error();
            }
        }
    }
    if let Err(e) = vex_harness::tcp::reachable(config.target).await {
        eprintln!("vex client: cannot reach a host at {}: {e}", config.target);
        return error();
    }
    out!("vex client -> {} for {} s", config.target, args.seconds);
    let run = vex_harness::tcp::run(config, Duration::from_secs(args.seconds), |v| {
        out!("VIOLATION {v}");
    })
    .await;
    let code = verdict(&run);
    if signon_broken > 0 {
        out!("SignOn broke {signon_broken} rule(s): the run fails");
        return ExitCode::FAILURE;
    }
    code
}

/// Signs on at `url`: the grant keys the hello and names the BAP server in `config`.
/// The rules SignOn broke, or the exit when the run ends at SignOn; an error when the
/// endpoint cannot be reached or its key file read.
async fn sign_on(
    args: &crate::signon_args::SignOnArgs,
    config: &mut ClientConfig,
) -> Result<Result<usize, ExitCode>, String> {
    let Some(target) = args.target(config.scenario.player.steam_id)? else {
        return Ok(Ok(0));
    };
    let run = vex_harness::signon::sign_on(&target)
        .await
        .map_err(|e| e.to_string())?;
    for v in &run.violations {
        out!("VIOLATION {v}");
    }
    let end = run.end;
    let Some(grant) = end.grant else {
        out!(
            "outcome: stopped at SignOn after {} answer(s): {}",
            end.attempts,
            end.stopped.unwrap_or_default()
        );
        return Ok(Err(ExitCode::FAILURE));
    };
    out!(
        "SignOn: signed on after {} answer(s); BAP server {}, {} feature(s)",
        end.attempts,
        grant.bap,
        grant.features.len()
    );
    config.signon = grant.keys;
    config.token = grant.token;
    config.target = grant.bap;
    // signed on as the real client does, it makes the lobby calls before the route
    config.script.lobby_calls = true;
    Ok(Ok(run.violations.len()))
}

/// Replays a transcript to the emulated client.
pub fn replay(args: ReplayArgs) -> ExitCode {
    crate::init_logs("error");
    // the replayed client connects nowhere: its address only names its links
    let mut config = ClientConfig::builtin(HostConfig::default_address());
    config.signon = args.keys.keys();
    let file = &args.file;
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("vex replay: {}: {e}", file.display());
            return error();
        }
    };
    let transcript = match Transcript::parse(&text) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("vex replay: {}: {e}", file.display());
            return error();
        }
    };
    let run = vex_harness::replay::to_client(&transcript, config);
    let script = transcript.script.to_string();
    let script = if script.is_empty() {
        "none".into()
    } else {
        script
    };
    out!("vex replay {} (script: {script})", file.display());
    for v in &run.violations {
        out!("VIOLATION {v}");
    }
    verdict(&run)
}

/// Prints the status line and the outcome; success when the client is in the activity
/// with no violation, 1 otherwise.
fn verdict(run: &vex_harness::RunReport) -> ExitCode {
    if let Some(host) = run.activity_host {
        let session = run.sessions.first().copied().flatten();
        let joined = session.map_or(String::new(), |s| format!(", session {s:#x}"));
        out!("Activity Host: {host} (service 17){joined}");
    }
    out!("{}", run.status);
    match &run.outcome {
        Outcome::Running if run.status.in_activity() => {
            out!("outcome: still in the activity after {} ms", run.elapsed_ms)
        }
        Outcome::Running => out!(
            "outcome: never got into the activity in {} ms",
            run.elapsed_ms
        ),
        ended => out!("outcome: {ended}"),
    }
    if let Some(host) = run.group_host {
        let (held, revision) = run.group_membership.unwrap_or_default();
        out!(
            "group session: at {host}, membership revision {revision} held, {held} update(s) applied with matching hashes"
        );
    }
    if run.violations.is_empty() && run.status.in_activity() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
