//! Services 16 and 42 in a shared fleet (`HostConfig::shared`, `vex_host::lobby::placement`
//! and `listing`): the answer waits for the store to place the activity (or keep or find
//! an advertisement), names what it says, and holds the link's later answers behind it
//! (BAP-16); a host alone answers at once with its own listener (BAP-12).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use std::net::{Ipv4Addr, SocketAddrV4};
use vex_host::lobby::{Lookup, Placed};
use vex_host::{HostConfig, HostCore, LinkId};
use vex_wire::bap::deframer::Deframer;
use vex_wire::bap::header::{FrameType, InnerHeader, plain_frame};
use vex_wire::bap::services::{
    ECHO, ECHO_RESPONSE, HOST_LOOKUP, HOST_LOOKUP_RESPONSE, HostLookup, HostLookupResponse,
};
use vex_wire::time::Instant;

const L: LinkId = LinkId(1);
const HOST_ID: u64 = 0x1234;
const OWN: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974);
const OTHER: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 2), 30975);

fn host(shared: bool) -> HostCore {
    let mut config = HostConfig::builtin(OWN);
    config.shared = shared;
    let mut h = HostCore::new(config);
    h.handle_connect(Instant::default(), L);
    h
}

fn send(h: &mut HostCore, service: u16, task: u32, body: &[u8]) {
    let f = plain_frame(FrameType::Plain, InnerHeader::request(service, task), body);
    h.handle_bytes(Instant::default(), L, &f);
}

fn ask(h: &mut HostCore, task: u32) {
    let body = HostLookup { host_id: HOST_ID }.encode();
    send(h, HOST_LOOKUP, task, &body);
}

/// Each frame the host sent: its service, task and body.
fn sent(h: &mut HostCore) -> Vec<(u16, u32, Vec<u8>)> {
    std::iter::from_fn(|| h.poll_transmit())
        .map(|t| {
            let mut d = Deframer::default();
            d.push(&t.bytes);
            let f = d.next_frame().unwrap().unwrap();
            let (header, body) = InnerHeader::read(&f.payload, true).unwrap();
            (header.service, header.task, body.to_vec())
        })
        .collect()
}

fn lookups(h: &mut HostCore) -> Vec<Lookup> {
    std::iter::from_fn(|| h.poll_lookup()).collect()
}

fn named(body: &[u8]) -> SocketAddrV4 {
    let r = HostLookupResponse::decode(body).unwrap();
    assert_eq!((r.host_id, r.reserved), (HOST_ID, 0));
    SocketAddrV4::new(r.address, r.port)
}

#[test]
fn a_host_alone_names_itself_at_once_and_asks_no_store() {
    let mut h = host(false);
    ask(&mut h, 1);
    let [(service, task, body)] = sent(&mut h).try_into().unwrap();
    assert_eq!(
        (service, task, named(&body)),
        (HOST_LOOKUP_RESPONSE, 1, OWN)
    );
    assert!(lookups(&mut h).is_empty());
}

#[test]
fn a_shared_host_names_the_process_the_store_places_the_activity_on() {
    let mut h = host(true);
    ask(&mut h, 1);
    send(&mut h, ECHO, 2, &0u32.to_be_bytes());
    assert!(
        sent(&mut h).is_empty(),
        "nothing is answered before the store places the activity, the echo neither (BAP-16)"
    );
    let [lookup] = lookups(&mut h).try_into().unwrap();
    assert_eq!(lookup.host_id, HOST_ID);

    h.handle_placed(lookup.ticket, Placed::At(OTHER));
    let frames = sent(&mut h);
    let order: Vec<(u16, u32)> = frames.iter().map(|(s, t, _)| (*s, *t)).collect();
    assert_eq!(order, [(HOST_LOOKUP_RESPONSE, 1), (ECHO_RESPONSE, 2)]);
    assert_eq!(named(&frames[0].2), OTHER);
}

#[test]
fn a_shared_host_the_store_cannot_answer_names_itself() {
    let mut h = host(true);
    ask(&mut h, 1);
    let [lookup] = lookups(&mut h).try_into().unwrap();
    h.handle_placed(lookup.ticket, Placed::Failed("no live process".into()));
    let [(_, _, body)] = sent(&mut h).try_into().unwrap();
    assert_eq!(named(&body), OWN);
}

#[test]
fn an_answer_for_no_lookup_changes_nothing() {
    let mut h = host(true);
    ask(&mut h, 1);
    let [lookup] = lookups(&mut h).try_into().unwrap();
    h.handle_placed(lookup.ticket + 100, Placed::At(OTHER));
    assert!(sent(&mut h).is_empty(), "the held answer still waits");
    h.handle_placed(lookup.ticket, Placed::At(OTHER));
    h.handle_placed(lookup.ticket, Placed::At(OWN));
    let [(_, _, body)] = sent(&mut h).try_into().unwrap();
    assert_eq!(named(&body), OTHER, "answered once, by the first answer");
}

/// Service 42 in a shared fleet: an advertisement waits for the store's id, a locate for
/// what the store found, and each reply is the kind's own (MM-06: assigned, the id);
/// a search is answered at once, as by a host alone.
#[test]
fn a_shared_hosts_advertisements_are_the_stores() {
    use prost::Message;
    use vex_host::lobby::listing::{Ask, Listed};
    use vex_wire::bap::matchmaking::{
        ASSIGNED, AdvertisementRequest, DescriptorMessage, Kind, REPLY, REQUEST, Record, Reply,
        Request,
    };
    let mut h = host(true);
    let advertise = Request {
        kind: Some(Kind::Advertise.field()),
        advertisement: Some(AdvertisementRequest {
            existing_id: None,
            record: Some(Record {
                descriptor: Some(DescriptorMessage {
                    bytes: Some(vec![5; 128]),
                }),
                variant_key: None,
            }),
        }),
    };
    send(&mut h, REQUEST, 1, &advertise.encode_to_vec());
    let locate = Request {
        kind: Some(Kind::Locate.field()),
        advertisement: None,
    };
    send(&mut h, REQUEST, 2, &locate.encode_to_vec());
    assert!(sent(&mut h).is_empty(), "both wait for the store");
    let listings: Vec<_> = std::iter::from_fn(|| h.poll_listing()).collect();
    let [advertised, located] = listings.as_slice() else {
        panic!("two listings: {listings:?}");
    };
    assert_eq!(advertised.process, OWN);
    assert_eq!(
        advertised.ask,
        Ask::Advertise {
            link: L.0,
            existing: None,
            descriptor: vec![5; 128]
        }
    );
    assert_eq!(located.ask, Ask::Locate);

    h.handle_listed(advertised.ticket, Listed::Advertised(9));
    h.handle_listed(located.ticket, Listed::Located(Some((9, vec![5; 128]))));
    let frames = sent(&mut h);
    let order: Vec<(u16, u32)> = frames.iter().map(|(s, t, _)| (*s, *t)).collect();
    assert_eq!(order, [(REPLY, 1), (REPLY, 2)]);
    let reply = Reply::decode(frames[0].2.as_slice()).unwrap();
    assert_eq!(reply.assignment, Some(ASSIGNED));
    assert_eq!(reply.advertisement.unwrap().id, Some(9));
    let found = Reply::decode(frames[1].2.as_slice())
        .unwrap()
        .located
        .unwrap();
    assert_eq!(found.id, Some(9));

    let search = Request {
        kind: Some(Kind::Search.field()),
        advertisement: None,
    };
    send(&mut h, REQUEST, 3, &search.encode_to_vec());
    assert_eq!(sent(&mut h).len(), 1, "a search is answered at once");
    assert!(h.poll_listing().is_none());
}
