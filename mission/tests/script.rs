//! A mission script on its own: handlers in order with their variables, errors placed at
//! their line and column, the sandbox and the limits, timers, and a reload that keeps
//! variables and timers.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
use vex_host::mission::{Mission, MissionEvent, ScriptError};
use vex_host::world::WorldRequest;
use vex_mission::{RhaiMission, check};
use vex_wire::activity::session::SessionId;
use vex_wire::time::Instant;

const SESSION: SessionId = SessionId(0x20_0001);

fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

fn mission(source: &str) -> RhaiMission {
    RhaiMission::compile("test.rhai", source).unwrap()
}

fn error(source: &str) -> ScriptError {
    RhaiMission::compile("test.rhai", source).err().unwrap()
}

fn joined(member: usize) -> MissionEvent {
    MissionEvent::MemberJoined { member }
}

/// The error of `handler`'s call in a mission of `source`.
fn handler_error(source: &str, event: &MissionEvent) -> ScriptError {
    let result = mission(source).handle(at(0), SESSION, event);
    result.expect_err(source)
}

#[test]
fn init_runs_first_and_variables_last_between_events() {
    let mut m = mission(
        "fn init() { this.seen = []; }
         fn on_member_joined(e) { this.seen.push(e.member); }
         fn on_started(e) { this.seen.push(\"started\"); }",
    );
    for e in [MissionEvent::Started, joined(0), joined(3)] {
        assert_eq!(m.handle(at(5), SESSION, &e).unwrap(), vec![]);
    }
    assert_eq!(
        m.status(),
        vec![(SESSION, "#{\"seen\": [\"started\", 0, 3]}".into())]
    );
    // another activity has variables of its own
    m.handle(at(5), SessionId(SESSION.0 + 1), &joined(7))
        .unwrap();
    assert_eq!(
        m.status()[1],
        (SessionId(SESSION.0 + 1), "#{\"seen\": [7]}".into())
    );
}

#[test]
fn requests_come_back_in_the_order_asked() {
    let mut m =
        mission("fn on_started(e) { reset_authority(); fire_incident(2); query_authority(); }");
    let requests = m.handle(at(0), SESSION, &MissionEvent::Started).unwrap();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0], WorldRequest::ResetAuthority);
    assert!(matches!(requests[1], WorldRequest::FireIncident(_)));
    assert_eq!(requests[2], WorldRequest::QueryAuthority);
}

/// `clear_auth` asks the host to hold no body for a slot; a slot the scenario does not have
/// fails the handler.
#[test]
fn clear_auth_asks_for_the_slot_cleared() {
    let mut m = mission("fn on_started(e) { clear_auth(slot(0xBBBB0001, 24, 3)); }");
    m.serve(&vex_wire::scenario::Scenario::builtin());
    let requests = m.handle(at(0), SESSION, &MissionEvent::Started).unwrap();
    assert!(
        matches!(requests.as_slice(), [WorldRequest::ClearAuth { slot }] if slot.index == 3),
        "{requests:?}"
    );
    let mut m = mission("fn on_started(e) { clear_auth(slot(0xBBBB0001, 24, 9)); }");
    m.serve(&vex_wire::scenario::Scenario::builtin());
    assert!(m.handle(at(0), SESSION, &MissionEvent::Started).is_err());
}

/// `retire` asks the host to retire an object group; a key wider than 32 bits fails the
/// handler.
#[test]
fn retire_asks_for_the_group_retired() {
    let mut m = mission("fn on_started(e) { retire(0xBBBB0002); }");
    let requests = m.handle(at(0), SESSION, &MissionEvent::Started).unwrap();
    assert_eq!(requests, [WorldRequest::Retire { key: 0xBBBB_0002 }]);
    let mut m = mission("fn on_started(e) { retire(0x1BBBB0002); }");
    assert!(m.handle(at(0), SESSION, &MissionEvent::Started).is_err());
}

#[test]
fn a_parse_error_has_its_line_and_column() {
    let e = error("fn on_started(e) {\n    let x = ;\n}");
    assert_eq!(
        (e.file.as_str(), e.line, e.column),
        ("test.rhai", 2, 13),
        "{e}"
    );
    assert!(e.to_string().starts_with("test.rhai:2:13: "), "{e}");
}

#[test]
fn a_misspelt_handler_or_wrong_arity_or_top_level_code_does_not_compile() {
    let e = error("// a mission\nfn on_trigger_entred(e) { }");
    assert_eq!((e.line, e.column), (2, 1), "{e}");
    assert!(
        e.message.contains("on_trigger_entred is not a handler"),
        "{e}"
    );
    let e = error("fn on_timer() { }");
    assert!(
        e.message.contains("on_timer takes 1 parameter(s), not 0"),
        "{e}"
    );
    let e = error("fn init(x) { }");
    assert!(
        e.message.contains("init takes 0 parameter(s), not 1"),
        "{e}"
    );
    let e = error("fn on_started(e) { }\nlet phase = 1;");
    assert_eq!(e.line, 2, "{e}");
    assert!(e.message.contains("top-level code never runs"), "{e}");
    let e = error("fn on_started(e) { phse += 1; }");
    assert_eq!((e.line, e.column), (1, 20), "an undefined variable: {e}");
}

#[test]
fn a_throw_names_its_line_and_the_instance_goes_on() {
    let source = "fn on_member_joined(e) {\n  if e.member == 1 {\n    throw \"no lane 1\";\n  }\n  this.n = e.member;\n}";
    let mut m = mission(source);
    let e = m.handle(at(0), SESSION, &joined(1)).err().unwrap();
    assert_eq!((e.line, e.column), (3, 5), "{e}");
    assert!(e.message.contains("no lane 1"), "{e}");
    m.handle(at(0), SESSION, &joined(2)).unwrap();
    assert_eq!(m.status(), vec![(SESSION, "#{\"n\": 2}".into())]);
}

#[test]
fn an_error_in_a_helper_names_the_helper_line() {
    let e = handler_error(
        "fn helper(x) {\n  x / 0\n}\nfn on_started(e) {\n  helper(1);\n}",
        &MissionEvent::Started,
    );
    assert_eq!(e.line, 2, "{e}");
    assert!(e.message.contains("helper"), "{e}");
}

#[test]
fn a_runaway_loop_is_stopped_at_its_line() {
    // Rhai keeps no place for a stopped loop past the function: the handler is named
    let e = handler_error(
        "// spins\nfn on_started(e) {\n  let n = 0;\n  loop {\n    n += 1;\n  }\n}",
        &MissionEvent::Started,
    );
    assert_eq!((e.line, e.column), (2, 1), "{e}");
    assert!(
        e.message
            .starts_with("on_started: stopped after 10000 operations"),
        "{e}"
    );
    assert!(e.message.to_lowercase().contains("operations"), "{e}");
}

#[test]
fn unbounded_allocation_and_recursion_are_stopped() {
    let grow = "fn on_started(e) {\n  let a = [];\n  loop { a.push(1); }\n}";
    let e = handler_error(grow, &MissionEvent::Started);
    assert!(e.message.to_lowercase().contains("array"), "{e}");
    let e = handler_error(
        "fn on_started(e) {\n  let s = \"x\";\n  loop { s += s; }\n}",
        &MissionEvent::Started,
    );
    assert!(e.message.to_lowercase().contains("string"), "{e}");
    let e = handler_error(
        "fn f(n) { f(n + 1) }\nfn on_started(e) { f(0); }",
        &MissionEvent::Started,
    );
    assert!(
        e.message.to_lowercase().contains("stack") || e.message.contains("call"),
        "{e}"
    );
}

#[test]
fn the_sandbox_has_no_clock_eval_or_import() {
    assert!(
        check("t.rhai", "fn on_started(e) { timestamp(); }").is_ok(),
        "compiles"
    );
    let e = handler_error("fn on_started(e) { timestamp(); }", &MissionEvent::Started);
    assert!(e.message.contains("timestamp"), "{e}");
    let e = error("fn on_started(e) { eval(\"1\"); }");
    assert!(e.message.contains("eval"), "{e}");
    let e = error("import \"x\" as y;\nfn on_started(e) { }");
    assert_eq!(e.line, 1, "{e}");
}

#[test]
fn a_request_that_breaks_a_client_rule_fails_at_its_line() {
    let cases = [
        // INCIDENT-02: a crashing row
        ("fire_incident(795);", "INCIDENT-02"),
        // INCIDENT-01: past the table
        ("fire_incident(7763);", "INCIDENT-01"),
        // T24-01: at most 4 channel rows
        (
            "set_auth(slot(0xBBBB0001, 24, 3), #{ rows: [#{revision: 1, target: 1.0, blend_seconds: 0.0}, #{revision: 1, target: 1.0, blend_seconds: 0.0}, #{revision: 1, target: 1.0, blend_seconds: 0.0}, #{revision: 1, target: 1.0, blend_seconds: 0.0}, #{revision: 1, target: 1.0, blend_seconds: 0.0}] });",
            "BODY-05",
        ),
        (
            "set_field(slot(0xBBBB0001, 3, 1), \"objective[24].value\", 1);",
            "no element 24",
        ),
        (
            "set_field(slot(0xBBBB0001, 3, 1), \"goal\", 1);",
            "no field \"goal\"",
        ),
        (
            "set_field(slot(0xBBBB0001, 65, 4), \"active\", 3);",
            "true or false",
        ),
        (
            "set_auth(slot(0xBBBB0001, 65, 4), #{ active: true });",
            "generation is missing",
        ),
        ("set_auth(slot(0xBBBB0001, 9, 4), #{});", "no Auth schema"),
        ("slot(0x1_0000_0000, 3, 1);", "slot key"),
        ("arm_teleport(7, 0, 0);", "3 bits"),
        ("after(-1, \"x\");", "timer"),
    ];
    for (call, says) in cases {
        let source = format!("fn on_started(e) {{\n  {call}\n}}");
        let e = handler_error(&source, &MissionEvent::Started);
        assert_eq!(e.line, 2, "{call}: {e}");
        assert!(e.message.contains(says), "{call}: {e}");
    }
}

#[test]
fn a_slot_the_scenario_does_not_place_is_refused_at_its_line() {
    let mut m = mission(
        "fn on_started(e) {\n  set_field(slot(0xBBBB0001, 3, 9), \"generation\", 1);\n}\n\
         fn on_member_joined(e) {\n  set_auth(slot(0xBBBB0001, 3, 1), #{ generation: 1 });\n}",
    );
    m.serve(&vex_wire::scenario::Scenario::builtin());
    let e = m
        .handle(at(0), SESSION, &MissionEvent::Started)
        .unwrap_err();
    assert_eq!(e.line, 2, "{e}");
    assert!(
        e.message
            .contains("slot(0xbbbb0001, 3, 9) is not in scenario edz_patrol"),
        "{e}"
    );
    let placed = m.handle(at(0), SESSION, &joined(0)).unwrap();
    assert_eq!(placed.len(), 1, "a placed slot is asked for");
}

#[test]
fn slots_by_the_names_the_scenario_gives_them() {
    let source = "fn on_started(e) {\n  this.ghost = slot(\"ghost\");\n}\n\
                  fn on_member_joined(e) {\n  slot(\"ghst\");\n}";
    let e = handler_error(source, &MissionEvent::Started);
    assert!(e.message.contains("no scenario is served yet"), "{e}");
    let mut m = mission(source);
    m.serve(&vex_wire::scenario::Scenario::builtin());
    m.handle(at(0), SESSION, &MissionEvent::Started).unwrap();
    assert_eq!(m.status()[0].1, "#{\"ghost\": slot(0xbbbb0001, 65, 4)}");
    let e = m.handle(at(0), SESSION, &joined(0)).unwrap_err();
    assert_eq!(e.line, 5, "{e}");
    let names = "names no slot \"ghst\"; it names channel, ghost, objective, timer";
    assert!(e.message.contains(names), "{e}");
}

#[test]
fn timers_fire_in_due_order_and_cancel_by_name() {
    let mut m = mission(
        "fn on_started(e) { after(300, \"b\"); after(100, \"a\"); after(200, \"gone\"); cancel(\"gone\"); }
         fn on_timer(e) { this.fired = e.name; }",
    );
    m.handle(at(1_000), SESSION, &MissionEvent::Started)
        .unwrap();
    assert_eq!(m.next_timer(), Some(at(1_100)));
    assert_eq!(m.take_due_timer(at(1_099)), None);
    assert_eq!(m.take_due_timer(at(1_500)), Some((SESSION, "a".into())));
    assert_eq!(m.take_due_timer(at(1_500)), Some((SESSION, "b".into())));
    assert_eq!(m.take_due_timer(at(1_500)), None);
}

#[test]
fn a_failed_handler_sets_no_timer() {
    let mut m = mission("fn on_started(e) { after(100, \"t\"); throw \"stop\"; }");
    assert!(m.handle(at(0), SESSION, &MissionEvent::Started).is_err());
    assert_eq!(m.next_timer(), None);
}

#[test]
fn an_ended_activity_loses_its_instance_and_timers() {
    let mut m = mission("fn on_started(e) { this.x = 1; after(100, \"t\"); }");
    m.handle(at(0), SESSION, &MissionEvent::Started).unwrap();
    assert!(m.started());
    m.end(SESSION);
    assert!(!m.started());
    assert_eq!(m.next_timer(), None);
}

#[test]
fn a_reload_keeps_variables_and_timers_and_runs_the_new_handlers() {
    let mut m = mission(
        "fn init() { this.count = 0; }
         fn on_member_joined(e) { this.count += 1; after(500, \"tick\"); }",
    );
    m.handle(at(0), SESSION, &joined(0)).unwrap();
    m.prepare(
        "fn on_member_joined(e) { this.count += 10; }\nfn on_timer(e) { this.ticked = true; }",
    )
    .unwrap();
    m.handle(at(1), SESSION, &joined(1)).unwrap();
    assert_eq!(m.status()[0].1, "#{\"count\": 2}", "held, not yet swapped");
    m.swap();
    m.handle(at(2), SESSION, &joined(2)).unwrap();
    assert_eq!(m.take_due_timer(at(600)), Some((SESSION, "tick".into())));
    m.handle(
        at(600),
        SESSION,
        &MissionEvent::Timer {
            name: "tick".into(),
        },
    )
    .unwrap();
    assert_eq!(m.status()[0].1, "#{\"count\": 12, \"ticked\": true}");
}

#[test]
fn a_reload_that_does_not_compile_keeps_the_old_program() {
    let mut m = mission("fn on_member_joined(e) { this.n = 1; }");
    let e = m
        .prepare("fn on_member_joined(e) {\n  this.n = ;\n}")
        .err()
        .unwrap();
    assert_eq!(e.line, 2, "{e}");
    m.swap();
    m.handle(at(0), SESSION, &joined(0)).unwrap();
    assert_eq!(m.status()[0].1, "#{\"n\": 1}");
}

#[test]
fn check_lists_the_handlers_a_script_defines() {
    let handlers = check("t.rhai", "fn on_timer(e) {}\nfn init() {}\nfn helper() {}").unwrap();
    assert_eq!(handlers, vec!["on_timer", "init"]);
}
