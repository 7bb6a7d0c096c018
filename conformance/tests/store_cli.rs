//! `vex host --database`: what the lobby stores outlives the host process. Each run's
//! emulated client signs in (web-service 503) and equips the scenario's first item (403),
//! changes the host keeps in the database before it answers; the host is then killed and
//! the database read as the next start reads it. A host killed between the commit of an
//! equip and the reply and update that publish it starts again with the change whole, and
//! one killed before the commit starts again without any of it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
mod common;
use common::{Host, VEX, free_port, scratch, stdout, vex};
use std::path::Path;
use std::process::{Command, Stdio};
use tokio::sync::{mpsc, oneshot};
use vex_host::lobby::{Change, StoredAccount, StoredLobby, Written};
use vex_host::{HostConfig, HostCore};
use vex_store::{Answer, Asked, Keeper, Store};
use vex_wire::scenario::Scenario;

/// The scenario's account as the database at `url` holds it; as a new database would be
/// seeded when it holds none yet.
fn account(url: &str) -> StoredAccount {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let lobby = runtime.block_on(async { Store::open(url).await.unwrap().load().await.unwrap() });
    let seed = StoredLobby::seed(&Scenario::builtin());
    lobby
        .accounts
        .into_iter()
        .chain(seed.accounts)
        .next()
        .unwrap()
}

#[test]
fn a_host_killed_and_started_again_keeps_what_the_lobby_stored() {
    let dir = scratch("store_restart");
    restarts_keep(&sqlite(&dir), &dir);
}

/// The same on PostgreSQL: the empty database `VEX_TEST_POSTGRES` names.
#[test]
#[ignore = "needs PostgreSQL: ci/test starts one and runs the ignored store tests"]
fn a_host_on_postgres_killed_and_started_again_keeps_what_the_lobby_stored() {
    let url = std::env::var("VEX_TEST_POSTGRES").expect("VEX_TEST_POSTGRES names a database");
    restarts_keep(&url, &scratch("store_restart_postgres"));
}

#[test]
fn a_host_killed_after_the_commit_and_before_the_publish_starts_with_the_change_whole() {
    let dir = scratch("store_kill_after_commit");
    let url = sqlite(&dir);
    serve_until_equip(&url, Kill::AfterCommit);
    let kept = account(&url);
    let item = Scenario::builtin().lobby.items[0];
    assert_eq!((kept.revision, kept.equipped()), (2, item), "{kept:?}");
    assert_eq!(kept.sign_ins, 1);
    restarts_keep(&url, &dir);
}

#[test]
fn a_host_killed_before_the_commit_starts_with_none_of_the_change() {
    let dir = scratch("store_kill_before_commit");
    let url = sqlite(&dir);
    serve_until_equip(&url, Kill::BeforeCommit);
    let kept = account(&url);
    assert_eq!((kept.revision, kept.equipped()), (1, 0), "{kept:?}");
    assert_eq!(kept.sign_ins, 1, "the sign-in before it was kept");
    restarts_keep(&url, &dir);
}

fn sqlite(dir: &Path) -> String {
    format!("sqlite:{}", dir.join("lobby.sqlite").display())
}

/// Two runs of `vex host` on the database at `url`, each killed (SIGKILL) after its
/// client, their logs in `logs`: each run's equip and sign-in are made on what the last
/// one stored (a host that started from the scenario's seed again would make its equip
/// on revision 1, and the database would refuse it).
fn restarts_keep(url: &str, logs: &Path) {
    let item = Scenario::builtin().lobby.items[0];
    for run in 0..2 {
        let before = account(url);
        let addr = format!("127.0.0.1:{}", free_port());
        let log = logs.join(format!("host-{run}.log"));
        let mut host = Host(
            Command::new(VEX)
                .args(["host", "--listen", &addr, "--database", url])
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).unwrap())
                .spawn()
                .unwrap(),
        );
        host.wait_listening(&addr, &log);
        let client = [
            "client",
            "--target",
            &addr,
            "--seconds",
            "3",
            "--lobby-calls",
        ];
        let out = vex(&client);
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
        drop(host);
        let after = account(url);
        assert_eq!(after.revision, before.revision + 1, "{after:?}");
        assert_eq!(after.equipped(), item);
        assert_eq!(after.sign_ins, before.sign_ins + 1, "one sign-in a run");
    }
}

/// Where [`serve_until_equip`] kills the host.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kill {
    /// Once the database has kept the equip, before the host hears of it.
    AfterCommit,
    /// When the equip reaches the store task, before the database sees it.
    BeforeCommit,
}

/// Serves our host on the database at `url` in a runtime of its own, `vex client` making
/// its lobby calls against it, and kills the host at `kill` on the first equip: the store
/// task keeps the writes before it and answers them, and at the equip the runtime is
/// dropped with every task of the host in it, so nothing of the process touches the
/// database again, as at a SIGKILL.
fn serve_until_equip(url: &str, kill: Kill) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (addr, reached) = runtime.block_on(async {
        let store = Store::open(url).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let std::net::SocketAddr::V4(addr) = listener.local_addr().unwrap() else {
            unreachable!("bound to an IPv4 address")
        };
        let mut config = HostConfig::builtin(addr);
        let seed = StoredLobby::seed(&config.scenario);
        config.stored = Some(store.load_or_seed(&seed).await.unwrap());
        let (asks, mut to_keep) = mpsc::unbounded_channel::<Asked>();
        let (answer, answers) = mpsc::unbounded_channel();
        let (reached, on_equip) = oneshot::channel();
        tokio::spawn(async move {
            while let Some(Asked::Write(write)) = to_keep.recv().await {
                if matches!(write.change, Change::Objects { .. }) {
                    if kill == Kill::AfterCommit {
                        assert_eq!(store.keep(&write).await, Written::Kept);
                    }
                    let _ = reached.send(());
                    return std::future::pending().await;
                }
                let written = store.keep(&write).await;
                let _ = answer.send(Answer::Written(write.ticket, written));
            }
        });
        let (_controls, controls) = mpsc::channel(1);
        tokio::spawn(vex_server::bap::serve_with_control(
            listener,
            None,
            HostCore::new(config),
            Keeper::new(asks, answers),
            controls,
            std::future::pending(),
        ));
        (addr, on_equip)
    });
    let mut client = Command::new(VEX)
        .args(["client", "--target", &addr.to_string()])
        .args(["--seconds", "10", "--lobby-calls"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    runtime.block_on(reached).unwrap();
    drop(runtime);
    let _ = client.kill();
    let _ = client.wait();
}
