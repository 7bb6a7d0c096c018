//! `vex proxy` over real TCP: the host advertises the proxy, so both of a client's links
//! go through it; a fault the link must carry leaves the client clean, and one the client
//! must report is reported with the rule the in-process `link.*` case names.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
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

/// `vex client` for 5 s through a proxy with `fault`: its exit code and output.
fn through_proxy(fault: &[&str]) -> (Option<i32>, String) {
    let host = format!("127.0.0.1:{}", free_port());
    let proxy = format!("127.0.0.1:{}", free_port());
    let _host = spawn(&["host", "--listen", &host, "--advertise", &proxy]);
    wait_listening(&host);
    let mut args = vec!["proxy", "--listen", &proxy, "--target", &host, "--fault"];
    args.extend(fault);
    let _proxy = spawn(&args);
    wait_listening(&proxy);
    let out = vex(&[
        "client",
        "--target",
        &proxy,
        "--seconds",
        "5",
        "--refresh-after",
        "2000",
    ]);
    (out.status.code(), stdout(&out))
}

#[test]
fn a_link_split_at_every_byte_carries_the_whole_route() {
    let (code, out) = through_proxy(&["split"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("still in the activity"), "{out}");
}

#[test]
fn a_cut_activity_link_is_link_01() {
    let (code, out) = through_proxy(&["cut=12", "--on", "2"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("ended by LINK-01"), "{out}");
}

#[test]
fn a_flipped_bit_from_the_host_is_bap_02() {
    let (code, out) = through_proxy(&["flip-to-client=8", "--on", "2"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("ended by BAP-02"), "{out}");
}

#[test]
fn a_replayed_frame_to_the_host_is_refused_and_the_link_goes_on() {
    let (code, out) = through_proxy(&["replay-to-host=8", "--on", "2"]);
    assert_eq!(code, Some(0), "{out}");
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
