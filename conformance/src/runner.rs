//! Runs the catalog on a transport: in-process against our host, or over TCP against any.

use crate::case::{Case, HostUnderTest, Verdict};
use std::net::SocketAddrV4;
use std::time::{Duration, Instant};
use vex_fake_client::Violation;
use vex_harness::{RunReport, in_process, tcp};
use vex_host::{FaultPlan, HostConfig};
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::scenario::Scenario;

/// Where the host under test is.
#[derive(Debug, Clone, Copy)]
pub enum Transport {
    /// Our host, in-process, with a virtual clock.
    InProcess,
    /// Any host, over TCP, in real time.
    Tcp(SocketAddrV4),
}

/// One case's result.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The case.
    pub case: Case,
    /// The verdict.
    pub verdict: Verdict,
    /// The violations the run reported.
    pub violations: Vec<Violation>,
    /// Wall-clock time the case took.
    pub duration: Duration,
    /// The run, when the case ran.
    pub run: Option<RunReport>,
}

impl CaseResult {
    /// The rules its violations name, each once, in the order they were first reported.
    pub fn violated(&self) -> Vec<&'static str> {
        let mut ids: Vec<&'static str> = Vec::new();
        for v in &self.violations {
            if !ids.contains(&v.rule.id()) {
                ids.push(v.rule.id());
            }
        }
        ids
    }
}

/// The in-process host's listener address, as service 17 advertises it.
const IN_PROCESS_HOST: SocketAddrV4 = SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, 30974);

/// How a catalog runs.
#[derive(Debug, Clone, Copy)]
pub struct CheckOptions {
    /// SignOn success fields 2 and 3, for the hello.
    pub keys: SignOnKeys,
    /// Host duties fail a clean run too (`vex check --strict`).
    pub strict: bool,
    /// The scenario host and clients hold, when not the built-in one (`vex check
    /// --scenario`).
    pub scenario: Option<&'static Scenario>,
}

impl CheckOptions {
    /// The scenario the run uses.
    fn scenario(&self) -> Scenario {
        self.scenario.cloned().unwrap_or_else(Scenario::builtin)
    }
}

impl CheckOptions {
    /// The development keys, strict: what the tests use against our own host.
    pub const STRICT_DEVELOPMENT: CheckOptions = CheckOptions {
        keys: SignOnKeys::DEVELOPMENT,
        strict: true,
        scenario: None,
    };

    /// The development keys, not strict: what `vex check` does by default.
    pub const DEVELOPMENT: CheckOptions = CheckOptions {
        keys: SignOnKeys::DEVELOPMENT,
        strict: false,
        scenario: None,
    };
}

/// Runs one case against our host in-process, with a virtual clock: told to break its
/// rule when the case needs that.
pub fn run_in_process(case: &Case, options: CheckOptions) -> CaseResult {
    let faults = match case.host {
        HostUnderTest::Faulty(f) => FaultPlan::single(f),
        HostUnderTest::Any => FaultPlan::default(),
    };
    run_in_process_against(case, faults, options)
}

/// Runs one case in-process against our host committing `faults`.
pub fn run_in_process_against(case: &Case, faults: FaultPlan, options: CheckOptions) -> CaseResult {
    let keys = options.keys;
    let started = Instant::now();
    let mut config = HostConfig::builtin(IN_PROCESS_HOST);
    config.signon = keys;
    config.scenario = options.scenario();
    config.faults = faults;
    let clients = case.clients_of(IN_PROCESS_HOST, keys, &config.scenario);
    let reports = in_process::run_members(config, clients, case.run_for_ms);
    result(case, merged(reports), started, options.strict)
}

/// Runs one case on `transport`.
pub async fn run_case(case: &Case, transport: Transport, options: CheckOptions) -> CaseResult {
    let started = Instant::now();
    let keys = options.keys;
    let run = match (transport, case.host) {
        (Transport::InProcess, _) => return run_in_process(case, options),
        (Transport::Tcp(target), HostUnderTest::Any) => {
            let run_for = Duration::from_millis(case.run_for_ms);
            let clients = case.clients_of(target, keys, &options.scenario());
            merged(tcp::run_members(clients, run_for).await)
        }
        (Transport::Tcp(_), HostUnderTest::Faulty(_)) => None,
    };
    result(case, run, started, options.strict)
}

/// One report of the members' runs, member 1's first (`RunReport::with_members`).
fn merged(mut reports: Vec<RunReport>) -> Option<RunReport> {
    let others = reports.split_off(1.min(reports.len()));
    let first = reports.pop()?;
    Some(if others.is_empty() {
        first
    } else {
        first.with_members(others)
    })
}

fn result(case: &Case, run: Option<RunReport>, started: Instant, strict: bool) -> CaseResult {
    let verdict = match &run {
        Some(r) => case.expect.judge(r, strict, &case.rules),
        None => Verdict::Skip {
            reason: "they need our in-process host told to break a rule".into(),
        },
    };
    CaseResult {
        case: case.clone(),
        verdict,
        violations: run
            .as_ref()
            .map(|r| r.violations.clone())
            .unwrap_or_default(),
        duration: started.elapsed(),
        run,
    }
}
