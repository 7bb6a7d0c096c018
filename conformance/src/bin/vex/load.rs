//! `vex load`: many emulated clients against one host, with a progress bar, and at the end
//! joins per second, latency percentiles per message, keepalive jitter, violations by rule,
//! and what the host (when local) and the load generator used (issue "Under load and
//! faults": load). With `--shards N` the clients are driven by N processes of this program
//! whose samples merge into the run's (`load_shards.rs`).

use crate::load_shards::{Shards, end_line, start_at, start_instant, write_line};
use crate::spawn::Spawned;
use crate::{Keys, error, load_scenario};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nix::sys::resource::{Resource, getrlimit, setrlimit};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tempfile::TempDir;
use tokio::task::JoinHandle;
use vex_harness::load::{LoadPlan, Shard, run};
use vex_harness::load_figures::{
    GENERATOR_LATE_MS, LoadFigures, MACHINE_BUSY_PERCENT, ProcessUse, Samples, Tally,
};
use vex_harness::load_machine::MachineMeter;
use vex_harness::load_process::ProcessMeter;
use vex_harness::load_shard::ShardLine;
use vex_host::Limits;
use vex_wire::scenario::Scenario;

/// How long after the ramp the memory settles before it is the warm figure.
const SETTLE: Duration = Duration::from_secs(30);
/// File descriptors each client holds (its lobby and activity links; with `--peer` its
/// UDP socket too), and the process's own besides.
const FDS_PER_CLIENT: u64 = 2;
const FDS_SPARE: u64 = 64;
/// How often a run that is not on a terminal prints its progress line, in seconds.
const LINE_EVERY_S: u64 = 30;

/// `vex load`'s arguments.
#[derive(clap::Args)]
pub struct LoadArgs {
    /// Emulated clients at once.
    #[arg(long, default_value_t = 100)]
    clients: usize,
    /// How long the run lasts (`90s`, `10m`).
    #[arg(long, default_value = "60s", value_parser = humantime::parse_duration)]
    duration: Duration,
    /// The clients start spread evenly over this (`10s`).
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    ramp: Duration,
    /// Clients per activity (1 to 32): the first makes it, the others join it.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=32))]
    group: u8,
    /// The host to load; default: the built-in host, started on free loopback ports. Given
    /// more than once (the processes of one host), the clients' lobby links go to each in
    /// turn.
    #[arg(long)]
    target: Vec<SocketAddrV4>,
    /// Start the built-in host as this many processes sharing one database (an SQLite file
    /// in a temporary folder; `vex host --shared`), each measured on its own.
    #[arg(long, default_value_t = 1, conflicts_with = "target",
          value_parser = clap::value_parser!(u8).range(1..=16))]
    processes: u8,
    /// The database the built-in host's processes share, with `--processes` above 1
    /// (`postgres://...` or `sqlite:FILE`); by default an SQLite file in a temporary folder.
    #[arg(long, conflicts_with = "target")]
    database: Option<String>,
    /// The scenario the clients' packages hold (and the built-in host serves).
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// Each life also associates with its group host's UDP port and joins the group
    /// session (NS "The engine peer transport"); the figures count the lives that did
    /// (`peer_associated`, `peer_in_group_session`) and time the handshake (`association`).
    /// A client then holds a UDP socket too.
    #[arg(long)]
    peer: bool,
    /// Drive the clients from this many processes of this program, each a share of whole
    /// activities, their figures merged (one a core at most helps). A process holds two
    /// descriptors a client, so past about 9,900 clients a run needs two.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=64))]
    shards: u8,
    /// Drive only shard K of `--shards` (from 0) and write its progress and samples as
    /// JSON lines: how `--shards` runs its processes.
    #[arg(long, hide = true, requires = "target")]
    shard: Option<u8>,
    /// When the shard's schedule starts, in Unix milliseconds (with `--shard`).
    #[arg(long, hide = true, requires = "shard")]
    start_at: Option<u64>,
    /// Print the figures as one JSON object, each named with its unit.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    keys: Keys,
}

impl LoadArgs {
    /// True for a shard of `vex load --shards`, a process its parent started.
    pub fn is_shard(&self) -> bool {
        self.shard.is_some()
    }
}

/// Runs the load; exit 1 when a client reported a violation, 2 when the run could not be
/// made.
pub async fn load(args: LoadArgs) -> ExitCode {
    // RUST_LOG=warn shows the tool's own warnings: late keepalives with what the client did
    // before them, writes the host took late
    crate::init_logs("error");
    let scenario = match load_scenario(args.scenario.as_deref()) {
        Ok(s) => s.unwrap_or_else(Scenario::builtin),
        Err(code) => return code,
    };
    if let Some(index) = args.shard {
        return drive_shard(&args, usize::from(index), scenario).await;
    }
    if let Err(why) = enough_descriptors(descriptors_needed(&args)) {
        eprintln!("vex load: {why}");
        return error();
    }
    // from before any process of the run starts, as their CPU times count from theirs
    let mut machine = MachineMeter::start();
    let (targets, mut hosts, _database) = if args.target.is_empty() {
        match start_hosts(&args).await {
            Ok(started) => started,
            Err(why) => {
                eprintln!("vex load: the built-in host did not start: {why}");
                return error();
            }
        }
    } else {
        for &t in &args.target {
            if let Err(e) = vex_harness::tcp::reachable(t).await {
                eprintln!("vex load: cannot reach the host at {t}: {e}");
                return error();
            }
        }
        (args.target.clone(), Vec::new(), None)
    };
    let mut host_meters: Vec<(SocketAddrV4, ProcessMeter)> = hosts
        .iter()
        .filter_map(|(a, h)| Some((*a, ProcessMeter::new(h.pid()?))))
        .collect();
    let (driver, started) = match Driver::start(&args, &targets, scenario) {
        Ok(started) => started,
        Err(why) => {
            eprintln!("vex load: {why}");
            return error();
        }
    };
    let mut own_meter = ProcessMeter::this_process();
    let bar = progress(&args);
    // elsewhere than a terminal, as in a CI log: a line now and then
    let lines = bar.is_hidden() && !args.quiet;
    let mut next_line = LINE_EVERY_S;
    let warm_at = warm_after(&args);
    let mut ticks = tokio::time::interval(Duration::from_secs(1));
    let mut warmed = false;
    while !driver.is_finished() {
        ticks.tick().await;
        own_meter.sample();
        machine.iter_mut().for_each(MachineMeter::sample);
        let host_alive = host_meters.iter_mut().all(|(_, m)| m.sample());
        if !warmed && started.elapsed() >= warm_at {
            warmed = true;
            own_meter.warmed_up();
            host_meters.iter_mut().for_each(|(_, m)| m.warmed_up());
        }
        let host_mib = (!host_meters.is_empty()).then(|| {
            host_meters
                .iter()
                .map(|(_, m)| m.usage().rss_end_mib)
                .sum::<f64>()
        });
        let seconds = started.elapsed().as_secs();
        let (joins, violations) = driver.progress();
        let status = format!(
            "joins {joins}  violations {violations}{}{}",
            host_mib.map_or(String::new(), |m| format!("  host {m:.1} MiB")),
            if host_alive {
                ""
            } else {
                "  (a host process exited)"
            },
        );
        if lines && seconds >= next_line {
            next_line = seconds + LINE_EVERY_S;
            eprintln!(
                "vex load: {seconds}/{} s  {status}",
                args.duration.as_secs()
            );
        }
        bar.set_position(seconds);
        bar.set_message(status);
    }
    bar.finish_and_clear();
    let duration_s = started.elapsed().as_secs_f64();
    let generator_processes = 1 + driver.shards();
    let (samples, shards_used) = match driver.finish().await {
        Ok(finished) => finished,
        Err(why) => {
            eprintln!("vex load: the run failed: {why}");
            return error();
        }
    };
    own_meter.sample();
    for (_, meter) in &mut host_meters {
        meter.sample();
    }
    machine.iter_mut().for_each(MachineMeter::sample);
    let host_processes: BTreeMap<SocketAddrV4, ProcessUse> =
        host_meters.iter().map(|(a, m)| (*a, m.usage())).collect();
    let figures = LoadFigures {
        clients: args.clients,
        duration_s,
        samples,
        host: host_processes.values().copied().reduce(ProcessUse::plus),
        host_processes,
        generator: own_meter.usage().plus(shards_used),
        generator_processes,
        machine: machine.as_ref().map(MachineMeter::usage),
    };
    if args.json {
        print_json(&figures);
    } else {
        print_text(&figures, &targets, !hosts.is_empty());
    }
    let mut exited = false;
    for (address, host) in &mut hosts {
        if let Some(status) = host.exited() {
            exited = true;
            out!(
                "the built-in host at {address} exited during the run ({status}){}",
                host.tail()
            );
        }
    }
    for failure in &figures.samples.failures {
        out!("vex load: {failure}");
    }
    if !figures.samples.failures.is_empty() {
        ExitCode::from(2)
    } else if figures.samples.violation_count() > 0 || exited {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// What drives the clients: this process, or shards of it.
enum Driver {
    /// The run in this process.
    InProcess(JoinHandle<()>, Arc<Tally>),
    /// The run in `--shards` processes.
    Shards(Shards),
}

impl Driver {
    /// Starts the run of `args` against `targets`, and when its schedule starts.
    fn start(
        args: &LoadArgs,
        targets: &[SocketAddrV4],
        scenario: Scenario,
    ) -> Result<(Self, tokio::time::Instant), String> {
        if args.shards == 1 {
            let plan = plan(args, targets.to_vec(), scenario, Shard::WHOLE);
            let tally = Arc::new(Tally::default());
            let start = tokio::time::Instant::now();
            let running = tokio::spawn(run(plan, start, tally.clone()));
            return Ok((Driver::InProcess(running, tally), start));
        }
        let at = start_at();
        let shards = Shards::start(usize::from(args.shards), |k| {
            shard_args(args, targets, k, at)
        })?;
        Ok((Driver::Shards(shards), start_instant(at)))
    }

    /// The processes besides this one that drive clients.
    fn shards(&self) -> usize {
        match self {
            Driver::InProcess(..) => 0,
            Driver::Shards(shards) => shards.len(),
        }
    }

    fn is_finished(&self) -> bool {
        match self {
            Driver::InProcess(running, _) => running.is_finished(),
            Driver::Shards(shards) => shards.is_finished(),
        }
    }

    /// Join results and violations so far.
    fn progress(&self) -> (u64, u64) {
        match self {
            Driver::InProcess(_, tally) => tally.read(|s| (s.joins, s.violation_count())),
            Driver::Shards(shards) => shards.progress(),
        }
    }

    /// Everything the clients recorded, and what the processes besides this one used.
    async fn finish(self) -> Result<(Samples, ProcessUse), String> {
        match self {
            Driver::InProcess(running, tally) => {
                running.await.map_err(|e| e.to_string())?;
                Ok((tally.take(), ProcessUse::default()))
            }
            Driver::Shards(shards) => shards.finish().await,
        }
    }
}

/// The plan of `args`'s run, against `targets`, for `shard`.
fn plan(args: &LoadArgs, targets: Vec<SocketAddrV4>, scenario: Scenario, shard: Shard) -> LoadPlan {
    LoadPlan {
        targets,
        clients: args.clients,
        duration: args.duration,
        ramp: args.ramp,
        group: usize::from(args.group),
        scenario,
        signon: args.keys.keys(),
        peer: args.peer,
        shard,
    }
}

/// Shard `k`'s command line: the run of `args` against `targets`, from `start_at`.
fn shard_args(args: &LoadArgs, targets: &[SocketAddrV4], k: usize, start_at: u64) -> Vec<String> {
    let duration = |d: Duration| humantime::format_duration(d).to_string();
    let mut line: Vec<String> = [
        "load",
        "--quiet",
        "--clients",
        &args.clients.to_string(),
        "--duration",
        &duration(args.duration),
        "--ramp",
        &duration(args.ramp),
        "--group",
        &args.group.to_string(),
        "--shards",
        &args.shards.to_string(),
        "--shard",
        &k.to_string(),
        "--start-at",
        &start_at.to_string(),
    ]
    .map(String::from)
    .into();
    for t in targets {
        line.extend(["--target".to_string(), t.to_string()]);
    }
    if let Some(file) = &args.scenario {
        line.extend(["--scenario".to_string(), file.display().to_string()]);
    }
    if args.peer {
        line.push("--peer".to_string());
    }
    line.extend(args.keys.args());
    line
}

/// One shard's side of `--shards`: drives its share of the clients from `--start-at`,
/// writing its progress each second and its samples at the end as JSON lines.
async fn drive_shard(args: &LoadArgs, index: usize, scenario: Scenario) -> ExitCode {
    let shard = Shard {
        index,
        count: usize::from(args.shards),
    };
    if index >= shard.count {
        eprintln!("vex load: shard {index} of {} does not exist", shard.count);
        return error();
    }
    let clients = shard.clients(args.clients, usize::from(args.group)).len();
    if let Err(why) = enough_descriptors(driver_descriptors(clients, args.peer) + FDS_SPARE) {
        eprintln!("vex load: shard {index}: {why}");
        return error();
    }
    let plan = plan(args, args.target.clone(), scenario, shard);
    let start = args
        .start_at
        .map_or_else(tokio::time::Instant::now, start_instant);
    let tally = Arc::new(Tally::default());
    let running = tokio::spawn(run(plan, start, tally.clone()));
    let mut meter = ProcessMeter::this_process();
    let warm_at = start + warm_after(args);
    let mut warmed = false;
    let mut ticks = tokio::time::interval(Duration::from_secs(1));
    while !running.is_finished() {
        ticks.tick().await;
        meter.sample();
        if !warmed && tokio::time::Instant::now() >= warm_at {
            warmed = true;
            meter.warmed_up();
        }
        let (joins, violations) = tally.read(|s| (s.joins, s.violation_count()));
        write_line(&ShardLine::Progress { joins, violations });
    }
    if let Err(e) = running.await {
        let line = format!("shard {index}: the run failed: {e}");
        tally.add(|s| s.failures.push(line));
    }
    meter.sample();
    write_line(&end_line(&tally.take(), meter.usage()));
    ExitCode::SUCCESS
}

/// The descriptors a process driving `clients` holds for them: two links each, and with
/// `peer` a UDP socket too.
fn driver_descriptors(clients: usize, peer: bool) -> u64 {
    clients as u64 * (FDS_PER_CLIENT + u64::from(peer))
}

/// When the warm-up of `args`'s run ends, after its start: the memory read then is the one
/// the end is compared with.
fn warm_after(args: &LoadArgs) -> Duration {
    (args.ramp + SETTLE).min(args.duration / 3)
}

/// The descriptors a process of `args`'s run needs at most: a shard's two a client (three
/// with `--peer`), or a host process's share of every client's two links.
fn descriptors_needed(args: &LoadArgs) -> u64 {
    let count = usize::from(args.shards);
    let group = usize::from(args.group);
    let largest_shard = (0..count)
        .map(|index| Shard { index, count }.clients(args.clients, group).len())
        .max()
        .unwrap_or(0);
    let generator = driver_descriptors(largest_shard, args.peer);
    let host = if args.target.is_empty() {
        args.clients as u64 * FDS_PER_CLIENT / u64::from(args.processes)
    } else {
        0
    };
    generator.max(host) + FDS_SPARE
}

/// Raises this process's file-descriptor limit to its hard limit (a host or shard started
/// here inherits it), and says so when that is still fewer than `needed`.
fn enough_descriptors(needed: u64) -> Result<(), String> {
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).map_err(|e| e.to_string())?;
    if soft < hard {
        setrlimit(Resource::RLIMIT_NOFILE, hard, hard).map_err(|e| e.to_string())?;
    }
    if hard < needed {
        return Err(format!(
            "a process of this run needs {needed} open files, and may have {hard} (raise it \
             with `ulimit -n {needed}`, or share the clients out with --shards and the host \
             with --processes)"
        ));
    }
    Ok(())
}

/// The built-in host for `args`'s run, as `--processes` processes on free loopback ports,
/// each with room for the links of every client: their addresses, the processes, and the
/// folder of the database they share when there are several and no `--database` is given
/// (removed when dropped).
async fn start_hosts(
    args: &LoadArgs,
) -> Result<
    (
        Vec<SocketAddrV4>,
        Vec<(SocketAddrV4, Spawned)>,
        Option<TempDir>,
    ),
    String,
> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let links =
        (args.clients as u64 * FDS_PER_CLIENT + FDS_SPARE).max(Limits::default().max_links as u64);
    let mut common = format!("--max-links {links}");
    if let Some(file) = &args.scenario {
        common.push_str(&format!(" --scenario '{}'", file.display()));
    }
    let (database, folder) = match (&args.database, args.processes) {
        (_, 1) => (None, None),
        (Some(url), _) => (Some(url.clone()), None),
        (None, _) => {
            let dir = TempDir::new().map_err(|e| format!("no folder for the database: {e}"))?;
            let file = dir.path().join("lobby.sqlite");
            (Some(format!("sqlite:{}", file.display())), Some(dir))
        }
    };
    if let Some(url) = database {
        common.push_str(&format!(" --shared --database '{url}'"));
    }
    let mut hosts = Vec::new();
    // one at a time: the first brings the shared database's schema up
    for _ in 0..args.processes {
        let port = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let target = SocketAddrV4::new(Ipv4Addr::LOCALHOST, port);
        let cmd = format!(
            "RUST_LOG=warn exec '{}' host --listen {target} {common}",
            exe.display()
        );
        hosts.push((target, Spawned::start(&cmd, target, None).await?));
    }
    let targets = hosts.iter().map(|(a, _)| *a).collect();
    Ok((targets, hosts, folder))
}

/// The progress bar on a terminal: seconds of the run, joins and violations so far, the
/// host's memory; hidden elsewhere and with `--quiet`.
fn progress(args: &LoadArgs) -> ProgressBar {
    if args.quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar =
        ProgressBar::with_draw_target(Some(args.duration.as_secs()), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{pos:>4}/{len} s [{bar:30}] {msg}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

fn print_json(figures: &LoadFigures) {
    let mut object = serde_json::Map::new();
    for (name, value) in figures.named() {
        object.insert(name, serde_json::json!(value));
    }
    let processes: Vec<serde_json::Value> = figures
        .processes()
        .into_iter()
        .map(|(address, samples, usage)| {
            let join = samples.join.percentiles();
            let mut row = serde_json::json!({
                "address": address.to_string(),
                "lives": samples.lives,
                "joins": samples.joins,
                "join_p50_ms": join.p50_ms,
                "join_p99_ms": join.p99_ms,
            });
            if let (Some(u), Some(row)) = (usage, row.as_object_mut()) {
                row.insert("cpu_s".into(), serde_json::json!(u.cpu_s));
                row.insert(
                    "cpu_percent".into(),
                    serde_json::json!(figures.cpu_percent(u)),
                );
                row.insert("rss_end_mib".into(), serde_json::json!(u.rss_end_mib));
                row.insert("rss_max_mib".into(), serde_json::json!(u.rss_max_mib));
            }
            row
        })
        .collect();
    object.insert("processes".into(), processes.into());
    let by_rule: serde_json::Map<String, serde_json::Value> = figures
        .samples
        .violations
        .iter()
        .map(|(rule, n)| (rule.id().to_string(), serde_json::json!(n)))
        .collect();
    object.insert("violations_by_rule".into(), by_rule.into());
    object.insert(
        "violation_examples".into(),
        serde_json::json!(
            figures
                .samples
                .examples
                .iter()
                .map(|(_, line)| line)
                .collect::<Vec<_>>()
        ),
    );
    object.insert(
        "failures".into(),
        serde_json::json!(figures.samples.failures),
    );
    out!("{}", serde_json::Value::Object(object));
}

fn print_text(figures: &LoadFigures, targets: &[SocketAddrV4], local: bool) {
    let s = &figures.samples;
    let whose = if local { " (the built-in host)" } else { "" };
    let targets: Vec<String> = targets.iter().map(ToString::to_string).collect();
    out!(
        "{} clients for {:.0} s against {}{whose}",
        figures.clients,
        figures.duration_s,
        targets.join(", ")
    );
    out!(
        "lives {}  joins {} ({:.1}/s)  frames sent {}  received {}",
        s.lives,
        s.joins,
        figures.joins_per_s(),
        s.frames_sent,
        s.frames_received
    );
    if s.peer_associated > 0 || s.latency.contains_key("association") {
        out!(
            "peer transport: {} associations opened, {} lives ended in the group session",
            s.peer_associated,
            s.peer_in_group_session
        );
    }
    out!(
        "{:<18} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "latency (ms)",
        "count",
        "p50",
        "p99",
        "p99.9",
        "max"
    );
    for (name, p) in s.series() {
        out!(
            "{name:<18} {:>8} {:>9.2} {:>9.2} {:>9.2} {:>9.2}",
            p.count,
            p.p50_ms,
            p.p99_ms,
            p.p999_ms,
            p.max_ms
        );
    }
    if figures.generator_late() {
        let late = s.client_timer_late.percentiles().p99_ms;
        out!(
            "the load generator could not keep up: its timers fired {late:.0} ms late at p99 \
             (over {GENERATOR_LATE_MS:.0}), so a finding on a deadline may be its own; run \
             fewer clients, a longer --ramp, or the clients on more cores (--shards)"
        );
    }
    if s.violations.is_empty() {
        out!("violations: none");
    } else {
        let by_rule: Vec<String> = s
            .violations
            .iter()
            .map(|(r, n)| format!("{} {n}", r.id()))
            .collect();
        out!("violations: {}", by_rule.join(", "));
        for (_, line) in &s.examples {
            out!("  {line}");
        }
    }
    print_processes(figures);
    let generator = match figures.generator_processes {
        1 => "load generator".to_string(),
        n => format!("load generator ({n} processes)"),
    };
    let uses = figures
        .host
        .map(|h| ("host (every process)".to_string(), h))
        .into_iter()
        .chain([(generator, figures.generator)]);
    for (who, u) in uses {
        out!(
            "{who}: cpu {:.1} s ({:.0}% of one core), memory {:.1} MiB after warm-up, {:.1} at the end, {:.1} at most",
            u.cpu_s,
            figures.cpu_percent(u),
            u.rss_warm_mib,
            u.rss_end_mib,
            u.rss_max_mib
        );
    }
    out!(
        "the load generator drives {:.0} clients per core at this load",
        figures.generator_clients_per_core()
    );
    print_machine(figures);
}

/// The rest of the machine: the CPU time of everything the run did not measure, and the
/// hypervisor's, which a run's latencies include (`load_machine`).
fn print_machine(figures: &LoadFigures) {
    let (Some(m), Some(rest)) = (figures.machine, figures.machine_rest_cpu_s()) else {
        return;
    };
    let not_measured = if figures.host.is_some() {
        "other programs, and a database server if the host uses one"
    } else {
        "other programs, a host on this machine among them"
    };
    out!(
        "the rest of the machine ({} cores): cpu {rest:.1} s ({:.0}% of one core; {not_measured}); taken by the hypervisor {:.1} s ({:.1}%, {:.0}% in the worst second)",
        m.cores,
        figures.share_of_core(rest),
        m.steal_cpu_s,
        figures.share_of_core(m.steal_cpu_s),
        m.steal_peak_percent
    );
    if figures.machine_busy() {
        out!(
            "the machine was busy beside the run (over {MACHINE_BUSY_PERCENT:.0}% of one core \
             went to the rest of it or to the hypervisor), so a slow step may be the \
             machine's as much as the host's: run it again on a quieter machine"
        );
    }
}

/// The per-process table, when the lives went to more than one process or several were
/// measured: lives sent there, joins, the route's latency, and the process's use.
fn print_processes(figures: &LoadFigures) {
    let rows = figures.processes();
    if rows.len() < 2 {
        return;
    }
    out!(
        "{:<22} {:>7} {:>7} {:>10} {:>10} {:>7} {:>11}",
        "host process",
        "lives",
        "joins",
        "join p50",
        "join p99",
        "cpu %",
        "memory MiB"
    );
    for (address, samples, usage) in rows {
        let join = samples.join.percentiles();
        let (cpu, memory) = usage.map_or(("-".to_string(), "-".to_string()), |u| {
            (
                format!("{:.0}", figures.cpu_percent(u)),
                format!("{:.1}", u.rss_end_mib),
            )
        });
        out!(
            "{:<22} {:>7} {:>7} {:>10.2} {:>10.2} {cpu:>7} {memory:>11}",
            address.to_string(),
            samples.lives,
            samples.joins,
            join.p50_ms,
            join.p99_ms
        );
    }
}
