//! The lobby's database: seeded once, every write kept whole or not at all, and what it
//! keeps there after the store is opened again. SQLite here; the same checks on
//! PostgreSQL when `VEX_TEST_POSTGRES` names one (`ci/test` starts one and runs them).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

mod common;
use common::fresh_database;
use vex_host::lobby::{Change, StoredLobby, Write, Written};
use vex_store::Store;
use vex_wire::scenario::Scenario;

fn seed() -> StoredLobby {
    StoredLobby::seed(&Scenario::builtin())
}

fn equip(ticket: u64, from: u64, lobby: &StoredLobby, item: u64) -> Write {
    let account = &lobby.accounts[0];
    Write {
        ticket,
        account: account.account,
        change: Change::Objects {
            from,
            objects: account.objects_equipping(item),
        },
    }
}

/// The checks every database passes, on a store that is new.
async fn keeps_whole_writes(store: &Store) {
    let seed = seed();
    let loaded = store.load_or_seed(&seed).await.unwrap();
    assert_eq!(loaded, seed, "an empty database takes the seed");
    let item = seed.accounts[0].items[1];

    assert_eq!(store.keep(&equip(1, 1, &seed, item)).await, Written::Kept);
    let kept = store.load().await.unwrap();
    assert_eq!(kept.accounts[0].revision, 2);
    assert_eq!(kept.accounts[0].equipped(), item);

    // made on revision 1, which the database no longer holds: superseded, answered with the
    // account as it is now, and the objects it wrote before the revision was checked are
    // rolled back with it
    let stale = equip(2, 1, &seed, seed.accounts[0].items[0]);
    let now = Written::Superseded(kept.accounts[0].clone());
    assert_eq!(store.keep(&stale).await, now);
    assert_eq!(
        store.load().await.unwrap(),
        kept,
        "nothing of a refused write stays"
    );

    let sign_in = Write {
        ticket: 3,
        account: seed.accounts[0].account,
        change: Change::SignIn { sign_ins: 1 },
    };
    assert_eq!(store.keep(&sign_in).await, Written::Kept);
    let counted = store.load().await.unwrap().accounts[0].clone();
    assert_eq!(
        store.keep(&sign_in).await,
        Written::Superseded(counted),
        "a sign-in made on a count another writer moved on is made again"
    );
    let unknown = Write {
        account: 7,
        ..sign_in
    };
    assert!(matches!(store.keep(&unknown).await, Written::Refused(_)));
    let after = store.load().await.unwrap();
    assert_eq!(after.accounts[0].sign_ins, 1);

    let reseeded = store.load_or_seed(&seed).await.unwrap();
    assert_eq!(
        reseeded, after,
        "a database with accounts is not seeded again"
    );
}

#[tokio::test]
async fn sqlite_in_memory_keeps_whole_writes() {
    let store = Store::open("sqlite::memory:").await.unwrap();
    keeps_whole_writes(&store).await;
}

#[tokio::test]
async fn a_sqlite_file_keeps_what_it_stored_when_opened_again() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("lobby.sqlite").display());
    let store = Store::open(&url).await.unwrap();
    keeps_whole_writes(&store).await;
    let before = store.load().await.unwrap();
    drop(store);
    let again = Store::open(&url).await.unwrap();
    assert_eq!(again.load_or_seed(&seed()).await.unwrap(), before);
}

#[tokio::test]
async fn a_url_of_another_database_is_an_error() {
    let e = Store::open("mysql://localhost/vex").await.unwrap_err();
    assert!(e.to_string().contains("not a sqlite"), "{e}");
}

/// PostgreSQL, at the URL `VEX_TEST_POSTGRES` names, in a schema of its own so runs do
/// not see each other.
#[tokio::test]
#[ignore = "needs PostgreSQL: ci/test starts one and runs the ignored store tests"]
async fn postgres_keeps_whole_writes() {
    let url = std::env::var("VEX_TEST_POSTGRES").expect("VEX_TEST_POSTGRES names a database");
    let store = Store::open(&fresh_database(&url).await).await.unwrap();
    keeps_whole_writes(&store).await;
}
