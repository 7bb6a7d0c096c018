//! The cases of the network around the host (issue "Under load and faults"): `link.NAME`,
//! member 1's link carrying one fault in-process, `udp.lossy`, member 1's datagrams lost,
//! overtaken and doubled while it associates and joins the group session, and
//! `hostile.NAME`, one attack on the host beside a member. Each is judged as its case says
//! and then by the fault's own judge ([`vex_harness::link_judge`], [`Hostile::judge`]).
//! Against a host over TCP the link faults and the lossy path stand in line on member 1's
//! traffic (`runner::run_over_tcp`), and only the members are judged.

use crate::case::{Case, ClientScript, Expectation, HostUnderTest};
use crate::runner::{self, CaseResult, CheckOptions, IN_PROCESS_HOST};
use std::time::Instant;
use vex_fake_client::{ClientConfig, Rule};
use vex_harness::RunReport;
use vex_harness::datagram_fault::DatagramFault;
use vex_harness::hostile::Hostile;
use vex_harness::in_process::{HostRun, run_host, run_host_over};
use vex_harness::link_fault::LinkFault;
use vex_harness::link_judge::{self, faulted_reports};
use vex_harness::wire::Wire;
use vex_host::HostCore;

/// How long `udp.lossy` runs: the association at 3 s, then resends.
const LOSSY_RUN_MS: u64 = 12_000;

/// A `link.NAME` case per link fault, and a `hostile.NAME` case per attack.
pub fn cases() -> Vec<Case> {
    let links = LinkFault::CASES.into_iter().map(|fault| {
        let reports = faulted_reports(fault);
        let expect = match reports.split_first() {
            Some((&rule, also)) => Expectation::Caught {
                rule,
                on: None,
                also,
            },
            None => Expectation::CleanJoin,
        };
        let mut rules = reports.to_vec();
        rules.push(Rule::Host03);
        Case {
            id: format!("link.{fault}"),
            title: link_title(fault, reports),
            rules,
            host: HostUnderTest::Link(fault),
            run_for_ms: fault.run_ms(),
            script: ClientScript::Refresh,
            members: 2,
            expect,
        }
    });
    let attacks = Hostile::ALL.into_iter().map(|(h, name)| Case {
        id: format!("hostile.{name}"),
        title: format!(
            "{}: the host bounds it, and a member beside it notices nothing",
            h.what()
        ),
        rules: Vec::new(),
        host: HostUnderTest::Hostile(h),
        run_for_ms: h.run_ms(),
        script: if h.on_udp() {
            ClientScript::Associate
        } else {
            ClientScript::Stay
        },
        members: 1,
        expect: Expectation::CleanJoin,
    });
    let lossy = Case {
        id: "udp.lossy".into(),
        title: format!(
            "member 1's datagrams go through {}: it still associates, joins the group session and holds its membership (revisions 1 and 2, hashes matching), the handshake and the reliable connection sending again what was lost",
            DatagramFault::LOSSY
        ),
        rules: vec![Rule::Peer01, Rule::Peer14, Rule::Peer17, Rule::Peer22],
        host: HostUnderTest::Datagrams(DatagramFault::LOSSY),
        run_for_ms: LOSSY_RUN_MS,
        script: ClientScript::Associate,
        members: 1,
        expect: Expectation::CleanJoin,
    };
    links.chain([lossy]).chain(attacks).collect()
}

fn link_title(fault: LinkFault, reports: &[Rule]) -> String {
    let ids: Vec<String> = reports.iter().map(ToString::to_string).collect();
    let member_1 = if ids.is_empty() {
        "member 1 stays in, clean".to_string()
    } else {
        format!("member 1 reports {}", ids.join(" and "))
    };
    format!(
        "member 1's link carries {fault}: {member_1}; member 2 notices nothing and its refresh comes back whole"
    )
}

/// Runs a `link.` case: member 1's link carries `fault`.
pub fn run_link(case: &Case, fault: LinkFault, options: CheckOptions) -> CaseResult {
    let started = Instant::now();
    let (host, clients) = host_and_clients(case, options);
    let run = run_host_over(
        host,
        clients,
        case.run_for_ms,
        Vec::new(),
        Wire::faulty(fault),
    );
    let judged = link_judge::judge(fault, &run);
    verdict(case, run, judged, started, options)
}

/// Runs `udp.lossy`: member 1's datagrams through `fault`; the run must end with member
/// 1 holding the group session's membership.
pub fn run_datagrams(case: &Case, fault: DatagramFault, options: CheckOptions) -> CaseResult {
    let started = Instant::now();
    let (host, clients) = host_and_clients(case, options);
    let wire = Wire::lossy_datagrams(fault);
    let run = run_host_over(host, clients, case.run_for_ms, Vec::new(), wire);
    let judged = judge_lossy(&run.reports);
    verdict(case, run, judged, started, options)
}

/// Whether member 1 of `udp.lossy` ended holding the group session's membership: two
/// updates, at revision 2.
pub(crate) fn judge_lossy(reports: &[RunReport]) -> Result<(), String> {
    match reports.first().and_then(|r| r.group_membership) {
        Some((2, 2)) => Ok(()),
        other => Err(format!(
            "member 1 held the group membership {other:?}, not 2 updates at revision 2"
        )),
    }
}

/// Runs a `hostile.` case: the attack `h` beside the case's member.
pub fn run_hostile(case: &Case, h: Hostile, options: CheckOptions) -> CaseResult {
    let started = Instant::now();
    let (host, clients) = host_and_clients(case, options);
    let run = run_host(host, clients, case.run_for_ms, h.actions(case.run_for_ms));
    let judged = h.judge(&run);
    verdict(case, run, judged, started, options)
}

fn host_and_clients(case: &Case, options: CheckOptions) -> (HostCore, Vec<ClientConfig>) {
    let config = options.host_config();
    let clients = case.clients_of(IN_PROCESS_HOST, options.keys, &config.scenario);
    (HostCore::new(config), clients)
}

/// The case's own judgement of the members, then the fault's judge.
fn verdict(
    case: &Case,
    run: HostRun,
    judged: Result<(), String>,
    started: Instant,
    options: CheckOptions,
) -> CaseResult {
    let mut result = runner::judged(case, run.reports, started, options.gate);
    result.fail_unless(judged);
    result
}
