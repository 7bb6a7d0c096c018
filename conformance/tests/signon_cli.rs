//! `vex host --signon` and `vex client --signon` over real HTTPS: SignOn, the manifest,
//! then the activity; an account the scenario refuses stops at SignOn; a pinned
//! fingerprint that does not match is an error, not a rule.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
mod common;
use common::{Host, VEX, scratch, stderr, stdout, vex};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

/// `vex host` with SignOn at `signon`, BAP at `listen`; the certificate's fingerprint
/// from its output once it serves.
fn host(listen: &str, signon: &str, extra: &[&str], public_key: &Path) -> (Host, String) {
    let mut child = Command::new(VEX)
        .args(["host", "--listen", listen, "--signon", signon])
        .arg("--manifest-public-key")
        .arg(public_key)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let host = Host(child);
    let fingerprint = BufReader::new(out)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("certificate SHA-256: ").map(str::to_string))
        .expect("the host prints its certificate's fingerprint");
    (host, fingerprint)
}

fn client(signon: &str, fingerprint: &str, public_key: &Path) -> std::process::Output {
    let url = format!("https://{signon}");
    let key = public_key.to_str().unwrap();
    vex(&[
        "client",
        "--signon",
        &url,
        "--signon-fingerprint",
        fingerprint,
        "--manifest-public-key",
        key,
        "--seconds",
        "2",
    ])
}

#[test]
fn a_client_signs_on_verifies_the_manifest_and_joins() {
    let dir = scratch("signon_joins");
    let key = dir.join("manifest.pem");
    let (_host, fingerprint) = host("127.0.0.1:30994", "127.0.0.1:30995", &[], &key);
    let run = client("127.0.0.1:30995", &fingerprint, &key);
    let text = stdout(&run);
    assert_eq!(run.status.code(), Some(0), "{text}{}", stderr(&run));
    assert!(
        text.contains("signed on after 1 answer(s); BAP server 127.0.0.1:30994"),
        "{text}"
    );
    // SignOn, the manifest, the lobby calls, the route: no violation on the way
    assert!(text.contains("still in the activity"), "{text}");
    assert!(!text.contains("VIOLATION"), "{text}");

    // another key does not verify the manifest: MANIFEST-01, and the run fails
    let other = dir.join("other.pem");
    let (_other_host, _) = host("127.0.0.1:30996", "127.0.0.1:30997", &[], &other);
    let run = client("127.0.0.1:30995", &fingerprint, &other);
    let text = stdout(&run);
    assert_eq!(run.status.code(), Some(1), "{text}");
    assert!(text.contains("VIOLATION MANIFEST-01"), "{text}");
    assert!(text.contains("code 6"), "{text}");
}

#[test]
fn an_account_the_scenario_refuses_stops_at_signon() {
    let dir = scratch("signon_refused");
    let scenario = dir.join("refused.toml");
    let text = format!(
        "{}\n[[lobby.account]]\nsteam_id = \"76561197960287930\"\n\
         signon = [{{ outcome = \"error\", reason = 8, title = \"Update\", body = \"Get the new build\" }}]\n",
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scenarios/edz_patrol.toml"
        ))
        .unwrap()
    );
    std::fs::write(&scenario, text).unwrap();
    let key = dir.join("manifest.pem");
    let scenario = scenario.to_str().unwrap();
    let (_host, fingerprint) = host(
        "127.0.0.1:30998",
        "127.0.0.1:30999",
        &["--scenario", scenario],
        &key,
    );
    let run = client("127.0.0.1:30999", &fingerprint, &key);
    let text = stdout(&run);
    assert_eq!(run.status.code(), Some(1), "{text}");
    assert!(
        text.contains("stopped at SignOn after 1 answer(s): error 8: _version_mismatch_error"),
        "{text}"
    );
    assert!(!text.contains("VIOLATION"), "{text}");
}

#[test]
fn a_certificate_that_is_not_the_pinned_one_is_an_error() {
    let dir = scratch("signon_pin");
    let key = dir.join("manifest.pem");
    let (_host, fingerprint) = host("127.0.0.1:31000", "127.0.0.1:31001", &[], &key);
    let wrong = "00".repeat(32);
    let run = client("127.0.0.1:31001", &wrong, &key);
    assert_eq!(run.status.code(), Some(2), "{}", stdout(&run));
    assert!(stderr(&run).contains("not the pinned"), "{}", stderr(&run));
    // and nothing listening is an error too
    let run = client("127.0.0.1:31002", &fingerprint, &key);
    assert_eq!(run.status.code(), Some(2));
}

#[test]
fn vex_check_judges_a_hosts_signon_over_https() {
    let dir = scratch("signon_check");
    let key = dir.join("manifest.pem");
    let key_arg = key.to_str().unwrap();
    let check = |signon: &str, fingerprint: &str, target: &str| {
        let url = format!("https://{signon}");
        vex(&[
            "check",
            "--target",
            target,
            "--signon",
            &url,
            "--signon-fingerprint",
            fingerprint,
            "--manifest-public-key",
            key_arg,
            "--filter",
            "signon.route",
            "--quiet",
        ])
    };
    // a clean host passes; without --signon the case is skipped, never passed
    let (host_a, fingerprint) = host("127.0.0.1:31003", "127.0.0.1:31004", &[], &key);
    let run = check("127.0.0.1:31004", &fingerprint, "127.0.0.1:31003");
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    assert!(
        stdout(&run).contains("PASS  signon.route"),
        "{}",
        stdout(&run)
    );
    let bare = vex(&[
        "check",
        "--target",
        "127.0.0.1:31003",
        "--filter",
        "signon.route",
    ]);
    assert!(
        stdout(&bare).contains("0 passed, 0 failed, 1 skipped"),
        "{}",
        stdout(&bare)
    );
    assert!(
        stdout(&bare).contains("SignOn URL with --signon"),
        "{}",
        stdout(&bare)
    );
    // with --json, standard output is the JSON alone: the notice that no fingerprint is
    // pinned goes to standard error
    let json = vex(&[
        "check",
        "--target",
        "127.0.0.1:31003",
        "--signon",
        "https://127.0.0.1:31004",
        "--filter",
        "signon.route",
        "--json",
    ]);
    let parsed: serde_json::Value =
        serde_json::from_slice(&json.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&json)));
    assert_eq!(parsed["passed"], 1, "{parsed}");
    assert!(
        stderr(&json).contains("any certificate is taken"),
        "{}",
        stderr(&json)
    );
    drop(host_a);
    // a host whose SignOn leaves out the token fails the case with SIGNON-01
    let (_host, fingerprint) = host(
        "127.0.0.1:31005",
        "127.0.0.1:31006",
        &["--fault", "SignOnTokenMissing"],
        &key,
    );
    let run = check("127.0.0.1:31006", &fingerprint, "127.0.0.1:31005");
    let text = stdout(&run);
    assert_eq!(run.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL  signon.route"), "{text}");
    assert!(text.contains("SIGNON-01"), "{text}");
    // a SignOn endpoint nothing listens at is an error
    let run = check("127.0.0.1:31007", &fingerprint, "127.0.0.1:31005");
    assert_eq!(run.status.code(), Some(2), "{}", stdout(&run));
    assert!(
        stderr(&run).contains("cannot reach SignOn"),
        "{}",
        stderr(&run)
    );
}
