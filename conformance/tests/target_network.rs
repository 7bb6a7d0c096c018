//! The network's faults against a host over TCP (`vex check --target`): each `link.*`
//! case puts its fault in line on member 1's link, and `udp.lossy` its lossy path on
//! member 1's datagrams, against `vex host` as the host under test. Every one passes
//! against it; over a path a `vex proxy` already breaks, the same cases judge the
//! breakage: member 2 noticed, or member 1 reported what its fault does not cause.

#![allow(clippy::unwrap_used)] // test code
mod common;
use common::{Host, VEX, free_port, stdout, vex, wait_listening};

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
    let _host = Host::vex(&["host", "--listen", &host, "--advertise", &proxy]);
    wait_listening(&host);
    // every link's eighth encrypted frame from the host flipped: member 2's too
    let fault = ["--fault", "flip-to-client=8"];
    let _proxy = Host::vex(
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

/// Every attack against `vex host` over real sockets: each bounded, with the bound and
/// when, and the spawned host's memory before, during and after.
#[test]
fn every_attack_is_bounded_by_vex_host_over_tcp() {
    let addr = format!("127.0.0.1:{}", free_port());
    let spawn = format!("exec {VEX} host --listen {addr}");
    let o = vex(&[
        "check", "--target", &addr, "--spawn", &spawn, "--quiet", "--filter", "hostile.",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("8 passed, 0 failed, 0 skipped"), "{out}");
    for measured in [
        "before any byte of the frame",
        "2000 of 2000 silent connections closed, the last 10",
        "closed 10",
        "into a flood of hellos",
        "the link open to the end",
        "cookie echoes with forged cookies from one address, 0 answered",
    ] {
        assert!(out.contains(measured), "{measured}: {out}");
    }
    assert_eq!(out.matches("; host memory ").count(), 8, "{out}");
}

/// `vex host --no-limits` bounds nothing: every attack on a link fails its case with the
/// figure it reached.
#[test]
fn a_host_with_no_limits_fails_the_attacks_with_their_figures() {
    let addr = format!("127.0.0.1:{}", free_port());
    let spawn = format!("exec {VEX} host --listen {addr} --no-limits");
    let o = vex(&[
        "check",
        "--target",
        &addr,
        "--spawn",
        &spawn,
        "--quiet",
        "--filter",
        "hostile.huge-frame",
        "--filter",
        "hostile.slow-sender",
        "--filter",
        "hostile.half-open",
        "--filter",
        "hostile.hello-flood",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("0 passed, 4 failed"), "{out}");
    for figure in [
        "sent 67108870 bytes of a frame announcing 4 GiB",
        "no bound on a slow frame",
        "2000 of 2000 connections that never sent a byte still held",
        "no bound on a link's frame rate",
    ] {
        assert!(out.contains(figure), "{figure}: {out}");
    }
}
