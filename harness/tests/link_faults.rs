//! Each link fault in-process: member 1's links carry it, member 2's do not, and
//! `link_judge` says whether it went as it must; the judge fails the runs that do not.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
use vex_fake_client::ClientConfig;
use vex_faults::{Fault, HostPlan};
use vex_harness::in_process::{HostRun, run_host_over};
use vex_harness::link_fault::{Direction, LinkFault};
use vex_harness::link_judge::{faulted_reports, judge};
use vex_harness::wire::Wire;
use vex_host::{Hooks, HostConfig, HostCore};

const RUN_MS: u64 = 30_000;

fn run(faults: HostPlan, wire: Wire) -> HostRun {
    let address = HostConfig::default_address();
    let members = (0..2)
        .map(|m| {
            let mut c = ClientConfig::member(address, m);
            // after every fault: what the host holds must come back whole (HOST-03)
            c.script.refresh_after_ms = Some(12_000);
            c
        })
        .collect();
    let mut config = HostConfig::builtin(address);
    config.hooks = Hooks::new(faults);
    run_host_over(HostCore::new(config), members, RUN_MS, vec![], wire)
}

#[test]
fn every_link_fault_goes_as_it_must() {
    for fault in LinkFault::CASES {
        let r = run(HostPlan::default(), Wire::faulty(fault));
        assert_eq!(judge(fault, &r), Ok(()), "{fault}");
    }
}

/// A second's delay each way stretches the first roster past the 1 s Vex chose for it:
/// member 1's AUTH-16 finding is advisory, the gate's to weigh (`--strict`), and the link
/// judge, which rests on the pages, passes the run.
#[test]
fn an_advisory_finding_a_delay_causes_is_left_to_the_gate() {
    let fault = LinkFault::Delay(1_000);
    let r = run(HostPlan::default(), Wire::faulty(fault));
    let advisory: Vec<_> = r.reports[0]
        .violations
        .iter()
        .filter(|v| v.advisory())
        .map(|v| v.rule.id())
        .collect();
    assert_eq!(advisory, ["AUTH-16"], "{:?}", r.reports[0].violations);
    assert_eq!(judge(fault, &r), Ok(()));
}

#[test]
fn a_fault_the_client_must_report_is_not_judged_done_without_it() {
    let clean = run(HostPlan::default(), Wire::clean());
    for fault in LinkFault::CASES {
        let verdict = judge(fault, &clean);
        assert_eq!(
            verdict.is_ok(),
            faulted_reports(fault).is_empty()
                && !matches!(fault, LinkFault::Replay(Direction::ToHost, _)),
            "{fault} on a clean link: {verdict:?}"
        );
    }
}

#[test]
fn a_host_that_breaks_a_rule_fails_a_fault_it_must_carry() {
    let breaking = run(
        HostPlan::single(Fault::CorruptTag),
        Wire::faulty(LinkFault::Split),
    );
    assert!(judge(LinkFault::Split, &breaking).is_err());
}

#[test]
fn fault_names_read_back() {
    for fault in LinkFault::CASES {
        assert_eq!(fault.name().parse::<LinkFault>(), Ok(fault));
    }
    assert!("delay".parse::<LinkFault>().is_err());
    assert!("warp=3".parse::<LinkFault>().is_err());
    assert!("cut=x".parse::<LinkFault>().is_err());
}
