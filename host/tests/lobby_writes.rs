//! The lobby's changes through its store (NS "The reply's version barrier"): a call that
//! changes an account is answered only once the store keeps it, later answers of its link
//! wait behind it (BAP-16), and a kept equip is published on service 123 after its reply.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::net::{Ipv4Addr, SocketAddrV4};
use vex_host::lobby::{Change, StoredLobby, Write, Written, stored::character_payload};
use vex_host::{HostConfig, HostCore, LinkId};
use vex_wire::bap::deframer::Deframer;
use vex_wire::bap::header::{FrameType, InnerHeader, plain_frame};
use vex_wire::bap::queuez::{ACCOUNT_FAMILY, Subscription, UPDATE, Update};
use vex_wire::bap::web_service::{
    EQUIP, NO_REVISION, REQUEST, SIGN_IN, Shape, WsReply, WsRequest, equip_payload,
};
use vex_wire::scenario::Scenario;
use vex_wire::time::Instant;

const L: LinkId = LinkId(1);
/// Service 44 (clan), answered at once with an empty body.
const CLAN: u16 = 44;

fn host() -> HostCore {
    let mut h = HostCore::new(HostConfig::builtin(SocketAddrV4::new(
        Ipv4Addr::LOCALHOST,
        30974,
    )));
    h.handle_connect(Instant::default(), L);
    h
}

fn account() -> u64 {
    Scenario::builtin().player.account_soid
}

fn item() -> u64 {
    Scenario::builtin().lobby.items[0]
}

fn send(h: &mut HostCore, service: u16, task: u32, body: &[u8]) {
    let f = plain_frame(FrameType::Plain, InnerHeader::request(service, task), body);
    h.handle_bytes(Instant::default(), L, &f);
}

fn call(h: &mut HostCore, task: u32, opcode: u16, payload: Vec<u8>) {
    let request = WsRequest {
        opcode,
        transaction: task,
        payload,
    };
    send(h, REQUEST, task, &request.encode());
}

/// Each frame the host sent: its service, task and body.
fn sent(h: &mut HostCore) -> Vec<(u16, u32, Vec<u8>)> {
    std::iter::from_fn(|| h.poll_transmit())
        .map(|t| {
            let mut d = Deframer::default();
            d.push(&t.bytes);
            let f = d.next_frame().unwrap().unwrap();
            let (push, _) = InnerHeader::read(&f.payload, false).unwrap();
            let with_status = push.service != UPDATE;
            let (header, body) = InnerHeader::read(&f.payload, with_status).unwrap();
            (header.service, header.task, body.to_vec())
        })
        .collect()
}

fn writes(h: &mut HostCore) -> Vec<Write> {
    std::iter::from_fn(|| h.poll_write()).collect()
}

/// The host subscribed to the account's family 4: its snapshot, version 1, is read.
fn subscribed() -> HostCore {
    let mut h = host();
    let sub = Subscription {
        family: ACCOUNT_FAMILY as u8,
        root: account(),
    };
    send(&mut h, 12, 1, &sub.encode());
    let frames = sent(&mut h);
    let snapshot = Update::decode(&frames.last().unwrap().2).unwrap();
    assert_eq!(snapshot.families[0].version, 1);
    h
}

fn ws_reply(body: &[u8], opcode: u16) -> WsReply {
    WsReply::decode(body, Shape::of(opcode)).unwrap()
}

#[test]
fn an_equip_is_answered_once_kept_naming_the_update_that_follows() {
    let mut h = subscribed();
    call(&mut h, 2, EQUIP, equip_payload(item()));
    send(&mut h, CLAN, 3, &[]);
    assert!(
        sent(&mut h).is_empty(),
        "nothing is answered before the store keeps the equip, the clan call neither (BAP-16)"
    );
    let [write] = writes(&mut h).try_into().unwrap();
    let Change::Objects { from, objects } = &write.change else {
        panic!("an equip changes the objects: {write:?}");
    };
    assert_eq!((write.account, *from), (account(), 1));
    let equipped = character_payload(Scenario::builtin().player.character_id, item());
    assert_eq!(objects[0].payload, equipped);

    h.handle_written(write.ticket, Written::Kept);
    let frames = sent(&mut h);
    let order: Vec<(u16, u32)> = frames.iter().map(|(s, t, _)| (*s, *t)).collect();
    assert_eq!(
        order,
        [(11, 2), (45, 3), (UPDATE, 0)],
        "the reply, the clan answer behind it, then the update"
    );
    let status = ws_reply(&frames[0].2, EQUIP).status.unwrap();
    assert_eq!(
        (status.code, status.value),
        (0, 2),
        "completes naming version 2"
    );
    let update = Update::decode(&frames[2].2).unwrap();
    let family = &update.families[0];
    assert_eq!((family.version, family.full_snapshot), (2, false));
    assert_eq!(family.objects[0].payload, equipped);
}

#[test]
fn a_refused_write_answers_an_error_and_changes_nothing() {
    let mut h = subscribed();
    call(&mut h, 2, EQUIP, equip_payload(item()));
    let [write] = writes(&mut h).try_into().unwrap();
    h.handle_written(write.ticket, Written::Refused("disk full".into()));
    let frames = sent(&mut h);
    assert_eq!(frames.len(), 1, "the reply alone, no update: {frames:?}");
    let status = ws_reply(&frames[0].2, EQUIP).status.unwrap();
    assert_ne!(status.code, 0, "an error");
    assert_eq!(
        status.value, NO_REVISION,
        "an error names no revision (WS-01)"
    );
    call(&mut h, 3, EQUIP, equip_payload(item()));
    let [again] = writes(&mut h).try_into().unwrap();
    assert!(
        matches!(again.change, Change::Objects { from: 1, .. }),
        "the next write is made on what the store kept: {again:?}"
    );
}

#[test]
fn a_superseded_write_publishes_the_other_writers_change_and_is_made_again_on_it() {
    let mut h = subscribed();
    call(&mut h, 2, EQUIP, equip_payload(item()));
    let [write] = writes(&mut h).try_into().unwrap();
    // another process equipped the second item first: revision 2 in the database
    let other = Scenario::builtin().lobby.items[1];
    let mut now = StoredLobby::seed(&Scenario::builtin()).accounts[0].clone();
    now.objects = now.objects_equipping(other);
    now.revision = 2;
    h.handle_written(write.ticket, Written::Superseded(now));

    let frames = sent(&mut h);
    let order: Vec<(u16, u32)> = frames.iter().map(|(s, t, _)| (*s, *t)).collect();
    assert_eq!(
        order,
        [(UPDATE, 0)],
        "the other writer's change, no reply yet"
    );
    let update = Update::decode(&frames[0].2).unwrap();
    let equipped = character_payload(Scenario::builtin().player.character_id, other);
    assert_eq!(update.families[0].version, 2);
    assert_eq!(update.families[0].objects[0].payload, equipped);

    let [again] = writes(&mut h).try_into().unwrap();
    assert_eq!(again.ticket, write.ticket, "the same call, made again");
    let Change::Objects { from, objects } = &again.change else {
        panic!("an equip changes the objects: {again:?}");
    };
    assert_eq!(*from, 2, "made on what the database holds now");
    let mine = character_payload(Scenario::builtin().player.character_id, item());
    assert_eq!(objects[0].payload, mine);

    h.handle_written(again.ticket, Written::Kept);
    let frames = sent(&mut h);
    let order: Vec<(u16, u32)> = frames.iter().map(|(s, t, _)| (*s, *t)).collect();
    assert_eq!(order, [(11, 2), (UPDATE, 0)]);
    let status = ws_reply(&frames[0].2, EQUIP).status.unwrap();
    assert_eq!(
        (status.code, status.value),
        (0, 3),
        "names the link's version 3"
    );
}

#[test]
fn calls_on_one_account_reach_the_store_one_at_a_time_in_order() {
    let mut h = subscribed();
    call(&mut h, 2, EQUIP, equip_payload(item()));
    call(&mut h, 3, SIGN_IN, Vec::new());
    let [first] = writes(&mut h).try_into().unwrap();
    h.handle_written(first.ticket, Written::Kept);
    let [second] = writes(&mut h).try_into().unwrap();
    assert_eq!(second.change, Change::SignIn { sign_ins: 1 });
    assert!(sent(&mut h).iter().all(|(_, task, _)| *task != 3));
    h.handle_written(second.ticket, Written::Kept);
    let replies: Vec<u32> = sent(&mut h).iter().map(|(_, t, _)| *t).collect();
    assert_eq!(replies, [3]);
}

#[test]
fn an_equip_of_an_item_not_held_is_an_error_at_once() {
    let mut h = subscribed();
    call(&mut h, 2, EQUIP, equip_payload(1));
    assert!(writes(&mut h).is_empty());
    let frames = sent(&mut h);
    let status = ws_reply(&frames[0].2, EQUIP).status.unwrap();
    assert_eq!((status.code, status.value), (1, NO_REVISION));
}

#[test]
fn a_link_not_subscribed_is_named_no_revision_and_sent_no_update() {
    let mut h = host();
    call(&mut h, 2, EQUIP, equip_payload(item()));
    let [write] = writes(&mut h).try_into().unwrap();
    h.handle_written(write.ticket, Written::Kept);
    let frames = sent(&mut h);
    assert_eq!(frames.len(), 1, "{frames:?}");
    let status = ws_reply(&frames[0].2, EQUIP).status.unwrap();
    assert_eq!((status.code, status.value), (0, NO_REVISION));
}

#[test]
fn a_host_started_on_a_stored_lobby_serves_what_it_holds() {
    let mut stored = StoredLobby::seed(&Scenario::builtin());
    let account = &mut stored.accounts[0];
    account.objects = account.objects_equipping(item());
    account.revision = 9;
    let mut config = HostConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974));
    config.stored = Some(stored);
    let mut h = HostCore::new(config);
    h.handle_connect(Instant::default(), L);
    let sub = Subscription {
        family: ACCOUNT_FAMILY as u8,
        root: self::account(),
    };
    send(&mut h, 12, 1, &sub.encode());
    let frames = sent(&mut h);
    let snapshot = Update::decode(&frames.last().unwrap().2).unwrap();
    let character = &snapshot.families[0].objects[0];
    assert_eq!(character.payload[8..16], item().to_be_bytes());
    call(&mut h, 2, EQUIP, equip_payload(item()));
    let [write] = writes(&mut h).try_into().unwrap();
    assert!(matches!(write.change, Change::Objects { from: 9, .. }));
}
