#![no_main]
//! The host core driven by arbitrary bytes, plaintext frames, sealed frames and time on
//! four links that have done the hello, and by datagrams on its UDP port from four peers,
//! raw or as handshakes and records of real associations: no input may panic it.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::net::{Ipv4Addr, SocketAddrV4};
use vex_host::{HostConfig, HostCore, LinkId};
use vex_wire::activity::envelope::ActivityNotification;
use vex_wire::bap::deframer::Deframer;
use vex_wire::bap::header::{FrameType, InnerHeader, outer_frame, plain_frame};
use vex_wire::bap::secure::{Role, SecureChannel, SignOnKeys, open_hello};
use vex_wire::peer::association::{AssocCookieAck, AssocCookieEcho, AssocInit, AssocInitAck};
use vex_wire::peer::keys::{AssociationKey, RecordKeys};
use vex_wire::peer::record;
use vex_wire::time::Instant;
use zerocopy::{FromBytes, IntoBytes};

const LINKS: u8 = 4;

#[derive(Arbitrary, Debug)]
enum Op {
    Close(u8),
    Bytes(u8, Vec<u8>),
    Plain {
        link: u8,
        service: u16,
        task: u32,
        body: Vec<u8>,
    },
    Sealed {
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
    Datagram(u8, Vec<u8>),
    Handshake(u8),
    Record {
        peer: u8,
        sequence: u32,
        plaintext: Vec<u8>,
    },
}

/// Peer `p`'s UDP address.
fn peer(p: u8) -> SocketAddrV4 {
    SocketAddrV4::new(Ipv4Addr::LOCALHOST, 40_000 + u16::from(p % LINKS))
}

/// A whole handshake of peer `p` with `host`: the keys and the host's tag, when it opened.
fn handshake(host: &mut HostCore, now: Instant, p: u8) -> Option<(RecordKeys, u16)> {
    let init = AssocInit::new(u16::from(p) + 1, [p; 8]);
    host.handle_datagram(now, peer(p), init.as_bytes());
    let ack = AssocInitAck::read_from_bytes(&host.poll_datagram()?.bytes).ok()?;
    let key = AssociationKey::from_scalar([p.wrapping_add(1); 28])?;
    let echo = AssocCookieEcho::answering(&ack, [0; 41], key.public_key_field().ok()?);
    host.handle_datagram(now, peer(p), echo.as_bytes());
    let cookie_ack = AssocCookieAck::read_from_bytes(&host.poll_datagram()?.bytes).ok()?;
    let secret = key.agree(&cookie_ack.public_key).ok()?;
    Some((
        RecordKeys::derive(&secret, &[0; 16]),
        ack.responder_tag.get(),
    ))
}

/// The client's end of the channel, from the host's service-26 answer.
fn channel_from(bytes: &[u8]) -> Option<SecureChannel> {
    let mut d = Deframer::default();
    d.push(bytes);
    let f = d.next_frame().ok()??;
    let (_, body) = InnerHeader::read(&f.payload, true).ok()?;
    let secrets = open_hello(&SignOnKeys::DEVELOPMENT, body).ok()?;
    Some(SecureChannel::new(&secrets, Role::Client))
}

fn sealed(c: &mut SecureChannel, service: u16, task: u32, body: &[u8]) -> Vec<u8> {
    let mut inner = Vec::new();
    InnerHeader::request(service, task).write(&mut inner);
    inner.extend_from_slice(body);
    outer_frame(FrameType::Encrypted, &c.seal(&inner))
}

fuzz_target!(|ops: Vec<Op>| {
    let mut host = HostCore::new(HostConfig::builtin(SocketAddrV4::new(
        Ipv4Addr::LOCALHOST,
        1,
    )));
    let mut now = Instant::default();
    let mut channels = Vec::new();
    let mut associations: [Option<(RecordKeys, u16)>; LINKS as usize] = Default::default();
    for l in 0..LINKS {
        let link = LinkId(u64::from(l));
        host.handle_connect(now, link);
        host.handle_bytes(
            now,
            link,
            &plain_frame(FrameType::Bootstrap, InnerHeader::request(25, 1), &[]),
        );
        let t = host.poll_transmit().map(|t| t.bytes).unwrap_or_default();
        channels.push(channel_from(&t));
    }
    for op in ops {
        match op {
            Op::Close(l) => host.handle_close(now, LinkId(u64::from(l % LINKS))),
            Op::Bytes(l, b) => host.handle_bytes(now, LinkId(u64::from(l % LINKS)), &b),
            Op::Plain {
                link,
                service,
                task,
                body,
            } => {
                let f = plain_frame(FrameType::Plain, InnerHeader::request(service, task), &body);
                host.handle_bytes(now, LinkId(u64::from(link % LINKS)), &f);
            }
            Op::Sealed {
                link,
                service,
                task,
                body,
            } => {
                if let Some(Some(c)) = channels.get_mut(usize::from(link % LINKS)) {
                    let f = sealed(c, service, task, &body);
                    host.handle_bytes(now, LinkId(u64::from(link % LINKS)), &f);
                }
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
                if let Some(Some(c)) = channels.get_mut(usize::from(link % LINKS)) {
                    let f = sealed(c, 8, 0, &body);
                    host.handle_bytes(now, LinkId(u64::from(link % LINKS)), &f);
                }
            }
            Op::Wait(ms) => {
                now = now + u64::from(ms);
                host.handle_timeout(now);
            }
            Op::Datagram(p, bytes) => host.handle_datagram(now, peer(p), &bytes),
            Op::Handshake(p) => {
                if let Some(opened) = handshake(&mut host, now, p) {
                    associations[usize::from(p % LINKS)] = Some(opened);
                }
            }
            Op::Record {
                peer: p,
                sequence,
                plaintext,
            } => {
                if let Some(Some((keys, tag))) = associations.get(usize::from(p % LINKS))
                    && let Ok(bytes) = record::seal(keys, *tag, sequence, &plaintext)
                {
                    host.handle_datagram(now, peer(p), &bytes);
                }
            }
        }
        while host.poll_datagram().is_some() {}
        while host.poll_transmit().is_some() {}
        while host.poll_event().is_some() {}
    }
});
