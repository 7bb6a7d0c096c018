//! Issue 23's figures for the UDP port, through the whole host core: QoS replies a
//! second (a probe in, its reply with the 13,184-byte advertisement out), handshakes a
//! second (init to cookie ack, ECDH on both sides included), and records opened a second
//! at 64 and 1,200 bytes (each answered with nothing, so the figure is the open alone),
//! beside the wire's record seal and open; and membership-update built with its hash
//! (the state replica applied and hashed, the body written) at 2 and 32 members.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::net::{Ipv4Addr, SocketAddrV4};
use vex_host::{HostConfig, HostCore, LinkId};
use vex_wire::bap::header::{FrameType, InnerHeader, outer_frame, plain_frame};
use vex_wire::bap::secure::{Role, SecureChannel, SignOnKeys, open_hello};
use vex_wire::bap::services::{HOST_REQUEST, HostResponse};
use vex_wire::peer::association::{AssocCookieAck, AssocCookieEcho, AssocInit, AssocInitAck};
use vex_wire::peer::keys::{AssociationKey, RecordKeys};
use vex_wire::peer::qos::QosRequest;
use vex_wire::peer::record;
use vex_wire::time::Instant;
use zerocopy::{FromBytes, IntoBytes};

fn host() -> HostCore {
    HostCore::new(HostConfig::builtin(SocketAddrV4::new(
        Ipv4Addr::LOCALHOST,
        1,
    )))
}

fn peer(n: u32) -> SocketAddrV4 {
    SocketAddrV4::new(Ipv4Addr::from(0x0A00_0000 | (n & 0xFF_FFFF)), 3074)
}

/// One whole handshake of peer `n` with `h`, its key made once: the keys and the host's tag.
fn handshake(
    h: &mut HostCore,
    key: &AssociationKey,
    field: [u8; 100],
    n: u32,
) -> (RecordKeys, u16) {
    let init = AssocInit::new(n as u16 | 1, n.to_le_bytes().repeat(2).try_into().unwrap());
    h.handle_datagram(Instant::default(), peer(n), init.as_bytes());
    let ack = AssocInitAck::read_from_bytes(&h.poll_datagram().unwrap().bytes).unwrap();
    let echo = AssocCookieEcho::answering(&ack, [0; 41], field);
    h.handle_datagram(Instant::default(), peer(n), echo.as_bytes());
    let cookie_ack = AssocCookieAck::read_from_bytes(&h.poll_datagram().unwrap().bytes).unwrap();
    while h.poll_event().is_some() {}
    let secret = key.agree(&cookie_ack.public_key).unwrap();
    (
        RecordKeys::derive(&secret, &[0; 16]),
        ack.responder_tag.get(),
    )
}

/// A host with one activity (a link's hello and service 6): the session's id.
fn with_session(h: &mut HostCore) -> u64 {
    let (now, link) = (Instant::default(), LinkId(1));
    h.handle_connect(now, link);
    let hello = plain_frame(FrameType::Bootstrap, InnerHeader::request(25, 1), &[]);
    h.handle_bytes(now, link, &hello);
    let t = h.poll_transmit().unwrap();
    let body = InnerHeader::read(&t.bytes[6..], true).unwrap().1;
    let secrets = open_hello(&SignOnKeys::DEVELOPMENT, body).unwrap();
    let mut channel = SecureChannel::new(&secrets, Role::Client);
    let mut inner = Vec::new();
    InnerHeader::request(HOST_REQUEST, 2).write(&mut inner);
    inner.push(3);
    inner.extend_from_slice(&[0; 7718]);
    h.handle_bytes(
        now,
        link,
        &outer_frame(FrameType::Encrypted, &channel.seal(&inner)),
    );
    let t = h.poll_transmit().unwrap();
    let inner = channel.open(&t.bytes[6..]).unwrap();
    let body = InnerHeader::read(&inner, true).unwrap().1;
    HostResponse::decode(body).unwrap().session_id
}

fn qos(c: &mut Criterion) {
    let mut h = host();
    let session = with_session(&mut h);
    let request = QosRequest::new(1, 2, session as u32, true);
    h.handle_datagram(Instant::default(), peer(1), request.as_bytes());
    let reply = h.poll_datagram().unwrap();
    assert_eq!(reply.bytes.len(), 27 + 13_184, "the advertisement goes out");
    let mut g = c.benchmark_group("peer port");
    g.throughput(Throughput::Elements(1));
    g.bench_function("QoS reply (probe in, 13,184-byte advertisement out)", |b| {
        b.iter(|| {
            h.handle_datagram(Instant::default(), peer(1), request.as_bytes());
            black_box(h.poll_datagram());
        });
    });
    g.finish();
}

fn handshakes(c: &mut Criterion) {
    let key = AssociationKey::from_scalar([7; 28]).unwrap();
    let field = key.public_key_field().unwrap();
    let mut g = c.benchmark_group("peer port");
    g.throughput(Throughput::Elements(1));
    g.sample_size(20);
    g.bench_function("handshake (init to cookie ack, ECDH both sides)", |b| {
        let mut h = host();
        let mut n = 0u32;
        b.iter(|| {
            n += 1;
            if n.is_multiple_of(1000) {
                h = host(); // past the slots, a fresh host
            }
            black_box(handshake(&mut h, &key, field, n));
        });
    });
    g.finish();
}

fn records(c: &mut Criterion) {
    let key = AssociationKey::from_scalar([7; 28]).unwrap();
    let field = key.public_key_field().unwrap();
    let mut g = c.benchmark_group("peer port");
    for len in [64usize, 1_200] {
        let mut h = host();
        let (keys, tag) = handshake(&mut h, &key, field, 1);
        let plaintext = vec![0x5A; len];
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_function(format!("record sealed, {len} B"), |b| {
            let mut sequence = 0;
            b.iter(|| {
                sequence += 1;
                black_box(record::seal(&keys, tag, sequence, &plaintext).unwrap());
            });
        });
        let mut sequence = 0;
        g.bench_function(format!("record opened by the host, {len} B"), |b| {
            b.iter_batched(
                || {
                    sequence += 1;
                    record::seal(&keys, tag, sequence, &plaintext).unwrap()
                },
                |bytes| {
                    h.handle_datagram(Instant::default(), peer(1), &bytes);
                    black_box(h.poll_event());
                },
                criterion::BatchSize::SmallInput,
            );
        });
    }
    g.finish();
}

/// A membership of `n` members as the group host publishes it: the replica applied and
/// hashed, the body written.
fn membership(c: &mut Criterion) {
    use vex_wire::bits::BitWriter;
    use vex_wire::peer::membership::{
        MembershipMember, MembershipRoot, MembershipUpdate, PeerDelta,
    };
    use vex_wire::peer::session_state::SessionState;
    let mut g = c.benchmark_group("membership_update");
    for n in [2u8, 32] {
        let root = MembershipRoot {
            revision: Some(1),
            host_index: Some(0),
            succession_index: Some(0),
            member_count: Some(n.into()),
            member_mask: Some((1u64 << n) - 1),
            members: (0..n)
                .map(|i| MembershipMember {
                    addr: Some(vec![i; 86]),
                    machine_id: Some(u64::from(i).to_le_bytes().to_vec()),
                    join_id: Some(u64::from(i) << 40 | 1),
                    ..MembershipMember::default()
                })
                .collect(),
        };
        let peers: Vec<PeerDelta> = (0..n)
            .map(|index| PeerDelta {
                index,
                state: 9,
                connection: Some((0, 0, 0)),
            })
            .collect();
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("built_with_hash_{n}_members"), |b| {
            b.iter(|| {
                let mut state = SessionState::default();
                state.apply(true, &root, &peers, &[]);
                let update = MembershipUpdate {
                    peers: peers.clone(),
                    hash: state.hash(),
                    ..MembershipUpdate::snapshot(1, &root)
                };
                let mut bytes = Vec::new();
                update.write(&mut BitWriter::appending(&mut bytes)).unwrap();
                black_box(bytes)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, qos, handshakes, records, membership);
criterion_main!(benches);
