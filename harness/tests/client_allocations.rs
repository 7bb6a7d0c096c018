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
use vex_wire::activity::ids::{
    MEMBERSHIP_ACKNOWLEDGEMENT, REPLICATE_MEMBERSHIP, SENSOR_AUTH_UPDATE,
};
use vex_wire::activity::membership::{MEMBER_LANES, Member, ReplicateMembership};
use vex_wire::scenario::Scenario;
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

/// A life in an activity whose members come and go applies a member table at each change
/// (message 12, +1 a revision), and a client whose run is not reported, as the load
/// generator's are not (`ClientConfig::keep_for_report`), keeps none of them: once warm,
/// applying one leaves no memory behind, however many came before. Keeping each was what
/// grew the load generator by about 100 MiB over ten minutes at 10,000 clients, its
/// activities' first members living the whole run.
#[test]
fn a_member_table_applied_leaves_no_memory_behind() {
    let (mut host, mut parts, mut now) = joined(1);
    let (client, _) = parts.first_mut().unwrap();
    let link = link_id(0, LinkKind::Activity);
    let player = Scenario::builtin().player; // the joined client is member 1 of it
    let me = Member::seed(
        player.member_key + 1,
        player.account_soid,
        player.character_id + 1,
    );
    let other = Member::seed(0x77, player.account_soid, 0x78);
    let frames: Vec<Vec<u8>> = (0..200u32)
        .map(|i| {
            let mut lanes = [None; MEMBER_LANES];
            lanes[0] = Some(me);
            lanes[1] = (i % 2 == 1).then_some(other); // a member comes, and goes
            let table = ReplicateMembership::for_members(lanes, 1000 + i, me.member_key);
            host.push_raw(link, REPLICATE_MEMBERSHIP, &table.encode().unwrap());
            host.poll_transmit().unwrap().bytes
        })
        .collect();
    let mut acknowledged = 0;
    let kept: Vec<i64> = frames
        .iter()
        .map(|frame| {
            now = now + 34;
            let info = allocation_counter::measure(|| {
                client.handle_bytes(now, LinkKind::Activity, frame);
                while client.poll_received().is_some() {}
                while let Some(t) = client.poll_transmit() {
                    acknowledged += usize::from(t.message == Some(MEMBERSHIP_ACKNOWLEDGEMENT));
                }
            });
            info.bytes_current
        })
        .collect();
    assert_eq!(acknowledged, 200, "every table applied and acknowledged");
    // the table held is the last one, one member more or less each time: what is held
    // after a hundred more tables (two of each) is what was held before them
    let steady = &kept[100..];
    assert_eq!(
        steady.iter().sum::<i64>(),
        0,
        "bytes kept per table: {steady:?}"
    );
}
