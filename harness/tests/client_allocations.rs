//! Issue 26: what the emulated client allocates to read and judge message 5 in the steady
//! state. `allocation-counter` counts what a joined client allocates for each sealed frame
//! carrying facts 10.1's example (which breaks three rules in Vex's scenario, reported
//! once each and then counted), after the first frames warmed it up.
//!
//! The target is none, and that is the bound: the client reads each frame, its
//! message and its slot bodies into buffers it keeps, and records no frame bytes (as the
//! load generator's clients do). Any allocation a change adds to the steady state fails
//! here.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use vex_fake_client::LinkKind;
use vex_harness::in_process::{joined, link_id};
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::SENSOR_AUTH_UPDATE;
use vex_wire::vectors::sensor_auth_full_example;

/// No frame of the steady state allocates: nothing grows with the frames read (a violation
/// the message breaks again is counted, not kept anew).
#[test]
fn reading_message_5_allocates_nothing_in_the_steady_state() {
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
    let applied = client.rosters_applied();
    assert!(applied >= 200, "every frame's roster applied ({applied})");
    let steady = &per_frame[100..];
    assert!(
        steady.iter().all(|n| *n == 0),
        "allocations per frame: {steady:?}"
    );
}
