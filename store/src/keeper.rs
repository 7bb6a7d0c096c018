//! The store as a task beside the host's loop: the core's writes, lookups, listings,
//! session indexes and questions about regions in, each answered once the
//! database kept or refused the write, placed the activity or region, read the
//! advertisements, counted the index or said where a region is hosted (the sans-IO seams
//! of `vex_host::lobby::write`, `placement` and `listing`, `vex_host::session_index` and
//! `vex_host::fleet_regions`). The end of an activity's regions gets no answer.
//! The loop never waits on the database.

use crate::Store;
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use vex_host::fleet_regions::{Hosted, RegionAsk};
use vex_host::lobby::{Listed, Listing, Lookup, Placed, Write, Written};
use vex_host::session_index::{IndexAsk, Indexed};

/// The most route asks (lookups and session indexes) the store task answers at once.
const ROUTE_ASKS_AT_ONCE: usize = 16;

/// What the host loop asks of the store task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// Keep this write.
    Write(Write),
    /// Say which process holds this activity.
    Lookup(Lookup),
    /// Answer this question about the advertisements.
    Listing(Listing),
    /// Count the next index of a new session.
    Index(IndexAsk),
    /// Place a region, end an activity's regions, or say whether a region is hosted.
    Region(RegionAsk),
}

impl Asked {
    /// The answer when no store task takes `self`: nothing kept, placed, read or counted,
    /// and `why`; none for the end of an activity's regions.
    pub fn unanswered(self, why: &str) -> Option<Answer> {
        let why = why.to_string();
        Some(match self {
            Asked::Write(w) => Answer::Written(w.ticket, Written::Refused(why)),
            Asked::Lookup(l) => Answer::Placed(l.ticket, Placed::Failed(why)),
            Asked::Listing(l) => Answer::Listed(l.ticket, Listed::Failed(why)),
            Asked::Index(i) => Answer::Indexed(i.ticket, Indexed::Failed(why)),
            Asked::Region(RegionAsk::Place {
                session, bubble, ..
            }) => Answer::RegionPlaced {
                session,
                bubble,
                placed: Placed::Failed(why),
            },
            Asked::Region(RegionAsk::Hosted { session, .. }) => Answer::Hosted {
                session,
                hosted: Hosted::Failed(why),
            },
            Asked::Region(RegionAsk::End { .. }) => return None,
        })
    }
}

/// The store task's answer, under the ticket of what it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// What became of a write.
    Written(u64, Written),
    /// Where a lookup's activity is placed.
    Placed(u64, Placed),
    /// The answer about the advertisements.
    Listed(u64, Listed),
    /// The index counted.
    Indexed(u64, Indexed),
    /// Where a region is placed.
    RegionPlaced {
        /// The activity's session id.
        session: u64,
        /// The region, by bubble.
        bubble: u8,
        /// The process it is placed on.
        placed: Placed,
    },
    /// Whether a region of an activity is hosted by the process that asked.
    Hosted {
        /// The activity's session id.
        session: u64,
        /// The answer.
        hosted: Hosted,
    },
}

/// The host loop's end of the store task. The queues are unbounded here because the core
/// bounds them: at most one write per account is out at a time, and a lookup or a listing
/// holds an answer on its link, of which a link may hold a bounded number.
#[derive(Debug)]
pub struct Keeper {
    asks: mpsc::UnboundedSender<Asked>,
    answers: mpsc::UnboundedReceiver<Answer>,
}

impl Keeper {
    /// Starts the task answering from `store`; lookups are placed at the wall clock. The
    /// route's asks (lookups and session indexes) are answered side by side, at most
    /// [`ROUTE_ASKS_AT_ONCE`]: they touch only the placements and the counters, and are
    /// safe side by side as they are between processes (`crate::fleet`); a link sends its
    /// answers in the order asked however they come back (BAP-16). Writes, listings and
    /// regions go one at a time, in the order asked, so a listing reads the writes asked
    /// before it.
    pub fn spawn(store: Store) -> Self {
        let (asks, mut to_answer) = mpsc::unbounded_channel::<Asked>();
        let (answer, answers) = mpsc::unbounded_channel();
        let (in_order, mut ordered) = mpsc::unbounded_channel::<Asked>();
        let (lane_store, lane_answer) = (store.clone(), answer.clone());
        tokio::spawn(async move {
            while let Some(asked) = ordered.recv().await {
                if let Some(answered) = answer_one(&lane_store, asked).await
                    && lane_answer.send(answered).is_err()
                {
                    return;
                }
            }
        });
        tokio::spawn(async move {
            let mut route = JoinSet::new();
            while let Some(asked) = to_answer.recv().await {
                while route.try_join_next().is_some() {}
                if !matches!(asked, Asked::Lookup(_) | Asked::Index(_)) {
                    if in_order.send(asked).is_err() {
                        return;
                    }
                    continue;
                }
                while route.len() >= ROUTE_ASKS_AT_ONCE {
                    route.join_next().await;
                }
                let (store, answer) = (store.clone(), answer.clone());
                route.spawn(async move {
                    if let Some(answered) = answer_one(&store, asked).await {
                        let _ = answer.send(answered);
                    }
                });
            }
        });
        Self::new(asks, answers)
    }

    /// The loop's end of a store task of the caller's own: what the loop asks goes out on
    /// `asks`, and each answer comes back on `answers`.
    pub fn new(
        asks: mpsc::UnboundedSender<Asked>,
        answers: mpsc::UnboundedReceiver<Answer>,
    ) -> Self {
        Self { asks, answers }
    }

    /// Hands `asked` to the task; back when the task has ended.
    pub fn ask(&self, asked: Asked) -> Result<(), Asked> {
        self.asks.send(asked).map_err(|e| e.0)
    }

    /// The next answer.
    pub async fn answer(&mut self) -> Option<Answer> {
        self.answers.recv().await
    }
}

/// What `store` answers to `asked`: none for the end of an activity's regions.
async fn answer_one(store: &Store, asked: Asked) -> Option<Answer> {
    match asked {
        Asked::Write(w) => Some(Answer::Written(w.ticket, store.keep(&w).await)),
        Asked::Lookup(l) => {
            let placed = store.place(l.host_id, unix_ms()).await;
            Some(Answer::Placed(l.ticket, placed))
        }
        Asked::Listing(l) => {
            let listed = store.list(&l, unix_ms()).await;
            Some(Answer::Listed(l.ticket, listed))
        }
        Asked::Index(i) => {
            let indexed = match store.next_session_index(i.account_half).await {
                Ok(index) => Indexed::Next(index),
                Err(e) => Indexed::Failed(e.to_string()),
            };
            Some(Answer::Indexed(i.ticket, indexed))
        }
        Asked::Region(region) => store.answer_region(region).await,
    }
}

/// Milliseconds since the Unix epoch by the wall clock: the clock leases are kept by
/// (`crate::fleet`).
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
