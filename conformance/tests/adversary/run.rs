//! Running the adversary against the emulated client on the virtual clock, and the two
//! verdicts a test asks for: the client caught a breach, or found nothing in a legal run.

use crate::host::Adversary;
use crate::mode::Mode;
use vex_fake_client::{ClientConfig, Probe, Rule, Script};
use vex_harness::in_process::{run, run_members};
use vex_harness::report::RunReport;
use vex_host::Hooks;
use vex_host::HostConfig;
use vex_wire::scenario::Scenario;

/// How long a run lasts unless a test says otherwise: past the built-in program (4 s),
/// a scripted action at 5 to 7 s and a few keepalives after it.
pub const RUN_MS: u64 = 12_000;

/// The built-in host with the adversary in `mode` as its hook (the host core asks it for
/// its program too).
pub fn host(mode: Mode) -> HostConfig {
    let mut host = HostConfig::builtin(HostConfig::default_address());
    host.hooks = Hooks::new(Adversary::new(mode));
    host
}

/// One client with `script` against the adversary in `mode`, for `ms` virtual ms.
pub fn run_mode(mode: Mode, script: Script, ms: u64) -> RunReport {
    let mut client = ClientConfig::builtin(HostConfig::default_address());
    client.script = script;
    run(host(mode), client, ms)
}

/// [`run_mode`] with the content both sides hold changed by `edit`.
pub fn run_in(mode: Mode, script: Script, ms: u64, edit: fn(&mut Scenario)) -> RunReport {
    let mut host = host(mode);
    edit(&mut host.scenario);
    let mut client = ClientConfig::builtin(HostConfig::default_address());
    edit(&mut client.scenario);
    client.script = script;
    run(host, client, ms)
}

/// Two members of one activity, the second with `script`, against the adversary: one
/// report for both (member 2's findings named so).
pub fn run_pair(mode: Mode, script: Script, ms: u64) -> RunReport {
    let address = HostConfig::default_address();
    let first = ClientConfig::member(address, 1);
    let mut second = ClientConfig::member(address, 2);
    second.script = script;
    let mut reports = run_members(host(mode), vec![first, second], ms).into_iter();
    let first = reports.next().expect("member 1's report");
    first.with_members(reports.collect())
}

/// Every finding of `r`, one a line.
pub fn findings(r: &RunReport) -> String {
    r.violations
        .iter()
        .map(|v| format!("  {v}\n"))
        .collect::<String>()
}

/// Asserts the run drew `rule`. With `ADVERSARY_VERBOSE` set, prints every finding.
pub fn assert_caught(r: &RunReport, rule: Rule, mode: Mode) {
    if std::env::var_os("ADVERSARY_VERBOSE").is_some() {
        eprintln!("{mode:?} => {rule}:\n{}", findings(r));
    }
    assert!(
        r.has_violation(rule),
        "{mode:?}: expected {rule}, the client reported:\n{}",
        findings(r)
    );
}

/// Asserts the run drew no finding but advisory ones. With `ADVERSARY_VERBOSE` set,
/// prints every finding.
pub fn assert_clean(r: &RunReport, mode: Mode) {
    if std::env::var_os("ADVERSARY_VERBOSE").is_some() {
        eprintln!("{mode:?} => legal:\n{}", findings(r));
    }
    let hard: Vec<_> = r.violations.iter().filter(|v| !v.advisory()).collect();
    assert!(
        hard.is_empty(),
        "{mode:?} is legal, yet the client reported:\n{}",
        findings(r)
    );
}

/// Runs `mode` with `script` and asserts it drew `rule`.
pub fn caught(mode: Mode, script: Script, rule: Rule) {
    assert_caught(&run_mode(mode, script, RUN_MS), rule, mode);
}

/// Runs `mode` with `script` for `ms` and asserts it drew `rule`.
pub fn caught_for(mode: Mode, script: Script, ms: u64, rule: Rule) {
    assert_caught(&run_mode(mode, script, ms), rule, mode);
}

/// Runs `mode` with `script` and asserts it drew nothing but advisory findings.
pub fn clean(mode: Mode, script: Script) {
    assert_clean(&run_mode(mode, script, RUN_MS), mode);
}

/// No scripted action.
pub fn idle() -> Script {
    Script::default()
}

/// A snapshot request at 6 s (message 18) and another at 7 s (message 11).
pub fn two_snapshots() -> Script {
    Script {
        refresh_after_ms: Some(6_000),
        start_activity_after_ms: Some(7_000),
        ..Script::default()
    }
}

/// Three snapshot requests: message 18 at 6 s, message 18 on discriminator 2 at 6.5 s
/// and message 11 at 7 s.
pub fn three_snapshots() -> Script {
    Script {
        probe: Some((Probe::DiscriminatorTwo, 6_500)),
        ..two_snapshots()
    }
}

/// A move into bubble 1 at 5 s (message 22, then its roster request).
pub fn moves() -> Script {
    Script {
        move_region_after_ms: Some(5_000),
        ..Script::default()
    }
}

/// Every frame of `r` one a line, with message 5's state bytes, for a test being written.
#[allow(dead_code)]
pub fn dump(r: &RunReport) {
    use vex_wire::activity::body::Body;
    use vex_wire::activity::sensor_auth::SensorAuthUpdate;
    for l in &r.transcript.lines {
        let mut extra = String::new();
        if let (Some(5), Some(p)) = (l.message, l.payload.as_ref())
            && let Ok(d) = SensorAuthUpdate::decode(p)
        {
            extra = format!(
                "enable {} states {:?} subs {:?} groups {}",
                d.prefix.roster_enable,
                d.roster.as_ref().map(|r| r.states.clone()),
                d.roster
                    .as_ref()
                    .and_then(|r| r.sub_blocks.clone())
                    .map(|s| s.iter().map(|b| b.states.clone()).collect::<Vec<_>>()),
                d.groups.len()
            );
        }
        eprintln!(
            "{:>6} m{} {:?} {:?} svc {} msg {:?} len {} {extra}",
            l.at.millis(),
            l.member,
            l.direction,
            l.link,
            l.service,
            l.message,
            l.payload.as_ref().map_or(l.bytes.len(), Vec::len),
        );
    }
    eprintln!("{}", findings(r));
}
