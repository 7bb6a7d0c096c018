//! The host core on hand-made input: what it answers, what it drops, and that it keeps
//! going after bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use pretty_assertions::assert_eq;
use std::net::{Ipv4Addr, SocketAddrV4};
use tracing_test::traced_test;
use vex_host::activity::JOIN_GRANT_COUNT;
use vex_host::event::WorldEvent;
use vex_host::reason::{Closed, Dropped};
use vex_host::{HostConfig, HostCore, HostEvent, LinkId, Transmit};
use vex_wire::activity::body::Body;
use vex_wire::activity::envelope::ActivityNotification;
use vex_wire::activity::join::JoinRequest;
use vex_wire::activity::membership::ReplicateMembership;
use vex_wire::activity::selection::SelectionError;
use vex_wire::activity::session::SessionId;
use vex_wire::bap::deframer::DeframeError;
use vex_wire::bap::deframer::Deframer;
use vex_wire::bap::header::{FrameType, InnerHeader, outer_frame, plain_frame};
use vex_wire::bap::secure::{Role, SecureChannel, SignOnKeys, open_hello};
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

fn send_sealed(
    h: &mut HostCore,
    link: LinkId,
    c: &mut SecureChannel,
    service: u16,
    task: u32,
    body: &[u8],
) {
    let mut inner = Vec::new();
    InnerHeader::request(service, task).write(&mut inner);
    inner.extend_from_slice(body);
    h.handle_bytes(
        Instant::default(),
        link,
        &outer_frame(FrameType::Encrypted, &c.seal(&inner)),
    );
}

fn transmits(h: &mut HostCore) -> Vec<Transmit> {
    std::iter::from_fn(|| h.poll_transmit()).collect()
}

fn events(h: &mut HostCore) -> Vec<HostEvent> {
    std::iter::from_fn(|| h.poll_event()).collect()
}

fn dropped_with(events: &[HostEvent], reason: impl Fn(&Dropped) -> bool) -> bool {
    events
        .iter()
        .any(|e| matches!(e, HostEvent::Dropped { reason: r, .. } if reason(r)))
}

/// The frame type and inner message of a frame the host sent, opened with `channel`.
fn open(t: &Transmit, channel: Option<&mut SecureChannel>) -> (FrameType, Vec<u8>) {
    let mut d = Deframer::default();
    d.push(&t.bytes);
    let f = d.next_frame().unwrap().unwrap();
    let inner = match (f.frame_type, channel) {
        (FrameType::Encrypted, Some(c)) => c.open(&f.payload).unwrap(),
        _ => f.payload,
    };
    (f.frame_type, inner)
}

/// The body of a response frame.
fn response_body(t: &Transmit, channel: Option<&mut SecureChannel>) -> Vec<u8> {
    let (_, inner) = open(t, channel);
    InnerHeader::read(&inner, true).unwrap().1.to_vec()
}

/// Performs the hello on `link` and returns the client's end of the channel.
fn hello(h: &mut HostCore, link: LinkId) -> SecureChannel {
    let f = plain_frame(FrameType::Bootstrap, InnerHeader::request(25, 100), &[]);
    h.handle_bytes(Instant::default(), link, &f);
    let t = transmits(h);
    let secrets = open_hello(&SignOnKeys::DEVELOPMENT, &response_body(&t[0], None)).unwrap();
    SecureChannel::new(&secrets, Role::Client)
}

fn service6() -> Vec<u8> {
    let mut body = vec![3u8];
    body.extend_from_slice(&[0; 7718]);
    body
}

fn session_of(h: &mut HostCore, link: LinkId, c: &mut SecureChannel, task: u32) -> u64 {
    send_sealed(h, link, c, HOST_REQUEST, task, &service6());
    let t = transmits(h);
    assert_eq!(t.len(), 1);
    HostResponse::decode(&response_body(&t[0], Some(c)))
        .unwrap()
        .session_id
}

/// BAP-14: a malformed service 6 still gets a 137-byte service 7, and the drop is reported
/// with its reason.
#[test]
fn malformed_service6_is_answered_with_a_default_selection() {
    let mut h = host();
    let mut c = hello(&mut h, L);
    send_sealed(&mut h, L, &mut c, HOST_REQUEST, 9, &[1, 2, 3]);
    let t = transmits(&mut h);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].service, 7);
    let r = HostResponse::decode(&response_body(&t[0], Some(&mut c))).unwrap();
    assert_eq!(r.discriminator, 2);
    assert_ne!(r.session_id, 0);
    assert!(dropped_with(&events(&mut h), |r| matches!(
        r,
        Dropped::Selection(SelectionError::Length(3))
    )));
}

/// ENV-08 and ENV-09: every session has its own id of the account's shape.
#[test]
fn session_ids_are_unique_and_shaped() {
    let mut h = host();
    let mut c = hello(&mut h, L);
    let a = session_of(&mut h, L, &mut c, 1);
    let b = session_of(&mut h, L, &mut c, 2);
    assert_ne!(a, b);
    for id in [a, b] {
        assert_eq!(id >> 32, 0x9EAA_3001);
        assert_eq!((id >> 16) & 0xFFFF, 0x0020);
    }
}

/// ENV-08 in a shared fleet: service 7 waits for the store's index of the new session
/// and names it; an index a session here still holds, or none from the store, is counted
/// by the process itself; a plaintext request asks the store nothing.
#[test]
fn a_shared_hosts_session_ids_take_the_stores_index() {
    use vex_host::session_index::Indexed;
    let mut config = HostConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974));
    config.shared = true;
    let mut h = HostCore::new(config);
    h.handle_connect(Instant::default(), L);
    let mut c = hello(&mut h, L);
    let ask = |h: &mut HostCore, c: &mut SecureChannel, task: u32, indexed: Indexed| {
        send_sealed(h, L, c, HOST_REQUEST, task, &service6());
        assert!(transmits(h).is_empty(), "service 7 waits for the store");
        let asked = h.poll_index().unwrap();
        assert_eq!(asked.account_half, 0x9EAA_3001);
        h.handle_indexed(asked.ticket, indexed);
        let t = transmits(h);
        HostResponse::decode(&response_body(&t[0], Some(c)))
            .unwrap()
            .session_id
    };
    assert_eq!(
        ask(&mut h, &mut c, 1, Indexed::Next(700)),
        0x9EAA_3001_0020_02BC
    );
    let taken = ask(&mut h, &mut c, 2, Indexed::Next(700));
    assert_ne!(
        taken, 0x9EAA_3001_0020_02BC,
        "the index a live session holds"
    );
    let failed = ask(&mut h, &mut c, 3, Indexed::Failed("down".into()));
    assert_eq!(
        failed >> 16,
        0x9EAA_3001_0020,
        "counted here, of the account's shape"
    );

    let plain = plain_frame(
        FrameType::Plain,
        InnerHeader::request(HOST_REQUEST, 4),
        &service6(),
    );
    h.handle_bytes(Instant::default(), L, &plain);
    assert_eq!(
        transmits(&mut h).len(),
        1,
        "answered at once, no side effect"
    );
    assert!(h.poll_index().is_none());
}

/// HOST-06: a message naming a session the link does not own is dropped, nothing is
/// sent, and the link goes on.
#[test]
fn unowned_session_is_dropped_and_the_link_goes_on() {
    let mut h = host();
    let mut c = hello(&mut h, L);
    let session = session_of(&mut h, L, &mut c, 1);
    let n = ActivityNotification::new(session ^ 1, 52, 0, vec![0; 16]);
    send_sealed(&mut h, L, &mut c, 8, 2, &n.encode());
    assert!(transmits(&mut h).is_empty());
    assert!(dropped_with(&events(&mut h), |r| matches!(
        r,
        Dropped::Unowned { msg: 52, .. }
    )));
    send_sealed(&mut h, L, &mut c, 250, 3, &[0; 4]);
    assert_eq!(transmits(&mut h).len(), 1, "the link still answers");
}

/// AH "Message ids": a message the client never sends (4 goes host to client, 59 is past
/// the table) is recorded and dropped with its reason, nothing is sent, and the link goes
/// on: a join after them gets its burst.
#[test]
fn a_message_the_client_never_sends_is_dropped_and_the_link_goes_on() {
    let mut h = host();
    let mut c = hello(&mut h, L);
    let session = session_of(&mut h, L, &mut c, 1);
    for (task, msg) in [(2, 4), (3, 59)] {
        let n = ActivityNotification::new(session, msg, 0, vec![0; 757]);
        send_sealed(&mut h, L, &mut c, 8, task, &n.encode());
        assert!(transmits(&mut h).is_empty(), "message {msg}");
        let e = events(&mut h);
        assert!(
            e.iter().any(|e| matches!(
                e,
                HostEvent::Received { message: Some(m), .. } if *m == msg
            )),
            "message {msg} is recorded"
        );
        assert!(dropped_with(&e, |r| *r == Dropped::NotClientSent(msg)));
    }
    let join = JoinRequest::new(1, session, 5, 6);
    let n = ActivityNotification::new(session, 3, 0, join.encode().unwrap());
    send_sealed(&mut h, L, &mut c, 8, 4, &n.encode());
    assert!(
        pushed(&transmits(&mut h), &mut c).contains(&4),
        "the join burst"
    );
}

/// A stream that cannot be framed closes the link with its reason; nothing panics.
#[test]
fn bad_magic_closes_the_link() {
    let mut h = host();
    h.handle_bytes(Instant::default(), L, &[9, 0, 0, 0, 0, 0]);
    let e = events(&mut h);
    assert!(e.iter().any(|e| matches!(
        e,
        HostEvent::Close {
            reason: Closed::Framing(DeframeError::BadMagic(_)),
            ..
        }
    )));
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
    let mut c = hello(&mut h, L);
    h.handle_bytes(
        Instant::default(),
        L,
        &outer_frame(FrameType::Encrypted, &[0; 30]),
    );
    assert!(transmits(&mut h).is_empty());
    assert!(dropped_with(&events(&mut h), |r| matches!(
        r,
        Dropped::Open(_)
    )));
    send_sealed(&mut h, L, &mut c, 250, 3, &[0; 4]);
    assert_eq!(transmits(&mut h).len(), 1, "the nonce was not consumed");
}

/// A frame that opens only with a later nonce proves frames were lost on the way: no
/// later frame of the link can open, so the link is closed, saying so. One sealed with an
/// earlier nonce (a replay) is dropped and the link goes on.
#[test]
fn a_channel_out_of_step_closes_the_link_and_a_replay_does_not() {
    let mut h = host();
    let mut c = hello(&mut h, L);
    let mut inner = Vec::new();
    InnerHeader::request(250, 1).write(&mut inner);
    let first = outer_frame(FrameType::Encrypted, &c.seal(&inner));
    h.handle_bytes(Instant::default(), L, &first);
    assert_eq!(transmits(&mut h).len(), 1, "answered");
    h.handle_bytes(Instant::default(), L, &first);
    assert!(dropped_with(&events(&mut h), |r| matches!(
        r,
        Dropped::Open(_)
    )));
    send_sealed(&mut h, L, &mut c, 250, 2, &[]);
    assert_eq!(transmits(&mut h).len(), 1, "the replay took no nonce");
    let _lost = c.seal(&inner);
    send_sealed(&mut h, L, &mut c, 250, 3, &[]);
    assert!(transmits(&mut h).is_empty());
    assert!(events(&mut h).iter().any(|e| matches!(
        e,
        HostEvent::Close {
            reason: Closed::OutOfStep(1),
            ..
        }
    )));
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
    assert_ne!(response_body(&t[0], None), response_body(&t[1], None));
}

/// Facts 1.5: on an armed link a plaintext request still gets a plaintext answer, and a
/// plaintext service 6 or service 8 changes nothing.
#[test]
fn plaintext_after_the_hello_is_answered_in_plaintext_without_side_effects() {
    let mut h = host();
    let mut c = hello(&mut h, L);
    send(&mut h, 250, 7, &[0; 4]);
    let t = transmits(&mut h);
    assert_eq!(open(&t[0], None).0, FrameType::Plain);
    send(&mut h, HOST_REQUEST, 8, &service6());
    let t = transmits(&mut h);
    assert_eq!(
        open(&t[0], None).0,
        FrameType::Plain,
        "answered, in plaintext"
    );
    let session = HostResponse::decode(&response_body(&t[0], None))
        .unwrap()
        .session_id;
    let join = JoinRequest::new(1, session, 2, 3);
    let n = ActivityNotification::new(session, 3, 0, join.encode().unwrap());
    send_sealed(&mut h, L, &mut c, 8, 9, &n.encode());
    assert!(
        transmits(&mut h).is_empty(),
        "no session was committed, so no join burst"
    );
    send(&mut h, 8, 10, &n.encode());
    assert!(transmits(&mut h).is_empty());
    assert!(dropped_with(&events(&mut h), |r| *r == Dropped::PlaintextActivity));
}

/// Message 6 is read; a body of another shape is dropped with its reason.
#[test]
fn sense_update_is_read_and_a_wrong_shape_is_dropped() {
    use vex_wire::activity::sense_update::SenseUpdate;
    let mut h = host();
    let mut c = hello(&mut h, L);
    let session = session_of(&mut h, L, &mut c, 1);
    let good = SenseUpdate {
        patch_epoch: [1, 2],
        groups: vec![],
    }
    .encode()
    .unwrap();
    let n = ActivityNotification::new(session, 6, 0, good.clone());
    send_sealed(&mut h, L, &mut c, 8, 2, &n.encode());
    assert!(!dropped_with(&events(&mut h), |r| matches!(
        r,
        Dropped::Body { msg: 6, .. }
    )));
    let mut bad = good;
    bad[16] |= 0x80; // the literal bit
    let n = ActivityNotification::new(session, 6, 0, bad);
    send_sealed(&mut h, L, &mut c, 8, 3, &n.encode());
    assert!(dropped_with(&events(&mut h), |r| matches!(
        r,
        Dropped::Body { msg: 6, .. }
    )));
}

/// The activity message ids of the pushes in `t`, opened with `c`.
fn pushed(t: &[Transmit], c: &mut SecureChannel) -> Vec<u32> {
    t.iter()
        .map(|t| {
            let (_, inner) = open(t, Some(c));
            let body = InnerHeader::read(&inner, false).unwrap().1;
            vex_wire::activity::envelope::ActivityPush::decode(body)
                .unwrap()
                .msg_type
        })
        .collect()
}

/// Hello, service 6 and a join on `link`: the client's end of the channel, its session
/// and the ids of the burst.
fn join_on(h: &mut HostCore, link: LinkId) -> (SecureChannel, u64, Vec<u32>) {
    let mut c = hello(h, link);
    let session = session_of(h, link, &mut c, 1);
    let join = JoinRequest::new(1, session, 5, 6);
    let n = ActivityNotification::new(session, 3, 0, join.encode().unwrap());
    send_sealed(h, link, &mut c, 8, 2, &n.encode());
    let burst = pushed(&transmits(h), &mut c);
    (c, session, burst)
}

/// The keepalive carries message 12 again until the client acknowledges its revision with
/// message 38, and not after (MEMBER-03).
#[test]
fn membership_is_resent_until_acknowledged() {
    let mut h = host();
    let (mut c, session, burst) = join_on(&mut h, L);
    assert!(burst.contains(&12), "the burst");
    h.handle_timeout(Instant::from_millis(2000));
    assert!(
        pushed(&transmits(&mut h), &mut c).contains(&12),
        "unacknowledged"
    );
    let ack = ActivityNotification::new(session, 38, 0, 1u32.to_be_bytes().to_vec());
    send_sealed(&mut h, L, &mut c, 8, 3, &ack.encode());
    h.handle_timeout(Instant::from_millis(4000));
    let later = pushed(&transmits(&mut h), &mut c);
    assert!(later.contains(&1) && !later.contains(&12), "{later:?}");
}

/// Message 20 gets the lowest slots no member holds (above the join grant), a count of 0
/// is refused, and message 21 frees slots with no reply (HOST-04).
#[test]
fn slot_requests_grant_the_lowest_free_slots() {
    use vex_wire::activity::small::EntitySlotMask;
    let mut h = host();
    let (mut c, session, _) = join_on(&mut h, L);
    let request = |count: i32| {
        let body = vex_wire::activity::small::SlotRequest { count }
            .encode()
            .unwrap();
        ActivityNotification::new(session, 20, 0, body).encode()
    };
    let grant = |h: &mut HostCore, c: &mut SecureChannel| {
        let t = transmits(h);
        assert_eq!(t.len(), 1);
        let (_, inner) = open(&t[0], Some(c));
        let body = InnerHeader::read(&inner, false).unwrap().1;
        let push = vex_wire::activity::envelope::ActivityPush::decode(body).unwrap();
        assert_eq!(push.msg_type, 0);
        EntitySlotMask(push.payload)
    };
    send_sealed(&mut h, L, &mut c, 8, 3, &request(8));
    let after_join = JOIN_GRANT_COUNT..JOIN_GRANT_COUNT + 8;
    assert_eq!(
        grant(&mut h, &mut c),
        EntitySlotMask::with_range(after_join),
        "the join grant holds the lowest slots"
    );
    send_sealed(&mut h, L, &mut c, 8, 4, &request(0));
    assert!(transmits(&mut h).is_empty());
    assert!(dropped_with(&events(&mut h), |r| *r == Dropped::SlotCount(0)));
    let freed = EntitySlotMask::with_range(100..110);
    let n = ActivityNotification::new(session, 21, 0, freed.0.clone());
    send_sealed(&mut h, L, &mut c, 8, 5, &n.encode());
    assert!(transmits(&mut h).is_empty(), "message 21 has no reply");
    send_sealed(&mut h, L, &mut c, 8, 6, &request(4));
    assert_eq!(grant(&mut h, &mut c), EntitySlotMask::with_range(100..104));
}

/// Message 4 is encoded once per host; every join still gets its own echo and session name.
#[test]
fn each_join_result_echoes_its_own_request_and_session() {
    use vex_wire::activity::join::JoinResult;
    let mut h = host();
    let second = LinkId(2);
    h.handle_connect(Instant::default(), second);
    for (link, nonce) in [(L, 0x1111_1111), (second, 0x2222_2222)] {
        let mut c = hello(&mut h, link);
        let session = session_of(&mut h, link, &mut c, 1);
        let join = JoinRequest::new(nonce, session, 5, 6);
        let n = ActivityNotification::new(session, 3, 0, join.encode().unwrap());
        send_sealed(&mut h, link, &mut c, 8, 2, &n.encode());
        let first = transmits(&mut h).into_iter().next().unwrap();
        let (_, inner) = open(&first, Some(&mut c));
        let push = vex_wire::activity::envelope::ActivityPush::decode(
            InnerHeader::read(&inner, false).unwrap().1,
        )
        .unwrap();
        assert_eq!(push.msg_type, 4);
        let result = JoinResult::decode(&push.payload).unwrap();
        assert_eq!(result.echoed_nonce(), nonce);
        assert_eq!(result.echoed_host_id(), session);
        assert_eq!(result, JoinResult::accept(&join, session));
    }
}

/// After message 15 the link has no joined client: the leave delta goes out once, and a
/// later message 18 or 20 gets nothing (LEAVE-02; AH "Send no later roster on that link").
#[test]
fn nothing_follows_the_leave_delta() {
    use vex_wire::activity::small::{LEAVE_REASON_NONE, PeerLeave, SlotRequest};
    let mut h = host();
    let (mut c, session, _) = join_on(&mut h, L);
    let send = |h: &mut HostCore, c: &mut SecureChannel, task: u32, msg: u32, body: Vec<u8>| {
        ids(&exchange(h, c, session, task, msg, body))
    };
    assert_eq!(
        send(&mut h, &mut c, 3, 52, vec![0; 16]),
        [5],
        "the first roster"
    );
    let leave = PeerLeave {
        word_0: 0,
        word_4: 0,
        peer_key: 5,
        reason_hash: LEAVE_REASON_NONE,
    };
    assert_eq!(
        send(&mut h, &mut c, 4, 15, leave.encode().unwrap()),
        [5],
        "the delta"
    );
    assert!(send(&mut h, &mut c, 5, 18, vec![0; 8]).is_empty());
    let request = SlotRequest { count: 8 }.encode().unwrap();
    assert!(send(&mut h, &mut c, 6, 20, request).is_empty());
    assert!(dropped_with(&events(&mut h), |r| *r == Dropped::NotJoined(20)));
}

/// Activity message `msg` with `body` sent on `session` as task `task`, and the pushes it
/// brought back as (message id, payload).
fn exchange(
    h: &mut HostCore,
    c: &mut SecureChannel,
    session: u64,
    task: u32,
    msg: u32,
    body: Vec<u8>,
) -> Vec<(u32, Vec<u8>)> {
    let n = ActivityNotification::new(session, msg, 0, body);
    send_sealed(h, L, c, 8, task, &n.encode());
    pushes(&transmits(h), c)
}

/// The message ids of `pushes`.
fn ids(pushes: &[(u32, Vec<u8>)]) -> Vec<u32> {
    pushes.iter().map(|p| p.0).collect()
}

/// The pushes in `t` as (message id, payload), opened with `c`.
fn pushes(t: &[Transmit], c: &mut SecureChannel) -> Vec<(u32, Vec<u8>)> {
    t.iter()
        .map(|t| {
            let (_, inner) = open(t, Some(c));
            let body = InnerHeader::read(&inner, false).unwrap().1;
            let p = vex_wire::activity::envelope::ActivityPush::decode(body).unwrap();
            (p.msg_type, p.payload)
        })
        .collect()
}

/// The member keys of each message 12 among `pushes`, with its revision.
fn tables(pushes: &[(u32, Vec<u8>)]) -> Vec<(u32, Vec<u64>)> {
    pushes
        .iter()
        .filter(|(msg, _)| *msg == 12)
        .map(|(_, body)| {
            let t = ReplicateMembership::decode(body).unwrap();
            (t.revision, t.member_keys())
        })
        .collect()
}

/// A second link's join naming the first link's session (a public join): the burst
/// carries the joiner's own private table, then the activity's table reaches both, and
/// both pushes carry the shared session id (SR "The join burst"; HOST-14).
#[test]
fn a_public_join_shares_the_table_with_every_member() {
    let mut h = host();
    let (mut c1, session, _) = join_on(&mut h, L);
    let second = LinkId(2);
    h.handle_connect(Instant::default(), second);
    let mut c2 = hello(&mut h, second);
    let private = session_of(&mut h, second, &mut c2, 1);
    assert_ne!(private, session);
    let join = JoinRequest::new(9, session, 0x55, 0x66);
    let n = ActivityNotification::new(session, 3, 0, join.encode().unwrap());
    send_sealed(&mut h, second, &mut c2, 8, 2, &n.encode());
    let t = transmits(&mut h);
    let (to_first, to_second): (Vec<Transmit>, Vec<Transmit>) =
        t.into_iter().partition(|t| t.link == L);
    let second_pushes = pushes(&to_second, &mut c2);
    let ids: Vec<u32> = second_pushes.iter().map(|(m, _)| *m).collect();
    assert_eq!(ids, [4, 0, 1, 2, 54, 12, 12]);
    assert_eq!(
        tables(&second_pushes),
        [(1, vec![0x55]), (2, vec![5, 0x55])],
        "the private table, then the activity's"
    );
    assert_eq!(tables(&pushes(&to_first, &mut c1)), [(2, vec![5, 0x55])]);
    let grant = vex_wire::activity::small::EntitySlotMask(second_pushes[1].1.clone());
    assert!(
        !grant.get(0) && grant.get(JOIN_GRANT_COUNT),
        "slots of its own"
    );
}

/// A join naming a session that is neither the link's own nor a hosted one is recorded and
/// dropped, and the link goes on (HOST-14, HOST-06).
#[test]
fn a_join_naming_an_unknown_session_is_dropped() {
    let mut h = host();
    let mut c = hello(&mut h, L);
    let own = session_of(&mut h, L, &mut c, 1);
    let stranger = own + 40;
    let join = JoinRequest::new(1, stranger, 5, 6);
    let n = ActivityNotification::new(stranger, 3, 0, join.encode().unwrap());
    send_sealed(&mut h, L, &mut c, 8, 2, &n.encode());
    assert!(transmits(&mut h).is_empty());
    assert!(dropped_with(&events(&mut h), |r| matches!(
        r,
        Dropped::Unowned { msg: 3, .. }
    )));
}

/// Three members: message 23 changes one member's record and every member gets the next
/// revision; a leave and a closed link each take a member out, and the rest are told.
#[test]
fn identity_leave_and_close_each_publish_one_revision() {
    use vex_wire::activity::identity::ClientIdentity;
    use vex_wire::activity::membership::Member;
    let mut h = host();
    let (mut c1, session, _) = join_on(&mut h, L);
    let first = |h: &mut HostCore, c1: &mut SecureChannel| {
        let t: Vec<Transmit> = transmits(h).into_iter().filter(|t| t.link == L).collect();
        tables(&pushes(&t, c1))
    };
    let mut others = Vec::new();
    let mut told = Vec::new();
    for (i, link) in [LinkId(2), LinkId(3)].into_iter().enumerate() {
        h.handle_connect(Instant::default(), link);
        let mut c = hello(&mut h, link);
        session_of(&mut h, link, &mut c, 1);
        let key = 0x50 + i as u64;
        let join = JoinRequest::new(9, session, key, 0x66);
        let n = ActivityNotification::new(session, 3, 0, join.encode().unwrap());
        send_sealed(&mut h, link, &mut c, 8, 2, &n.encode());
        told.extend(first(&mut h, &mut c1));
        others.push((link, c, key));
    }
    assert_eq!(told, [(2, vec![5, 0x50]), (3, vec![5, 0x50, 0x51])]);
    let (link, c, key) = &mut others[0];
    let mut changed = Member::seed(*key, 0, 0x66);
    changed.field6 = 77;
    let body = ClientIdentity(changed).encode().unwrap();
    let n = ActivityNotification::new(session, 23, 0, body);
    send_sealed(&mut h, *link, c, 8, 4, &n.encode());
    assert_eq!(first(&mut h, &mut c1), [(4, vec![5, 0x50, 0x51])]);
    let leave = vex_wire::activity::small::PeerLeave {
        word_0: 0,
        word_4: 0,
        peer_key: *key,
        reason_hash: vex_wire::activity::small::LEAVE_REASON_NONE,
    }
    .encode()
    .unwrap();
    let n = ActivityNotification::new(session, 15, 0, leave);
    send_sealed(&mut h, *link, c, 8, 5, &n.encode());
    assert_eq!(first(&mut h, &mut c1), [(5, vec![5, 0x51])]);
    h.handle_close(Instant::default(), others[1].0);
    assert_eq!(first(&mut h, &mut c1), [(6, vec![5])]);
}

/// A 33rd member is refused: every lane of message 12 is taken. The refused link stays
/// on its own session, no member is told anything, and a lane freed by a leave takes it.
#[test]
fn the_thirty_third_member_is_refused_and_stays_where_it_was() {
    use vex_host::activity::AdmitError;
    let mut h = host();
    let (_c1, session, _) = join_on(&mut h, L);
    for n in 2..=32u64 {
        let link = LinkId(n);
        h.handle_connect(Instant::default(), link);
        let mut c = hello(&mut h, link);
        session_of(&mut h, link, &mut c, 1);
        let join = JoinRequest::new(9, session, 0x100 + n, 0x66);
        let n = ActivityNotification::new(session, 3, 0, join.encode().unwrap());
        send_sealed(&mut h, link, &mut c, 8, 2, &n.encode());
        transmits(&mut h);
    }
    let last = LinkId(33);
    h.handle_connect(Instant::default(), last);
    let mut c = hello(&mut h, last);
    let own = session_of(&mut h, last, &mut c, 1);
    let join = JoinRequest::new(9, session, 0x999, 0x66);
    let n = ActivityNotification::new(session, 3, 0, join.encode().unwrap());
    send_sealed(&mut h, last, &mut c, 8, 2, &n.encode());
    assert!(
        transmits(&mut h).is_empty(),
        "no burst, and no member is told"
    );
    assert!(dropped_with(&events(&mut h), |r| *r == Dropped::Admit(AdmitError::Full)));
    let own_join = JoinRequest::new(9, own, 0x999, 0x66);
    let n = ActivityNotification::new(own, 3, 0, own_join.encode().unwrap());
    send_sealed(&mut h, last, &mut c, 8, 3, &n.encode());
    assert_eq!(
        pushed(&transmits(&mut h), &mut c),
        [4, 0, 1, 2, 54, 12],
        "its own session"
    );
}

/// Message 11 gets the whole snapshot while `default_client_activation` is on, and is
/// recorded only when it is off (SR "What each client message gets").
#[test]
fn start_new_activity_follows_the_activation_setting() {
    use vex_wire::activity::selection::SelectionDescriptor;
    for activation in [true, false] {
        let mut config = HostConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974));
        config.default_client_activation = activation;
        let mut h = HostCore::new(config);
        h.handle_connect(Instant::default(), L);
        let (mut c, session, _) = join_on(&mut h, L);
        let send = |h: &mut HostCore, c: &mut SecureChannel, task: u32, msg: u32, body: Vec<u8>| {
            ids(&exchange(h, c, session, task, msg, body))
        };
        assert_eq!(send(&mut h, &mut c, 3, 52, vec![0; 16]), [5]);
        let head = SelectionDescriptor::default().to_bits().unwrap().bytes;
        let answer = send(&mut h, &mut c, 4, 11, head);
        let want: &[u32] = if activation { &[1, 2, 12, 5] } else { &[] };
        assert_eq!(answer, want, "activation {activation}");
        assert!(
            send(&mut h, &mut c, 5, 11, vec![]).is_empty(),
            "an empty body"
        );
        assert!(dropped_with(&events(&mut h), |r| matches!(
            r,
            Dropped::Schema { msg: 11, .. }
        )));
    }
}

/// Message 22 that moves the region is answered by nothing until the roster request (18),
/// which gets the new bubble's roster; a region outside the activity is dropped; a 22
/// with a new transition token changes the table (AUTH-13, HOST-05).
#[test]
fn a_region_move_holds_rosters_until_the_roster_request() {
    use vex_wire::activity::client_state::{ClientState, RegionLeg};
    use vex_wire::activity::sensor_auth::SensorAuthUpdate;
    let mut h = host();
    let (mut c, session, _) = join_on(&mut h, L);
    let send = |h: &mut HostCore, c: &mut SecureChannel, task: u32, msg: u32, body: Vec<u8>| {
        exchange(h, c, session, task, msg, body)
    };
    assert_eq!(send(&mut h, &mut c, 3, 52, vec![0; 16]).len(), 1);
    let moved = |index: i16, token: Option<u8>| {
        ClientState {
            region: Some(RegionLeg { index, hash: 0 }),
            transition_token: token,
            ..ClientState::default()
        }
        .encode()
        .unwrap()
    };
    assert!(send(&mut h, &mut c, 4, 22, moved(80, None)).is_empty());
    assert!(dropped_with(&events(&mut h), |r| *r == Dropped::RegionOutside(80)));
    let answer = send(&mut h, &mut c, 5, 22, moved(8, Some(1)));
    assert_eq!(
        answer.iter().map(|p| p.0).collect::<Vec<_>>(),
        [12],
        "the token"
    );
    assert!(events(&mut h).iter().any(|e| matches!(
        e,
        HostEvent::World(WorldEvent::RegionChanged { from: 0, to: 8, .. })
    )));
    let snapshot = send(&mut h, &mut c, 7, 18, vec![0; 8]);
    let ids: Vec<u32> = snapshot.iter().map(|p| p.0).collect();
    assert_eq!(ids, [1, 2, 12, 5]);
    let roster = SensorAuthUpdate::decode(&snapshot[3].1)
        .unwrap()
        .roster
        .unwrap();
    let subs = roster.sub_blocks.unwrap();
    assert_eq!(
        (subs[0].bubble, subs[0].keys.clone()),
        (1, vec![0xBBBB_0002])
    );
    assert!(
        send(&mut h, &mut c, 8, 22, moved(8, Some(1))).is_empty(),
        "no move"
    );
}

/// A move into another region changes the advertised host (SR "What the host pushes on
/// its own"): the member table goes out under the next revision with the citizen record
/// (facts 4.10) in the new region's record and none in the old one's, even with no
/// transition token to carry; a 22 that does not move changes nothing.
#[test]
fn a_region_move_changes_the_advertised_host() {
    use vex_wire::activity::client_state::{ClientState, RegionLeg};
    use vex_wire::activity::membership::ReplicateMembership;
    use vex_wire::peer::join_descriptor::JoinDescriptor;
    let mut h = host();
    let (mut c, session, _) = join_on(&mut h, L);
    let advertised = |t: &ReplicateMembership| -> Vec<usize> {
        (0..t.regions.len())
            .filter(|&b| t.regions[b].citizen_descriptor.is_some())
            .collect()
    };
    let moved = ClientState {
        region: Some(RegionLeg { index: 8, hash: 0 }),
        ..ClientState::default()
    }
    .encode()
    .unwrap();
    let answer = exchange(&mut h, &mut c, session, 3, 22, moved.clone());
    let [(12, body)] = answer.as_slice() else {
        panic!("the move's member table alone: {:?}", ids(&answer));
    };
    let table = ReplicateMembership::decode(body).unwrap();
    assert_eq!(
        advertised(&table),
        [1],
        "bubble 1's record alone, not the arrival's"
    );
    let d = JoinDescriptor::read(table.regions[1].citizen_descriptor.as_ref().unwrap()).unwrap();
    assert_eq!(d.host.local_port_0.get(), 30974, "the host's own UDP port");
    assert_eq!(table.regions[1].online_session_id, session);
    assert!(
        exchange(&mut h, &mut c, session, 4, 22, moved).is_empty(),
        "no move, no change"
    );
}

/// In a shared fleet, a move into a region no process hosts yet holds the member table
/// back (SR "Timed sends that remain": "a membership body held back for a missing host
/// record is retried after 250 ms") while the store is asked where the region goes; the
/// first retry after its answer names that process in the region's citizen record, under
/// the next revision. A change while the table waits (the member's identity, message 23)
/// joins that revision: the retry's table carries it, one step on (MEMBER-07). The
/// arrival region is the process's own; a move back asks nothing.
#[test]
fn in_a_fleet_a_region_move_waits_for_the_store_and_names_the_process_it_placed() {
    use vex_host::fleet_regions::RegionAsk;
    use vex_host::lobby::Placed;
    use vex_host::session_index::Indexed;
    use vex_wire::activity::client_state::{ClientState, RegionLeg};
    use vex_wire::activity::identity::ClientIdentity;
    use vex_wire::activity::membership::Member;
    use vex_wire::activity::membership::ReplicateMembership;
    use vex_wire::peer::join_descriptor::JoinDescriptor;
    let own = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974);
    let other = SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 2), 30975);
    let mut config = HostConfig::builtin(own);
    config.shared = true;
    let mut h = HostCore::new(config);
    h.handle_connect(Instant::default(), L);
    let mut c = hello(&mut h, L);
    send_sealed(&mut h, L, &mut c, HOST_REQUEST, 1, &service6());
    let asked = h.poll_index().unwrap();
    h.handle_indexed(asked.ticket, Indexed::Next(1));
    let t = transmits(&mut h);
    let session = HostResponse::decode(&response_body(&t[0], Some(&mut c)))
        .unwrap()
        .session_id;
    let join = JoinRequest::new(1, session, 5, 6);
    let n = ActivityNotification::new(session, 3, 0, join.encode().unwrap());
    send_sealed(&mut h, L, &mut c, 8, 2, &n.encode());
    let burst = pushes(&transmits(&mut h), &mut c);
    let host_of = |body: &[u8], bubble: usize| {
        let t = ReplicateMembership::decode(body).unwrap();
        let record = t.regions[bubble].citizen_descriptor.as_ref()?;
        let d = JoinDescriptor::read(record).unwrap();
        Some((t.revision, d.host.dialed().unwrap()))
    };
    let (_, first) = burst.iter().find(|(msg, _)| *msg == 12).unwrap();
    let (revision, arrival) = host_of(first, 0).unwrap();
    assert_eq!(arrival, own, "the arrival region is the process's own");

    let to = |index| {
        let leg = RegionLeg { index, hash: 0 };
        let state = ClientState {
            region: Some(leg),
            ..ClientState::default()
        };
        state.encode().unwrap()
    };
    let answer = exchange(&mut h, &mut c, session, 3, 22, to(8));
    assert!(tables(&answer).is_empty(), "held back: {:?}", ids(&answer));
    let mut identity = Member::seed(5, 0, 6);
    identity.field6 = 77;
    let body = ClientIdentity(identity).encode().unwrap();
    let answer = exchange(&mut h, &mut c, session, 4, 23, body);
    assert!(tables(&answer).is_empty(), "still held: {:?}", ids(&answer));
    let place = RegionAsk::Place {
        session,
        bubble: 1,
        owner: own,
    };
    assert_eq!(h.poll_region_ask(), Some(place));
    assert_eq!(h.poll_timeout(), Some(Instant::from_millis(250)));
    h.handle_timeout(Instant::from_millis(250));
    assert!(transmits(&mut h).is_empty(), "still no host record");
    h.handle_region_placed(session, 1, Placed::At(other));
    assert_eq!(h.poll_region_ask(), None);
    h.handle_timeout(Instant::from_millis(500));
    let retried = pushes(&transmits(&mut h), &mut c);
    let [(12, body)] = retried.as_slice() else {
        panic!("the table at the retry: {:?}", ids(&retried));
    };
    assert_eq!(
        host_of(body, 1),
        Some((revision + 1, other)),
        "the move and the identity under one revision"
    );
    assert_eq!(host_of(body, 0), None, "the member left the arrival region");
    let table = ReplicateMembership::decode(body).unwrap();
    assert_eq!(table.members[0].as_ref().map(|m| m.field6), Some(77));

    let back = exchange(&mut h, &mut c, session, 5, 22, to(0));
    assert_eq!(
        tables(&back).len(),
        1,
        "the arrival region's record is known"
    );
    assert_eq!(h.poll_region_ask(), None);
}

/// The second link of the fleet tests: a member that joined the owner's activity.
const JOINER: LinkId = LinkId(2);

/// A shared fleet's process at 127.0.0.1:30974 whose activity has its owner on `L` and a
/// joiner on [`JOINER`]: the host, the two links' channels, the session, and the revision
/// of the last table both were sent.
fn fleet_pair() -> (HostCore, [SecureChannel; 2], u64, u32) {
    use vex_host::session_index::Indexed;
    let mut config = HostConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974));
    config.shared = true;
    let mut h = HostCore::new(config);
    let mut channels = Vec::new();
    let mut sessions = Vec::new();
    for (n, link) in [L, JOINER].into_iter().enumerate() {
        h.handle_connect(Instant::default(), link);
        let mut c = hello(&mut h, link);
        send_sealed(&mut h, link, &mut c, HOST_REQUEST, 1, &service6());
        let asked = h.poll_index().unwrap();
        h.handle_indexed(asked.ticket, Indexed::Next(n as u16 + 1));
        let answer = response_body(&transmits(&mut h)[0], Some(&mut c));
        sessions.push(HostResponse::decode(&answer).unwrap().session_id);
        channels.push(c);
    }
    let mut channels: [SecureChannel; 2] = channels.try_into().ok().unwrap();
    let session = sessions[0];
    fleet_send(
        &mut h,
        &mut channels,
        (L, 2),
        session,
        3,
        join_body(session, 5),
    );
    let (_, to_l, _) = fleet_send(
        &mut h,
        &mut channels,
        (JOINER, 2),
        session,
        3,
        join_body(session, 0x50),
    );
    let [(last, _)] = to_l[..] else {
        panic!("the owner is told of the joiner: {to_l:?}");
    };
    (h, channels, session, last)
}

/// What the two links of [`fleet_pair`] got: the ids of the owner's pushes, and each
/// link's tables (revision, member keys).
type FleetReceived = (Vec<u32>, Vec<(u32, Vec<u64>)>, Vec<(u32, Vec<u64>)>);

/// A join of `session` by member `key`.
fn join_body(session: u64, key: u64) -> Vec<u8> {
    JoinRequest::new(1, session, key, 6).encode().unwrap()
}

/// Message `msg` sent from `link` on `task`: the ids the owner got, and the tables each
/// link got.
fn fleet_send(
    h: &mut HostCore,
    channels: &mut [SecureChannel; 2],
    (link, task): (LinkId, u32),
    session: u64,
    msg: u32,
    body: Vec<u8>,
) -> FleetReceived {
    let n = ActivityNotification::new(session, msg, 0, body);
    let channel = if link == L { 0 } else { 1 };
    send_sealed(h, link, &mut channels[channel], 8, task, &n.encode());
    fleet_received(h, channels)
}

/// What the owner got (ids) and the tables each link got.
fn fleet_received(h: &mut HostCore, [c, c2]: &mut [SecureChannel; 2]) -> FleetReceived {
    let (to_l, to_joiner) = by_link(transmits(h), L);
    let (to_l, to_joiner) = (pushes(&to_l, c), pushes(&to_joiner, c2));
    (ids(&to_l), tables(&to_l), tables(&to_joiner))
}

/// The process the store places bubble 1 on in the fleet tests.
const OTHER_PROCESS: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 2), 30975);

/// Message 23 from the owner of [`fleet_pair`] (member key 5), its field 6 `field6`.
fn owner_identity(field6: u64) -> Vec<u8> {
    use vex_wire::activity::identity::ClientIdentity;
    use vex_wire::activity::membership::Member;
    let mut member = Member::seed(5, 0, 6);
    member.field6 = field6;
    ClientIdentity(member).encode().unwrap()
}

/// Message 18 from a client holding revision `revision`, in bubble 1.
fn refresh_body(revision: u32) -> Vec<u8> {
    use vex_wire::activity::small::StateRefresh;
    let refresh = StateRefresh {
        membership_revision: revision,
        bubble: 1,
    };
    refresh.encode().unwrap()
}

/// Message 22 moving to region `index`.
fn region_body(index: i16) -> Vec<u8> {
    use vex_wire::activity::client_state::{ClientState, RegionLeg};
    let state = ClientState {
        region: Some(RegionLeg { index, hash: 0 }),
        ..ClientState::default()
    };
    state.encode().unwrap()
}

/// In a shared fleet, while the table waits for a host record, the owner leaves and joins
/// its own session again: its burst goes without the table (a table under the revision
/// that waits would be followed by another under the same revision, MEMBER-07), and at
/// the retry every member gets the one table, one revision on from the last they had:
/// the leave and the join joined the move's revision.
#[test]
fn in_a_fleet_changes_while_the_table_waits_go_out_as_one_revision() {
    use vex_host::lobby::Placed;
    use vex_wire::activity::small::{LEAVE_REASON_NONE, PeerLeave};
    let (mut h, mut cs, session, last) = fleet_pair();
    let none = (vec![], vec![]);
    let (_, to_l, to_joiner) =
        fleet_send(&mut h, &mut cs, (JOINER, 3), session, 22, region_body(8));
    assert_eq!((to_l, to_joiner), none, "held back");
    assert!(
        h.poll_region_ask().is_some(),
        "the store is asked where bubble 1 goes"
    );
    let leave = PeerLeave {
        word_0: 0,
        word_4: 0,
        peer_key: 5,
        reason_hash: LEAVE_REASON_NONE,
    };
    let (_, to_l, to_joiner) = fleet_send(
        &mut h,
        &mut cs,
        (L, 3),
        session,
        15,
        leave.encode().unwrap(),
    );
    assert_eq!((to_l, to_joiner), none, "still held");
    let (burst, to_l, to_joiner) =
        fleet_send(&mut h, &mut cs, (L, 4), session, 3, join_body(session, 5));
    assert!(burst.contains(&4), "joined again: {burst:?}");
    assert_eq!((to_l, to_joiner), none, "the burst waits too");
    h.handle_region_placed(session, 1, Placed::At(OTHER_PROCESS));
    let retry_at = h.poll_timeout().unwrap();
    h.handle_timeout(retry_at);
    let (_, to_l, to_joiner) = fleet_received(&mut h, &mut cs);
    let next = vec![(last + 1, vec![5, 0x50])];
    assert_eq!(
        (to_l, to_joiner),
        (next.clone(), next),
        "one revision on, to each"
    );
}

/// In a shared fleet, a host record that comes before the retry: the first send after it
/// (here the snapshot message 18 asks for) releases the table that waited to every member,
/// and nothing waits any more: the change after it goes under the next revision
/// (MEMBER-07), and the retry's time sends nothing. The owner's move into bubble 1 leaves
/// the table as it was (the joiner keeps bubble 0's record); its identity is the change
/// that waits.
#[test]
fn in_a_fleet_a_record_that_comes_before_the_retry_releases_the_table() {
    use vex_host::lobby::Placed;
    let (mut h, mut cs, session, last) = fleet_pair();
    let none = (vec![], vec![]);
    let (_, to_l, to_joiner) = fleet_send(&mut h, &mut cs, (L, 3), session, 22, region_body(8));
    assert_eq!((to_l, to_joiner), none, "no change");
    let (_, to_l, to_joiner) = fleet_send(&mut h, &mut cs, (L, 4), session, 23, owner_identity(77));
    assert_eq!((to_l, to_joiner), none, "held back");
    let retry_at = h.poll_timeout().unwrap();
    assert_eq!(retry_at, Instant::from_millis(250), "the retry");
    h.handle_region_placed(session, 1, Placed::At(OTHER_PROCESS));
    let members = vec![5, 0x50];
    let (_, to_l, to_joiner) = fleet_send(&mut h, &mut cs, (L, 5), session, 18, refresh_body(last));
    let released = vec![(last + 1, members.clone())];
    assert_eq!(
        (to_l, to_joiner),
        (released.clone(), released),
        "released to each"
    );
    let (_, to_l, to_joiner) = fleet_send(&mut h, &mut cs, (L, 6), session, 23, owner_identity(78));
    let next = vec![(last + 2, members)];
    assert_eq!((to_l, to_joiner), (next.clone(), next), "the next revision");
    h.handle_timeout(retry_at);
    let (_, to_l, to_joiner) = fleet_received(&mut h, &mut cs);
    assert_eq!((to_l, to_joiner), none, "nothing waits");
}

/// In a shared fleet, the snapshot message 18 asks for while the table waits for a host
/// record waits whole (SR "Answer what was asked": never in part; HOST-03): nothing of it
/// goes out, and at the retry that finds the record the owner gets the table with the
/// others, then messages 1, 2 and 12 together (5 waits for the client's epoch, as ever).
#[test]
fn in_a_fleet_a_snapshot_asked_while_the_table_waits_comes_whole_after_it() {
    use vex_host::lobby::Placed;
    let (mut h, mut cs, session, last) = fleet_pair();
    fleet_send(&mut h, &mut cs, (L, 3), session, 22, region_body(8));
    let (_, to_l, _) = fleet_send(&mut h, &mut cs, (L, 4), session, 23, owner_identity(77));
    assert_eq!(to_l, vec![], "held back");
    let (asked, _, _) = fleet_send(&mut h, &mut cs, (L, 5), session, 18, refresh_body(last));
    assert_eq!(asked, Vec::<u32>::new(), "the snapshot waits whole");
    h.handle_region_placed(session, 1, Placed::At(OTHER_PROCESS));
    let retry_at = h.poll_timeout().unwrap();
    h.handle_timeout(retry_at);
    let (to_l, tables_l, to_joiner) = fleet_received(&mut h, &mut cs);
    assert_eq!(to_l, [12, 1, 2, 12], "the table, then the snapshot");
    let members = vec![5, 0x50];
    assert_eq!(tables_l, vec![(last + 1, members.clone()); 2]);
    assert_eq!(
        to_joiner,
        [(last + 1, members)],
        "the others get the table alone"
    );
}

/// `transmits` split into those to `link` and the rest.
fn by_link(transmits: Vec<Transmit>, link: LinkId) -> (Vec<Transmit>, Vec<Transmit>) {
    transmits.into_iter().partition(|t| t.link == link)
}

/// A retired group leaves the roster at once (SR "What the host pushes on its own": an
/// entity retirement that is due): the next message 5 keeps its key and state byte with
/// its presence bit clear and holds no block of it; every later one too. The group that
/// carries the player key, an unknown key and a body for a retired slot are refused.
#[test]
fn a_retired_group_leaves_the_roster_with_its_key_and_state_kept() {
    use vex_host::commit_error::CommitError;
    use vex_host::world::{RequestError, WorldRequest};
    use vex_wire::activity::sensor_auth::SensorAuthUpdate;
    use vex_wire::activity::slot::ClientRef;
    const RETIRED: u32 = 0xBBBB_0003;
    let mut h = host();
    let (mut c, session, _) = join_on(&mut h, L);
    let first = exchange(&mut h, &mut c, session, 3, 52, vec![0; 16]);
    let before = SensorAuthUpdate::decode(&first[0].1).unwrap();
    let before_sub = before.roster.unwrap().sub_blocks.unwrap().remove(0);
    assert_eq!(before_sub.keys, [0xBBBB_0001, RETIRED]);
    assert_eq!(before_sub.mask[0], 0b11);

    let retire = WorldRequest::Retire { key: RETIRED };
    h.request(SessionId(session), std::slice::from_ref(&retire))
        .unwrap();
    let sent = pushes(&transmits(&mut h), &mut c);
    assert_eq!(ids(&sent), [5], "the retirement goes out at once");
    let after = SensorAuthUpdate::decode(&sent[0].1).unwrap();
    let sub = after.roster.unwrap().sub_blocks.unwrap().remove(0);
    assert_eq!(sub.keys, before_sub.keys, "every key kept");
    assert_eq!(sub.states, before_sub.states, "every state byte kept");
    assert_eq!(sub.mask[0], 0b01, "the retired group's presence bit clear");
    assert!(
        after.groups.iter().all(|g| g.key != RETIRED),
        "no block of the retired group"
    );
    assert!(
        h.request(SessionId(session), &[retire]).unwrap().is_empty(),
        "retired once"
    );

    let refused = |h: &mut HostCore, r: WorldRequest| match h.request(SessionId(session), &[r]) {
        Err(CommitError::Request(e)) => e,
        other => panic!("refused, not {other:?}"),
    };
    let player = refused(&mut h, WorldRequest::Retire { key: 0xAAAA_0001 });
    assert_eq!(player, RequestError::PlayerGroup(0xAAAA_0001));
    let unknown = refused(&mut h, WorldRequest::Retire { key: 0x1234 });
    assert_eq!(unknown, RequestError::UnknownGroup(0x1234));
    let slot = ClientRef {
        key: RETIRED,
        slot_type: 5,
        index: 3,
    };
    let body = refused(&mut h, WorldRequest::ClearAuth { slot });
    assert_eq!(body, RequestError::Retired(slot));
}

/// The host's reset and query go to the member with tokens its answers carry back, and
/// are recorded (HOST-16): 29 ends the reset, 31 and 32 the query and set the member's
/// authority, an answer with another token is dropped; 33 releases what it names
/// (HOST-17); 27 gets the notice with its mask and reason (HOST-08).
#[test]
fn authority_answers_are_recorded_and_abdication_releases() {
    use vex_host::world::WorldRequest;
    use vex_wire::activity::authority::{
        Abdication, AuthorityToken, BubbleMaskAnswer, FullMaskAnswer, Purge,
    };
    use vex_wire::activity::small::EntitySlotMask;
    let mut h = host();
    let (mut c, session, _) = join_on(&mut h, L);
    let send = |h: &mut HostCore, c: &mut SecureChannel, task: u32, msg: u32, body: Vec<u8>| {
        exchange(h, c, session, task, msg, body)
    };
    send(&mut h, &mut c, 3, 52, vec![0; 16]);
    events(&mut h);
    let asked = [WorldRequest::ResetAuthority, WorldRequest::QueryAuthority];
    h.request(SessionId(session), &asked).unwrap();
    let sent = pushes(&transmits(&mut h), &mut c);
    let ids: Vec<u32> = sent.iter().map(|p| p.0).collect();
    assert_eq!(ids, [28, 30]);
    let reset = AuthorityToken::decode(&sent[0].1).unwrap().0;
    let query = AuthorityToken::decode(&sent[1].1).unwrap().0;
    assert_ne!(reset, query, "a token each");
    let token = |t: u32| AuthorityToken(t).encode().unwrap();
    assert!(send(&mut h, &mut c, 4, 29, token(reset + 100)).is_empty());
    assert!(
        send(&mut h, &mut c, 5, 29, token(reset)).is_empty(),
        "no reply"
    );
    let mask = EntitySlotMask::with_range(0..16);
    let per_bubble = BubbleMaskAnswer {
        token: query,
        selector: 0,
        mask: mask.clone(),
    };
    assert!(send(&mut h, &mut c, 6, 31, per_bubble.encode().unwrap()).is_empty());
    let full = FullMaskAnswer {
        token: query,
        mask: mask.clone(),
    };
    assert!(send(&mut h, &mut c, 7, 32, full.encode().unwrap()).is_empty());
    let seen = events(&mut h);
    assert!(dropped_with(&seen, |r| matches!(
        r,
        Dropped::UnknownToken { msg: 29, .. }
    )));
    let world: Vec<_> = seen
        .iter()
        .filter_map(|e| match e {
            HostEvent::World(w) => Some(*w),
            _ => None,
        })
        .collect();
    assert_eq!(
        world,
        [
            WorldEvent::AuthorityReset {
                link: L,
                token: reset
            },
            WorldEvent::AuthorityInBubble {
                link: L,
                token: query,
                bubble: 0,
                slots: 16
            },
            WorldEvent::AuthorityReported {
                link: L,
                token: query,
                slots: 16
            },
        ]
    );
    assert_eq!(
        h.activity(SessionId(session)).unwrap().authority(L),
        Some(&mask)
    );
    assert!(send(&mut h, &mut c, 8, 32, full.encode().unwrap()).is_empty());
    assert!(
        dropped_with(&events(&mut h), |r| matches!(
            r,
            Dropped::UnknownToken { msg: 32, .. }
        )),
        "the query ended"
    );
    let given_up = Abdication {
        selector: 0,
        mask: EntitySlotMask::with_range(0..4),
    };
    assert!(send(&mut h, &mut c, 9, 33, given_up.encode().unwrap()).is_empty());
    assert_eq!(
        h.activity(SessionId(session)).unwrap().authority(L),
        Some(&EntitySlotMask::with_range(4..16))
    );
    let purge = Purge {
        reason: 2,
        mask: EntitySlotMask::with_range(8..10),
    };
    let notice = send(&mut h, &mut c, 10, 27, purge.encode().unwrap());
    assert_eq!(notice.len(), 1);
    assert_eq!(
        (notice[0].0, Purge::decode(&notice[0].1).unwrap()),
        (25, purge)
    );
}

/// A member's incident becomes an event and gets nothing back (HOST-13, HOST-18); the
/// host's incident goes to the member, and one the client cannot take refuses its whole
/// commit.
#[test]
fn incidents_go_both_ways() {
    use vex_host::commit_error::CommitError;
    use vex_host::world::{RequestError, WorldRequest};
    use vex_wire::activity::incident::Incident;
    let mut h = host();
    let (mut c, session, _) = join_on(&mut h, L);
    events(&mut h);
    let incident = Incident {
        definition: 9,
        targets: vec![1, 2],
        payload: vec![7; 3],
    };
    let n = ActivityNotification::new(session, 19, 0, incident.encode().unwrap());
    send_sealed(&mut h, L, &mut c, 8, 3, &n.encode());
    assert!(transmits(&mut h).is_empty(), "no acknowledgement");
    assert!(
        events(&mut h).contains(&HostEvent::World(WorldEvent::Incident {
            link: L,
            definition: 9,
            targets: 2,
            payload: 3,
        }))
    );
    h.request(
        SessionId(session),
        &[WorldRequest::FireIncident(incident.clone())],
    )
    .unwrap();
    let sent = pushes(&transmits(&mut h), &mut c);
    assert_eq!(sent, [(19, incident.encode().unwrap())]);
    let crashing = Incident {
        definition: 4690,
        ..incident
    };
    let refused = h.request(SessionId(session), &[WorldRequest::FireIncident(crashing)]);
    assert!(matches!(
        refused,
        Err(CommitError::Request(RequestError::Incident(_)))
    ));
    assert!(transmits(&mut h).is_empty());
}

/// Message 6 is read against the slots the last message 5 registered (AUTH-15): a report
/// on an unregistered slot, or with another patch epoch, is dropped; a Ghost report
/// becomes events, and a stalled bar gets one message 5 with the finishing Sense override
/// (AH "Type 65").
#[test]
fn sense_is_read_against_the_last_roster_and_a_stalled_ghost_is_finished() {
    use vex_host::messages::sense::{GHOST_FINISHED, GHOST_STALLED};
    use vex_wire::activity::sense_update::{SenseGroup, SenseObject, SenseUpdate};
    use vex_wire::activity::sensor_auth::SensorAuthUpdate;
    use vex_wire::activity::slot::ClientRef;
    use vex_wire::schema::tables::GHOST_LINK_SENSE;
    use vex_wire::schema::{Value, encode_bits};
    let mut h = host();
    let (mut c, session, _) = join_on(&mut h, L);
    let send = |h: &mut HostCore, c: &mut SecureChannel, task: u32, msg: u32, body: Vec<u8>| {
        exchange(h, c, session, task, msg, body)
    };
    let epoch: [u64; 2] = [3, 4];
    let mut e = epoch[0].to_be_bytes().to_vec();
    e.extend_from_slice(&epoch[1].to_be_bytes());
    assert_eq!(send(&mut h, &mut c, 3, 52, e).len(), 1, "the first roster");
    events(&mut h);
    let ghost = ClientRef {
        key: 0xBBBB_0001,
        slot_type: 65,
        index: 4,
    };
    let report = |slot: ClientRef, epoch: [u64; 2], fraction: f32| {
        let v = Value::Record(vec![
            Value::Bool(true),
            Value::Raw {
                bits: fraction.to_bits().into(),
                width: 32,
            },
            Value::Int(1),
        ]);
        let object = SenseObject {
            slot,
            sense: encode_bits(&GHOST_LINK_SENSE, &v).unwrap(),
            counter: 1,
        };
        SenseUpdate {
            patch_epoch: epoch,
            groups: vec![SenseGroup {
                key: slot.key,
                objects: vec![object],
            }],
        }
        .encode()
        .unwrap()
    };
    let elsewhere = ClientRef {
        key: 0xBBBB_0002,
        ..ghost
    };
    assert!(send(&mut h, &mut c, 4, 6, report(elsewhere, epoch, 0.5)).is_empty());
    assert!(dropped_with(&events(&mut h), |r| matches!(
        r,
        Dropped::SenseGroup {
            key: 0xBBBB_0002,
            ..
        }
    )));
    assert!(send(&mut h, &mut c, 5, 6, report(ghost, [9, 9], 0.5)).is_empty());
    assert!(dropped_with(&events(&mut h), |r| *r == Dropped::SenseEpoch));
    assert!(
        send(&mut h, &mut c, 6, 6, report(ghost, epoch, 0.5)).is_empty(),
        "running"
    );
    let seen = events(&mut h);
    assert!(seen.contains(&HostEvent::World(WorldEvent::Sensed {
        link: L,
        slot: ghost,
        counter: 1
    })));
    assert!(seen.contains(&HostEvent::World(WorldEvent::GhostScan {
        link: L,
        slot: ghost,
        active: true,
        fraction: 0.5,
        generation: 1,
    })));
    let finish = send(&mut h, &mut c, 7, 6, report(ghost, epoch, GHOST_STALLED));
    assert_eq!(finish.len(), 1, "the finishing roster");
    let m = SensorAuthUpdate::decode(&finish[0].1).unwrap();
    let block = m
        .groups
        .iter()
        .flat_map(|g| &g.objects)
        .find(|o| o.slot == ghost)
        .unwrap();
    // reset, root (the host holds no ghost body yet: no timeline ran), the Sense bit and
    // the override
    let mut r = block.content.reader();
    assert!(
        r.read_bool().unwrap() && !r.read_bool().unwrap(),
        "reset-only"
    );
    assert!(r.read_bool().unwrap(), "a Sense override");
    let Value::Record(f) = vex_wire::schema::decode(&GHOST_LINK_SENSE, &mut r).unwrap() else {
        panic!("a record")
    };
    let want = Value::Raw {
        bits: GHOST_FINISHED.to_bits().into(),
        width: 32,
    };
    assert_eq!((&f[1], &f[2]), (&want, &Value::Int(1)));
}

/// A message 5 over the per-tick budget is never sent: the client would refuse it and
/// ignore message 5 for the rest of the session (AUTH-10). The roster is refused with its
/// reason, and the host goes on.
#[test]
fn a_roster_over_the_budget_is_not_sent() {
    use vex_host::world::WorldRequest;
    use vex_wire::activity::slot::{ClientRef, SlotSchemas, TYPE_OBJECTIVE};
    use vex_wire::scenario::{PlacedObject, Scenario, SlotDecl};
    use vex_wire::schema::Value;
    let mut scenario = Scenario::builtin();
    let schemas = SlotSchemas {
        auth: true,
        sense: true,
    };
    let slots: Vec<SlotDecl> = (0..60)
        .map(|index| SlotDecl {
            slot_type: TYPE_OBJECTIVE,
            index,
            schemas,
        })
        .collect();
    for k in 0..250u32 {
        scenario.objects.push(PlacedObject {
            key: 0xEE00_0000 + k,
            bubble: None,
            slots: slots.clone(),
        });
    }
    let mut config = HostConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974));
    config.scenario = scenario.clone();
    config.timeline.clear();
    let mut h = HostCore::new(config);
    h.handle_connect(Instant::default(), L);
    let (mut c, session, _) = join_on(&mut h, L);
    let n = ActivityNotification::new(session, 52, 0, vec![0; 16]);
    send_sealed(&mut h, L, &mut c, 8, 3, &n.encode());
    assert_eq!(
        pushed(&transmits(&mut h), &mut c),
        [5],
        "the first roster fits"
    );
    let full = Value::Record(vec![
        Value::Array(
            (0..24)
                .map(|_| Value::Record(vec![Value::Int(1)]))
                .collect(),
        ),
        Value::Int(1),
    ]);
    let requests: Vec<WorldRequest> = scenario
        .objects
        .iter()
        .filter(|o| o.key >= 0xEE00_0000)
        .flat_map(|o| o.slots.iter().map(move |d| (o.key, d.index)))
        .map(|(key, index)| WorldRequest::SetAuth {
            slot: ClientRef {
                key,
                slot_type: TYPE_OBJECTIVE,
                index,
            },
            body: full.clone(),
        })
        .collect();
    h.request(SessionId(session), &requests).unwrap();
    assert!(
        pushed(&transmits(&mut h), &mut c).is_empty(),
        "over the budget"
    );
    let not_built = |e: &HostEvent| matches!(e, HostEvent::NotBuilt { msg: 5, .. });
    assert!(
        events(&mut h).iter().any(not_built),
        "an internal error, not a drop"
    );
}

/// An armed host teleport goes to every member in the member table's tail, under the next
/// revision; a slice set outside the activity refuses the commit.
#[test]
fn an_armed_teleport_is_in_the_next_member_table() {
    use vex_host::world::WorldRequest;
    let mut h = host();
    let (mut c, session, _) = join_on(&mut h, L);
    let arm = |slice_set| WorldRequest::ArmTeleport {
        state: 2,
        slice_set,
        slice_hash: 0xABCD,
    };
    assert!(
        h.request(SessionId(session), &[arm(16)]).is_err(),
        "bubble 2 of 2"
    );
    assert!(transmits(&mut h).is_empty());
    h.request(SessionId(session), &[arm(8)]).unwrap();
    let sent = pushes(&transmits(&mut h), &mut c);
    assert_eq!(sent.len(), 1);
    let table = ReplicateMembership::decode(&sent[0].1).unwrap();
    let tail = table.host;
    assert_eq!(
        (
            tail.teleport_state,
            tail.teleport_token,
            tail.teleport_slice_set,
            tail.teleport_slice_hash
        ),
        (2, 1, 8, 0xABCD)
    );
    assert_eq!(table.revision, 2, "the next revision");
}

/// Every message 5 of one client tick shares the budget (AUTH-10): a second large roster
/// in the same tick waits for the next one, whole.
#[test]
fn rosters_of_one_tick_share_the_budget() {
    use vex_host::world::WorldRequest;
    use vex_wire::activity::slot::{ClientRef, SlotSchemas, TYPE_OBJECTIVE};
    use vex_wire::scenario::{PlacedObject, Scenario, SlotDecl};
    use vex_wire::schema::Value;
    let mut scenario = Scenario::builtin();
    let schemas = SlotSchemas {
        auth: true,
        sense: true,
    };
    let slots: Vec<SlotDecl> = (0..30)
        .map(|index| SlotDecl {
            slot_type: TYPE_OBJECTIVE,
            index,
            schemas,
        })
        .collect();
    for k in 0..250u32 {
        scenario.objects.push(PlacedObject {
            key: 0xEE00_0000 + k,
            bubble: None,
            slots: slots.clone(),
        });
    }
    let mut config = HostConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974));
    config.scenario = scenario.clone();
    config.timeline.clear();
    let mut h = HostCore::new(config);
    h.handle_connect(Instant::default(), L);
    let (mut c, session, _) = join_on(&mut h, L);
    h.handle_timeout(Instant::from_millis(500));
    let n = ActivityNotification::new(session, 52, 0, vec![0; 16]);
    send_sealed(&mut h, L, &mut c, 8, 3, &n.encode());
    pushes(&transmits(&mut h), &mut c);
    let commit = |generation: i128| -> Vec<WorldRequest> {
        let full = Value::Record(vec![
            Value::Array(
                (0..24)
                    .map(|_| Value::Record(vec![Value::Int(1)]))
                    .collect(),
            ),
            Value::Int(generation),
        ]);
        scenario
            .objects
            .iter()
            .filter(|o| o.key >= 0xEE00_0000)
            .flat_map(|o| o.slots.iter().map(move |d| (o.key, d.index)))
            .map(|(key, index)| WorldRequest::SetAuth {
                slot: ClientRef {
                    key,
                    slot_type: TYPE_OBJECTIVE,
                    index,
                },
                body: full.clone(),
            })
            .collect()
    };
    h.handle_timeout(Instant::from_millis(1_000)); // the commits fall in this tick
    pushes(&transmits(&mut h), &mut c);
    h.request(SessionId(session), &commit(2)).unwrap();
    let first = pushes(&transmits(&mut h), &mut c);
    assert_eq!(ids(&first), [5]);
    assert!(first[0].1.len() > 471_859 / 2, "{} bytes", first[0].1.len());
    h.request(SessionId(session), &commit(3)).unwrap();
    assert!(
        pushes(&transmits(&mut h), &mut c).is_empty(),
        "the tick is full"
    );
    let next = h.poll_timeout().unwrap();
    assert!(
        next.millis() > 1_000 && next.millis() <= 1_034,
        "the next tick: {next:?}"
    );
    h.handle_timeout(next);
    assert_eq!(
        ids(&pushes(&transmits(&mut h), &mut c)),
        [5],
        "sent in the next tick"
    );
}

/// Sends `bad` on a joined link and then an echo: the host drops the first and answers
/// the second (SR "Client reports come in": bad input is recorded with why, and loses no
/// state).
fn drop_then_echo(bad: Bad) {
    let mut h = host();
    let mut c = hello(&mut h, L);
    let session = session_of(&mut h, L, &mut c, 1);
    let body = match bad {
        Bad::Session => ActivityNotification::new(session ^ 1, 52, 0, vec![0; 16]).encode(),
        Bad::Message(msg) => ActivityNotification::new(session, msg, 0, vec![0; 16]).encode(),
        Bad::ShortBody => ActivityNotification::new(session, 23, 0, vec![1, 2, 3]).encode(),
        Bad::Envelope => vec![0; 5],
    };
    send_sealed(&mut h, L, &mut c, 8, 2, &body);
    send_sealed(&mut h, L, &mut c, 250, 3, &[0; 4]);
    assert_eq!(transmits(&mut h).len(), 1, "the link still answers");
}

/// A way to make the host drop a service-8 input.
#[derive(Debug, Clone, Copy)]
enum Bad {
    /// A message naming a session the link does not own.
    Session,
    /// A message id the client never sends.
    Message(u32),
    /// A message 23 of 3 bytes.
    ShortBody,
    /// A service-8 body shorter than its header.
    Envelope,
}

// Each dropped input is logged with its reason; one test each, so each reads its own logs.

#[traced_test]
#[test]
fn a_foreign_session_is_logged() {
    drop_then_echo(Bad::Session);
    assert!(logs_contain("input dropped"));
    assert!(logs_contain("which this link does not own"));
}

#[traced_test]
#[test]
fn a_message_past_the_table_is_logged() {
    drop_then_echo(Bad::Message(59));
    assert!(logs_contain("message 59 is not one the client sends"));
}

#[traced_test]
#[test]
fn a_host_to_client_message_is_logged() {
    drop_then_echo(Bad::Message(5));
    assert!(logs_contain("message 5 is not one the client sends"));
}

#[traced_test]
#[test]
fn a_short_body_is_logged() {
    drop_then_echo(Bad::ShortBody);
    assert!(logs_contain("message 23 does not decode"));
}

#[traced_test]
#[test]
fn a_short_envelope_is_logged() {
    drop_then_echo(Bad::Envelope);
    assert!(logs_contain("input dropped"));
    assert!(logs_contain("reason=service 8:"));
}

/// Message 37 is diagnostic only (AH "Message ids"): a member's report is a typed event
/// with the peer key and the raw reason, and gets no reply (SR "recorded only ... no
/// reply"); a body short of its 66 bits is dropped with its reason (BODY-04).
#[test]
fn a_connectivity_failure_is_reported_and_gets_no_reply() {
    use vex_wire::activity::small::ConnectivityFailure;
    let mut h = host();
    let (mut c, session, _) = join_on(&mut h, L);
    events(&mut h);
    for reason in 0..=3 {
        let failure = ConnectivityFailure {
            peer_key: 0x0123_4567_89AB_CDEF,
            reason,
        };
        let replies = exchange(
            &mut h,
            &mut c,
            session,
            3 + u32::from(reason),
            37,
            failure.encode().unwrap(),
        );
        assert!(replies.is_empty(), "{:?}", ids(&replies));
        assert!(
            events(&mut h).contains(&HostEvent::ConnectivityFailure {
                link: L,
                peer_key: 0x0123_4567_89AB_CDEF,
                reason,
            }),
            "reason {reason}"
        );
    }
    let short = vec![0xFF; 8]; // 64 bits: the reason is missing
    assert!(exchange(&mut h, &mut c, session, 9, 37, short).is_empty());
    let seen = events(&mut h);
    assert!(dropped_with(&seen, |r| matches!(
        r,
        Dropped::Body { msg: 37, .. }
    )));
    assert!(
        !seen
            .iter()
            .any(|e| matches!(e, HostEvent::ConnectivityFailure { .. }))
    );
}
