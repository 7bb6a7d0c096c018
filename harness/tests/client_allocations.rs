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

use allocation_counter::AllocationInfo;
use vex_fake_client::{ClientCore, LinkKind};
use vex_harness::in_process::{joined, link_id};
use vex_host::HostCore;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::{
    MEMBERSHIP_ACKNOWLEDGEMENT, REPLICATE_MEMBERSHIP, SENSOR_AUTH_UPDATE,
};
use vex_wire::activity::membership::{MEMBER_LANES, Member, ReplicateMembership};
use vex_wire::scenario::Scenario;
use vex_wire::time::Instant;
use vex_wire::vectors::sensor_auth_full_example;

/// The client's tick: each frame comes in a tick of its own.
const TICK_MS: u64 = 34;

/// Each of `bodies` as activity message `message` to the joined client, sealed by `host`.
fn sealed(
    host: &mut HostCore,
    message: u32,
    bodies: impl Iterator<Item = Vec<u8>>,
) -> Vec<Vec<u8>> {
    let link = link_id(0, LinkKind::Activity);
    bodies
        .map(|body| {
            host.push_raw(link, message, &body);
            host.poll_transmit().unwrap().bytes
        })
        .collect()
}

/// What `client` allocated for each of `frames`, each handed to it a tick after the one
/// before (from `now`) with what it read taken, then `after` run, all of it counted.
fn counted(
    client: &mut ClientCore,
    now: &mut Instant,
    frames: &[Vec<u8>],
    mut after: impl FnMut(&mut ClientCore),
) -> Vec<AllocationInfo> {
    frames
        .iter()
        .map(|frame| {
            *now = *now + TICK_MS;
            allocation_counter::measure(|| {
                client.handle_bytes(*now, LinkKind::Activity, frame);
                while client.poll_received().is_some() {}
                after(client);
            })
        })
        .collect()
}

/// No frame of the steady state allocates: nothing grows with the frames read (a violation
/// the message breaks again is counted, not kept anew).
#[test]
fn reading_message_5_allocates_nothing_in_the_steady_state() {
    let (mut host, mut parts, mut now) = joined(1);
    let (client, _) = parts.first_mut().unwrap();
    let body = sensor_auth_full_example().encode().unwrap();
    let bodies = std::iter::repeat_n(body, 200);
    let frames = sealed(&mut host, SENSOR_AUTH_UPDATE, bodies);
    let counts = counted(client, &mut now, &frames, |_| {});
    let per_frame: Vec<u64> = counts.iter().map(|info| info.count_total).collect();
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
    let player = Scenario::builtin().player; // the joined client is member 1 of it
    let me = Member::seed(
        player.member_key + 1,
        player.account_soid,
        player.character_id + 1,
    );
    let other = Member::seed(0x77, player.account_soid, 0x78);
    let tables = (0..200u32).map(|i| {
        let mut lanes = [None; MEMBER_LANES];
        lanes[0] = Some(me);
        lanes[1] = (i % 2 == 1).then_some(other); // a member comes, and goes
        let table = ReplicateMembership::for_members(lanes, 1000 + i, me.member_key);
        table.encode().unwrap()
    });
    let frames = sealed(&mut host, REPLICATE_MEMBERSHIP, tables);
    let mut acknowledged = 0;
    let counts = counted(client, &mut now, &frames, |client| {
        while let Some(t) = client.poll_transmit() {
            acknowledged += usize::from(t.message == Some(MEMBERSHIP_ACKNOWLEDGEMENT));
        }
    });
    let kept: Vec<i64> = counts.iter().map(|info| info.bytes_current).collect();
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
