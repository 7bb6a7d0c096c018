//! vex-store: what the lobby stores (`vex_host::lobby::stored`), in a database. SQLite is
//! the embedded default (a file, or memory for one run); PostgreSQL when a
//! `postgres://` URL names one, which several host processes can share. The schema's
//! migrations are in `migrations/`, one set for both databases (written in the types both
//! take: SQLite keeps a `BYTEA` column's blobs as they are), run at [`Store::open`].
//!
//! Every [`Write`] is kept whole or not at all, in one transaction: the family-4 objects
//! and the revision that names them move together, and a write made on a revision the
//! database no longer holds (another process was first) changes nothing and is answered
//! with the account as it is now.
//!
//! Several host processes sharing one database keep leases in it, each activity is
//! placed on one live process (`fleet.rs`), as is each region a member moves into
//! (`regions.rs`), and the matchmaking advertisements are kept there (`listing.rs`).

mod fleet;
mod keeper;
mod listing;
mod regions;
mod rows;

pub use fleet::renew_lease;
pub use keeper::{Answer, Asked, Keeper, unix_ms};

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::Migrator;
use sqlx::{AnyConnection, AnyPool, Row};
use thiserror::Error;
use vex_host::lobby::{Change, StoredLobby, Write, Written};

/// The schema's migrations.
static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// What went wrong with the database.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The URL names no database Vex keeps its lobby in.
    #[error("{0:?} is not a sqlite: or postgres:// URL")]
    Url(String),
    /// The database could not be reached or answered an error.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// The schema could not be brought up to date.
    #[error("migrating the schema: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A row holds what no write of Vex's puts there.
    #[error("a stored row does not read: {0}")]
    Row(String),
}

/// An SQLite file several processes write: a write-ahead log, so a commit is one append
/// and readers do not wait for the writer, and `synchronous = NORMAL`, which keeps every
/// commit through a killed process (not through a power cut) without a flush to disk per
/// commit. Each commit flushed cost the processes of a fleet on one file about 10x their
/// service-16 and service-6 latency under `vex load`.
async fn sqlite_file_settings(conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
    sqlx::query("PRAGMA journal_mode = WAL")
        .execute(&mut *conn)
        .await?;
    sqlx::query("PRAGMA synchronous = NORMAL")
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// The lobby's database.
#[derive(Debug, Clone)]
pub struct Store {
    pool: AnyPool,
}

impl Store {
    /// The database at `url`, its schema brought up to date: `sqlite::memory:` (one run's
    /// memory), `sqlite:PATH` (a file, made when missing) or `postgres://...`.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        install_default_drivers();
        let (url, connections, file) = if url == "sqlite::memory:" {
            // every connection to memory is a database of its own: keep exactly one
            (url.to_string(), 1, false)
        } else if url.starts_with("sqlite:") {
            let create = if url.contains('?') { "" } else { "?mode=rwc" };
            (format!("{url}{create}"), 1, true)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (url.to_string(), 4, false)
        } else {
            return Err(StoreError::Url(url.to_string()));
        };
        let pool = AnyPoolOptions::new()
            .max_connections(connections)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            // sqlx pings a connection as the pool takes it back, so one broken in use is
            // closed there; pinging again as it is handed out cost every query a second
            // round trip (3.6% of a host's samples under load, on the join's path). What
            // it still caught, a connection the database dropped while it sat idle (a
            // restart), now fails the one query that finds it, once a connection.
            .test_before_acquire(false)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if file {
                        sqlite_file_settings(conn).await?;
                    }
                    Ok(())
                })
            })
            .connect(&url)
            .await?;
        MIGRATOR.run(&pool).await?;
        Ok(Self { pool })
    }

    /// What the database holds; when it holds no account, `seed` is stored first (the
    /// scenario seeds an empty database).
    pub async fn load_or_seed(&self, seed: &StoredLobby) -> Result<StoredLobby, StoreError> {
        let mut tx = self.pool.begin().await?;
        let accounts: i64 = sqlx::query("SELECT COUNT(*) FROM accounts")
            .fetch_one(&mut *tx)
            .await?
            .try_get(0)?;
        if accounts == 0 {
            for account in &seed.accounts {
                rows::insert_account(&mut tx, account).await?;
            }
        }
        tx.commit().await?;
        self.load().await
    }

    /// What the database holds.
    pub async fn load(&self) -> Result<StoredLobby, StoreError> {
        let mut conn = self.pool.acquire().await?;
        rows::load(&mut conn).await
    }

    /// Keeps `write` whole, or nothing of it.
    pub async fn keep(&self, write: &Write) -> Written {
        match self.try_keep(write).await {
            Ok(written) => written,
            Err(e) => Written::Refused(e.to_string()),
        }
    }

    async fn try_keep(&self, write: &Write) -> Result<Written, StoreError> {
        let account = rows::wide(write.account);
        let mut tx = self.pool.begin().await?;
        let moved = match &write.change {
            Change::Objects { from, objects } => {
                rows::replace_objects(&mut tx, write.account, objects).await?;
                // last, so a refusal proves the objects written above are rolled back
                sqlx::query(
                    "UPDATE accounts SET revision = revision + 1 WHERE account = $1 AND revision = $2",
                )
                .bind(account)
                .bind(rows::wide(*from))
                .execute(&mut *tx)
                .await?
                .rows_affected()
            }
            Change::SignIn { sign_ins } => sqlx::query(
                "UPDATE accounts SET sign_ins = $1 WHERE account = $2 AND sign_ins = $3",
            )
            .bind(rows::wide(*sign_ins))
            .bind(account)
            .bind(rows::wide(sign_ins.saturating_sub(1)))
            .execute(&mut *tx)
            .await?
            .rows_affected(),
        };
        if moved != 1 {
            tx.rollback().await?;
            let mut conn = self.pool.acquire().await?;
            return Ok(match rows::load_account(&mut conn, write.account).await? {
                Some(now) => Written::Superseded(now),
                None => Written::Refused(format!("account {:#x} is not stored", write.account)),
            });
        }
        tx.commit().await?;
        Ok(Written::Kept)
    }
}
