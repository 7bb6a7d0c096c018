#![no_main]
//! The emulated client driven by arbitrary bytes, plaintext frames and time on both links,
//! and datagrams on its UDP socket: no input may panic it.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::net::{Ipv4Addr, SocketAddrV4};
use vex_fake_client::{ClientConfig, ClientCore, LinkKind};
use vex_wire::bap::header::{FrameType, InnerHeader, plain_frame};
use vex_wire::time::Instant;

#[derive(Arbitrary, Debug)]
enum Op {
    Bytes(bool, Vec<u8>),
    Response {
        activity: bool,
        service: u16,
        task: u8,
        body: Vec<u8>,
    },
    Push {
        activity: bool,
        body: Vec<u8>,
    },
    Wait(u16),
    Close(bool),
    Datagram(Vec<u8>),
}

fn kind(activity: bool) -> LinkKind {
    if activity {
        LinkKind::Activity
    } else {
        LinkKind::Primary
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let mut config = ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1));
    // every scripted action, so a joined client also takes those paths
    config.script = vex_fake_client::Script {
        refresh_after_ms: Some(100),
        slot_request_after_ms: Some(200),
        leave_after_ms: Some(300),
        identity_after_ms: Some(150),
        rejoin_after_ms: Some(50),
        move_region_after_ms: Some(120),
        start_activity_after_ms: Some(130),
        purge_after_ms: Some(140),
        abdicate_after_ms: Some(160),
        incident_after_ms: Some(170),
        change_epoch_after_ms: Some(180),
        qos_probe_after_ms: Some(110),
        associate_after_ms: Some(115),
        probe: None,
        lobby_calls: true,
        advertise: true,
        locate: true,
    };
    let mut client = ClientCore::new(config);
    let mut now = Instant::default();
    client.handle_connected(now, LinkKind::Primary);
    client.handle_connected(now, LinkKind::Activity);
    for op in ops {
        match op {
            Op::Bytes(a, b) => client.handle_bytes(now, kind(a), &b),
            Op::Response {
                activity,
                service,
                task,
                body,
            } => {
                let f = plain_frame(
                    FrameType::Bootstrap,
                    InnerHeader::response(service, u32::from(task % 8)),
                    &body,
                );
                client.handle_bytes(now, kind(activity), &f);
            }
            Op::Push { activity, body } => {
                let f = plain_frame(FrameType::Plain, InnerHeader::request(9, 0), &body);
                client.handle_bytes(now, kind(activity), &f);
            }
            Op::Wait(ms) => {
                now = now + u64::from(ms);
                client.handle_timeout(now);
            }
            Op::Close(a) => client.handle_closed(now, kind(a)),
            Op::Datagram(bytes) => client.handle_datagram(now, &bytes),
        }
        while client.poll_transmit().is_some() {}
        while client.poll_connect().is_some() {}
        while client.poll_received().is_some() {}
        while client.poll_datagram().is_some() {}
    }
    client.finish(now);
});
