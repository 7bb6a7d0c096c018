//! `vex host`: our Activity Host on a TCP port, correct or told to break one rule.

use crate::{Keys, error, load_scenario};
use crate::{mission_link, mission_watch};
use std::net::{SocketAddr, SocketAddrV4};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use vex_faults::{Fault, HostPlan};
use vex_host::lobby::StoredLobby;
use vex_host::{Hooks, HostConfig, HostCore};
use vex_mission::RhaiMission;
use vex_store::{Keeper, Store, StoreError, renew_lease, unix_ms};

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
    #[arg(long, value_parser = parse_fault, conflicts_with = "like")]
    fault: Option<Fault>,
    /// Behave as a documented host does where it departs from the pages (`sunrise`: each
    /// departure as the facts sheet records it; `vex check --like` shows what Vex says).
    #[arg(long, value_name = "HOST", value_parser = crate::check::parse_like)]
    like: Option<vex_faults::like::Like>,
    /// List the faults `--fault` takes, each with the rule it breaks, and exit.
    #[arg(long)]
    list_faults: bool,
    /// Run this mission script (Rhai) in every activity in place of the built-in
    /// program; saving the file reloads it (`vex mission check FILE` compiles it alone).
    #[arg(long, value_name = "FILE")]
    mission: Option<PathBuf>,
    /// Where the mission's command link listens (`vex mission reload|status|events`);
    /// this machine only.
    #[arg(long, default_value = crate::mission::COMMAND_ADDRESS, requires = "mission")]
    command: SocketAddr,
    /// Where the lobby keeps what it stores (accounts, characters, items, the family-4
    /// objects and their revision): `sqlite::memory:` (this run only), `sqlite:FILE` (kept
    /// across restarts; made when missing) or `postgres://USER@HOST/DB` (shared by several
    /// host processes). An empty database is seeded from the scenario.
    #[arg(long, default_value = "sqlite::memory:", value_name = "URL")]
    database: String,
    /// One of several host processes sharing `--database` (PostgreSQL, or an SQLite file
    /// on one machine): this process keeps a lease in it, and service 16 names the
    /// process the database places the activity on, which may be another. Each process
    /// is named by its `--advertise` address.
    #[arg(long)]
    shared: bool,
    /// How long this process's lease runs unrenewed, in seconds: a process stopped
    /// without Ctrl-C or SIGTERM is handed new activities until then. Renewed every
    /// third of it.
    #[arg(
        long,
        default_value_t = 10.0,
        value_name = "SECONDS",
        requires = "shared"
    )]
    lease: f64,
    #[command(flatten)]
    keys: Keys,
    #[command(flatten)]
    lobby: crate::lobby::LobbyArgs,
    #[command(flatten)]
    limits: crate::limits_args::LimitsArgs,
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
    config.limits = args.limits.limits();
    match load_scenario(args.scenario.as_deref()) {
        Ok(Some(s)) => config.scenario = s,
        Ok(None) => {}
        Err(code) => return code,
    }
    if let Some(fault) = args.fault {
        tracing::warn!(?fault, rule = %fault.rule(), "serving with a fault on purpose");
        config.hooks = Hooks::new(HostPlan::single(fault));
    }
    if let Some(like) = args.like {
        tracing::warn!(
            like = like.name(),
            "serving as a documented host does, departures and all"
        );
        config.hooks = Hooks::new(like.plan());
    }
    let mission = match &args.mission {
        Some(file) => match Mission::start(file, args.command).await {
            Ok(m) => Some(m),
            Err(why) => {
                eprintln!("vex host: --mission {}: {why}", file.display());
                return error();
            }
        },
        None => None,
    };
    let store = match open_store(&args.database, &mut config).await {
        Ok(s) => s,
        Err(why) => {
            eprintln!("vex host: --database {}: {why}", args.database);
            return error();
        }
    };
    let lease = match args.shared.then(|| share(&args, &store, &mut config)) {
        Some(started) => match started.await {
            Ok(lease) => Some(lease),
            Err(why) => {
                eprintln!("vex host: --shared: {why}");
                return error();
            }
        },
        None => None,
    };
    let advertised = config.advertised;
    let code = serve(
        args.listen,
        config,
        Keeper::spawn(store.clone()),
        mission,
        &args.lobby,
    )
    .await;
    if let Some(renewal) = lease {
        renewal.abort();
        match store.release(advertised).await {
            Ok(()) => tracing::info!(%advertised, "the lease is given up"),
            Err(e) => {
                tracing::warn!(%advertised, %e, "the lease could not be given up: it runs out")
            }
        }
    }
    code
}

/// The store at `url`, seeded from the scenario when empty; what it holds becomes the
/// host's start.
async fn open_store(url: &str, config: &mut HostConfig) -> Result<Store, StoreError> {
    let store = Store::open(url).await?;
    let stored = store
        .load_or_seed(&StoredLobby::seed(&config.scenario))
        .await?;
    let accounts = stored.accounts.len();
    tracing::info!(database = url, accounts, "the lobby's store is open");
    config.stored = Some(stored);
    Ok(store)
}

/// Joins the processes sharing `store`: the first lease is held before the host serves,
/// so this process can be placed on at once; the renewal runs until it is aborted.
async fn share(
    args: &HostArgs,
    store: &Store,
    config: &mut HostConfig,
) -> Result<tokio::task::JoinHandle<()>, String> {
    if args.database == "sqlite::memory:" {
        return Err(
            "a database in memory is this process's alone: name one with --database".into(),
        );
    }
    let lease = Duration::try_from_secs_f64(args.lease)
        .ok()
        .filter(|l| l.as_millis() >= 30)
        .ok_or_else(|| format!("--lease {} is not a time of at least 30 ms", args.lease))?;
    let until = unix_ms().saturating_add(u64::try_from(lease.as_millis()).unwrap_or(u64::MAX));
    store
        .lease(config.advertised, until)
        .await
        .map_err(|e| e.to_string())?;
    config.shared = true;
    tracing::info!(process = %config.advertised, ?lease, "sharing the database with other host processes");
    Ok(renew_lease(store.clone(), config.advertised, lease))
}

/// Ctrl-C, or SIGTERM (how an orchestrator stops a process) where there is one.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// A mission for the host: the compiled script, its command link and the file watch.
struct Mission {
    program: RhaiMission,
    file: PathBuf,
    commands: TcpListener,
}

impl Mission {
    /// Compiles `file` and binds the command link at `command`, which must be on this
    /// machine.
    async fn start(file: &Path, command: SocketAddr) -> Result<Self, String> {
        let source = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
        let program = RhaiMission::compile(&file.display().to_string(), &source)
            .map_err(|e| format!("does not compile: {e}"))?;
        if !mission_link::is_local(command) {
            return Err(format!(
                "the command link listens on this machine only, not {command}"
            ));
        }
        let commands = TcpListener::bind(command)
            .await
            .map_err(|e| format!("the command link cannot listen on {command}: {e}"))?;
        Ok(Self {
            program,
            file: file.to_path_buf(),
            commands,
        })
    }
}

async fn serve(
    listen: SocketAddrV4,
    mut config: HostConfig,
    keeper: Keeper,
    mission: Option<Mission>,
    lobby: &crate::lobby::LobbyArgs,
) -> ExitCode {
    let mut seed = [0u8; 32];
    if let Err(e) = getrandom::fill(&mut seed) {
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
    // the UDP port (QoS and bdNet associations) takes the activity port's number
    let bound = listener.local_addr().unwrap_or(listen.into());
    let peer = match tokio::net::UdpSocket::bind(bound).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("vex host: cannot open the UDP port {bound}: {e}");
            return error();
        }
    };
    if let Err(why) = lobby.start(&config, seed) {
        eprintln!("vex host: --signon: {why}");
        return error();
    }
    let (advertise, scenario) = (config.advertised, config.scenario.name.clone());
    tracing::info!(%listen, %advertise, %scenario, "vex host serving");
    let shutdown = stop_signal();
    let (controls, controlled) = mpsc::channel(4);
    let (core, _watch) = match mission {
        Some(m) => {
            tracing::info!(mission = %m.file.display(), command = ?m.commands.local_addr().ok(), "running a mission");
            config.timeline.clear();
            tokio::spawn(mission_link::serve_commands(
                m.commands,
                m.file.clone(),
                controls.clone(),
            ));
            let watch = match mission_watch::watch(&m.file, controls) {
                Ok(w) => Some(w),
                Err(e) => {
                    eprintln!("vex host: cannot watch {}: {e}", m.file.display());
                    return error();
                }
            };
            (HostCore::with_mission(config, Box::new(m.program)), watch)
        }
        None => (HostCore::new(config), None),
    };
    match vex_server::bap::serve_with_control(
        listener,
        Some(peer),
        core,
        keeper,
        controlled,
        shutdown,
    )
    .await
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vex host: {e}");
            error()
        }
    }
}
