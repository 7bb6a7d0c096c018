//! The matchmaking advertisements of several host processes on one database
//! (`vex_host::lobby::listing`): kept per process and link, each under an id the
//! `counters` row hands out (never 0, never reused), and located only while the process
//! that made it holds its lease.

use crate::{Store, StoreError, rows};
use sqlx::Row;
use std::net::SocketAddrV4;
use vex_host::lobby::listing::{Ask, Listed, Listing};
use vex_wire::bap::matchmaking::DESCRIPTOR_LEN;

impl Store {
    /// Answers `listing` at `now_ms` (for the leases).
    pub async fn list(&self, listing: &Listing, now_ms: u64) -> Listed {
        let process = listing.process;
        let answered = match &listing.ask {
            Ask::Advertise {
                link,
                existing,
                descriptor,
            } => self
                .advertise(process, *link, *existing, descriptor)
                .await
                .map(Listed::Advertised),
            Ask::Withdraw { link } => self
                .withdraw(process, *link)
                .await
                .map(|()| Listed::Withdrawn),
            Ask::Locate => self.locate(now_ms).await.map(Listed::Located),
        };
        answered.unwrap_or_else(|e| Listed::Failed(e.to_string()))
    }

    /// Keeps `descriptor` for `link` of `process`: under `existing` when that link holds
    /// it, else under the next id.
    async fn advertise(
        &self,
        process: SocketAddrV4,
        link: u64,
        existing: Option<u64>,
        descriptor: &[u8],
    ) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        if let Some(id) = existing {
            let kept = sqlx::query(
                "UPDATE advertisements SET descriptor = $1 WHERE id = $2 AND process = $3 AND link = $4",
            )
            .bind(descriptor.to_vec())
            .bind(rows::wide(id))
            .bind(process.to_string())
            .bind(rows::wide(link))
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if kept == 1 {
                tx.commit().await?;
                return Ok(id);
            }
        }
        let id: i64 = sqlx::query(
            "UPDATE counters SET value = value + 1 WHERE name = 'advertisement' RETURNING value",
        )
        .fetch_one(&mut *tx)
        .await?
        .try_get(0)?;
        sqlx::query(
            "INSERT INTO advertisements (id, process, link, descriptor) VALUES ($1, $2, $3, $4)",
        )
        .bind(id)
        .bind(process.to_string())
        .bind(rows::wide(link))
        .bind(descriptor.to_vec())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(rows::narrow(id))
    }

    /// Drops the advertisements of `link` of `process`.
    async fn withdraw(&self, process: SocketAddrV4, link: u64) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM advertisements WHERE process = $1 AND link = $2")
            .bind(process.to_string())
            .bind(rows::wide(link))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The latest advertisement with a whole descriptor whose process holds its lease past
    /// `now_ms`: its id and descriptor.
    async fn locate(&self, now_ms: u64) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        let row = sqlx::query(
            "SELECT a.id, a.descriptor FROM advertisements a \
             JOIN processes p ON p.address = a.process \
             WHERE p.lease_until > $1 AND length(a.descriptor) = $2 \
             ORDER BY a.id DESC LIMIT 1",
        )
        .bind(rows::wide(now_ms))
        .bind(DESCRIPTOR_LEN as i64)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| Ok((rows::narrow(row.try_get(0)?), row.try_get(1)?)))
            .transpose()
    }
}
