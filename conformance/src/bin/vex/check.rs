//! `vex check`: the conformance catalog against the built-in host in-process, or against
//! any host over TCP, with progress, expected results and reports.

use crate::progress::Progress;
use crate::spawn::Spawned;
use crate::{Keys, error, load_scenario};
use std::collections::BTreeMap;
use std::net::SocketAddrV4;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;
use vex_conformance::expect::{self, Expected};
use vex_conformance::html;
use vex_conformance::{
    Case, CaseResult, CheckOptions, HostUnderTest, Transport, Verdict, catalog, report, run_case,
    run_in_process, run_like,
};
use vex_faults::like::Like;

/// The documented host named `name` (`--like`).
pub fn parse_like(name: &str) -> Result<Like, String> {
    Like::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Like::ALL.iter().map(|l| l.name()).collect();
        format!("no documented host {name:?}; there is {}", names.join(", "))
    })
}

/// TCP cases run at once unless `--jobs` says otherwise.
const TCP_JOBS: usize = 8;

/// `vex check`'s arguments.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// A host to check over TCP; without it, the built-in host runs in-process.
    #[arg(long)]
    target: Option<SocketAddrV4>,
    /// Run the cases that judge any host against our host behaving as a documented host
    /// does where it departs from the pages (`sunrise`: each departure as the facts sheet
    /// records it); the other cases are skipped. The report is what Vex says of that host.
    #[arg(long, value_name = "HOST", value_parser = parse_like, conflicts_with = "target")]
    like: Option<Like>,
    /// Start the host under test with this shell command, wait until it listens at
    /// `--target`, and stop it after the run.
    #[arg(long, value_name = "CMD", requires = "target")]
    spawn: Option<String>,
    /// Keep everything the `--spawn` host writes (both streams) in this file.
    #[arg(long, value_name = "FILE", requires = "spawn")]
    spawn_log: Option<PathBuf>,
    /// Only cases whose id contains this (repeat it for several); a filter that matches
    /// no case is an error.
    #[arg(long)]
    filter: Vec<String>,
    /// List the cases (id, the host each needs, the rules it names) and exit.
    #[arg(long)]
    list: bool,
    /// Cases run at once (default: 8 over TCP, one per core in-process).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Also write a JUnit XML report here; a failure carries its violations.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Write each case's transcript into this folder.
    #[arg(long)]
    transcripts: Option<PathBuf>,
    /// Write the run as a web page, `DIR/index.html`: each case's frames as a sequence
    /// diagram, violations on the frame that caused them, a frame's decode on click.
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// The cases this host is known to fail, one id a line: their failures are expected,
    /// and a listed case that passes fails the run; `waive RULE reason` lines set a rule's
    /// findings apart (the report prints the reason), `strict RULE` lines make a rule's
    /// duties and advisory findings fail the run.
    #[arg(long, value_name = "FILE")]
    expect: Option<PathBuf>,
    /// Write the cases that failed in this run as an expected-results file.
    #[arg(long, value_name = "FILE")]
    write_expect: Option<PathBuf>,
    /// Fail a clean run on host duties too (ENV-10, JOIN-02, SLOTS-02, LINK-03), and on
    /// advisory findings, which rest on a layout, number or deadline Vex chose where the
    /// pages and the facts are silent (`vex rules --choices` lists them).
    #[arg(long)]
    strict: bool,
    /// No progress on standard error.
    #[arg(long)]
    quiet: bool,
    /// The scenario the host serves and the emulated client's packages hold, a TOML
    /// file (default: the built-in one).
    #[arg(long)]
    scenario: Option<PathBuf>,
    #[command(flatten)]
    keys: Keys,
    /// Sign every case's client on at the host's SignOn first (needs `--target`).
    #[command(flatten)]
    signon: crate::signon_args::SignOnArgs,
}

/// Runs the check: 0 when every case passed (or failed as expected), 1 on a failure, 2
/// when the command itself cannot do its work.
pub async fn run(args: CheckArgs) -> ExitCode {
    crate::init_logs("error");
    let cases: Vec<Case> = catalog()
        .into_iter()
        .filter(|c| args.filter.is_empty() || args.filter.iter().any(|f| c.id.contains(f)))
        .collect();
    if let Some(f) = args
        .filter
        .iter()
        .find(|f| !cases.iter().any(|c| c.id.contains(f.as_str())))
    {
        eprintln!("vex check: no case id contains {f:?}; `vex check --list` shows them");
        return error();
    }
    if args.list {
        list(&cases);
        return ExitCode::SUCCESS;
    }
    let expected = match args.expect.as_deref().map(read_expected).transpose() {
        Ok(e) => e.unwrap_or_default(),
        Err(code) => return code,
    };
    let scenario = match load_scenario(args.scenario.as_deref()) {
        // one scenario for the whole run, shared by every case
        Ok(s) => s.map(|s| &*Box::leak(Box::new(s))),
        Err(code) => return code,
    };
    let steam_id = scenario.map_or(vex_wire::scenario::Player::STEAM_ID, |s| s.player.steam_id);
    let signon = match args.signon.target(steam_id) {
        Ok(t) => t.map(|t| &*Box::leak(Box::new(t))),
        Err(why) => {
            eprintln!("vex check: --signon: {why}");
            return error();
        }
    };
    if signon.is_some() && args.target.is_none() {
        eprintln!("vex check: --signon needs --target: in-process, our host's own SignOn runs");
        return error();
    }
    let mut options = CheckOptions {
        keys: args.keys.keys(),
        host_pid: None,
        gate: Box::leak(Box::new(expected.gate(args.strict))),
        scenario,
        signon,
    };
    let transport = match (args.target, args.like) {
        (Some(target), _) => Transport::Tcp(target),
        (None, Some(like)) => Transport::Like(like),
        (None, None) => Transport::InProcess,
    };
    let mut spawned = match (&args.spawn, args.target) {
        (Some(cmd), Some(target)) => {
            match Spawned::start(cmd, target, args.spawn_log.as_deref()).await {
                Ok(host) => Some(host),
                Err(why) => {
                    eprintln!("vex check: --spawn {cmd:?}: {why}");
                    return error();
                }
            }
        }
        _ => None,
    };
    options.host_pid = spawned.as_ref().and_then(Spawned::pid);
    if let Some(target) = args.target
        && let Err(e) = vex_harness::tcp::reachable(target).await
    {
        eprintln!("vex check: cannot reach a host at {target}: {e}");
        return error();
    }
    if let Some(at) = signon {
        let reached = match spawned.as_mut() {
            Some(host) => host.wait_until_signon(&at.url).await,
            None => vex_harness::signon::reachable(&at.url).await,
        };
        if let Err(e) = reached {
            eprintln!("vex check: cannot reach SignOn: {e}");
            return error();
        }
    }
    let jobs = args
        .jobs
        .map_or_else(|| default_jobs(transport), usize::from);
    let mut results = run_all(cases, transport, options, jobs, args.quiet).await;
    if let Some(host) = spawned.as_mut()
        && let Some(status) = host.exited()
    {
        eprintln!(
            "vex check: the host --spawn started exited ({status}) during the run{}",
            host.tail()
        );
    }
    expected.apply(&mut results);
    write_reports(&args, &results)
}

/// The expected results in `path`; a file that cannot be read or names an unknown case is
/// an error.
fn read_expected(path: &Path) -> Result<Expected, ExitCode> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        eprintln!("vex check: {}: {e}", path.display());
        error()
    })?;
    let all = catalog();
    Expected::parse(&text, all.iter().map(|c| c.id.as_str())).map_err(|e| {
        eprintln!("vex check: {}: {e}", path.display());
        error()
    })
}

fn default_jobs(transport: Transport) -> usize {
    match transport {
        Transport::Tcp(_) => TCP_JOBS,
        Transport::InProcess | Transport::Like(_) => {
            std::thread::available_parallelism().map_or(1, usize::from)
        }
    }
}

fn list(cases: &[Case]) {
    let width = cases.iter().map(|c| c.id.len()).max().unwrap_or(0);
    for c in cases {
        let host = match c.host {
            HostUnderTest::Any => "any host".to_string(),
            HostUnderTest::Faulty(f) => format!("our host with --fault {f:?}"),
            HostUnderTest::Legal(v) => format!("our host taking the freedom {v:?}"),
            HostUnderTest::Mission(m, _) => format!("our host with --mission missions/{m}"),
            HostUnderTest::Link(f) => format!("any host, member 1's link with {f}"),
            HostUnderTest::Hostile(h) => format!("any host, under {}", h.name()),
            HostUnderTest::Datagrams(f) => format!("any host, member 1's datagrams with {f}"),
        };
        out!(
            "{:<width$}  {:<48}  {}",
            c.id,
            host,
            c.rule_ids().join(", ")
        );
    }
}

/// Runs `cases`, `jobs` at a time, showing progress; the results come back in the
/// catalog's order.
async fn run_all(
    cases: Vec<Case>,
    transport: Transport,
    options: CheckOptions,
    jobs: usize,
    quiet: bool,
) -> Vec<CaseResult> {
    let real_time = matches!(transport, Transport::Tcp(_));
    let mut progress = Progress::new(cases.len(), quiet, real_time);
    let permits = Arc::new(Semaphore::new(jobs));
    // attacks over TCP run one at a time (`runner::run_case`), in a job of their own
    // beside the others, and start first, their chain being the longest
    let attacks = Arc::new(Semaphore::new(1));
    let is_attack = |c: &Case| matches!(c.host, HostUnderTest::Hostile(_)) && real_time;
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.sort_by_key(|&i| !is_attack(&cases[i]));
    let (started_tx, mut started_rx) = mpsc::unbounded_channel::<String>();
    let mut set = JoinSet::new();
    let mut index_of = BTreeMap::new();
    for i in order {
        let case = cases[i].clone();
        let (permits, started) = (permits.clone(), started_tx.clone());
        let attack = is_attack(&case);
        let attacks = attacks.clone();
        let handle = set.spawn(async move {
            let _permit = match attack {
                true => attacks.acquire_owned().await,
                false => permits.acquire_owned().await,
            };
            let _ = started.send(case.id.clone());
            let result = match transport {
                Transport::InProcess => {
                    tokio::task::spawn_blocking(move || run_in_process(&case, options)).await
                }
                Transport::Like(like) => {
                    tokio::task::spawn_blocking(move || run_like(&case, like, options)).await
                }
                Transport::Tcp(_) => Ok(run_case(&case, transport, options).await),
            };
            (i, result)
        });
        index_of.insert(handle.id(), i);
    }
    drop(started_tx);
    let mut results: Vec<Option<CaseResult>> = vec![None; cases.len()];
    loop {
        tokio::select! {
            Some(id) = started_rx.recv() => progress.started(&id),
            joined = set.join_next_with_id() => {
                let Some(joined) = joined else { break };
                let (i, result) = match joined {
                    Ok((_, (i, Ok(r)))) => (i, r),
                    Ok((_, (i, Err(e)))) => (i, broken(&cases[i], &e.to_string())),
                    Err(e) => {
                        let i = index_of.get(&e.id()).copied().unwrap_or_default();
                        (i, broken(&cases[i], &e.to_string()))
                    }
                };
                progress.finished(&result);
                results[i] = Some(result);
            }
        }
    }
    progress.finish();
    results.into_iter().flatten().collect()
}

/// The result of a case whose run failed inside Vex itself: a failure that says so.
fn broken(case: &Case, why: &str) -> CaseResult {
    CaseResult {
        case: case.clone(),
        verdict: Verdict::Fail {
            expected: "the case runs to its end".into(),
            actual: format!("Vex itself failed while running it: {why}"),
        },
        violations: Vec::new(),
        duration: Duration::ZERO,
        run: None,
        measured: None,
        gate: &vex_conformance::gate::DEFAULT,
    }
}

/// Writes transcripts, the report and the files asked for; the exit code of the run.
fn write_reports(args: &CheckArgs, results: &[CaseResult]) -> ExitCode {
    let mut io_failed = false;
    let mut write = |path: &Path, text: String| {
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("vex check: cannot write {}: {e}", path.display());
            io_failed = true;
        }
    };
    if let Some(dir) = &args.transcripts {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("vex check: cannot create {}: {e}", dir.display());
            return error();
        }
        for r in results {
            if let Some(run) = &r.run {
                write(
                    &dir.join(format!("{}.txt", r.case.id)),
                    run.transcript.to_text(),
                );
            }
        }
    }
    if args.json {
        out!("{}", report::json(results));
    } else {
        out_raw!("{}", report::text(results));
    }
    if let Some(dir) = &args.html {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("vex check: cannot create {}: {e}", dir.display());
            return error();
        }
        write(&dir.join("index.html"), html::page(results));
    }
    if let Some(path) = &args.junit {
        write(path, report::junit(results));
    }
    if let Some(path) = &args.write_expect {
        write(path, expect::write(results));
    }
    let totals = report::totals(results);
    if totals.skipped == results.len() {
        eprintln!("vex check: every case selected was skipped: nothing was checked");
        return error();
    }
    if io_failed {
        error()
    } else if totals.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
