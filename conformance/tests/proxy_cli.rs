//! `vex proxy` over real TCP: the host advertises the proxy, so both of a client's links
//! go through it; a fault the link must carry leaves the client clean, and one the client
//! must report is reported with the rule the in-process `link.*` case names.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
mod common;
use common::{Host, free_port, stdout, vex, wait_listening};

/// `vex client` for 5 s through a proxy with `fault`: its exit code and output.
fn through_proxy(fault: &[&str]) -> (Option<i32>, String) {
    through_proxy_doing(fault, &["--seconds", "5", "--refresh-after", "2000"])
}

/// `vex client` with `client` arguments through a proxy with `fault`.
fn through_proxy_doing(fault: &[&str], client: &[&str]) -> (Option<i32>, String) {
    let host = format!("127.0.0.1:{}", free_port());
    let proxy = format!("127.0.0.1:{}", free_port());
    let _host = Host::vex(&["host", "--listen", &host, "--advertise", &proxy]);
    wait_listening(&host);
    let mut args = vec!["proxy", "--listen", &proxy, "--target", &host];
    args.extend(fault);
    let _proxy = Host::vex(&args);
    wait_listening(&proxy);
    let mut args = vec!["client", "--target", &proxy];
    args.extend(client);
    let out = vex(&args);
    (out.status.code(), stdout(&out))
}

#[test]
fn a_link_split_at_every_byte_carries_the_whole_route() {
    let (code, out) = through_proxy(&["--fault", "split"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("still in the activity"), "{out}");
}

#[test]
fn a_cut_activity_link_is_link_01() {
    let (code, out) = through_proxy(&["--fault", "cut=12", "--on", "2"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("ended by LINK-01"), "{out}");
}

#[test]
fn a_flipped_bit_from_the_host_is_bap_02() {
    let (code, out) = through_proxy(&["--fault", "flip-to-client=8", "--on", "2"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("ended by BAP-02"), "{out}");
}

#[test]
fn a_replayed_frame_to_the_host_is_refused_and_the_link_goes_on() {
    let (code, out) = through_proxy(&["--fault", "replay-to-host=8", "--on", "2"]);
    assert_eq!(code, Some(0), "{out}");
}

/// What the client does over UDP: a QoS probe of its session, then the association and
/// the group session.
const PROBE_AND_JOIN: [&str; 6] = [
    "--seconds",
    "9",
    "--qos-probe-after",
    "500",
    "--associate-after",
    "1000",
];

/// Over real UDP through a proxy that loses one datagram in 3, lets one in 4 be
/// overtaken and doubles one in 5, each way: the client still probes, associates, joins
/// the group session and holds revision 2 with matching hashes (issue 23's "Done when").
#[test]
fn a_lossy_datagram_path_still_carries_the_group_session() {
    let udp = ["--udp-fault", "drop=3,reorder=4,dup=5"];
    let client = PROBE_AND_JOIN;
    let (code, out) = through_proxy_doing(&udp, &client);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("membership revision 2 held, 2 update(s) applied with matching hashes"),
        "{out}"
    );
}

/// The same straight to the host over loopback UDP.
#[test]
fn the_group_session_over_loopback_udp() {
    let host = format!("127.0.0.1:{}", free_port());
    let _host = Host::vex(&["host", "--listen", &host]);
    wait_listening(&host);
    let mut args = vec!["client", "--target", &host];
    args.extend(PROBE_AND_JOIN);
    let out = vex(&args);
    let (code, out) = (out.status.code(), stdout(&out));
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("membership revision 2 held"), "{out}");
}

#[test]
fn a_fault_that_does_not_parse_is_an_error() {
    let out = vex(&[
        "proxy",
        "--listen",
        "127.0.0.1:1",
        "--target",
        "127.0.0.1:2",
        "--fault",
        "warp=3",
    ]);
    assert_eq!(out.status.code(), Some(2));
}
