//! The lobby's types as rows (`migrations/`). The databases have no unsigned 64-bit
//! column: ids are kept as `BIGINT`, their bits unchanged ([`wide`], [`narrow`]).

use crate::StoreError;
use sqlx::AnyConnection;
use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};
use std::collections::BTreeMap;
use std::net::SocketAddrV4;
use vex_host::lobby::{StoredAccount, StoredLobby, StoredObject};
use vex_wire::bap::queuez::ACCOUNT_FAMILY;

/// `v` as the database keeps it.
pub(crate) fn wide(v: u64) -> i64 {
    i64::from_ne_bytes(v.to_ne_bytes())
}

/// A kept `v` back.
pub(crate) fn narrow(v: i64) -> u64 {
    u64::from_ne_bytes(v.to_ne_bytes())
}

/// A row's first two columns as a process's address and the time its lease runs until.
pub(crate) fn address_and_lease(row: &AnyRow) -> Result<(SocketAddrV4, u64), StoreError> {
    Ok((address(row)?, narrow(row.try_get(1)?)))
}

/// A row's first column as a process's address.
pub(crate) fn address(row: &AnyRow) -> Result<SocketAddrV4, StoreError> {
    let address: String = row.try_get(0)?;
    address
        .parse()
        .map_err(|_| StoreError::Row(format!("process address {address:?}")))
}

/// Stores `account` whole.
pub(crate) async fn insert_account(
    tx: &mut Transaction<'_, Any>,
    account: &StoredAccount,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO accounts (account, character_id, revision, sign_ins) VALUES ($1, $2, $3, $4)",
    )
    .bind(wide(account.account))
    .bind(wide(account.character))
    .bind(wide(account.revision))
    .bind(wide(account.sign_ins))
    .execute(&mut **tx)
    .await?;
    for (position, item) in (0i64..).zip(&account.items) {
        sqlx::query("INSERT INTO items (account, position, item) VALUES ($1, $2, $3)")
            .bind(wide(account.account))
            .bind(position)
            .bind(wide(*item))
            .execute(&mut **tx)
            .await?;
    }
    replace_objects(tx, account.account, &account.objects).await
}

/// `account`'s family-4 objects become `objects`.
pub(crate) async fn replace_objects(
    tx: &mut Transaction<'_, Any>,
    account: u64,
    objects: &[StoredObject],
) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM objects WHERE account = $1 AND family = $2")
        .bind(wide(account))
        .bind(i64::from(ACCOUNT_FAMILY))
        .execute(&mut **tx)
        .await?;
    for o in objects {
        sqlx::query(
            "INSERT INTO objects (account, family, object_id, object_key, payload) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(wide(account))
        .bind(i64::from(o.family))
        .bind(i64::from(o.object_id))
        .bind(wide(o.key))
        .bind(o.payload.clone())
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// Every account, by account id.
pub(crate) async fn load(conn: &mut AnyConnection) -> Result<StoredLobby, StoreError> {
    Ok(StoredLobby {
        accounts: load_scoped(conn, None).await?,
    })
}

/// `account` as the database holds it now.
pub(crate) async fn load_account(
    conn: &mut AnyConnection,
    account: u64,
) -> Result<Option<StoredAccount>, StoreError> {
    Ok(load_scoped(conn, Some(account)).await?.pop())
}

/// The accounts `only` names (every one when none), by account id.
async fn load_scoped(
    conn: &mut AnyConnection,
    only: Option<u64>,
) -> Result<Vec<StoredAccount>, StoreError> {
    let scope = if only.is_some() {
        "WHERE account = $1"
    } else {
        ""
    };
    let read = |sql: String| {
        let query = sqlx::query::<Any>(sqlx::AssertSqlSafe(sql));
        match only {
            Some(account) => query.bind(wide(account)),
            None => query,
        }
    };
    let mut accounts: BTreeMap<u64, StoredAccount> = BTreeMap::new();
    let sql = format!("SELECT account, character_id, revision, sign_ins FROM accounts {scope}");
    for row in read(sql).fetch_all(&mut *conn).await? {
        let account = narrow(row.try_get(0)?);
        accounts.insert(
            account,
            StoredAccount {
                account,
                character: narrow(row.try_get(1)?),
                items: Vec::new(),
                revision: narrow(row.try_get(2)?),
                objects: Vec::new(),
                sign_ins: narrow(row.try_get(3)?),
            },
        );
    }
    let sql = format!("SELECT account, item FROM items {scope} ORDER BY account, position");
    for row in read(sql).fetch_all(&mut *conn).await? {
        if let Some(a) = accounts.get_mut(&narrow(row.try_get(0)?)) {
            a.items.push(narrow(row.try_get(1)?));
        }
    }
    let sql = format!(
        "SELECT account, family, object_id, object_key, payload FROM objects {scope} \
         ORDER BY account, family, object_id"
    );
    for row in read(sql).fetch_all(&mut *conn).await? {
        if let Some(a) = accounts.get_mut(&narrow(row.try_get(0)?)) {
            a.objects.push(object(&row)?);
        }
    }
    Ok(accounts.into_values().collect())
}

fn object(row: &AnyRow) -> Result<StoredObject, StoreError> {
    let small = |i: usize| -> Result<u32, StoreError> {
        let v: i64 = row.try_get(i)?;
        u32::try_from(v).map_err(|_| StoreError::Row(format!("column {i} holds {v}")))
    };
    Ok(StoredObject {
        family: small(1)?,
        object_id: small(2)?,
        key: narrow(row.try_get(3)?),
        payload: row.try_get(4)?,
    })
}
