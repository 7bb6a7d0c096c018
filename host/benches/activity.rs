//! Issue 11's figures for an activity of 32 members: message-12 builds a second (the
//! table every member is sent on a change), and join bursts a second through the whole
//! host core (message 3 opened, the burst built, sealed and queued), next to a lone
//! member's.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::{Duration, Instant as Wall};
use vex_host::activity::Activity;
use vex_host::activity::advertised_host::{AdvertisedHost, AdvertisedHosts};
use vex_host::{HostConfig, HostCore, LinkId};
use vex_wire::activity::body::Body;
use vex_wire::activity::envelope::ActivityNotification;
use vex_wire::activity::join::JoinRequest;
use vex_wire::activity::membership::{MEMBER_LANES, Member};
use vex_wire::activity::session::SessionId;
use vex_wire::bap::header::{FrameType, InnerHeader, outer_frame, plain_frame};
use vex_wire::bap::secure::{Role, SecureChannel, SignOnKeys, open_hello};
use vex_wire::bap::services::{HOST_REQUEST, HostResponse};
use vex_wire::time::Instant;

const ACCOUNT: u64 = 0x9EAA_3001_0000_0042;
/// Virtual time between two joins of the burst bench.
const FRAME_GAP_MS: u64 = 2;
/// The fewest frames a join burst has: join_result, messages 0, 1, 2, 12 and 54.
const BURST_FRAMES: usize = 6;

fn activity(members: usize) -> Activity {
    let own = AdvertisedHost::new(HostConfig::default_address(), SessionId(1));
    let advertised = AdvertisedHosts::alone(own);
    let mut a = Activity::new(SessionId(1), LinkId(0), advertised, 0);
    for m in 0..members as u64 {
        a.admit(LinkId(m), Member::seed(0x1000 + m, ACCOUNT, 0x2000 + m))
            .unwrap();
    }
    a
}

fn membership(c: &mut Criterion) {
    let mut g = c.benchmark_group("message 12");
    for members in [1, MEMBER_LANES] {
        let a = activity(members);
        g.bench_function(format!("build and encode, {members} members"), |b| {
            b.iter(|| black_box(a.table().encode().unwrap()))
        });
    }
    g.finish();
}

/// One emulated link's end: its channel, and the session it joins.
struct Peer {
    link: LinkId,
    channel: SecureChannel,
}

fn drain(h: &mut HostCore) -> Vec<vex_host::Transmit> {
    std::iter::from_fn(|| h.poll_transmit()).collect()
}

fn sealed(peer: &mut Peer, service: u16, task: u32, body: &[u8]) -> Vec<u8> {
    let mut inner = Vec::new();
    InnerHeader::request(service, task).write(&mut inner);
    inner.extend_from_slice(body);
    outer_frame(FrameType::Encrypted, &peer.channel.seal(&inner))
}

/// Hello and service 6 on a new link: its channel and its own session.
fn connect(h: &mut HostCore, link: LinkId) -> (Peer, u64) {
    let now = Instant::default();
    drain(h);
    h.handle_connect(now, link);
    let hello = plain_frame(FrameType::Bootstrap, InnerHeader::request(25, 1), &[]);
    h.handle_bytes(now, link, &hello);
    let t = drain(h);
    let inner = &t[0].bytes[6..];
    let body = InnerHeader::read(inner, true).unwrap().1;
    let secrets = open_hello(&SignOnKeys::DEVELOPMENT, body).unwrap();
    let mut peer = Peer {
        link,
        channel: SecureChannel::new(&secrets, Role::Client),
    };
    let mut service6 = vec![3u8];
    service6.extend_from_slice(&[0; 7718]);
    let frame = sealed(&mut peer, HOST_REQUEST, 2, &service6);
    h.handle_bytes(now, link, &frame);
    let t = drain(h);
    let inner = peer.channel.open(&t[0].bytes[6..]).unwrap();
    let body = InnerHeader::read(&inner, true).unwrap().1;
    let session = HostResponse::decode(body).unwrap().session_id;
    (peer, session)
}

fn join_frame(peer: &mut Peer, session: u64, key: u64) -> Vec<u8> {
    let join = JoinRequest::new(7, session, key, key + 1);
    let n = ActivityNotification::new(session, 3, 0, join.encode().unwrap());
    sealed(peer, 8, 3, &n.encode())
}

/// A host whose activity holds `members`, the last one's link ready to join again.
fn host_with(members: usize) -> (HostCore, Peer, u64) {
    let mut h = HostCore::new(HostConfig::builtin(SocketAddrV4::new(
        Ipv4Addr::LOCALHOST,
        1,
    )));
    let (mut owner, session) = connect(&mut h, LinkId(0));
    let frame = join_frame(&mut owner, session, 0x1000);
    h.handle_bytes(Instant::default(), owner.link, &frame);
    let mut last = owner;
    for m in 1..members as u64 {
        let (mut peer, _) = connect(&mut h, LinkId(m));
        let frame = join_frame(&mut peer, session, 0x1000 + m);
        h.handle_bytes(Instant::default(), peer.link, &frame);
        last = peer;
    }
    drain(&mut h);
    (h, last, session)
}

fn join_burst(c: &mut Criterion) {
    let mut g = c.benchmark_group("join burst");
    for members in [1, MEMBER_LANES] {
        g.bench_function(format!("through the core, {members} members"), |b| {
            b.iter_custom(|iters| {
                let (mut h, mut peer, session) = host_with(members);
                let key = 0x1000 + members as u64 - 1;
                // sealed in nonce order before the clock starts: only the host is timed
                let frames: Vec<Vec<u8>> = (0..iters)
                    .map(|_| join_frame(&mut peer, session, key))
                    .collect();
                let mut spent = Duration::ZERO;
                let mut now = Instant::default();
                for frame in frames {
                    // under the link's frame rate (1,000 a second), so no join is refused
                    now = now + FRAME_GAP_MS;
                    let start = Wall::now();
                    h.handle_bytes(now, peer.link, &frame);
                    let burst = drain(&mut h);
                    spent += start.elapsed();
                    assert!(
                        burst.len() >= BURST_FRAMES,
                        "{} frames answered a join",
                        burst.len()
                    );
                    black_box(burst);
                    while h.poll_event().is_some() {}
                }
                spent
            })
        });
    }
    g.finish();
}

criterion_group!(benches, membership, join_burst);
criterion_main!(benches);
