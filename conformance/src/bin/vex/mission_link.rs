//! The running host's mission command link, which `vex mission reload|status|events`
//! talks to (loopback only; SR "Where mission scripts plug in": the Studio link). One line
//! in, answer lines out, then the host closes: `reload` (the file read again), `status` or
//! `events`. Bounded: a few connections at once, a short command, a deadline to send it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc, oneshot};
use vex_host::mission::MissionReport;
use vex_server::bap::Control;

/// The longest command line the link reads.
const MAX_COMMAND: u64 = 64;
/// How long a peer may take to send its command.
const READ_WITHIN: Duration = Duration::from_secs(5);
/// How long a reload may stay held (the swap waits for what is in flight) before the
/// link answers that it is still held.
const RELOAD_WITHIN: Duration = Duration::from_secs(10);
/// Command connections served at once; more wait to be accepted.
const MAX_CONNECTIONS: usize = 8;
/// Pause after a failed accept (for example when out of file descriptors).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);
/// The answer when the host's loop is gone.
const STOPPED: &str = "the host has stopped";

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
pub async fn reload(file: &Path, controls: &mpsc::Sender<Control>) -> String {
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => return format!("cannot read {}: {e}", file.display()),
    };
    let (reply, answer) = oneshot::channel();
    let asked = controls.send(Control::Reload { source, reply }).await;
    if asked.is_err() {
        return STOPPED.into();
    }
    match tokio::time::timeout(RELOAD_WITHIN, answer).await {
        Ok(answer) => reload_line(answer.ok()),
        Err(_) => format!(
            "still held after {} s: the swap waits until nothing is in flight",
            RELOAD_WITHIN.as_secs()
        ),
    }
}

/// Serves the command link on `listener` until the host stops; a peer that is not on
/// this machine is refused.
pub async fn serve_commands(listener: TcpListener, file: PathBuf, controls: mpsc::Sender<Control>) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::warn!(%e, "command link: accept failed; retrying");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
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
            drop(slot);
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
    let mut reader = BufReader::new(read.take(MAX_COMMAND));
    tokio::time::timeout(READ_WITHIN, reader.read_line(&mut line))
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "no command in time"))??;
    let text = match line.trim() {
        "reload" => reload(file, controls).await,
        "status" => status(controls).await,
        "events" => events(controls).await,
        other => format!("unknown command {other:?}: reload, status or events"),
    };
    write.write_all(text.as_bytes()).await?;
    write.write_all(b"\n").await?;
    write.shutdown().await
}

/// Each running activity's mission variables, a line each.
async fn status(controls: &mpsc::Sender<Control>) -> String {
    let (reply, answer) = oneshot::channel();
    let _ = controls.send(Control::Status { reply }).await;
    match answer.await {
        Err(_) => STOPPED.into(),
        Ok(status) if status.is_empty() => "no activity runs the mission".into(),
        Ok(status) => status
            .iter()
            .map(|(session, vars)| format!("session {session:#x}: {vars}"))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The mission stage's last reports, a line each.
async fn events(controls: &mpsc::Sender<Control>) -> String {
    let (reply, answer) = oneshot::channel();
    let _ = controls.send(Control::Events { reply }).await;
    match answer.await {
        Err(_) => STOPPED.into(),
        Ok(events) => events.iter().map(event_line).collect::<Vec<_>>().join("\n"),
    }
}

/// One mission report as a line.
fn event_line(report: &MissionReport) -> String {
    match report {
        MissionReport::Handled {
            session,
            handler,
            requests,
        } => format!("{session:#x} {handler}: {requests} request(s)"),
        MissionReport::Failed {
            session,
            handler,
            error,
        } => format!("{session:#x} {handler} failed: {error}"),
        other => reload_line(Some(other.clone())),
    }
}

/// Whether `addr` is on this machine: the command link listens nowhere else.
pub fn is_local(addr: SocketAddr) -> bool {
    addr.ip().is_loopback()
}
