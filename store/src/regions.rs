//! The regions of activities spread over the processes of a shared fleet
//! (`vex_host::fleet_regions`): each region a member moves into, other than its activity's
//! arrival, is placed on one live process and stays there while that process's lease
//! runs; the process it is placed on hosts its group session while the activity's holder
//! (its owner) keeps its lease and the activity runs. Times are milliseconds since the
//! Unix epoch, as in `fleet.rs`, and placing takes no lock, as there.

use crate::fleet::placed;
use crate::{Answer, Store, StoreError, rows, unix_ms};
use sqlx::Row;
use std::net::SocketAddrV4;
use vex_host::fleet_regions::{Hosted, RegionAsk};
use vex_host::lobby::Placed;

impl Store {
    /// Places region `bubble` of the activity `session`, which the process at `owner`
    /// holds: on the process it is placed on while that one's lease runs past `now_ms`,
    /// else on the live process holding the fewest activities and regions.
    pub async fn place_region(
        &self,
        session: u64,
        bubble: u8,
        owner: SocketAddrV4,
        now_ms: u64,
    ) -> Placed {
        placed(self.try_place_region(session, bubble, owner, now_ms).await)
    }

    async fn try_place_region(
        &self,
        session: u64,
        bubble: u8,
        owner: SocketAddrV4,
        now_ms: u64,
    ) -> Result<Option<SocketAddrV4>, StoreError> {
        let held = self.region_placement(session, bubble).await?;
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
                "UPDATE region_placements SET address = $1 \
                 WHERE session = $2 AND bubble = $3 AND address = $4",
            )
            .bind(chosen)
            .bind(rows::wide(session))
            .bind(i32::from(bubble))
            .bind(stale.to_string()),
            None => sqlx::query(
                "INSERT INTO region_placements (session, bubble, owner, address) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (session, bubble) DO NOTHING",
            )
            .bind(rows::wide(session))
            .bind(i32::from(bubble))
            .bind(owner.to_string())
            .bind(chosen),
        };
        moved.execute(&self.pool).await?;
        Ok(self
            .region_placement(session, bubble)
            .await?
            .map(|(address, _)| address))
    }

    /// How long yet, from `now_ms`, the process at `address` hosts a region of the
    /// activity `session`: while a region of it is placed there and its owner's lease runs.
    pub async fn region_hosted(
        &self,
        session: u64,
        address: SocketAddrV4,
        now_ms: u64,
    ) -> Result<Option<u64>, StoreError> {
        let row = sqlx::query(
            "SELECT MAX(o.lease_until) FROM region_placements r \
             JOIN processes o ON o.address = r.owner \
             WHERE r.session = $1 AND r.address = $2",
        )
        .bind(rows::wide(session))
        .bind(address.to_string())
        .fetch_one(&self.pool)
        .await?;
        let until: Option<i64> = row.try_get(0)?;
        Ok(until
            .map(rows::narrow)
            .filter(|until| *until > now_ms)
            .map(|until| until - now_ms))
    }

    /// The activity `session` ended: its regions are hosted nowhere.
    pub async fn end_regions(&self, session: u64) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM region_placements WHERE session = $1")
            .bind(rows::wide(session))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The keeper's answer to `ask`, at the wall clock; none to an end, whose failure is
    /// logged (the rows stay until the owner's lease runs out, which ends what they host).
    pub(crate) async fn answer_region(&self, ask: RegionAsk) -> Option<Answer> {
        match ask {
            RegionAsk::Place {
                session,
                bubble,
                owner,
            } => {
                let placed = self.place_region(session, bubble, owner, unix_ms()).await;
                Some(Answer::RegionPlaced {
                    session,
                    bubble,
                    placed,
                })
            }
            RegionAsk::Hosted { session, address } => {
                let hosted = match self.region_hosted(session, address, unix_ms()).await {
                    Ok(Some(ms)) => Hosted::For { ms },
                    Ok(None) => Hosted::No,
                    Err(e) => Hosted::Failed(e.to_string()),
                };
                Some(Answer::Hosted { session, hosted })
            }
            RegionAsk::End { session } => {
                if let Err(e) = self.end_regions(session).await {
                    tracing::warn!(session, %e, "the regions of an ended activity were not ended");
                }
                None
            }
        }
    }

    /// Where region `bubble` of `session` is placed and until when that process's lease
    /// runs.
    async fn region_placement(
        &self,
        session: u64,
        bubble: u8,
    ) -> Result<Option<(SocketAddrV4, u64)>, StoreError> {
        let row = sqlx::query(
            "SELECT r.address, p.lease_until FROM region_placements r \
             JOIN processes p ON p.address = r.address WHERE r.session = $1 AND r.bubble = $2",
        )
        .bind(rows::wide(session))
        .bind(i32::from(bubble))
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(rows::address_and_lease).transpose()
    }
}
