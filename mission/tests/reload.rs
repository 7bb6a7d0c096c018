//! Hot reload under a running activity with clients connected (SR "Where mission scripts
//! plug in"): variables, timers, retained Auth bodies and every client survive it; a script
//! that does not compile leaves the old one running; a reload waits for what is in flight;
//! only a started mission reloads.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use std::net::SocketAddrV4;
use vex_fake_client::{ClientConfig, Outcome};
use vex_harness::in_process::{HostAction, HostRun, run_host};
use vex_host::mission::MissionReport;
use vex_host::{HostConfig, HostCore, HostEvent};
use vex_mission::RhaiMission;

const ADDRESS: SocketAddrV4 = SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, 30974);

/// A counter that ticks every second and an objective published at the start.
const COUNTER: &str = r#"
fn objective() { slot(0xBBBB0001, 3, 1) }
fn init() { this.count = 0; }
fn on_started(e) {
    set_auth(objective(), #{ objective: (), generation: 5 });
    after(1000, "tick");
}
fn on_timer(e) {
    this.count += 1;
    after(1000, "tick");
}
"#;

fn play(source: &str, members: usize, run_for_ms: u64, actions: Vec<HostAction>) -> HostRun {
    let mut config = HostConfig::builtin(ADDRESS);
    config.timeline.clear();
    let mission = RhaiMission::compile("counter.rhai", source).unwrap();
    let host = HostCore::with_mission(config, Box::new(mission));
    let clients = (0..members)
        .map(|_| ClientConfig::builtin(ADDRESS))
        .collect();
    run_host(host, clients, run_for_ms, actions)
}

fn reload_at(at_ms: u64, source: &'static str) -> HostAction {
    HostAction {
        at_ms,
        act: Box::new(move |now, host: &mut HostCore| host.request_reload(now, source)),
    }
}

fn reports(run: &HostRun) -> Vec<MissionReport> {
    run.events
        .iter()
        .filter_map(|(_, e)| match e {
            HostEvent::Mission(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

/// The ticks handled before the reload was swapped in, and after.
fn ticks(run: &HostRun) -> (u64, u64) {
    let r = reports(run);
    let swapped = r
        .iter()
        .position(|r| *r == MissionReport::Reloaded)
        .unwrap_or(r.len());
    let tick = |r: &&MissionReport| {
        matches!(
            r,
            MissionReport::Handled {
                handler: "on_timer",
                ..
            }
        )
    };
    let before = r[..swapped].iter().filter(tick).count() as u64;
    let after = r[swapped..].iter().filter(tick).count() as u64;
    (before, after)
}

/// The mission's `count` variable.
fn count(run: &HostRun) -> u64 {
    variables(run)
        .trim_start_matches("#{\"count\": ")
        .trim_end_matches('}')
        .parse()
        .unwrap()
}

fn variables(run: &HostRun) -> String {
    let status = run.host.mission_status();
    assert_eq!(status.len(), 1, "{status:?}");
    status[0].1.clone()
}

fn assert_clients_unharmed(run: &HostRun) {
    for report in &run.reports {
        assert!(report.violations.is_empty(), "{:#?}", report.violations);
        assert!(
            matches!(report.outcome, Outcome::Running),
            "{:?}",
            report.outcome
        );
        assert!(
            report.status.to_string().contains("EGM"),
            "{}",
            report.status
        );
    }
}

#[test]
fn a_reload_keeps_variables_timers_bodies_and_every_client() {
    const NEW: &str = r#"
fn init() { this.count = 0; }
fn on_timer(e) {
    this.count += 100;
    after(1000, "tick");
}
"#;
    let run = play(COUNTER, 2, 7_800, vec![reload_at(4_200, NEW)]);
    let r = reports(&run);
    assert!(r.contains(&MissionReport::ReloadHeld) && r.contains(&MissionReport::Reloaded));
    // the ticks before the reload counted 1, the ones after 100, on the timer set before
    let (old, new) = ticks(&run);
    assert!(old >= 3 && new >= 3, "{old} ticks before, {new} after");
    assert_eq!(count(&run), old + 100 * new);
    assert_clients_unharmed(&run);
    // the body the old script committed is still held, under the same revision
    let session = run.host.mission_status()[0].0;
    let world = run.host.activity(session).unwrap().world();
    assert_eq!(world.revision(), 1);
}

#[test]
fn a_reload_that_does_not_compile_keeps_the_old_script_running() {
    let run = play(
        COUNTER,
        1,
        6_000,
        vec![reload_at(3_000, "fn on_timer(e) {\n  this.count += ;\n}")],
    );
    let failed = reports(&run)
        .into_iter()
        .find_map(|r| match r {
            MissionReport::ReloadFailed(e) => Some(e),
            _ => None,
        })
        .expect("the reload failed");
    assert_eq!(
        (failed.file.as_str(), failed.line),
        ("counter.rhai", 2),
        "{failed}"
    );
    assert!(!reports(&run).contains(&MissionReport::Reloaded));
    let (old, new) = ticks(&run);
    assert_eq!(
        (count(&run), new),
        (old, 0),
        "every tick counted by the old script"
    );
    assert!(old >= 5, "{old}");
    assert_clients_unharmed(&run);
}

#[test]
fn a_mission_that_has_not_started_does_not_reload() {
    let mission = RhaiMission::compile("counter.rhai", COUNTER).unwrap();
    let mut host = HostCore::with_mission(HostConfig::builtin(ADDRESS), Box::new(mission));
    host.request_reload(vex_wire::time::Instant::from_millis(10), COUNTER);
    let mut events = std::iter::from_fn(|| host.poll_event());
    assert_eq!(
        events.next(),
        Some(HostEvent::Mission(MissionReport::ReloadRefused))
    );
    assert_eq!(events.next(), None);
}

/// Every 50 ms the old script commits (a field set to the value it has: no push); the
/// reload comes at one of those instants, found from a first run (the clock is virtual,
/// so the second run is the same up to then), when the commit's outcome is in flight.
/// The reload is held until the old script has handled it.
#[test]
fn a_reload_waits_for_the_event_in_flight() {
    const TICKING: &str = r#"
fn objective() { slot(0xBBBB0001, 3, 1) }
fn on_started(e) {
    set_auth(objective(), #{ objective: (), generation: 5 });
    after(50, "tick");
}
fn on_timer(e) {
    set_field(objective(), "generation", 5);
    after(50, "tick");
}
fn on_staged(e) { this.staged_by = "old"; }
"#;
    const NEW: &str = r#"
fn on_timer(e) { set_field(slot(0xBBBB0001, 3, 1), "generation", 5); }
fn on_staged(e) { this.staged_by = "new"; }
"#;
    let ticks = play(TICKING, 1, 3_000, Vec::new());
    let tick = ticks
        .events
        .iter()
        .rev()
        .find(|(_, e)| {
            matches!(
                e,
                HostEvent::Mission(MissionReport::Handled {
                    handler: "on_timer",
                    ..
                })
            )
        })
        .map(|(at, _)| at.millis())
        .unwrap();
    let run = play(TICKING, 1, 3_000, vec![reload_at(tick - 500, NEW)]);
    let r = reports(&run);
    let held = r
        .iter()
        .position(|r| *r == MissionReport::ReloadHeld)
        .unwrap();
    let swapped = r
        .iter()
        .position(|r| *r == MissionReport::Reloaded)
        .unwrap();
    let between: Vec<&MissionReport> = r[held + 1..swapped].iter().collect();
    assert!(
        between.iter().any(|r| matches!(
            r,
            MissionReport::Handled {
                handler: "on_staged",
                ..
            }
        )),
        "the outcome in flight was handled before the swap: {between:?}"
    );
    assert!(
        variables(&run).contains("\"staged_by\": \"new\""),
        "{}",
        variables(&run)
    );
    assert_clients_unharmed(&run);
}
