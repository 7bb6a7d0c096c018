//! `vex mission` and `vex host --mission` as a user runs them: a script checked without a
//! host; a host running a mission for a real client over TCP, its file edited under it
//! (the watch reloads it, keeping the activity's variables), a broken edit that leaves the
//! old script running, and the command link (issue 8).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{Host, VEX, scratch, stdout, vex};

fn shipped(name: &str) -> String {
    format!("{}/../missions/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn check_compiles_the_shipped_missions() {
    for name in ["ghost_chain.rhai", "timed_phases.rhai"] {
        let o = vex(&["mission", "check", &shipped(name)]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        assert!(
            stdout(&o).contains("compiles; handlers: on_started"),
            "{}",
            stdout(&o)
        );
    }
}

#[test]
fn check_reports_an_error_at_its_place_and_an_unreadable_file() {
    let dir = scratch("mission_check");
    let bad = dir.join("bad.rhai");
    std::fs::write(
        &bad,
        "fn on_started(e) {\n  set_field(1, 2, 3)\n  let x = ;\n}\n",
    )
    .unwrap();
    let o = vex(&["mission", "check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).starts_with(&format!("{}:3:", bad.display())),
        "{}",
        stdout(&o)
    );
    let o = vex(&[
        "mission",
        "check",
        dir.join("missing.rhai").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_host_without_a_command_link_is_an_error() {
    let o = vex(&["mission", "status", "--command", "127.0.0.1:1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot reach"));
}

#[test]
fn the_command_link_listens_on_this_machine_only() {
    let o = vex(&[
        "host",
        "--listen",
        "127.0.0.1:30990",
        "--mission",
        &shipped("ghost_chain.rhai"),
        "--command",
        "0.0.0.0:30991",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("this machine only"));
}

/// Asks `command` over the link at `link` until `wanted` holds of the answer, for up to
/// five seconds; the last answer.
fn ask_until(link: &str, command: &str, wanted: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let answer = stdout(&vex(&["mission", command, "--command", link]));
        if wanted(&answer) || start.elapsed() > Duration::from_secs(5) {
            return answer;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn an_edited_mission_reloads_under_a_running_client() {
    let dir = scratch("mission_reload");
    let file = dir.join("phases.rhai");
    std::fs::copy(shipped("timed_phases.rhai"), &file).unwrap();
    let (listen, link) = ("127.0.0.1:30992", "127.0.0.1:30993");
    let _host = Host(
        Command::new(VEX)
            .args(["host", "--listen", listen, "--command", link, "--mission"])
            .arg(&file)
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let status = ask_until(link, "status", |a| a.contains("no activity"));
    assert!(status.contains("no activity runs the mission"), "{status}");
    let reload = stdout(&vex(&["mission", "reload", "--command", link]));
    assert!(
        reload.contains("refused"),
        "only a started mission reloads: {reload}"
    );

    let client = Command::new(VEX)
        .args(["client", "--target", listen, "--seconds", "6"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status = ask_until(link, "status", |a| a.contains("\"phase\": 1"));
    assert!(status.contains("\"phase\": 1"), "{status}");

    // the designer renames phase 2's number; the file watch reloads it
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("this.phase = 2;", "this.phase = 20;")).unwrap();
    let status = ask_until(link, "status", |a| a.contains("\"phase\": 20"));
    assert!(
        status.contains("\"phase\": 20"),
        "the reloaded on_timer ran: {status}"
    );
    assert!(
        status.contains("\"revision\": 2"),
        "the variables were kept: {status}"
    );

    // a broken edit leaves the running script
    std::fs::write(&file, "fn on_timer(e) {\n  this.phase = ;\n}\n").unwrap();
    let events = ask_until(link, "events", |a| a.contains("does not compile"));
    assert!(events.contains("phases.rhai:2:"), "{events}");

    let client = client.wait_with_output().unwrap();
    assert_eq!(client.status.code(), Some(0), "{}", stdout(&client));
    assert!(
        stdout(&client).contains("still in the activity"),
        "{}",
        stdout(&client)
    );
}
