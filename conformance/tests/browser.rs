//! The HTML report in a real headless browser (Debian's Chromium, which `ci/tools`
//! installs): the page of a run against a host that breaks JOIN-01 loads without a script
//! error, the failing case's violations are on screen, on the frame that caused them, and
//! the decode of the frame the address names is inflated from the page and shown.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
use std::process::Command;

const VEX: &str = env!("CARGO_BIN_EXE_vex");

/// Chromium's flags for a headless run on a machine with no network but loopback; the
/// virtual time budget lets the page's promises (the decode's inflation) settle before
/// the DOM is dumped.
const CHROMIUM: [&str; 10] = [
    "--virtual-time-budget=5000",
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--dump-dom",
];

#[test]
fn the_report_loads_and_shows_a_failing_case_violation() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser_report");
    let _ = std::fs::remove_dir_all(&dir);
    let addr = "127.0.0.1:30984";
    let spawn = format!("{VEX} host --listen {addr} --fault BurstOrder");
    let html = dir.join("html");
    let run = Command::new(VEX)
        .args(["check", "--target", addr, "--spawn", &spawn, "--quiet"])
        .args(["--filter", "route.join", "--html", html.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "route.join fails against BurstOrder"
    );

    let page = html.join("index.html");
    // the violating frame's decode, named in the address, opens at load
    let source = std::fs::read_to_string(&page).unwrap();
    let violating = source
        .find("\"frame to-client violating\" data-decode=\"")
        .unwrap();
    let id = source[violating..].split("data-decode=\"").nth(1).unwrap();
    let id = &id[..id.find('"').unwrap()];
    let profile = dir.join("profile");
    let dom = Command::new("chromium")
        .args(CHROMIUM)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}#{id}", page.display()))
        .output()
        .expect("Chromium runs: `bash ci/tools` installs it");
    let dom = String::from_utf8_lossy(&dom.stdout);
    let body = dom
        .split("<body")
        .nth(1)
        .and_then(|b| b.split('>').next())
        .unwrap_or_default();
    assert!(
        body.contains("data-ready=\"yes\""),
        "the page loaded: <body{body}>"
    );
    assert!(
        !body.contains("data-script-error"),
        "no script error: <body{body}>"
    );
    let shown: usize = body
        .split("data-visible-violations=\"")
        .nth(1)
        .and_then(|v| v.split('"').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_default();
    assert!(shown > 0, "violations on screen: <body{body}>");
    let violating = dom.find("\"frame to-client violating").unwrap();
    let row = &dom[violating + 1..];
    let row = &row[..row.find("\"frame ").unwrap_or(row.len())];
    assert!(
        row.contains("JOIN-01</a> [drop] frame 7"),
        "JOIN-01 sits on the frame that caused it, before the next frame: {row}"
    );
    let decode = dom
        .split(&format!("id=\"{id}\""))
        .nth(1)
        .and_then(|d| d.split("</div>").next())
        .unwrap_or_default();
    assert!(
        decode.contains("data-filled=\"yes\"") && decode.contains("vex decode "),
        "the named frame's decode is inflated and shown: {decode}"
    );
}
