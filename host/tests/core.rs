//! The host core on hand-made input: what it answers, what it drops, and that it keeps
//! going after bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::net::{Ipv4Addr, SocketAddrV4};
use vex_host::{HostConfig, HostCore, HostEvent, LinkId, Transmit};
use vex_wire::activity::envelope::ActivityNotification;
use vex_wire::bap::deframer::Deframer;
use vex_wire::bap::header::{FrameType, InnerHeader, plain_frame};
use vex_wire::bap::services::{HOST_REQUEST, HostResponse};
use vex_wire::time::Instant;

const L: LinkId = LinkId(1);

fn host() -> HostCore {
    let mut h = HostCore::new(HostConfig::builtin(SocketAddrV4::new(
        Ipv4Addr::LOCALHOST,
        30974,
    )));
    h.handle_connect(Instant::default(), L);
    h
}

fn send(h: &mut HostCore, service: u16, task: u32, body: &[u8]) {
    let f = plain_frame(FrameType::Plain, InnerHeader::request(service, task), body);
    h.handle_bytes(Instant::default(), L, &f);
}

fn transmits(h: &mut HostCore) -> Vec<Transmit> {
    std::iter::from_fn(|| h.poll_transmit()).collect()
}

fn events(h: &mut HostCore) -> Vec<HostEvent> {
    std::iter::from_fn(|| h.poll_event()).collect()
}

/// The body of a plaintext response frame.
fn response_body(t: &Transmit) -> Vec<u8> {
    let mut d = Deframer::default();
    d.push(&t.bytes);
    let f = d.next_frame().unwrap().unwrap();
    InnerHeader::read(&f.payload, true).unwrap().1.to_vec()
}

fn session_of(h: &mut HostCore, task: u32) -> u64 {
    let mut body = vec![3u8];
    body.extend_from_slice(&[0; 7718]);
    send(h, HOST_REQUEST, task, &body);
    let t = transmits(h);
    assert_eq!(t.len(), 1);
    HostResponse::decode(&response_body(&t[0]))
        .unwrap()
        .session_id
}

/// BAP-14: a malformed service 6 still gets a 137-byte service 7, and the drop is reported
/// with its reason.
#[test]
fn malformed_service6_is_answered_with_a_default_selection() {
    let mut h = host();
    send(&mut h, HOST_REQUEST, 9, &[1, 2, 3]);
    let t = transmits(&mut h);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].service, 7);
    let r = HostResponse::decode(&response_body(&t[0])).unwrap();
    assert_eq!(r.discriminator, 2);
    assert_ne!(r.session_id, 0);
    let e = events(&mut h);
    assert!(
        e.iter()
            .any(|e| matches!(e, HostEvent::Dropped { reason, .. } if reason.contains("7719")))
    );
}

/// ENV-08 and ENV-09: every session has its own id of the account's shape.
#[test]
fn session_ids_are_unique_and_shaped() {
    let mut h = host();
    let a = session_of(&mut h, 1);
    let b = session_of(&mut h, 2);
    assert_ne!(a, b);
    for id in [a, b] {
        assert_eq!(id >> 32, 0x9EAA_3001);
        assert_eq!((id >> 16) & 0xFFFF, 0x0020);
    }
}

/// HOST-06: a message naming a session the link does not own is dropped, nothing is
/// sent, and the link goes on.
#[test]
fn unowned_session_is_dropped_and_the_link_goes_on() {
    let mut h = host();
    let session = session_of(&mut h, 1);
    let n = ActivityNotification::new(session ^ 1, 52, 0, vec![0; 16]);
    send(&mut h, 8, 2, &n.encode());
    assert!(transmits(&mut h).is_empty());
    let e = events(&mut h);
    assert!(e.iter().any(
        |e| matches!(e, HostEvent::Dropped { reason, .. } if reason.contains("does not own"))
    ));
    send(&mut h, 250, 3, &[0; 4]);
    assert_eq!(transmits(&mut h).len(), 1, "the link still answers");
}

/// A stream that cannot be framed closes the link with its reason; nothing panics.
#[test]
fn bad_magic_closes_the_link() {
    let mut h = host();
    h.handle_bytes(Instant::default(), L, &[9, 0, 0, 0, 0, 0]);
    let e = events(&mut h);
    assert!(
        e.iter()
            .any(|e| matches!(e, HostEvent::Close { reason, .. } if reason.contains("magic")))
    );
    h.handle_bytes(Instant::default(), L, &[1, 0, 0, 0, 0, 0]);
    assert!(
        transmits(&mut h).is_empty(),
        "a closed link takes no more input"
    );
}

/// Facts 1.4: an encrypted frame that does not verify is dropped with no reply, and the
/// link stays open.
#[test]
fn bad_tag_is_dropped_and_the_link_stays() {
    let mut h = host();
    send(&mut h, 25, 1, &[0; 36]);
    assert_eq!(transmits(&mut h).len(), 1);
    h.handle_bytes(
        Instant::default(),
        L,
        &vex_wire::bap::header::outer_frame(FrameType::Encrypted, &[0; 30]),
    );
    assert!(transmits(&mut h).is_empty());
    let e = events(&mut h);
    assert!(
        e.iter()
            .any(|e| matches!(e, HostEvent::Dropped { reason, .. } if reason.contains("GCM")))
    );
}

/// Each link gets its own session key and nonce: two hellos, two different envelopes.
#[test]
fn every_link_gets_its_own_key_material() {
    let mut h = host();
    h.handle_connect(Instant::default(), LinkId(2));
    send(&mut h, 25, 1, &[]);
    let f = plain_frame(FrameType::Plain, InnerHeader::request(25, 1), &[]);
    h.handle_bytes(Instant::default(), LinkId(2), &f);
    let t = transmits(&mut h);
    assert_eq!(t.len(), 2);
    assert_ne!(response_body(&t[0]), response_body(&t[1]));
}
