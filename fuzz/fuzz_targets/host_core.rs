#![no_main]
//! The host core driven by arbitrary links, bytes, plaintext frames and time: no input
//! may panic it. Plaintext frames reach every handler, since the host answers them too.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::net::{Ipv4Addr, SocketAddrV4};
use vex_host::{HostConfig, HostCore, LinkId};
use vex_wire::activity::envelope::ActivityNotification;
use vex_wire::bap::header::{FrameType, InnerHeader, plain_frame};
use vex_wire::time::Instant;

#[derive(Arbitrary, Debug)]
enum Op {
    Connect(u8),
    Close(u8),
    Bytes(u8, Vec<u8>),
    Frame {
        link: u8,
        service: u16,
        task: u32,
        body: Vec<u8>,
    },
    Activity {
        link: u8,
        session_index: u8,
        msg: u8,
        payload: Vec<u8>,
    },
    Wait(u16),
}

fuzz_target!(|ops: Vec<Op>| {
    let mut host = HostCore::new(HostConfig::builtin(SocketAddrV4::new(
        Ipv4Addr::LOCALHOST,
        1,
    )));
    let mut now = Instant::default();
    for op in ops {
        match op {
            Op::Connect(l) => host.handle_connect(now, LinkId(u64::from(l % 4))),
            Op::Close(l) => host.handle_close(now, LinkId(u64::from(l % 4))),
            Op::Bytes(l, b) => host.handle_bytes(now, LinkId(u64::from(l % 4)), &b),
            Op::Frame {
                link,
                service,
                task,
                body,
            } => {
                let f = plain_frame(FrameType::Plain, InnerHeader::request(service, task), &body);
                host.handle_bytes(now, LinkId(u64::from(link % 4)), &f);
            }
            Op::Activity {
                link,
                session_index,
                msg,
                payload,
            } => {
                let session = 0x9EAA_3001_0020_0000 | u64::from(session_index % 4);
                let body =
                    ActivityNotification::new(session, u32::from(msg % 64), 0, payload).encode();
                let f = plain_frame(FrameType::Plain, InnerHeader::request(8, 0), &body);
                host.handle_bytes(now, LinkId(u64::from(link % 4)), &f);
            }
            Op::Wait(ms) => {
                now = now + u64::from(ms);
                host.handle_timeout(now);
            }
        }
        while host.poll_transmit().is_some() {}
        while host.poll_event().is_some() {}
    }
});
