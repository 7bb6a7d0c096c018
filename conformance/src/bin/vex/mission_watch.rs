//! The watch on a running host's mission file: a save that changes its text asks for a
//! reload once the saves of one edit settle, and the answer is logged.

use crate::mission_link::reload;
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::mpsc;
use vex_server::bap::Control;

/// How long saves of the file settle before one reload is asked for.
const SETTLE: Duration = Duration::from_millis(200);

/// Watches `file`. The folder is watched, so an editor that saves by replacing the file
/// is seen too; reading the file (as a reload does) is not a save. Dropping the returned
/// watcher stops the watch.
pub fn watch(file: &Path, controls: mpsc::Sender<Control>) -> notify::Result<RecommendedWatcher> {
    let target = std::path::absolute(file)?;
    let folder = target
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let (saved, mut saves) = mpsc::channel::<()>(1);
    let watched = target.clone();
    let mut watcher =
        notify::recommended_watcher(move |event: notify::Result<Event>| match event {
            Ok(e)
                if matches!(e.kind, EventKind::Create(_) | EventKind::Modify(_))
                    && e.paths.contains(&watched) =>
            {
                let _ = saved.try_send(());
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(%e, "watching the mission file"),
        })?;
    watcher.watch(&folder, RecursiveMode::NonRecursive)?;
    let mut loaded = std::fs::read_to_string(&target).ok();
    tokio::spawn(async move {
        while saves.recv().await.is_some() {
            // the saves of one edit come together: wait until they stop
            while tokio::time::timeout(SETTLE, saves.recv())
                .await
                .is_ok_and(|s| s.is_some())
            {}
            let text = match std::fs::read_to_string(&target) {
                Ok(t) => Some(t),
                Err(e) => {
                    let file = target.display();
                    tracing::warn!(%file, %e, "the saved mission cannot be read");
                    continue;
                }
            };
            if text == loaded {
                continue;
            }
            loaded = text;
            let answer = reload(&target, &controls).await;
            tracing::info!(file = %target.display(), "{answer}");
        }
    });
    Ok(watcher)
}
