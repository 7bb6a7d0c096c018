//! The `vex` binary's behaviour, run as a user runs it: exit codes (0 passed, 1 a finding,
//! 2 an error of the command), what it prints, the files it writes (issue 13).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
use pretty_assertions::assert_eq;
use rstest::rstest;
use std::process::Command;

mod common;
use common::{VEX, scratch, stderr, stdout, vex};

/// Exit 2 for errors of the command itself, with a message that says what went wrong.
#[rstest]
#[case::unreachable_target(&["check", "--target", "127.0.0.1:1", "--quiet"], "cannot reach a host at 127.0.0.1:1")]
#[case::unreachable_client(&["client", "--target", "127.0.0.1:1", "--seconds", "1"], "cannot reach a host at 127.0.0.1:1")]
#[case::filter_matching_nothing(&["check", "--filter", "typo"], "no case id contains \"typo\"")]
#[case::unknown_fault(&["host", "--fault", "Nope"], "no fault named \"Nope\"")]
#[case::unknown_body(&["decode", "no_such_body", "00"], "no body named")]
#[case::not_hex(&["decode", "incident", "zz"], "not hex")]
#[case::missing_expect_file(&["check", "--expect", "/nonexistent/expect.txt"], "/nonexistent/expect.txt")]
#[case::spawn_without_target(&["check", "--spawn", "true"], "--target")]
#[case::unknown_command(&["frobnicate"], "unrecognized subcommand")]
fn errors_of_the_command_exit_2(#[case] args: &[&str], #[case] says: &str) {
    let o = vex(args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(says), "{}", stderr(&o));
}

#[test]
fn help_and_version_say_vex() {
    let help = vex(&["--help"]);
    assert!(
        stdout(&help).contains("Usage: vex <COMMAND>"),
        "{}",
        stdout(&help)
    );
    assert!(!stdout(&help).contains("vex-conformance"));
    assert!(stdout(&vex(&["--version"])).starts_with("vex "));
}

/// A body that does not parse is a finding (1), not an error of the command.
#[test]
fn a_body_that_does_not_parse_exits_1() {
    let o = vex(&["decode", "join_result", "00112233"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("does not parse"), "{}", stdout(&o));
}

/// With `--json`, a body that does not parse is still JSON: what was read, and why it
/// stopped.
#[rstest]
#[case::schema("join_result", "request.host_id: read of 64 bits at bit 32")]
#[case::printed("replicate_membership", "read of 32 bits at bit 1")]
fn a_body_that_does_not_parse_is_json_with_json(#[case] name: &str, #[case] why: &str) {
    let o = vex(&["decode", name, "00112233", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["message"], name);
    assert!(j["error"].as_str().unwrap().contains(why), "{j}");
    if name == "join_result" {
        assert_eq!(j["read"][0]["field"], "request.nonce", "{j}");
        assert_eq!(j["read"][0]["raw"], "00112233", "{j}");
    }
}

#[test]
fn the_in_process_check_passes_and_lists_its_cases() {
    let o = vex(&["check", "--filter", "route.", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("PASS  route.join"), "{}", stdout(&o));
    let list = vex(&["check", "--list"]);
    assert!(
        stdout(&list)
            .lines()
            .any(|l| l.starts_with("route.join ") && l.contains("any host"))
    );
    assert!(
        stdout(&list)
            .lines()
            .any(|l| l.starts_with("catch.JOIN-01.BurstOrder") && l.contains("--fault BurstOrder"))
    );
}

/// The whole catalog passes on the large scenario too (96 objects in bubble 0, a roster of
/// 18.8 KB): every clean case and every caught fault, whatever slot ends the roster.
#[test]
fn the_whole_check_passes_on_the_large_scenario() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scenarios/edz_patrol_large.toml"
    );
    let o = vex(&["check", "--scenario", file, "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(", 0 failed, 0 skipped"),
        "{}",
        stdout(&o)
    );
}

/// A listed case that passes is an unexpected pass and fails the run; an unknown id in the
/// file is an error naming its line.
#[test]
fn expected_results_fail_on_an_unexpected_pass_and_refuse_unknown_ids() {
    let dir = scratch("cli_expect");
    let file = dir.join("expect.txt");
    std::fs::write(&file, "# known\nroute.join  # passes\n").unwrap();
    let path = file.to_str().unwrap();
    let o = vex(&[
        "check",
        "--filter",
        "route.join",
        "--expect",
        path,
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("XPASS route.join"), "{}", stdout(&o));
    std::fs::write(&file, "route.join\nroute.jion\n").unwrap();
    let o = vex(&["check", "--expect", path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("line 2: \"route.jion\""),
        "{}",
        stderr(&o)
    );
}

/// Against `vex host --fault BurstOrder`, started by `--spawn`, route.join fails with
/// JOIN-01 and the JUnit failure carries the violation; `--write-expect` records it, and
/// with that file the same run passes with an expected failure. Skipped cases print as
/// one line with their reason.
#[test]
fn a_faulty_host_over_tcp_fails_with_its_rule_and_can_be_expected() {
    let dir = scratch("cli_tcp_fault");
    let addr = "127.0.0.1:30981";
    let spawn = format!("{VEX} host --listen {addr} --fault BurstOrder");
    let (junit, expect) = (dir.join("junit.xml"), dir.join("expect.txt"));
    let log = dir.join("host.log");
    let common = ["check", "--target", addr, "--spawn", &spawn];
    let mut args = common.to_vec();
    args.extend([
        "--filter",
        "route.join",
        "--filter",
        "BurstOrder",
        "--junit",
        junit.to_str().unwrap(),
        "--write-expect",
        expect.to_str().unwrap(),
        "--spawn-log",
        log.to_str().unwrap(),
    ]);
    let o = vex(&args);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(out.contains("FAIL  route.join"), "{out}");
    assert!(
        stderr(&o).contains("] FAIL  route.join ("),
        "a TCP run off a terminal shows each finished case on stderr: {}",
        stderr(&o)
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("SKIP")).count(),
        1,
        "skips collapse to one line: {out}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    let report = quick_junit::Report::deserialize_from_str(&xml)
        .unwrap_or_else(|e| panic!("a JUnit parser reads it back: {e}: {xml}"));
    let suite = &report.test_suites[0];
    let join = suite
        .test_cases
        .iter()
        .find(|c| c.name.as_str() == "route.join")
        .unwrap();
    let quick_junit::TestCaseStatus::NonSuccess { description, .. } = &join.status else {
        panic!("route.join failed: {xml}");
    };
    let body = description.as_ref().map(|d| d.as_str()).unwrap_or_default();
    assert!(
        body.contains("JOIN-01 ["),
        "the failure carries its violation: {xml}"
    );
    assert!(
        suite
            .test_cases
            .iter()
            .any(|c| matches!(c.status, quick_junit::TestCaseStatus::Skipped { .. })),
        "a skipped case is skipped: {xml}"
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("serving with a fault on purpose"),
        "--spawn-log keeps the host's output: {logged}"
    );
    let written = std::fs::read_to_string(&expect).unwrap();
    assert!(
        written.lines().any(|l| l.starts_with("route.join ")),
        "{written}"
    );

    let mut args = common.to_vec();
    args.extend([
        "--filter",
        "route.join",
        "--expect",
        expect.to_str().unwrap(),
    ]);
    let o = vex(&args);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("XFAIL route.join"), "{}", stdout(&o));
}

/// A `--spawn` command that never listens is an error, not a failed case, and its last
/// output says why.
#[test]
fn a_spawned_host_that_exits_is_an_error() {
    let cmd = "echo the port is taken >&2; exit 3";
    let o = vex(&["check", "--target", "127.0.0.1:30982", "--spawn", cmd]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("exited (exit status: 3)"), "{err}");
    assert!(err.contains("| the port is taken"), "{err}");
}

/// With a host already listening at the target, `--spawn` refuses: the run would check
/// that host, not the one it was asked to start.
#[test]
fn spawn_refuses_a_target_already_taken() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let o = vex(&["check", "--target", &addr, "--spawn", "sleep 30"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("already listens"), "{}", stderr(&o));
}

/// Every enforced rule's summary starts in the same column as the header's.
#[test]
fn rules_are_aligned() {
    let out = stdout(&vex(&["rules"]));
    let header = out.lines().nth(1).unwrap();
    let column = header.find("summary").unwrap();
    for rule in vex_fake_client::ENFORCED {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{} ", rule.id())))
            .unwrap();
        assert_eq!(line.find(rule.summary()), Some(column), "{line}");
    }
}

#[test]
fn coverage_as_json_counts_every_rule() {
    let o = vex(&["rules", "--coverage", "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["rules"], vex_fake_client::Rule::ALL.len());
    assert_eq!(j["enforced"], vex_fake_client::ENFORCED.len());
    assert_eq!(j["caught"], j["enforced"]);
    let join01 = j["coverage"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "JOIN-01")
        .unwrap();
    assert_eq!(join01["enforced"], true);
    assert!(
        join01["any_host"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "route.join")
    );
}

/// A message 12 of one member.
fn membership_hex() -> String {
    use vex_wire::activity::body::Body;
    use vex_wire::activity::membership::{Member, ReplicateMembership};
    let m =
        ReplicateMembership::for_local_member(Member::seed(0x1122, 0x9EAA_3001_0000_0001, 7), 1);
    hex::encode_upper(m.encode().unwrap())
}

/// A message 6 of one empty group.
fn sense_hex() -> String {
    use vex_wire::activity::body::Body;
    use vex_wire::activity::sense_update::{SenseGroup, SenseUpdate};
    let m = SenseUpdate {
        patch_epoch: [1, 2],
        groups: vec![SenseGroup {
            key: 0xBBBB_0002,
            objects: vec![],
        }],
    };
    hex::encode_upper(m.encode().unwrap())
}

/// Messages 5, 6 and 12 print as JSON too, by name or by id.
#[rstest]
#[case::roster("5", vex_wire::vectors::SENSOR_AUTH_FULL_EXAMPLE.into(), "sensor_auth_update")]
#[case::sense("sensor_sense_update", sense_hex(), "sensor_sense_update")]
#[case::membership("12", membership_hex(), "replicate_membership")]
fn activity_messages_print_as_json(
    #[case] name: &str,
    #[case] body: String,
    #[case] message: &str,
) {
    let o = vex(&["decode", name, &body, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["message"], message);
}

#[test]
fn faults_list_with_their_rules() {
    let out = stdout(&vex(&["host", "--list-faults"]));
    assert!(
        out.lines()
            .any(|l| l.starts_with("BurstOrder ") && l.ends_with("JOIN-01")),
        "{out}"
    );
    assert_eq!(out.lines().count(), vex_faults::Fault::ALL.len());
}

/// TCP cases run `--jobs` at a time: two 5-second cases at two jobs end well before ten
/// seconds.
#[test]
fn tcp_cases_run_concurrently() {
    let addr = "127.0.0.1:30985";
    let spawn = format!("{VEX} host --listen {addr}");
    let started = std::time::Instant::now();
    let o = vex(&[
        "check",
        "--target",
        addr,
        "--spawn",
        &spawn,
        "--quiet",
        "--jobs",
        "2",
        "--filter",
        "route.join",
        "--filter",
        "route.leave",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("2 passed"), "{}", stdout(&o));
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(9), "took {took:?}");
}

/// A name decodes as one line of text, and `vex encode` takes it back as a string.
#[test]
fn names_decode_as_text_and_encode_from_strings() {
    use std::io::Write as _;
    use vex_wire::activity::body::Body;
    use vex_wire::activity::join::{JoinRequest, JoinResult};
    let request = JoinRequest::new(7, 0x0123_4567_89AB_CDEF, 0x1122, 0x3344);
    let body = JoinResult::accept(&request, 0x0123_4567_89AB_CDEF)
        .encode()
        .unwrap();
    let hex_text = hex::encode_upper(&body);
    let text = stdout(&vex(&["decode", "join_result", &hex_text]));
    let line = text.lines().find(|l| l.contains("session_name")).unwrap();
    assert!(line.ends_with("\"0123456789abcdef\""), "{line}");
    assert!(text.lines().count() < 60, "{text}");
    let json = stdout(&vex(&["decode", "join_result", &hex_text, "--json"]));
    assert!(
        json.contains("\"session_name\": \"0123456789abcdef\""),
        "{json}"
    );
    let mut encode = Command::new(VEX)
        .args(["encode", "join_result"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    encode
        .stdin
        .take()
        .unwrap()
        .write_all(json.as_bytes())
        .unwrap();
    let back = encode.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&back.stdout).trim(), hex_text);
}
