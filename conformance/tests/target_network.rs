//! The network's faults against a host over TCP (`vex check --target`): each `link.*`
//! case puts its fault in line on member 1's link, and `udp.lossy` its lossy path on
//! member 1's datagrams, against `vex host` as the host under test. Every one passes
//! against it; over a path a `vex proxy` already breaks, the same cases judge the
//! breakage: member 2 noticed, or member 1 reported what its fault does not cause.

#![allow(clippy::unwrap_used)] // test code
mod common;
use common::{Host, VEX, free_port, stdout, vex, wait_listening};
use std::process::{Command, Stdio};

fn spawn(args: &[&str]) -> Host {
    Host(
        Command::new(VEX)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

#[test]
fn every_link_and_datagram_case_passes_against_vex_host_over_tcp() {
    let addr = format!("127.0.0.1:{}", free_port());
    let spawn = format!("{VEX} host --listen {addr}");
    let o = vex(&[
        "check", "--target", &addr, "--spawn", &spawn, "--quiet", "--jobs", "20", "--filter",
        "link.", "--filter", "udp.",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    // 18 faults at their positions, the keepalive and the lossy datagrams
    assert!(out.contains("20 passed, 0 failed, 0 skipped"), "{out}");
    for id in [
        "link.flip-to-client=3",
        "link.cut=20",
        "link.stall=100",
        "udp.lossy",
    ] {
        assert!(out.contains(&format!("PASS  {id} ")), "{id}: {out}");
    }
}

#[test]
fn link_cases_over_a_path_a_proxy_breaks_fail_with_what_broke() {
    let host = format!("127.0.0.1:{}", free_port());
    let proxy = format!("127.0.0.1:{}", free_port());
    let _host = spawn(&["host", "--listen", &host, "--advertise", &proxy]);
    wait_listening(&host);
    // every link's eighth encrypted frame from the host flipped: member 2's too
    let fault = ["--fault", "flip-to-client=8"];
    let _proxy = spawn(
        &[
            &["proxy", "--listen", &proxy, "--target", &host][..],
            &fault,
        ]
        .concat(),
    );
    wait_listening(&proxy);
    let o = vex(&[
        "check",
        "--target",
        &proxy,
        "--quiet",
        "--jobs",
        "3",
        "--filter",
        "link.split",
        "--filter",
        "link.replay-to-host=8",
        "--filter",
        "link.delay",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("0 passed, 3 failed"), "{out}");
    assert!(out.contains("BAP-02"), "{out}");
}
