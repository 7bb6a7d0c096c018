//! Issue 26: the emulated client reads and judges message 5 with no allocation in the
//! steady state. `allocation-counter` counts what a joined client allocates for each
//! sealed frame carrying facts 10.1's example, after the first frames warmed it up.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use vex_fake_client::LinkKind;
use vex_harness::in_process::{joined, link_id};
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::SENSOR_AUTH_UPDATE;
use vex_wire::vectors::sensor_auth_full_example;

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
    eprintln!(
        "allocations per frame: first {:?}, last {:?}",
        &per_frame[..5],
        &per_frame[195..]
    );
    assert_eq!(per_frame[100..], [0; 100]);
}
