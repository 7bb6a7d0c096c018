//! Runs the catalog on a transport: in-process against our host, or over TCP against any.

use crate::case::{Case, HostUnderTest, Verdict};
use crate::gate::{self, Gate, Standing};
use crate::{network, signon_step};
use std::net::SocketAddrV4;
use std::time::{Duration, Instant};
use vex_fake_client::{ClientConfig, Violation};
use vex_faults::HostPlan;
use vex_faults::like::Like;
use vex_harness::datagram_fault::DatagramPath;
use vex_harness::hostile::Hostile;
use vex_harness::hostile_tcp;
use vex_harness::link_judge;
use vex_harness::link_proxy::SharedFault;
use vex_harness::signon::SignOnTarget;
use vex_harness::signon_record::SignedOn;
use vex_harness::tcp::InLine;
use vex_harness::{RunReport, in_process, tcp};
use vex_host::mission::MissionReport;
use vex_host::{Hooks, HostConfig, HostCore, HostEvent};
use vex_mission::RhaiMission;
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::scenario::Scenario;

/// Where the host under test is.
#[derive(Debug, Clone, Copy)]
pub enum Transport {
    /// Our host, in-process, with a virtual clock.
    InProcess,
    /// Our host in-process, behaving as a documented host does (`vex check --like`):
    /// the cases that run against any host run against it.
    Like(Like),
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
    /// What the case measured of the host beside its verdict (a hostile case over TCP:
    /// the bound the host enforced and when, and its memory), when it measured anything.
    pub measured: Option<String>,
    /// Which findings fail the case.
    pub gate: &'static Gate,
}

impl CaseResult {
    /// What finding `v` does to the case.
    pub fn standing(&self, v: &Violation) -> Standing<'static> {
        self.gate.standing(v, &self.case.rules)
    }

    /// Finding `v` as reports print it: rule, effect, frame, bit, reason and provenance,
    /// then why it does not fail the case when it does not.
    pub fn describe(&self, v: &Violation) -> String {
        match self.standing(v).label() {
            Some(label) => format!("{v} [{label}]"),
            None => v.to_string(),
        }
    }

    /// A pass becomes a failure when the case's own judge of the run, beside its
    /// expectation, found `judged` wrong (a fault's or an attack's judge).
    pub(crate) fn fail_unless(&mut self, judged: Result<(), String>) {
        if let (Err(actual), Verdict::Pass) = (judged, &self.verdict) {
            self.verdict = Verdict::Fail {
                expected: self.case.title.clone(),
                actual,
            };
        }
    }

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
pub(crate) const IN_PROCESS_HOST: SocketAddrV4 =
    SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, 30974);

/// How a catalog runs.
#[derive(Debug, Clone, Copy)]
pub struct CheckOptions {
    /// SignOn success fields 2 and 3, for the hello.
    pub keys: SignOnKeys,
    /// The host under test's process, when the run started it (`vex check --spawn`): a
    /// hostile case reports its memory before, during and after the attack.
    pub host_pid: Option<u32>,
    /// Which findings fail a case (`vex check --strict`, the expected results' `waive`
    /// and `strict` lines).
    pub gate: &'static Gate,
    /// The scenario host and clients hold, when not the built-in one (`vex check
    /// --scenario`).
    pub scenario: Option<&'static Scenario>,
    /// Where a host over TCP signs clients on (`vex check --signon`): each case signs on
    /// there first. Without it, a case that judges SignOn is skipped over TCP.
    pub signon: Option<&'static SignOnTarget>,
}

impl CheckOptions {
    /// The scenario the run uses.
    fn scenario(&self) -> Scenario {
        self.scenario.cloned().unwrap_or_else(Scenario::builtin)
    }

    /// Our host's configuration for an in-process run: these keys and this scenario.
    pub(crate) fn host_config(&self) -> HostConfig {
        let mut config = HostConfig::builtin(IN_PROCESS_HOST);
        config.signon = self.keys;
        config.scenario = self.scenario();
        config
    }
}

impl CheckOptions {
    /// The development keys, strict: what the tests use against our own host.
    pub const STRICT_DEVELOPMENT: CheckOptions = CheckOptions {
        keys: SignOnKeys::DEVELOPMENT,
        host_pid: None,
        gate: &gate::STRICT,
        scenario: None,
        signon: None,
    };

    /// The development keys, not strict: what `vex check` does by default.
    pub const DEVELOPMENT: CheckOptions = CheckOptions {
        keys: SignOnKeys::DEVELOPMENT,
        host_pid: None,
        gate: &gate::DEFAULT,
        scenario: None,
        signon: None,
    };
}

/// Runs one case against our host in-process, with a virtual clock: told to break its
/// rule when the case needs that.
pub fn run_in_process(case: &Case, options: CheckOptions) -> CaseResult {
    let faults = match case.host {
        HostUnderTest::Faulty(f) => HostPlan::single(f),
        HostUnderTest::Legal(v) => HostPlan::varying(v),
        HostUnderTest::Mission(name, runs) => return run_mission(case, name, runs, options),
        HostUnderTest::Any => HostPlan::default(),
        HostUnderTest::Link(fault) => return network::run_link(case, fault, options),
        HostUnderTest::Hostile(h) => return network::run_hostile(case, h, options),
        HostUnderTest::Datagrams(fault) => return network::run_datagrams(case, fault, options),
    };
    run_in_process_against(case, faults, options)
}

/// Runs one case in-process against our host running the shipped mission `name`: the
/// case's own judgement, and no handler may fail, no commit be refused, and each handler
/// of `runs` must run.
fn run_mission(case: &Case, name: &str, runs: &[&str], options: CheckOptions) -> CaseResult {
    match vex_mission::SHIPPED.iter().find(|(n, _)| *n == name) {
        Some((_, source)) => run_mission_source(case, name, source, runs, options),
        None => broken_mission(case, &format!("no shipped mission {name}"), Instant::now()),
    }
}

/// [`run_mission`] with the mission's text given.
fn run_mission_source(
    case: &Case,
    name: &str,
    source: &str,
    runs: &[&str],
    options: CheckOptions,
) -> CaseResult {
    let started = Instant::now();
    let mut config = options.host_config();
    config.timeline.clear();
    let mut clients = case.clients_of(IN_PROCESS_HOST, options.keys, &config.scenario);
    let signon = match signon_step::sign_on(&config, &mut clients) {
        Ok(signed_on) => Some(signed_on),
        Err(stopped) => return result(case, Some(*stopped), started, options.gate),
    };
    let host = match RhaiMission::compile(name, source) {
        Ok(mission) => HostCore::with_mission(config, Box::new(mission)),
        Err(e) => return broken_mission(case, &e.to_string(), started),
    };
    let run = in_process::run_host(host, clients, case.run_for_ms, Vec::new());
    let failure = run.events.iter().find_map(|(at, e)| match e {
        HostEvent::Mission(MissionReport::Failed { handler, error, .. }) => {
            Some(format!("at {} ms {handler} failed: {error}", at.millis()))
        }
        HostEvent::Refused { error, .. } => Some(format!(
            "at {} ms a commit was refused: {error}",
            at.millis()
        )),
        _ => None,
    });
    let ran: Vec<&str> = run
        .events
        .iter()
        .filter_map(|(_, e)| match e {
            HostEvent::Mission(MissionReport::Handled { handler, .. }) => Some(*handler),
            _ => None,
        })
        .collect();
    let missing: Vec<&str> = runs.iter().copied().filter(|h| !ran.contains(h)).collect();
    let failure = failure
        .or_else(|| (!missing.is_empty()).then(|| format!("{} never ran", missing.join(", "))));
    let mut result = result(case, after(signon, run.reports), started, options.gate);
    if let (Some(actual), Verdict::Pass) = (failure, &result.verdict) {
        result.verdict = Verdict::Fail {
            expected: format!(
                "no handler of {name} fails, no commit is refused, and {} run",
                runs.join(", ")
            ),
            actual,
        };
    }
    result
}

/// A case whose mission does not load.
fn broken_mission(case: &Case, why: &str, started: Instant) -> CaseResult {
    CaseResult {
        case: case.clone(),
        verdict: Verdict::Fail {
            expected: "the mission compiles".into(),
            actual: why.into(),
        },
        violations: Vec::new(),
        duration: started.elapsed(),
        run: None,
        measured: None,
        gate: &gate::DEFAULT,
    }
}

/// Runs one case in-process against our host committing `faults`.
pub fn run_in_process_against(case: &Case, faults: HostPlan, options: CheckOptions) -> CaseResult {
    let keys = options.keys;
    let started = Instant::now();
    let mut config = options.host_config();
    config.hooks = Hooks::new(faults);
    let mut clients = case.clients_of(IN_PROCESS_HOST, keys, &config.scenario);
    let run = match signon_step::sign_on(&config, &mut clients) {
        Ok(signon) => after(
            Some(signon),
            in_process::run_members(config, clients, case.run_for_ms),
        ),
        Err(stopped) => Some(*stopped),
    };
    result(case, run, started, options.gate)
}

/// The members' reports merged, SignOn's part first.
fn after(signon: Option<SignedOn>, reports: Vec<RunReport>) -> Option<RunReport> {
    let mut run = merged(reports)?;
    if let Some(signed_on) = signon {
        signed_on.before(&mut run);
    }
    Some(run)
}

/// Runs one case against our host in-process behaving `like` a documented host: a case
/// that judges any host runs, the others are skipped.
pub fn run_like(case: &Case, like: Like, options: CheckOptions) -> CaseResult {
    if case.host == HostUnderTest::Any {
        return run_in_process_against(case, like.plan(), options);
    }
    let why = format!(
        "they need our host as it is, not one behaving like {}",
        like.name()
    );
    skipped(case, &why, Instant::now())
}

/// Runs one case on `transport`.
pub async fn run_case(case: &Case, transport: Transport, options: CheckOptions) -> CaseResult {
    match (transport, case.host) {
        (Transport::InProcess, _) => run_in_process(case, options),
        (Transport::Like(like), _) => run_like(case, like, options),
        (
            Transport::Tcp(target),
            HostUnderTest::Any | HostUnderTest::Link(_) | HostUnderTest::Datagrams(_),
        ) => run_over_tcp(case, target, options).await,
        (Transport::Tcp(target), HostUnderTest::Hostile(h)) => {
            run_hostile_over_tcp(case, h, target, options).await
        }
        (
            Transport::Tcp(_),
            HostUnderTest::Faulty(_) | HostUnderTest::Legal(_) | HostUnderTest::Mission(..),
        ) => result(case, None, Instant::now(), options.gate),
    }
}

/// Runs one case's members against the host at `target` over TCP, signed on first when
/// `--signon` names where. A `link.*` case puts its fault in line on member 1's link (a
/// proxy of its own, [`vex_harness::link_proxy`]) and `udp.lossy` its path on member 1's
/// datagrams; each is then judged as its case says, after the fault fired.
async fn run_over_tcp(case: &Case, target: SocketAddrV4, options: CheckOptions) -> CaseResult {
    let started = Instant::now();
    let run_for = Duration::from_millis(case.run_for_ms);
    let (clients, signon) = match clients_over_tcp(case, target, started, options).await {
        Ok(signed_on) => signed_on,
        Err(stopped) => return *stopped,
    };
    let mut in_line = InLine::default();
    if let HostUnderTest::Link(fault) = case.host {
        in_line.link = Some(SharedFault::new(fault, 0));
    }
    if let HostUnderTest::Datagrams(fault) = case.host {
        in_line.datagrams = DatagramPath::new(fault);
    }
    let link = in_line.link.clone();
    let reports = tcp::run_members(clients, run_for, in_line).await;
    let judged = match (case.host, link) {
        (HostUnderTest::Link(fault), Some(link)) if !link.fired() => Err(format!(
            "{fault} never fired: the run ended before its frame came"
        )),
        (HostUnderTest::Link(fault), _) => link_judge::judge_members(fault, &reports),
        (HostUnderTest::Datagrams(_), _) => network::judge_lossy(&reports),
        _ => Ok(()),
    };
    let mut result = result(case, after(signon, reports), started, options.gate);
    result.fail_unless(judged);
    result
}

/// Runs a `hostile.*` case against the host at `target`: the attack over real sockets
/// ([`hostile_tcp::attack`]) beside the case's member, which must notice nothing (and, beside
/// an attack on the UDP port, open its own association after it). The datagrams aim at
/// the Activity Host the member was sent to, so a host whose activities live elsewhere
/// than its lobby is attacked where it listens, not passed for silence. The attack's finding is
/// the case's measure; an unbounded attack fails it.
async fn run_hostile_over_tcp(
    case: &Case,
    h: Hostile,
    target: SocketAddrV4,
    options: CheckOptions,
) -> CaseResult {
    // one attack at a time, so each one's figures, the host's memory among them, are its
    // own; the lock is fair, so attacks run in the order they asked
    static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _alone = ONE_AT_A_TIME.lock().await;
    let started = Instant::now();
    let run_for = Duration::from_millis(case.run_for_ms);
    let (clients, signon) = match clients_over_tcp(case, target, started, options).await {
        Ok(signed_on) => signed_on,
        Err(stopped) => return *stopped,
    };
    let (reached, activity_host) = tokio::sync::oneshot::channel();
    let aim = hostile_tcp::Aim {
        target,
        activity_host,
    };
    let attack = hostile_tcp::attack(
        h,
        aim,
        tokio::time::Instant::now(),
        run_for,
        options.host_pid,
    );
    // an attack's case has one member
    let member = async {
        match clients.into_iter().next() {
            Some(client) => vec![tcp::run_reaching(client, run_for, reached).await],
            None => Vec::new(),
        }
    };
    let (reports, attacked) = tokio::join!(member, attack);
    let associated = reports
        .first()
        .is_some_and(|r| r.group_membership.is_some());
    let judged = match &attacked {
        Ok(_) if h.on_udp() && !associated => {
            Err("the member opened no association of its own after the attack".to_string())
        }
        Ok(_) => Ok(()),
        Err(figure) => Err(figure.clone()),
    };
    let mut result = result(case, after(signon, reports), started, options.gate);
    result.fail_unless(judged);
    result.measured = attacked.ok();
    result
}

/// The case's clients of the host at `target`, signed on at the host's SignOn when
/// `--signon` names it, their grants keying their hellos; without it, not signed on,
/// unless the case judges SignOn, which is then skipped. `Err` is the case's result when
/// it ends here: SignOn stopped the client (a finding), or could not be reached.
async fn clients_over_tcp(
    case: &Case,
    target: SocketAddrV4,
    started: Instant,
    options: CheckOptions,
) -> Result<(Vec<ClientConfig>, Option<SignedOn>), Box<CaseResult>> {
    let mut clients = case.clients_of(target, options.keys, &options.scenario());
    match options.signon {
        Some(at) => match signon_step::sign_on_over_https(at, &mut clients).await {
            Ok(Ok(signed_on)) => Ok((clients, Some(signed_on))),
            Ok(Err(stopped)) => Err(Box::new(result(
                case,
                Some(*stopped),
                started,
                options.gate,
            ))),
            Err(e) => Err(Box::new(unreachable_signon(case, &e.to_string(), started))),
        },
        None if case.signs_on() => Err(Box::new(skipped(
            case,
            "it judges SignOn: give the host's SignOn URL with --signon",
            started,
        ))),
        None => Ok((clients, None)),
    }
}

/// A case that does not run on this transport, and why.
fn skipped(case: &Case, why: &str, started: Instant) -> CaseResult {
    CaseResult {
        case: case.clone(),
        verdict: Verdict::Skip { reason: why.into() },
        violations: Vec::new(),
        duration: started.elapsed(),
        run: None,
        measured: None,
        gate: &gate::DEFAULT,
    }
}

/// A case whose SignOn endpoint could not be reached: failed, with why.
fn unreachable_signon(case: &Case, why: &str, started: Instant) -> CaseResult {
    CaseResult {
        case: case.clone(),
        verdict: Verdict::Fail {
            expected: "the host's SignOn answers".into(),
            actual: why.into(),
        },
        violations: Vec::new(),
        duration: started.elapsed(),
        run: None,
        measured: None,
        gate: &gate::DEFAULT,
    }
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

/// The case's own judgement of the members' `reports`.
pub(crate) fn judged(
    case: &Case,
    reports: Vec<RunReport>,
    started: Instant,
    gate: &'static Gate,
) -> CaseResult {
    result(case, merged(reports), started, gate)
}

fn result(
    case: &Case,
    run: Option<RunReport>,
    started: Instant,
    gate: &'static Gate,
) -> CaseResult {
    let verdict = match &run {
        Some(r) => case.expect.judge(r, gate, &case.rules),
        None => Verdict::Skip {
            reason: match case.host {
                HostUnderTest::Mission(..) => "they play our host's shipped missions in-process",
                HostUnderTest::Legal(_) => {
                    "they need our in-process host told to take a freedom of the pages"
                }
                _ => "they need our in-process host told to break a rule",
            }
            .into(),
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
        measured: None,
        gate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;

    fn ghost_chain() -> Case {
        catalog()
            .into_iter()
            .find(|c| c.id == "mission.ghost_chain")
            .unwrap()
    }

    /// A handler that fails, or a commit refused, fails the case though the client saw
    /// nothing wrong.
    #[test]
    fn a_failing_handler_or_a_refused_commit_fails_a_mission_case() {
        let case = ghost_chain();
        let options = CheckOptions::DEVELOPMENT;
        let throws = "fn on_started(e) {\n  throw \"no\";\n}";
        let runs = &["on_started"];
        let r = run_mission_source(&case, "t.rhai", throws, runs, options);
        let Verdict::Fail { actual, .. } = &r.verdict else {
            panic!("{:?}", r.verdict)
        };
        assert!(actual.contains("on_started failed: t.rhai:2:3"), "{actual}");
        // a field set on a slot that holds no body: refused at the commit
        let refused = "fn on_started(e) { set_field(slot(0xBBBB0001, 65, 4), \"active\", true); }";
        let r = run_mission_source(&case, "t.rhai", refused, runs, options);
        let Verdict::Fail { actual, .. } = &r.verdict else {
            panic!("{:?}", r.verdict)
        };
        assert!(actual.contains("a commit was refused"), "{actual}");
        let r = run_mission_source(&case, "t.rhai", "fn on_started() {}", runs, options);
        assert!(matches!(r.verdict, Verdict::Fail { .. }), "{:?}", r.verdict);
        // a handler the case needs that never runs
        let quiet = "fn on_started(e) { }";
        let r = run_mission_source(&case, "t.rhai", quiet, &["on_started", "on_timer"], options);
        let Verdict::Fail { actual, .. } = &r.verdict else {
            panic!("{:?}", r.verdict)
        };
        assert_eq!(actual, "on_timer never ran");
        let r = run_mission(&case, "no_such.rhai", runs, options);
        assert!(matches!(r.verdict, Verdict::Fail { .. }), "{:?}", r.verdict);
        let r = run_mission(&case, "ghost_chain.rhai", runs, options);
        assert_eq!(r.verdict, Verdict::Pass);
    }
}
