//! Several host processes on one database (`vex_store::fleet`): an activity is placed on a
//! live process and stays there while its lease runs, a new one goes to the live process
//! holding the fewest, and one whose lease ran out or was given up is handed none; the
//! matchmaking advertisements of every process are one list (`vex_store::listing`); a
//! region is placed like an activity (`vex_store::regions`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use std::net::SocketAddrV4;
use vex_host::lobby::Placed;
use vex_host::lobby::listing::{Ask, Listed, Listing};
use vex_store::Store;

const A: &str = "127.0.0.1:4001";
const B: &str = "127.0.0.1:4002";

fn addr(a: &str) -> SocketAddrV4 {
    a.parse().unwrap()
}

async fn store() -> Store {
    Store::open("sqlite::memory:").await.unwrap()
}

#[tokio::test]
async fn no_live_process_places_nothing() {
    let store = store().await;
    assert!(matches!(store.place(1, 100).await, Placed::Failed(_)));
    store.lease(addr(A), 100).await.unwrap();
    assert!(
        matches!(store.place(1, 100).await, Placed::Failed(_)),
        "a lease running until now has run out"
    );
    assert_eq!(store.holder(1, 100).await.unwrap(), None);
}

#[tokio::test]
async fn an_activity_stays_on_its_live_process_and_a_new_one_goes_to_the_least_held() {
    let store = store().await;
    store.lease(addr(B), 1_000).await.unwrap();
    store.lease(addr(A), 1_000).await.unwrap();
    assert_eq!(
        store.place(1, 0).await,
        Placed::At(addr(A)),
        "a tie: the lowest address"
    );
    assert_eq!(
        store.place(2, 0).await,
        Placed::At(addr(B)),
        "B holds fewer"
    );
    assert_eq!(store.place(3, 0).await, Placed::At(addr(A)), "a tie again");
    assert_eq!(
        store.place(1, 999).await,
        Placed::At(addr(A)),
        "held while the lease runs"
    );
    assert_eq!(store.holder(2, 999).await.unwrap(), Some(addr(B)));
}

#[tokio::test]
async fn a_process_whose_lease_ran_out_or_was_given_up_loses_its_activities_on_the_next_lookup() {
    let store = store().await;
    store.lease(addr(A), 1_000).await.unwrap();
    store.lease(addr(B), 2_000).await.unwrap();
    assert_eq!(store.place(1, 0).await, Placed::At(addr(A)));
    assert_eq!(
        store.holder(1, 1_000).await.unwrap(),
        None,
        "A's lease ran out"
    );
    assert_eq!(store.place(1, 1_000).await, Placed::At(addr(B)));

    store.lease(addr(A), 5_000).await.unwrap();
    store.release(addr(B)).await.unwrap();
    assert_eq!(
        store.place(1, 1_500).await,
        Placed::At(addr(A)),
        "B gave its lease up"
    );
}

/// A region of an activity is placed like an activity, on the live process holding the
/// fewest activities and regions, and stays there while that process's lease runs; the
/// process it is placed on hosts it while the activity's owner keeps its lease and until
/// the owner ends its regions, and no other process hosts it.
#[tokio::test]
async fn a_region_is_placed_like_an_activity_and_hosted_while_its_owner_lives() {
    const C: &str = "127.0.0.1:4003";
    let store = store().await;
    store.lease(addr(A), 1_000).await.unwrap();
    store.lease(addr(B), 2_000).await.unwrap();
    store.lease(addr(C), 3_000).await.unwrap();
    assert_eq!(store.place(1, 0).await, Placed::At(addr(A)));
    let session = 0x9EAA_3001_0020_0001;
    assert_eq!(
        store.place_region(session, 1, addr(A), 0).await,
        Placed::At(addr(B)),
        "A holds an activity: B and C hold none, and B is the lower"
    );
    assert_eq!(
        store.place_region(session, 2, addr(A), 0).await,
        Placed::At(addr(C)),
        "B holds a region now"
    );
    assert_eq!(
        store.place_region(session, 1, addr(A), 500).await,
        Placed::At(addr(B)),
        "held while B's lease runs"
    );
    assert_eq!(
        store.region_hosted(session, addr(B), 400).await.unwrap(),
        Some(600),
        "for as long as the owner's lease runs yet"
    );
    assert_eq!(
        store.region_hosted(session, addr(A), 400).await.unwrap(),
        None
    );
    assert_eq!(store.region_hosted(7, addr(B), 400).await.unwrap(), None);
    assert_eq!(
        store.region_hosted(session, addr(B), 1_000).await.unwrap(),
        None,
        "the owner's lease ran out"
    );
    assert_eq!(
        store.place_region(session, 1, addr(A), 2_000).await,
        Placed::At(addr(C)),
        "B's lease ran out: the region moves"
    );
    store.lease(addr(A), 9_000).await.unwrap();
    assert_eq!(
        store.region_hosted(session, addr(C), 2_000).await.unwrap(),
        Some(7_000)
    );
    store.end_regions(session).await.unwrap();
    assert_eq!(
        store.region_hosted(session, addr(C), 2_000).await.unwrap(),
        None,
        "the activity ended"
    );
}

fn listing(process: &str, ask: Ask) -> Listing {
    Listing {
        ticket: 1,
        process: addr(process),
        ask,
    }
}

fn advertise(link: u64, existing: Option<u64>, len: usize) -> Ask {
    Ask::Advertise {
        link,
        existing,
        descriptor: vec![7; len],
    }
}

#[tokio::test]
async fn advertisements_are_shared_by_processes_under_ids_never_reused() {
    let store = store().await;
    store.lease(addr(A), 1_000).await.unwrap();
    store.lease(addr(B), 2_000).await.unwrap();
    let list = |process: &'static str, ask: Ask| {
        let store = store.clone();
        async move { store.list(&listing(process, ask), 0).await }
    };
    assert_eq!(
        list(A, advertise(1, None, 128)).await,
        Listed::Advertised(1)
    );
    assert_eq!(
        list(A, advertise(1, Some(1), 128)).await,
        Listed::Advertised(1),
        "the link's own id is kept"
    );
    assert_eq!(
        list(B, advertise(1, Some(1), 128)).await,
        Listed::Advertised(2),
        "another process's link 1 is another link: a new id"
    );
    assert_eq!(
        list(A, Ask::Locate).await,
        Listed::Located(Some((2, vec![7; 128])))
    );
    assert_eq!(
        list(B, advertise(2, None, 100)).await,
        Listed::Advertised(3)
    );
    assert_eq!(
        list(A, Ask::Locate).await,
        Listed::Located(Some((2, vec![7; 128]))),
        "a descriptor short of 128 bytes is not located"
    );
    assert_eq!(list(B, Ask::Withdraw { link: 1 }).await, Listed::Withdrawn);
    assert_eq!(
        list(B, Ask::Locate).await,
        Listed::Located(Some((1, vec![7; 128])))
    );
    assert_eq!(
        list(B, advertise(1, None, 128)).await,
        Listed::Advertised(4),
        "2 is not reused"
    );
    let later = store.list(&listing(A, Ask::Locate), 2_000).await;
    assert_eq!(later, Listed::Located(None), "both leases ran out");
}

#[tokio::test]
async fn session_indexes_count_per_account_from_1_and_never_give_0() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("lobby.sqlite").display());
    let store = Store::open(&url).await.unwrap();
    assert_eq!(store.next_session_index(0x9EAA_3001).await.unwrap(), 1);
    assert_eq!(store.next_session_index(0x9EAA_3001).await.unwrap(), 2);
    assert_eq!(
        store.next_session_index(0x1234).await.unwrap(),
        1,
        "its own count"
    );
    // the count at its last index, as 65,533 more sessions would leave it
    let mut side = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("UPDATE counters SET value = 65534 WHERE name = 'session:9eaa3001'")
        .execute(&mut side)
        .await
        .unwrap();
    assert_eq!(store.next_session_index(0x9EAA_3001).await.unwrap(), 65_535);
    assert_eq!(
        store.next_session_index(0x9EAA_3001).await.unwrap(),
        1,
        "past 65,535, round again to 1, never 0"
    );
}
