//! `vex host`: our Activity Host on a TCP port, correct or told to break one rule.

use crate::{Keys, error, load_scenario};
use std::net::SocketAddrV4;
use std::path::PathBuf;
use std::process::ExitCode;
use vex_host::{Fault, FaultPlan, HostConfig, HostCore};

/// `vex host`'s arguments.
#[derive(clap::Args)]
pub struct HostArgs {
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:30974")]
    listen: SocketAddrV4,
    /// The address service 17 advertises (default: the listen address).
    #[arg(long)]
    advertise: Option<SocketAddrV4>,
    /// The scenario to serve, a TOML file (default: the built-in one,
    /// `scenarios/edz_patrol.toml`).
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// Break one rule on purpose, as the `catch.RULE.NAME` case of that fault does
    /// in-process, so a case can be proven over real TCP (`--list-faults` shows the names).
    #[arg(long, value_parser = parse_fault)]
    fault: Option<Fault>,
    /// List the faults `--fault` takes, each with the rule it breaks, and exit.
    #[arg(long)]
    list_faults: bool,
    #[command(flatten)]
    keys: Keys,
}

/// The fault named `name`, as `--list-faults` prints it.
fn parse_fault(name: &str) -> Result<Fault, String> {
    Fault::ALL
        .iter()
        .copied()
        .find(|f| format!("{f:?}") == name)
        .ok_or_else(|| format!("no fault named {name:?}; `vex host --list-faults` shows them"))
}

/// Serves until Ctrl-C.
pub async fn run(args: HostArgs) -> ExitCode {
    if args.list_faults {
        for f in Fault::ALL {
            out!("{:<32} {}", format!("{f:?}"), f.rule());
        }
        return ExitCode::SUCCESS;
    }
    crate::init_logs("info");
    let mut config = HostConfig::builtin(args.advertise.unwrap_or(args.listen));
    config.signon = args.keys.keys();
    match load_scenario(args.scenario.as_deref()) {
        Ok(Some(s)) => config.scenario = s,
        Ok(None) => {}
        Err(code) => return code,
    }
    if let Some(fault) = args.fault {
        tracing::warn!(?fault, rule = %fault.rule(), "serving with a fault on purpose");
        config.faults = FaultPlan::single(fault);
    }
    serve(args.listen, config).await
}

async fn serve(listen: SocketAddrV4, mut config: HostConfig) -> ExitCode {
    let mut seed = [0u8; 32];
    if let Err(e) = getrandom(&mut seed) {
        eprintln!("vex host: no OS randomness for key material: {e}");
        return error();
    }
    config.seed = seed;
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("vex host: cannot listen on {listen}: {e}");
            return error();
        }
    };
    let (advertise, scenario) = (config.advertised, config.scenario.name.clone());
    tracing::info!(%listen, %advertise, %scenario, "vex host serving");
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match vex_host::server::serve(listener, HostCore::new(config), shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vex host: {e}");
            error()
        }
    }
}

/// Fills `buf` from the OS: per-process key material for a real server.
fn getrandom(buf: &mut [u8]) -> std::io::Result<()> {
    use std::io::Read;
    std::fs::File::open("/dev/urandom")?.read_exact(buf)
}
