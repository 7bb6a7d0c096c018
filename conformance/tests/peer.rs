//! The peer transport's cases run to the end: the datagrams of the run show the exchange
//! the case names, so a case that passed without one would be caught here.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // test code

use vex_conformance::{CheckOptions, Verdict, catalog, run_in_process};
use vex_harness::transcript::Direction;

/// The datagrams of case `id`'s member 1, in order: which way, and the first byte and
/// length of each.
fn datagrams(id: &str) -> Vec<(Direction, u8, usize)> {
    let case = catalog().into_iter().find(|c| c.id == id).unwrap();
    let result = run_in_process(&case, CheckOptions::STRICT_DEVELOPMENT);
    assert_eq!(result.verdict, Verdict::Pass, "{:#?}", result.violations);
    let run = result.run.unwrap();
    run.transcript
        .lines
        .iter()
        .filter(|l| l.member == 1 && l.link.is_none() && l.direction != Direction::Tick)
        .map(|l| (l.direction, l.bytes[0], l.bytes.len()))
        .collect()
}

/// peer.associate: the four handshake packets at the page's sizes, then the client's
/// record (a ping and a time-synchronize request), the host's two (the pong, the reply),
/// the client's reply, and nothing after it: a reply is terminal.
#[test]
fn an_association_and_a_ping() {
    use Direction::{ToClient, ToHost};
    let seen = datagrams("peer.associate");
    let shape: Vec<(Direction, u8)> = seen.iter().map(|&(d, t, _)| (d, t)).collect();
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
            (ToHost, 6)
        ]
    );
    let sizes: Vec<usize> = seen.iter().take(4).map(|&(_, _, len)| len).collect();
    assert_eq!(sizes, [18, 52, 209, 116]);
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
