//! The peer transport's cases run to the end: the datagrams of the run show the exchange
//! the case names, so a case that passed without one would be caught here.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // test code

use vex_conformance::{CheckOptions, Verdict, catalog, run_in_process};
use vex_harness::transcript::Direction;

/// Case `id` run strict, which must pass.
fn run(id: &str) -> vex_harness::report::RunReport {
    let case = catalog().into_iter().find(|c| c.id == id).unwrap();
    let result = run_in_process(&case, CheckOptions::STRICT_DEVELOPMENT);
    assert_eq!(result.verdict, Verdict::Pass, "{:#?}", result.violations);
    result.run.unwrap()
}

/// The datagrams of case `id`'s member 1, in order: which way, and the first byte and
/// length of each.
fn datagrams(id: &str) -> Vec<(Direction, u8, usize)> {
    run(id)
        .transcript
        .lines
        .iter()
        .filter(|l| l.member == 1 && l.link.is_none() && l.direction != Direction::Tick)
        .map(|l| (l.direction, l.bytes[0], l.bytes.len()))
        .collect()
}

/// peer.associate: the four handshake packets at the page's sizes, then the client's
/// record (a ping, a time-synchronize request and a connect-request), the host's answers
/// (the pong, the time reply, the connect-response) and the client's (its time reply, its
/// join-request); then the reliable connection's datagrams, all records (type 6).
#[test]
fn an_association_and_a_ping() {
    use Direction::{ToClient, ToHost};
    let seen = datagrams("peer.associate");
    let shape: Vec<(Direction, u8)> = seen.iter().take(8).map(|&(d, t, _)| (d, t)).collect();
    assert_eq!(
        shape,
        [
            (ToHost, 1),
            (ToClient, 2),
            (ToHost, 3),
            (ToClient, 4),
            (ToHost, 6),
            (ToClient, 6),
            (ToClient, 6),
            (ToClient, 6),
        ]
    );
    assert!(seen.iter().skip(4).all(|&(_, t, _)| t == 6));
    let sizes: Vec<usize> = seen.iter().take(4).map(|&(_, _, len)| len).collect();
    assert_eq!(sizes, [18, 52, 209, 116]);
}

/// peer.associate: the client joins the group session and holds its membership: the
/// update on its admission and the one after its join-complete made it established, each
/// applied and validated with a matching hash (revisions 1 and 2).
#[test]
fn the_client_joins_the_group_session() {
    assert_eq!(run("peer.associate").group_membership, Some((2, 2)));
}

/// qos.probe: one probe of 18 bytes, one reply of 27 bytes and the 13,184-byte block.
#[test]
fn a_probe_and_its_reply() {
    use Direction::{ToClient, ToHost};
    assert_eq!(
        datagrams("qos.probe"),
        [(ToHost, 40, 18), (ToClient, 41, 27 + 13_184)]
    );
}
