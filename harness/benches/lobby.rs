//! Issue 9's figures: sign-ons a second over real HTTPS on loopback (a kept connection,
//! and a new TLS connection per sign-on as a fresh client makes), the SignOn answer
//! alone, and queuez snapshots encoded a second (family 4 with the full 96,280-byte
//! account object and a character).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use getrandom::SysRng;
use std::hint::black_box;
use std::net::{Ipv4Addr, SocketAddrV4};
use vex_fake_client::signon::{SignOnClient, SignOnStep};
use vex_harness::signon::{SignOnTarget, sign_on};
use vex_host::Hooks;
use vex_host::lobby::signon::SignOnService;
use vex_host::lobby::{self, Lobby};
use vex_server::lobby_http::{self, Tls};
use vex_wire::bap::queuez::{
    ACCOUNT_FAMILY, ACCOUNT_OBJECT, CHARACTER_OBJECT, ENCODING_RAW, FamilyUpdate, MAX_PAYLOAD,
    ObjectUpdate, Update,
};
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::lobby::manifest;
use vex_wire::scenario_lobby;

const BAP: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974);

fn service() -> SignOnService {
    SignOnService::new(
        scenario_lobby::Lobby::default(),
        SignOnKeys::DEVELOPMENT,
        BAP,
        [9; 32],
    )
}

fn signon(c: &mut Criterion) {
    let mut g = c.benchmark_group("signon");
    g.throughput(Throughput::Elements(1));
    let (query, body) = SignOnClient::new(1, None).request();
    let mut answering = service();
    g.bench_function("answer_and_judge", |b| {
        b.iter(|| {
            let reply = answering
                .answer(0, &query, black_box(&body), Ipv4Addr::LOCALHOST)
                .unwrap();
            let step = SignOnClient::new(1, None).on_response(200, &reply.encode());
            assert!(matches!(step, SignOnStep::SignedOn(_)));
        })
    });

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}", listener.local_addr().unwrap());
    let key = manifest::new_key(&mut SysRng).unwrap();
    let lobby = Lobby::new(
        service(),
        &key,
        &lobby::content("bench"),
        Hooks::default(),
        &mut SysRng,
    )
    .unwrap();
    let tls = Tls::self_signed().unwrap();
    rt.spawn(async move { lobby_http::serve(listener, &tls, lobby).await });
    let target = SignOnTarget {
        url,
        fingerprint: None,
        manifest_key: None,
        steam_id: 1,
    };
    // each sign-on as a fresh client makes it: a new HTTPS client, TLS handshake and all
    g.bench_function("https_new_connection", |b| {
        b.iter(|| {
            let run = rt.block_on(sign_on(&target)).unwrap();
            assert!(run.end.grant.is_some());
        })
    });
    g.finish();
}

fn queuez(c: &mut Criterion) {
    let object = |id: u32, len: usize| {
        let mut payload = 7u64.to_be_bytes().to_vec();
        payload.resize(len, 0xA5);
        ObjectUpdate {
            object_id: id,
            key: 7,
            encoding: ENCODING_RAW,
            payload,
        }
    };
    let snapshot = Update {
        families: vec![FamilyUpdate {
            family: ACCOUNT_FAMILY,
            root: 1,
            version: 1,
            full_snapshot: true,
            objects: vec![
                object(ACCOUNT_OBJECT, MAX_PAYLOAD),
                object(CHARACTER_OBJECT, 4096),
            ],
        }],
    };
    let bytes = snapshot.encode();
    let mut g = c.benchmark_group("queuez");
    g.throughput(Throughput::Elements(1));
    g.bench_function("snapshot_encode", |b| {
        b.iter(|| black_box(&snapshot).encode())
    });
    g.bench_function("snapshot_decode", |b| {
        b.iter(|| Update::decode(black_box(&bytes)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, signon, queuez);
criterion_main!(benches);
