//! `vex load`: many emulated clients against one host, with a progress bar, and at the end
//! joins per second, latency percentiles per message, keepalive jitter, violations by rule,
//! and what the host (when local) and the load generator used (issue "Under load and
//! faults": load).

use crate::spawn::Spawned;
use crate::{Keys, error, load_scenario};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nix::sys::resource::{Resource, getrlimit, setrlimit};
use std::io::IsTerminal;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use vex_harness::load::{LoadPlan, run};
use vex_harness::load_figures::{LoadFigures, Samples, Tally};
use vex_harness::load_process::ProcessMeter;
use vex_host::Limits;
use vex_wire::scenario::Scenario;

/// How long after the ramp the memory settles before it is the warm figure.
const SETTLE: Duration = Duration::from_secs(30);
/// File descriptors each client holds (its lobby and activity links), and the process's
/// own besides.
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
    /// The host to load; default: the built-in host, started on a free loopback port.
    #[arg(long)]
    target: Option<SocketAddrV4>,
    /// The scenario the clients' packages hold (and the built-in host serves).
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// Print the figures as one JSON object, each named with its unit.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    keys: Keys,
}

/// Runs the load; exit 1 when a client reported a violation, 2 when the run could not be
/// made.
pub async fn load(args: LoadArgs) -> ExitCode {
    let scenario = match load_scenario(args.scenario.as_deref()) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Err(why) = enough_descriptors(args.clients) {
        eprintln!("vex load: {why}");
        return error();
    }
    let (target, mut host) = match args.target {
        Some(t) => match vex_harness::tcp::reachable(t).await {
            Ok(()) => (t, None),
            Err(e) => {
                eprintln!("vex load: cannot reach the host at {t}: {e}");
                return error();
            }
        },
        None => match start_host(args.scenario.as_ref(), args.clients).await {
            Ok((t, h)) => (t, Some(h)),
            Err(why) => {
                eprintln!("vex load: the built-in host did not start: {why}");
                return error();
            }
        },
    };
    let plan = LoadPlan {
        target,
        clients: args.clients,
        duration: args.duration,
        ramp: args.ramp,
        group: usize::from(args.group),
        scenario: scenario.unwrap_or_else(Scenario::builtin),
        signon: args.keys.keys(),
    };
    let mut host_meter = host.as_ref().and_then(Spawned::pid).map(ProcessMeter::new);
    let mut own_meter = ProcessMeter::this_process();
    let tally = Arc::new(Tally::default());
    let bar = progress(&args);
    // elsewhere than a terminal, as in a CI log: a line now and then
    let lines = bar.is_hidden() && !args.quiet;
    let mut next_line = LINE_EVERY_S;
    let warm_at = (args.ramp + SETTLE).min(args.duration / 3);
    let started = tokio::time::Instant::now();
    let running = tokio::spawn(run(plan, tally.clone()));
    let mut ticks = tokio::time::interval(Duration::from_secs(1));
    let mut warmed = false;
    while !running.is_finished() {
        ticks.tick().await;
        own_meter.sample();
        let host_alive = host_meter.as_mut().is_none_or(ProcessMeter::sample);
        if !warmed && started.elapsed() >= warm_at {
            warmed = true;
            own_meter.warmed_up();
            host_meter.iter_mut().for_each(ProcessMeter::warmed_up);
        }
        let host_mib = host_meter.as_ref().map(|m| m.usage().rss_end_mib);
        let seconds = started.elapsed().as_secs();
        let (joins, violations) = tally.read(|s| (s.joins, s.violation_count()));
        let status = format!(
            "joins {joins}  violations {violations}{}{}",
            host_mib.map_or(String::new(), |m| format!("  host {m:.1} MiB")),
            if host_alive {
                ""
            } else {
                "  (the host exited)"
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
    if let Err(e) = running.await {
        eprintln!("vex load: the run failed: {e}");
        return error();
    }
    let samples: Samples = tally.take();
    own_meter.sample();
    let figures = LoadFigures {
        clients: args.clients,
        duration_s: started.elapsed().as_secs_f64(),
        samples,
        host: host_meter.map(|m| m.usage()),
        generator: own_meter.usage(),
    };
    if args.json {
        print_json(&figures);
    } else {
        print_text(&figures, target, host.is_some());
    }
    let exited = host.as_mut().and_then(Spawned::exited);
    if let (Some(status), Some(h)) = (exited, &host) {
        out!(
            "the built-in host exited during the run ({status}){}",
            h.tail()
        );
    }
    for failure in &figures.samples.failures {
        out!("vex load: {failure}");
    }
    if !figures.samples.failures.is_empty() {
        ExitCode::from(2)
    } else if figures.samples.violation_count() > 0 || exited.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Raises this process's file-descriptor limit to its hard limit (a host started here
/// inherits it), and says so when that is still too few for `clients`.
fn enough_descriptors(clients: usize) -> Result<(), String> {
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).map_err(|e| e.to_string())?;
    if soft < hard {
        setrlimit(Resource::RLIMIT_NOFILE, hard, hard).map_err(|e| e.to_string())?;
    }
    let needed = clients as u64 * FDS_PER_CLIENT + FDS_SPARE;
    if hard < needed {
        return Err(format!(
            "{clients} clients need {needed} open files, and this process may have {hard} \
             (raise it with `ulimit -n {needed}`)"
        ));
    }
    Ok(())
}

/// Starts `vex host` on a free loopback port, logging warnings only, with room for the
/// links of `clients`.
async fn start_host(
    scenario: Option<&PathBuf>,
    clients: usize,
) -> Result<(SocketAddrV4, Spawned), String> {
    let port = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("no free port: {e}"))?
        .port();
    let target = SocketAddrV4::new(Ipv4Addr::LOCALHOST, port);
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let links =
        (clients as u64 * FDS_PER_CLIENT + FDS_SPARE).max(Limits::default().max_links as u64);
    let mut cmd = format!(
        "RUST_LOG=warn exec '{}' host --listen {target} --max-links {links}",
        exe.display()
    );
    if let Some(file) = scenario {
        cmd.push_str(&format!(" --scenario '{}'", file.display()));
    }
    Ok((target, Spawned::start(&cmd, target).await?))
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
    let by_rule: serde_json::Map<String, serde_json::Value> = figures
        .samples
        .violations
        .iter()
        .map(|(rule, n)| (rule.id().to_string(), serde_json::json!(n)))
        .collect();
    object.insert("violations_by_rule".into(), by_rule.into());
    object.insert(
        "violation_examples".into(),
        serde_json::json!(figures.samples.examples),
    );
    object.insert(
        "failures".into(),
        serde_json::json!(figures.samples.failures),
    );
    out!("{}", serde_json::Value::Object(object));
}

fn print_text(figures: &LoadFigures, target: SocketAddrV4, local: bool) {
    let s = &figures.samples;
    let whose = if local { " (the built-in host)" } else { "" };
    out!(
        "{} clients for {:.0} s against {target}{whose}",
        figures.clients,
        figures.duration_s
    );
    out!(
        "lives {}  joins {} ({:.1}/s)  frames sent {}  received {}",
        s.lives,
        s.joins,
        figures.joins_per_s(),
        s.frames_sent,
        s.frames_received
    );
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
    if s.violations.is_empty() {
        out!("violations: none");
    } else {
        let by_rule: Vec<String> = s
            .violations
            .iter()
            .map(|(r, n)| format!("{} {n}", r.id()))
            .collect();
        out!("violations: {}", by_rule.join(", "));
        for line in &s.examples {
            out!("  {line}");
        }
    }
    let uses = figures
        .host
        .map(|h| ("host", h))
        .into_iter()
        .chain([("load generator", figures.generator)]);
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
}
