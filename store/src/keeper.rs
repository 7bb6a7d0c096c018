//! The store as a task beside the host's loop: the core's writes in, in order, each
//! answered once the database kept or refused it (the sans-IO seam of
//! `vex_host::lobby::write`). The loop never waits on the database.

use crate::Store;
use tokio::sync::mpsc;
use vex_host::lobby::{Write, Written};

/// The host loop's end of the store task. The queues are unbounded here because the core
/// bounds them: at most one write per account is out at a time.
#[derive(Debug)]
pub struct Keeper {
    writes: mpsc::UnboundedSender<Write>,
    answers: mpsc::UnboundedReceiver<(u64, Written)>,
}

impl Keeper {
    /// Starts the task keeping writes in `store`.
    pub fn spawn(store: Store) -> Self {
        let (writes, mut to_keep) = mpsc::unbounded_channel::<Write>();
        let (answer, answers) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(write) = to_keep.recv().await {
                let written = store.keep(&write).await;
                if answer.send((write.ticket, written)).is_err() {
                    return;
                }
            }
        });
        Self::new(writes, answers)
    }

    /// The loop's end of a store task of the caller's own: writes go out on `writes`, and
    /// each answer (its ticket and what became of it) comes back on `answers`.
    pub fn new(
        writes: mpsc::UnboundedSender<Write>,
        answers: mpsc::UnboundedReceiver<(u64, Written)>,
    ) -> Self {
        Self { writes, answers }
    }

    /// Hands `write` to the task; back when the task has ended.
    pub fn keep(&self, write: Write) -> Result<(), Write> {
        self.writes.send(write).map_err(|e| e.0)
    }

    /// The next answer: the write's ticket and what became of it.
    pub async fn answer(&mut self) -> Option<(u64, Written)> {
        self.answers.recv().await
    }
}
