//! `vex host --database`: what the lobby stores outlives the host process. Each run's
//! emulated client equips the scenario's first item (web-service 403), a change the host
//! keeps in the database before it answers; the host is then killed (SIGKILL, no
//! shutdown) and the database read as the next start reads it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
mod common;
use common::{Host, VEX, free_port, scratch, stdout, vex};
use std::process::{Command, Stdio};
use vex_host::lobby::StoredLobby;
use vex_store::Store;
use vex_wire::scenario::Scenario;

fn stored(url: &str) -> StoredLobby {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async { Store::open(url).await.unwrap().load().await.unwrap() })
}

#[test]
fn a_host_killed_and_started_again_keeps_what_the_lobby_stored() {
    let dir = scratch("store_restart");
    restarts_keep(
        &format!("sqlite:{}", dir.join("lobby.sqlite").display()),
        &dir,
    );
}

/// The same on PostgreSQL: the empty database `VEX_TEST_POSTGRES` names.
#[test]
#[ignore = "needs PostgreSQL: ci/test starts one and runs the ignored store tests"]
fn a_host_on_postgres_killed_and_started_again_keeps_what_the_lobby_stored() {
    let url = std::env::var("VEX_TEST_POSTGRES").expect("VEX_TEST_POSTGRES names a database");
    restarts_keep(&url, &scratch("store_restart_postgres"));
}

/// Two runs of a host on the empty database at `url`, each killed after its client, their
/// logs in `logs`.
fn restarts_keep(url: &str, logs: &std::path::Path) {
    let item = Scenario::builtin().lobby.items[0];
    // the second start's equip is made on revision 2: a host that started from the
    // scenario's seed again would make it on 1 and the database would refuse it
    for revision in [2, 3] {
        let addr = format!("127.0.0.1:{}", free_port());
        let log = logs.join(format!("host-{revision}.log"));
        let mut host = Host(
            Command::new(VEX)
                .args(["host", "--listen", &addr, "--database", url])
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).unwrap())
                .spawn()
                .unwrap(),
        );
        host.wait_listening(&addr, &log);
        let out = vex(&[
            "client",
            "--target",
            &addr,
            "--seconds",
            "3",
            "--lobby-calls",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
        drop(host);
        let lobby = stored(url);
        let account = &lobby.accounts[0];
        assert_eq!(account.revision, revision, "{lobby:?}");
        assert_eq!(account.equipped(), item);
        assert_eq!(account.sign_ins, revision - 1, "one sign-in a run");
    }
}
