//! The CI recipe of `examples/ci/`: `vex-check.sh` run as a host author's CI runs it,
//! against `vex host` as the host under test, then against `vex host --fault NAME`, then
//! with the expected results that failure was recorded in, and with a host that never
//! comes up: the exit codes and the artifacts are what the script's header promises. The
//! workflow file names the script and keeps what the script writes.

#![allow(clippy::unwrap_used, clippy::panic)] // test code
mod common;
use common::{VEX, free_port, scratch};
use quick_junit::{Report, TestCaseStatus};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn recipe() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ci")
}

/// `bash vex-check.sh ARGS` with `host` as VEX_HOST_CMD listening at `target`, its
/// artifacts in `out`, and `env` besides.
fn run_recipe(host: &str, target: &str, out: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    Command::new("bash")
        .arg(recipe().join("vex-check.sh"))
        .args(args)
        .env("VEX", VEX)
        .env("VEX_HOST_CMD", host)
        .env("VEX_TARGET", target)
        .env("VEX_OUT", out)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn junit(out: &Path) -> Report {
    let xml = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    Report::deserialize_from_str(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

const TWO_CASES: [&str; 4] = ["--filter", "route.join", "--filter", "route.leave"];

/// The whole suite a host author's CI runs, against `vex host` with its SignOn: every
/// case that runs against any host (the link faults, the attacks and SignOn among them)
/// passes, and every artifact is kept.
#[test]
fn the_recipe_passes_a_clean_host_and_keeps_every_artifact() {
    let out = scratch("ci_recipe_clean");
    let target = format!("127.0.0.1:{}", free_port());
    let signon = format!("127.0.0.1:{}", free_port());
    let host = format!("exec {VEX} host --listen {target} --signon {signon}");
    let url = format!("https://{signon}");
    let o = run_recipe(&host, &target, &out, &[("VEX_SIGNON", &url)], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let report = std::fs::read_to_string(out.join("report.txt")).unwrap();
    let totals = report.lines().last().unwrap();
    let passed: usize = totals.split(" passed").next().unwrap().parse().unwrap();
    assert!(passed >= 53, "{totals}");
    assert!(totals.contains(" passed, 0 failed"), "{totals}");
    for id in [
        "signon.route",
        "lobby.services",
        "link.cut=20",
        "hostile.half-open",
    ] {
        assert!(report.contains(&format!("PASS  {id} ")), "{id}: {report}");
    }
    let cases = &junit(&out).test_suites[0].test_cases;
    let succeeded = cases
        .iter()
        .filter(|c| matches!(c.status, TestCaseStatus::Success { .. }))
        .count();
    assert_eq!(succeeded, passed);
    let page = std::fs::read_to_string(out.join("html/index.html")).unwrap();
    assert!(page.contains("route.join"), "the page shows the cases");
    let transcripts = std::fs::read_dir(out.join("transcripts")).unwrap().count();
    assert_eq!(transcripts, passed, "one transcript per case run");
    let log = std::fs::read_to_string(out.join("host.log")).unwrap();
    assert!(
        log.contains("accepted"),
        "the host's own output is kept: {log}"
    );
}

#[test]
fn the_recipe_fails_a_faulty_host_and_gates_on_recorded_failures() {
    let out = scratch("ci_recipe_fault");
    let target = format!("127.0.0.1:{}", free_port());
    let host = format!("exec {VEX} host --listen {target} --fault BurstOrder");
    let expect = out.join("vex-expect.txt");
    let mut args = TWO_CASES.to_vec();
    args.extend(["--write-expect", expect.to_str().unwrap()]);
    let o = run_recipe(&host, &target, &out, &[], &args);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let failed: Vec<_> = junit(&out).test_suites[0]
        .test_cases
        .iter()
        .filter(|c| matches!(c.status, TestCaseStatus::NonSuccess { .. }))
        .map(|c| c.name.to_string())
        .collect();
    assert!(failed.contains(&"route.join".to_string()), "{failed:?}");
    // the failures recorded, the same host passes the gate
    let recorded = [("VEX_EXPECT", expect.to_str().unwrap())];
    let o = run_recipe(&host, &target, &out, &recorded, &TWO_CASES);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("failed as expected"), "{}", text(&o));
}

#[test]
fn a_host_that_never_comes_up_is_an_error_not_a_finding() {
    let out = scratch("ci_recipe_down");
    let target = format!("127.0.0.1:{}", free_port());
    let o = run_recipe("exit 3", &target, &out, &[], &TWO_CASES);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = Command::new("bash")
        .arg(recipe().join("vex-check.sh"))
        .env_remove("VEX_HOST_CMD")
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(0), "no host command is no run");
    assert!(text(&o).contains("VEX_HOST_CMD"), "{}", text(&o));
}

/// The workflow runs the script, gives it what it reads, and keeps what it writes.
#[test]
fn the_workflow_runs_the_recipe_and_keeps_its_artifacts() {
    let workflow = std::fs::read_to_string(recipe().join("github-actions.yml")).unwrap();
    let script = std::fs::read_to_string(recipe().join("vex-check.sh")).unwrap();
    assert!(workflow.contains("run: bash vex-check.sh"), "{workflow}");
    for var in ["VEX_HOST_CMD", "VEX_TARGET", "VEX_OUT", "VEX_EXPECT"] {
        assert!(
            script.contains(&format!("${{{var}")),
            "the script reads {var}"
        );
        assert!(
            workflow.contains(&format!("{var}: ")),
            "the workflow sets {var}"
        );
    }
    assert!(workflow.contains("VEX_OUT: vex-report"), "{workflow}");
    assert!(workflow.contains("path: vex-report\n"), "{workflow}");
    assert!(
        workflow.contains("report_paths: vex-report/junit.xml"),
        "{workflow}"
    );
    assert!(workflow.contains("vex-conformance"), "installs vex");
}
