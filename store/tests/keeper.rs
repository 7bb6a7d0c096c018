//! The store task (`vex_store::keeper`): the route's asks, lookups and session indexes,
//! answered side by side, each once, and as they would be one at a time: every lookup of
//! one activity placed on the same process, every index of one account a different one.
//! SQLite here; PostgreSQL, where they truly run at once, when `VEX_TEST_POSTGRES` names
//! one (`ci/test` starts one and runs the ignored store tests).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

mod common;
use std::collections::BTreeMap;
use std::net::SocketAddrV4;
use vex_host::lobby::{Lookup, Placed};
use vex_host::session_index::{IndexAsk, Indexed};
use vex_store::{Answer, Asked, Keeper, Store, unix_ms};

/// Asks of each kind at once.
const AT_ONCE: u64 = 40;

/// [`AT_ONCE`] lookups of one activity and as many session indexes of one account, all
/// asked before any answer is read, on two live processes.
async fn route_asks_side_by_side(store: Store) {
    let processes: [SocketAddrV4; 2] = [
        "127.0.0.1:4001".parse().unwrap(),
        "127.0.0.1:4002".parse().unwrap(),
    ];
    for p in processes {
        store.lease(p, unix_ms() + 60_000).await.unwrap();
    }
    let mut keeper = Keeper::spawn(store);
    for ticket in 0..AT_ONCE {
        let lookup = Lookup { ticket, host_id: 7 };
        keeper.ask(Asked::Lookup(lookup)).unwrap();
        let index = IndexAsk {
            ticket: AT_ONCE + ticket,
            account_half: 0x9EAA_3001,
        };
        keeper.ask(Asked::Index(index)).unwrap();
    }
    let (mut placed, mut indexes) = (BTreeMap::new(), BTreeMap::new());
    for _ in 0..2 * AT_ONCE {
        match keeper.answer().await.unwrap() {
            Answer::Placed(ticket, Placed::At(at)) => assert!(placed.insert(ticket, at).is_none()),
            Answer::Indexed(ticket, Indexed::Next(i)) => {
                assert!(indexes.insert(ticket, i).is_none());
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(placed.len() as u64, AT_ONCE, "each lookup answered once");
    let first = placed[&0];
    assert!(processes.contains(&first));
    assert!(
        placed.values().all(|at| *at == first),
        "one activity, one process: {placed:?}"
    );
    let mut counted: Vec<u16> = indexes.into_values().collect();
    counted.sort_unstable();
    assert_eq!(
        counted,
        (1..=AT_ONCE as u16).collect::<Vec<_>>(),
        "each index once"
    );
}

#[tokio::test]
async fn route_asks_side_by_side_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("lobby.sqlite").display());
    route_asks_side_by_side(Store::open(&url).await.unwrap()).await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL: ci/test starts one and runs the ignored store tests"]
async fn route_asks_side_by_side_on_postgres() {
    let url = std::env::var("VEX_TEST_POSTGRES").expect("VEX_TEST_POSTGRES names a database");
    let store = Store::open(&common::fresh_database(&url).await)
        .await
        .unwrap();
    route_asks_side_by_side(store).await;
}
