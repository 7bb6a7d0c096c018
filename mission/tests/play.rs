//! The shipped missions played through by the emulated client against the built-in host:
//! every message 5 and 19 they cause is judged by the client's rules, and the world ends
//! where the script says.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use std::net::SocketAddrV4;
use vex_fake_client::ClientConfig;
use vex_harness::in_process::{HostAction, HostRun, run_host};
use vex_harness::transcript::Direction;
use vex_host::mission::MissionReport;
use vex_host::{HostConfig, HostCore, HostEvent};
use vex_mission::RhaiMission;
use vex_wire::activity::ids;
use vex_wire::activity::session::SessionId;
use vex_wire::activity::slot::ClientRef;
use vex_wire::schema::Value;

const ADDRESS: SocketAddrV4 = SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, 30974);

fn source(name: &str) -> String {
    let path = format!("{}/../missions/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// The built-in host running the shipped mission `name` in place of its timeline.
fn host(name: &str) -> HostCore {
    let mut config = HostConfig::builtin(ADDRESS);
    config.timeline.clear();
    let mission = RhaiMission::compile(name, &source(name)).unwrap();
    HostCore::with_mission(config, Box::new(mission))
}

fn play(name: &str, members: usize, run_for_ms: u64, actions: Vec<HostAction>) -> HostRun {
    let clients = (0..members)
        .map(|_| ClientConfig::builtin(ADDRESS))
        .collect();
    run_host(host(name), clients, run_for_ms, actions)
}

/// The handlers that ran, in order, and the failures.
fn handled(run: &HostRun) -> (Vec<&'static str>, Vec<String>) {
    let mut ran = Vec::new();
    let mut failed = Vec::new();
    for (_, e) in &run.events {
        match e {
            HostEvent::Mission(MissionReport::Handled { handler, .. }) => ran.push(*handler),
            HostEvent::Mission(MissionReport::Failed { error, .. }) => {
                failed.push(error.to_string())
            }
            _ => {}
        }
    }
    (ran, failed)
}

fn session(run: &HostRun) -> SessionId {
    run.events
        .iter()
        .find_map(|(_, e)| match e {
            HostEvent::Joined { session, .. } => Some(*session),
            _ => None,
        })
        .unwrap()
}

fn body(run: &HostRun, slot_type: i8, index: i16) -> Value {
    let slot = ClientRef {
        key: 0xBBBB_0001,
        slot_type,
        index,
    };
    let activity = run.host.activity(session(run)).unwrap();
    activity.world().body(&slot).cloned().unwrap()
}

/// How many of message `id` each member received.
fn received(run: &HostRun, id: u32) -> Vec<usize> {
    run.reports
        .iter()
        .map(|r| {
            r.transcript
                .lines
                .iter()
                .filter(|l| l.direction == Direction::ToClient && l.message == Some(id))
                .count()
        })
        .collect()
}

fn objective_values(body: &Value) -> Vec<i128> {
    let Value::Record(fields) = body else {
        panic!("{body:?}")
    };
    let Value::Array(entries) = &fields[0] else {
        panic!("{body:?}")
    };
    entries
        .iter()
        .map(|e| match e {
            Value::Record(f) => match f[0] {
                Value::Int(v) => v,
                _ => -1,
            },
            _ => -1,
        })
        .collect()
}

#[test]
fn ghost_chain_plays_through_three_scans() {
    let run = play("ghost_chain.rhai", 1, 12_000, Vec::new());
    let report = &run.reports[0];
    assert!(report.violations.is_empty(), "{:#?}", report.violations);
    let (ran, failed) = handled(&run);
    assert!(failed.is_empty(), "{failed:?}");
    assert_eq!(ran.iter().filter(|h| **h == "on_started").count(), 1);
    let objective = objective_values(&body(&run, 3, 1));
    assert_eq!(&objective[..4], &[3, 3, 3, 0], "three steps done");
    assert_eq!(
        body(&run, 65, 4),
        Value::Record(vec![
            Value::Int(4),
            Value::Bool(false),
            Value::Int(0x811C_9DC5)
        ]),
        "the Ghost put away with a raised generation"
    );
    assert_eq!(
        received(&run, ids::INCIDENT),
        vec![1],
        "the closing incident"
    );
    // each commit went out as one message 5 the client applied
    let staged = run
        .events
        .iter()
        .filter(|(_, e)| matches!(e, HostEvent::Staged { .. }))
        .count();
    assert_eq!(staged, 4, "the start and three scans");
    assert!(report.rosters_applied >= 4);
    // the first scan report after each arming is its outcome: the client applied it
    let reported = ran.iter().filter(|h| **h == "on_reported").count();
    assert_eq!(reported, 3, "{ran:?}");
    let status = run.host.mission_status();
    assert!(status[0].1.contains("\"confirmed\": 3"), "{status:?}");
}

#[test]
fn timed_phases_run_on_the_host_clock() {
    let run = play("timed_phases.rhai", 2, 8_000, Vec::new());
    for report in &run.reports {
        assert!(report.violations.is_empty(), "{:#?}", report.violations);
    }
    let (ran, failed) = handled(&run);
    assert!(failed.is_empty(), "{failed:?}");
    assert_eq!(ran.iter().filter(|h| **h == "on_timer").count(), 2);
    let timers: Vec<u64> = run
        .events
        .iter()
        .filter(|(_, e)| {
            matches!(
                e,
                HostEvent::Mission(MissionReport::Handled {
                    handler: "on_timer",
                    ..
                })
            )
        })
        .map(|(at, _)| at.millis())
        .collect();
    let started = run
        .events
        .iter()
        .find(|(_, e)| {
            matches!(
                e,
                HostEvent::Mission(MissionReport::Handled {
                    handler: "on_started",
                    ..
                })
            )
        })
        .map(|(at, _)| at.millis())
        .unwrap();
    assert_eq!(timers, vec![started + 2_000, started + 4_000]);
    assert_eq!(
        received(&run, ids::INCIDENT),
        vec![1, 1],
        "phase 2's incident to both"
    );
    let Value::Record(clock) = body(&run, 18, 2) else {
        panic!()
    };
    let Value::Record(window) = &clock[0] else {
        panic!()
    };
    assert_eq!(window[0], Value::Bool(false), "phase 3 stopped the timer");
    let status = run.host.mission_status();
    assert_eq!(status.len(), 1);
    assert!(status[0].1.contains("\"phase\": 3"), "{status:?}");
}
