//! What the store's tests share.
#![allow(clippy::unwrap_used)] // test code

/// A new, empty database on the PostgreSQL server of `url`, named for this test binary's
/// process; its URL.
pub async fn fresh_database(url: &str) -> String {
    use sqlx::Connection;
    let name = format!("vex_test_{}", std::process::id());
    let mut admin = sqlx::PgConnection::connect(url).await.unwrap();
    // the name is made here of digits: nothing in it comes from outside
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name}"
    )))
    .execute(&mut admin)
    .await
    .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .unwrap();
    let (server, _) = url.rsplit_once('/').unwrap();
    format!("{server}/{name}")
}
