//! Several host processes on one database (`vex_host::lobby::placement`): each keeps a
//! lease, and each activity host id is placed on one live process and stays there while
//! that process's lease runs; new sessions' indexes are counted here for all of them
//! (`vex_host::session_index`). Times are milliseconds since the Unix epoch, read by the
//! caller: the processes' clocks must agree to well within a lease.
//!
//! Placing takes no lock: each statement that moves a placement names what it moves from,
//! so of two processes placing one activity at once, one moves it and the other reads
//! where it went.

use crate::{Store, StoreError, rows, unix_ms};
use sqlx::Row;
use std::net::SocketAddrV4;
use std::time::Duration;
use vex_host::lobby::Placed;

impl Store {
    /// The process listening at `address` holds its lease until `until_ms`.
    pub async fn lease(&self, address: SocketAddrV4, until_ms: u64) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO processes (address, lease_until) VALUES ($1, $2) \
             ON CONFLICT (address) DO UPDATE SET lease_until = excluded.lease_until",
        )
        .bind(address.to_string())
        .bind(rows::wide(until_ms))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The process at `address` gives its lease up: it is handed no new activity from now.
    pub async fn release(&self, address: SocketAddrV4) -> Result<(), StoreError> {
        sqlx::query("UPDATE processes SET lease_until = 0 WHERE address = $1")
            .bind(address.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The process `host_id` is placed on, when its lease runs past `now_ms`.
    pub async fn holder(
        &self,
        host_id: u64,
        now_ms: u64,
    ) -> Result<Option<SocketAddrV4>, StoreError> {
        Ok(match self.placement(host_id).await? {
            Some((address, lease_until)) if lease_until > now_ms => Some(address),
            _ => None,
        })
    }

    /// Places the activity `host_id`: on the process that holds it while that one's lease
    /// runs past `now_ms`; else on the live process holding the fewest activities and
    /// regions ([`Store::least_held`]).
    pub async fn place(&self, host_id: u64, now_ms: u64) -> Placed {
        placed(self.try_place(host_id, now_ms).await)
    }

    async fn try_place(
        &self,
        host_id: u64,
        now_ms: u64,
    ) -> Result<Option<SocketAddrV4>, StoreError> {
        let held = self.placement(host_id).await?;
        if let Some((address, lease_until)) = held
            && lease_until > now_ms
        {
            return Ok(Some(address));
        }
        let Some(chosen) = self.least_held(now_ms).await? else {
            return Ok(None);
        };
        let moved = match held {
            Some((stale, _)) => sqlx::query(
                "UPDATE placements SET address = $1 WHERE host_id = $2 AND address = $3 \
                 RETURNING address",
            )
            .bind(chosen)
            .bind(rows::wide(host_id))
            .bind(stale.to_string()),
            None => sqlx::query(
                "INSERT INTO placements (host_id, address) VALUES ($1, $2) \
                 ON CONFLICT (host_id) DO NOTHING RETURNING address",
            )
            .bind(rows::wide(host_id))
            .bind(chosen),
        };
        // the statement that moved it names where it went; one that moved nothing lost to
        // another process's placing, and where that one put it is read back
        match moved.fetch_optional(&self.pool).await? {
            Some(row) => Ok(Some(rows::address(&row)?)),
            None => self.holder(host_id, now_ms).await,
        }
    }

    /// The process whose lease runs past `now_ms` holding the fewest activities and
    /// regions of activities (`crate::regions`), the lowest address first.
    pub(crate) async fn least_held(&self, now_ms: u64) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query(
            "SELECT p.address FROM processes p WHERE p.lease_until > $1 \
             ORDER BY (SELECT COUNT(*) FROM placements pl WHERE pl.address = p.address) \
             + (SELECT COUNT(*) FROM region_placements r WHERE r.address = p.address), p.address \
             LIMIT 1",
        )
        .bind(rows::wide(now_ms))
        .fetch_optional(&self.pool)
        .await?
        .map(|row| row.try_get(0))
        .transpose()?)
    }

    /// The next session index of the account whose ids carry `account_half`: 1 to 65,535
    /// and round again, never 0, counted for every process on the database
    /// (`vex_host::session_index`).
    pub async fn next_session_index(&self, account_half: u32) -> Result<u16, StoreError> {
        let name = format!("session:{account_half:08x}");
        // one statement, so one round trip: the first index is 1
        let index: i64 = sqlx::query(
            "INSERT INTO counters (name, value) VALUES ($1, 1) \
             ON CONFLICT (name) DO UPDATE SET value = counters.value % 65535 + 1 \
             RETURNING value",
        )
        .bind(&name)
        .fetch_one(&self.pool)
        .await?
        .try_get(0)?;
        u16::try_from(index).map_err(|_| StoreError::Row(format!("{name} holds {index}")))
    }

    /// Where `host_id` is placed and until when that process's lease runs.
    async fn placement(&self, host_id: u64) -> Result<Option<(SocketAddrV4, u64)>, StoreError> {
        let row = sqlx::query(
            "SELECT pl.address, pr.lease_until FROM placements pl \
             JOIN processes pr ON pr.address = pl.address WHERE pl.host_id = $1",
        )
        .bind(rows::wide(host_id))
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(rows::address_and_lease).transpose()
    }
}

/// A placement's answer: the process chosen, or why none was.
pub(crate) fn placed(chosen: Result<Option<SocketAddrV4>, StoreError>) -> Placed {
    match chosen {
        Ok(Some(address)) => Placed::At(address),
        Ok(None) => Placed::Failed("no host process holds a lease".to_string()),
        Err(e) => Placed::Failed(e.to_string()),
    }
}

/// Renews the lease of the process at `address` every third of `lease`, each renewal
/// running `lease` past its time, until the task is aborted; a renewal the database
/// refuses is logged and tried again at the next.
pub fn renew_lease(
    store: Store,
    address: SocketAddrV4,
    lease: Duration,
) -> tokio::task::JoinHandle<()> {
    let lease_ms = u64::try_from(lease.as_millis()).unwrap_or(u64::MAX);
    tokio::spawn(async move {
        let mut every = tokio::time::interval(lease / 3);
        loop {
            every.tick().await;
            let until = unix_ms().saturating_add(lease_ms);
            if let Err(e) = store.lease(address, until).await {
                tracing::warn!(%address, %e, "the lease was not renewed");
            }
        }
    })
}
