//! A leave that overtakes the client's own pending request: the region move's roster
//! request (message 18, sent a little after message 22) is not sent once the client left,
//! so nothing is owed for it (found by `vex load`: a joiner whose move came 159 ms before
//! its leave judged HOST-03 against a host that rightly ignored the request).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
use vex_fake_client::ClientConfig;
use vex_harness::in_process::run_members;
use vex_harness::transcript::Direction;
use vex_host::HostConfig;
use vex_wire::activity::ids;

#[test]
fn a_request_the_leave_overtook_is_not_sent_and_not_owed() {
    let address = HostConfig::default_address();
    let leader = ClientConfig::member(address, 1);
    let mut joiner = ClientConfig::member(address, 2);
    joiner.script.move_region_after_ms = Some(5_000);
    joiner.script.leave_after_ms = Some(5_150);
    joiner.script.rejoin_after_ms = Some(1_500);
    let reports = run_members(HostConfig::builtin(address), vec![leader, joiner], 15_000);
    for r in &reports {
        assert!(r.violations.is_empty(), "{:?}", r.violations);
    }
    let lines = &reports[1].transcript.lines;
    let sent = |msg: u32| {
        lines
            .iter()
            .filter(|l| l.direction == Direction::ToHost && l.message == Some(msg))
            .map(|l| l.at.millis())
            .collect::<Vec<_>>()
    };
    let (left, joined_again) = (sent(ids::PEER_LEAVE_REQUEST)[0], sent(ids::JOIN_REQUEST)[1]);
    assert!(
        sent(ids::STATE_REFRESH)
            .iter()
            .all(|at| *at < left || *at > joined_again),
        "a message 18 went out between the leave at {left} ms and the join at {joined_again} ms"
    );
    assert!(reports[1].status.in_activity(), "it joined again");
}
