//! Hostile input beside a member: the host bounds each attack, and the member notices
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
//! nothing (issue "Under load and faults": hostile input).

use std::net::SocketAddrV4;
use vex_fake_client::{ClientConfig, Outcome};
use vex_harness::hostile::Hostile;
use vex_harness::in_process::{HostRun, run_host};
use vex_host::{HostConfig, HostCore, Limits};

const RUN_MS: u64 = 25_000;

fn attacked(h: Hostile, limits: Limits) -> HostRun {
    let address = HostConfig::default_address();
    let mut config = HostConfig::builtin(address);
    config.limits = limits;
    let member = ClientConfig::builtin(address);
    run_host(
        HostCore::new(config),
        vec![member],
        RUN_MS,
        h.actions(RUN_MS),
    )
}

#[test]
fn every_attack_is_bounded_and_the_member_notices_nothing() {
    for (h, name) in Hostile::ALL {
        let run = attacked(h, Limits::default());
        assert_eq!(h.judge(&run), Ok(()), "{name}");
        let member = &run.reports[0];
        assert!(member.status.in_activity(), "{name}: {}", member.status);
        assert!(
            member.violations.is_empty(),
            "{name}: {:?}",
            member.violations
        );
        assert_eq!(member.outcome, Outcome::Running, "{name}");
    }
}

#[test]
fn a_host_without_the_limits_is_judged_unbounded() {
    let unbounded = Limits {
        hello_within_ms: 1_000_000,
        frame_within_ms: 1_000_000,
        frames_per_second: u32::MAX,
        ..Limits::default()
    };
    for h in [
        Hostile::SlowSender,
        Hostile::HalfOpen(2000),
        Hostile::HelloFlood,
    ] {
        let run = attacked(h, unbounded);
        let verdict = h.judge(&run);
        assert!(verdict.is_err(), "{h:?} passed on an unbounded host");
    }
}

#[test]
fn a_connection_past_the_link_limit_is_closed_as_it_opens() {
    let limits = Limits {
        max_links: 3,
        ..Limits::default()
    };
    let address: SocketAddrV4 = HostConfig::default_address();
    let mut config = HostConfig::builtin(address);
    config.limits = limits;
    let run = run_host(
        HostCore::new(config),
        vec![ClientConfig::builtin(address)],
        RUN_MS,
        Hostile::HalfOpen(3).actions(RUN_MS),
    );
    let reasons: Vec<String> = run
        .events
        .iter()
        .filter_map(|(_, e)| match e {
            vex_host::HostEvent::Close { link, reason } if link.0 >= 1_000_000 => {
                Some(reason.to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        [
            "3 links are open already",
            "3 links are open already",
            "no hello within 10000 ms of opening",
        ]
        .map(|r| format!("limit: {r}")),
        "the member holds two links; one hostile link fits"
    );
    assert!(run.reports[0].violations.is_empty());
}
