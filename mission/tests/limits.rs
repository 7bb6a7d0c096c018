//! What bounds a mission: requests and timers per call and per activity, timer lengths
//! and names, field widths; a first call that fails leaves no instance; an outcome of an
//! ended activity brings nothing back; deep variables print bounded.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
use vex_host::mission::{Mission, MissionEvent, ScriptError};
use vex_mission::RhaiMission;
use vex_wire::activity::session::SessionId;
use vex_wire::time::Instant;

const SESSION: SessionId = SessionId(0x20_0001);

fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

fn mission(source: &str) -> RhaiMission {
    let mut m = RhaiMission::compile("limits.rhai", source).unwrap();
    m.serve(&vex_wire::scenario::Scenario::builtin());
    m
}

/// The error of `body` as on_started's, at the line of its loop or call (line 2).
fn started_error(body: &str) -> ScriptError {
    let source = format!("fn on_started(e) {{\n  {body}\n}}");
    let e = mission(&source)
        .handle(at(0), SESSION, &MissionEvent::Started)
        .expect_err(body);
    assert_eq!(e.line, 2, "{body}: {e}");
    e
}

#[test]
fn a_handler_makes_at_most_256_requests() {
    let e = started_error("for i in 0..257 { reset_authority(); }");
    assert!(e.message.contains("at most 256 requests"), "{e}");
    let mut m = mission("fn on_started(e) { for i in 0..256 { query_authority(); } }");
    let asked = m.handle(at(0), SESSION, &MissionEvent::Started).unwrap();
    assert_eq!(asked.len(), 256);
}

#[test]
fn a_handler_prints_at_most_64_kib_per_call() {
    // 4 x 16 KiB by print; by debug, a string prints quoted (2 bytes more)
    let print = "let s = \"\"; s.pad(16384, \"x\"); for i in 0..4 { print(s); }";
    let debug = "let s = \"\"; s.pad(16382, \"x\"); for i in 0..4 { debug(s); }";
    for full in [print, debug] {
        // 64 KiB: accepted, and each call has its own budget
        let mut m = mission(&format!("fn on_started(e) {{\n  {full}\n}}"));
        for time in 0..2 {
            m.handle(at(time), SESSION, &MissionEvent::Started).unwrap();
        }
        // one byte more, whether an operation follows the output or not
        for more in [
            "print(\"y\"); let after = 1;",
            "print(\"y\");",
            "debug(\"\");",
        ] {
            let source = format!("fn on_started(e) {{\n  {full} {more}\n}}");
            let e = mission(&source)
                .handle(at(0), SESSION, &MissionEvent::Started)
                .expect_err(more);
            // like the operation limit's, the error is placed at the handler (Rhai drops
            // a limit's place at the function boundary)
            assert_eq!(e.line, 1, "{full} {more}: {e}");
            assert!(e.message.contains("printing 64 KiB"), "{full} {more}: {e}");
        }
    }
}

#[test]
fn timers_are_bounded_in_length_name_count_and_changes() {
    let e = started_error("after(0, \"now\");");
    assert!(e.message.contains("50 to 86400000 ms, not 0"), "{e}");
    let e = started_error("after(86400001, \"later\");");
    assert!(e.message.contains("not 86400001"), "{e}");
    let long = "x".repeat(65);
    let e = started_error(&format!("after(100, \"{long}\");"));
    assert!(e.message.contains("at most 64 bytes"), "{e}");
    let e = started_error("for i in 0..257 { cancel(\"t\"); }");
    assert!(e.message.contains("at most 256 timers"), "{e}");
    // an activity holds at most 1,024 timers, across calls
    let mut m = mission("fn on_member_joined(e) { for i in 0..256 { after(1000, `t${i}`); } }");
    for member in 0..4 {
        let e = MissionEvent::MemberJoined { member };
        m.handle(at(0), SESSION, &e).unwrap();
    }
    let e = m
        .handle(at(0), SESSION, &MissionEvent::MemberJoined { member: 4 })
        .unwrap_err();
    assert!(e.message.contains("at most 1024 timers"), "{e}");
    // another activity has its own
    m.handle(
        at(0),
        SessionId(SESSION.0 + 1),
        &MissionEvent::MemberJoined { member: 0 },
    )
    .unwrap();
}

#[test]
fn a_value_wider_than_its_field_fails_at_its_line() {
    let e = started_error("set_field(slot(\"objective\"), \"objective[0].value\", 128);");
    assert!(e.message.contains("128 does not fit 7 bits"), "{e}");
    let e = started_error("set_field(slot(\"objective\"), \"generation\", -1);");
    assert!(e.message.contains("-1 does not fit 31 bits"), "{e}");
    let e = started_error("set_field(slot(\"ghost\"), \"generation\", 0x1_0000_0000);");
    assert!(e.message.contains("does not fit 32 bits"), "{e}");
}

#[test]
fn a_first_call_that_fails_leaves_no_instance_and_init_runs_again() {
    let source = "fn init() { this.inits = 1; after(100, \"t\"); }\n\
                  fn on_member_joined(e) {\n  if e.member == 0 { throw \"not yet\"; }\n}";
    let mut m = mission(source);
    let joined = |member| MissionEvent::MemberJoined { member };
    assert!(m.handle(at(0), SESSION, &joined(0)).is_err());
    assert!(!m.started(), "no instance after a failed first call");
    assert_eq!(m.next_timer(), None, "init's timer went with it");
    m.handle(at(0), SESSION, &joined(1)).unwrap();
    assert_eq!(m.status(), vec![(SESSION, "#{\"inits\": 1}".into())]);
    assert_eq!(m.next_timer(), Some(at(100)));
}

#[test]
fn an_outcome_of_an_ended_activity_brings_nothing_back() {
    let mut m = mission("fn init() { this.x = 1; after(100, \"t\"); }\nfn on_staged(e) { }");
    m.handle(at(0), SESSION, &MissionEvent::Started).unwrap();
    m.end(SESSION);
    let staged = MissionEvent::Staged {
        handler: "on_started".into(),
        revision: 1,
    };
    assert_eq!(m.handle(at(5), SESSION, &staged).unwrap(), vec![]);
    assert!(!m.started());
    assert_eq!(m.next_timer(), None);
}

#[test]
fn deep_variables_print_bounded() {
    let mut m = mission(
        "fn on_started(e) { let v = #{}; for i in 0..40 { v = #{ inner: v }; } this.deep = v; }",
    );
    m.handle(at(0), SESSION, &MissionEvent::Started).unwrap();
    let status = &m.status()[0].1;
    assert!(status.contains("#{\"inner\": ...}"), "{status}");
    assert!(status.len() < 400, "{status}");
}

/// A script defines at most 1,000 functions: the 1,001st is refused when it compiles.
#[test]
fn a_script_defines_at_most_1000_functions() {
    let functions =
        |n: usize| -> String { (0..n).map(|i| format!("fn f{i}(a) {{ a }}\n")).collect() };
    assert!(RhaiMission::compile("limits.rhai", &functions(1_000)).is_ok());
    let e = RhaiMission::compile("limits.rhai", &functions(1_001))
        .err()
        .expect("refused");
    assert!(e.message.to_lowercase().contains("function"), "{e}");
}
