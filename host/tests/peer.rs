//! The host's UDP port through `HostCore`: QoS probes and bdNet associations (NS "The
//! engine peer transport", "QoS probe and the session advertisement").
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::net::SocketAddrV4;
use vex_host::event::HostEvent;
use vex_host::peer::responder::PeerDrop;
use vex_host::{HostConfig, HostCore};
use vex_wire::peer::association::{AssocCookieEcho, AssocInit, AssocInitAck, AssocPacket};
use vex_wire::peer::keys::{AssociationKey, RecordKeys};
use vex_wire::peer::qos::{QosReply, QosRequest};
use vex_wire::peer::record;
use vex_wire::time::Instant;
use zerocopy::{FromBytes, IntoBytes};

fn host() -> HostCore {
    HostCore::new(HostConfig::builtin(HostConfig::default_address()))
}

fn peer() -> SocketAddrV4 {
    "127.0.0.1:40000".parse().unwrap()
}

fn events(h: &mut HostCore) -> Vec<HostEvent> {
    std::iter::from_fn(|| h.poll_event()).collect()
}

/// With no session running, a probe gets an explicit refusal with no payload, its probe
/// id, send time and security id echoed (QOS-03, QOS-04).
#[test]
fn a_probe_with_no_session_is_refused() {
    let mut h = host();
    let request = QosRequest::new(0x1234_5678_9ABC, 77, 0xCAFE, true);
    h.handle_datagram(Instant::from_millis(10), peer(), request.as_bytes());
    let d = h.poll_datagram().expect("a reply");
    assert_eq!(d.peer, peer());
    let reply = QosReply::read(&d.bytes).unwrap();
    assert_eq!(reply.head.accepted, 0);
    assert_eq!(reply.head.probe_id.get(), 77);
    assert_eq!(reply.head.send_time.get(), 0x1234_5678_9ABC);
    assert_eq!(reply.head.security_id.get(), 0xCAFE);
    assert!(reply.payload.is_empty());
    assert!(h.poll_datagram().is_none());
}

/// A whole handshake over the port opens an association, and a record on it is read; a
/// second record with the same sequence is a replay, dropped and reported.
#[test]
fn an_association_over_the_port() {
    let mut h = host();
    let now = Instant::from_millis(100);
    let init = AssocInit::new(0x0101, [9; 8]);
    h.handle_datagram(now, peer(), init.as_bytes());
    let ack = AssocInitAck::read_from_bytes(&h.poll_datagram().unwrap().bytes).unwrap();
    assert!(ack.breaches(&init).is_empty());
    let key = AssociationKey::from_scalar([5; 28]).unwrap();
    let echo = AssocCookieEcho::answering(&ack, [0; 41], key.public_key_field().unwrap());
    h.handle_datagram(now + 50, peer(), echo.as_bytes());
    let cookie_ack = h.poll_datagram().unwrap().bytes;
    let Ok(AssocPacket::CookieAck(cookie_ack)) = AssocPacket::read(&cookie_ack) else {
        panic!("a cookie ack");
    };
    let tag = ack.responder_tag.get();
    assert!(events(&mut h).contains(&HostEvent::Associated { from: peer(), tag }));
    let keys = RecordKeys::derive(&key.agree(&cookie_ack.public_key).unwrap(), &[0; 16]);
    // an empty out-of-band container: the marker, then no message
    let bytes = record::seal(&keys, tag, 1, &[0x80]).unwrap();
    h.handle_datagram(now + 60, peer(), &bytes);
    h.handle_datagram(now + 70, peer(), &bytes);
    let seen = events(&mut h);
    assert!(seen.contains(&HostEvent::PeerReceived {
        from: peer(),
        tag,
        len: 1
    }));
    assert!(seen.iter().any(|e| matches!(
        e,
        HostEvent::PeerDropped {
            reason: PeerDrop::Replay(_),
            ..
        }
    )));
}

/// NAT traversal's types, a requester's packets, bytes of no packet and a short probe are
/// dropped, each with its reason, and nothing is sent.
#[test]
fn what_the_port_does_not_take() {
    let mut h = host();
    let mut ack = [0u8; 52];
    ack[0] = 2;
    for (bytes, reason) in [
        (vec![12, 0, 0], PeerDrop::NatTraversal(12)),
        (ack.to_vec(), PeerDrop::NotForResponder),
    ] {
        h.handle_datagram(Instant::default(), peer(), &bytes);
        assert_eq!(
            events(&mut h),
            [HostEvent::PeerDropped {
                from: peer(),
                reason
            }]
        );
    }
    for bytes in [vec![5; 9], vec![40; 17], vec![]] {
        h.handle_datagram(Instant::default(), peer(), &bytes);
        assert!(matches!(
            events(&mut h)[..],
            [HostEvent::PeerDropped {
                reason: PeerDrop::Packet(_),
                ..
            }]
        ));
    }
    assert!(h.poll_datagram().is_none());
}
