//! Issue 26: what the emulated client allocates to read and judge message 5 in the steady
//! state. `allocation-counter` counts what a joined client allocates for each sealed frame
//! carrying facts 10.1's example (which breaks three rules in Vex's scenario, reported
//! once each and then counted), after the first frames warmed it up.
//!
//! The target is none. The bound is what the client allocates today (the slot
//! bodies read into value trees, the message decoded into vectors of its own), so a change
//! that allocates more fails here; each step toward none lowers it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use vex_fake_client::LinkKind;
use vex_harness::in_process::{joined, link_id};
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::SENSOR_AUTH_UPDATE;
use vex_wire::vectors::sensor_auth_full_example;

/// Allocations per frame in the steady state, at most.
const BOUND: u64 = 13;

/// Every frame of the steady state allocates the same, within [`BOUND`]: nothing grows
/// with the frames read (a violation the message breaks again is counted, not kept anew).
#[test]
fn reading_message_5_allocates_a_bounded_same_amount_each_frame() {
    let (mut host, mut parts, mut now) = joined(1);
    let (client, _) = parts.first_mut().unwrap();
    let link = link_id(0, LinkKind::Activity);
    let body = sensor_auth_full_example().encode().unwrap();
    let frames: Vec<Vec<u8>> = (0..200)
        .map(|_| {
            host.push_raw(link, SENSOR_AUTH_UPDATE, &body);
            host.poll_transmit().unwrap().bytes
        })
        .collect();
    let per_frame: Vec<u64> = frames
        .iter()
        .map(|frame| {
            now = now + 34;
            let info = allocation_counter::measure(|| {
                client.handle_bytes(now, LinkKind::Activity, frame);
                while client.poll_received().is_some() {}
            });
            info.count_total
        })
        .collect();
    let steady = &per_frame[100..];
    assert!(
        steady.iter().all(|n| *n == steady[0]) && steady[0] <= BOUND,
        "allocations per frame: {steady:?}"
    );
}
