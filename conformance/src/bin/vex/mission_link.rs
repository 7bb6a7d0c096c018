//! The running host's mission controls: the command link `vex mission reload|status|events`
//! talks to (loopback only; SR "Where mission scripts plug in": the Studio link), and the
//! watch on the mission file, whose every save asks for a reload.
//!
//! The command link is one line in, answer lines out, then the host closes: `reload`
//! (the file read again), `status` or `events`.

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use vex_host::mission::MissionReport;
use vex_host::server::Control;

/// How long saves of the file settle before one reload is asked for.
const SETTLE: Duration = Duration::from_millis(200);
/// The longest command line the link reads.
const MAX_COMMAND: u64 = 64;

/// The answer line of a reload.
pub fn reload_line(report: Option<MissionReport>) -> String {
    match report {
        Some(MissionReport::Reloaded) => "reloaded".into(),
        Some(MissionReport::ReloadFailed(e)) => format!("does not compile: {e}"),
        Some(MissionReport::ReloadRefused) => {
            "refused: no activity has started the mission yet".into()
        }
        Some(other) => format!("{other:?}"),
        None => "replaced by a newer reload".into(),
    }
}

/// Reads `file` and asks the host to reload it; the answer line.
async fn reload(file: &Path, controls: &mpsc::Sender<Control>) -> String {
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => return format!("cannot read {}: {e}", file.display()),
    };
    let (reply, answer) = oneshot::channel();
    if controls
        .send(Control::Reload { source, reply })
        .await
        .is_err()
    {
        return "the host has stopped".into();
    }
    reload_line(answer.await.ok())
}

/// Serves the command link on `listener` until the host stops; a peer that is not on
/// this machine is refused.
pub async fn serve_commands(listener: TcpListener, file: PathBuf, controls: mpsc::Sender<Control>) {
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            continue;
        };
        if !peer.ip().is_loopback() {
            tracing::warn!(%peer, "command link refused: not from this machine");
            continue;
        }
        let (file, controls) = (file.clone(), controls.clone());
        tokio::spawn(async move {
            if let Err(e) = answer(stream, &file, &controls).await {
                tracing::warn!(%peer, %e, "command link");
            }
        });
    }
}

async fn answer(
    stream: TcpStream,
    file: &Path,
    controls: &mpsc::Sender<Control>,
) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut line = String::new();
    BufReader::new(read.take(MAX_COMMAND))
        .read_line(&mut line)
        .await?;
    let text = match line.trim() {
        "reload" => reload(file, controls).await,
        "status" => {
            let (reply, answer) = oneshot::channel();
            let _ = controls.send(Control::Status { reply }).await;
            let status = answer.await.unwrap_or_default();
            if status.is_empty() {
                "no activity runs the mission".into()
            } else {
                status
                    .iter()
                    .map(|(session, vars)| format!("session {session:#x}: {vars}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            }
        }
        "events" => {
            let (reply, answer) = oneshot::channel();
            let _ = controls.send(Control::Events { reply }).await;
            let events = answer.await.unwrap_or_default();
            events.iter().map(event_line).collect::<Vec<_>>().join("\n")
        }
        other => format!("unknown command {other:?}: reload, status or events"),
    };
    write.write_all(text.as_bytes()).await?;
    write.write_all(b"\n").await?;
    write.shutdown().await
}

/// One mission report as a line.
fn event_line(report: &MissionReport) -> String {
    match report {
        MissionReport::Handled {
            session,
            handler,
            requests,
        } => {
            format!("{session:#x} {handler}: {requests} request(s)")
        }
        MissionReport::Failed {
            session,
            handler,
            error,
        } => {
            format!("{session:#x} {handler} failed: {error}")
        }
        other => reload_line(Some(other.clone())),
    }
}

/// Watches `file`: each save that changes its text asks for a reload once the saves
/// settle, and the answer is logged. The folder is watched, so an editor that saves by
/// replacing the file is seen too; reading the file (as a reload does) is not a save.
/// Dropping the returned watcher stops the watch.
pub fn watch(file: &Path, controls: mpsc::Sender<Control>) -> notify::Result<RecommendedWatcher> {
    let target = std::path::absolute(file)?;
    let folder = target
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let (saved, mut saves) = mpsc::channel::<()>(1);
    let watched = target.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<Event>| {
        if let Ok(e) = event
            && matches!(e.kind, EventKind::Create(_) | EventKind::Modify(_))
            && e.paths.contains(&watched)
        {
            let _ = saved.try_send(());
        }
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
            let text = std::fs::read_to_string(&target).ok();
            if text.is_none() || text == loaded {
                continue;
            }
            loaded = text;
            let answer = reload(&target, &controls).await;
            tracing::info!(file = %target.display(), "{answer}");
        }
    });
    Ok(watcher)
}

/// Whether `addr` is on this machine: the command link listens nowhere else.
pub fn is_local(addr: SocketAddr) -> bool {
    addr.ip().is_loopback()
}
