//! The tokio TCP server: a thin loop that feeds sockets and timers into [`HostCore`]
//! (design "Sans-IO cores"). Lobby and activity links share one listener (SR "Loading into
//! a destination").
//!
//! Every queue is bounded: readers wait when the core is behind, and a link whose peer
//! does not read its frames is closed once its backlog passes
//! [`vex_host::Limits::output_queue_bytes`].

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream, UdpSocket};
use tokio::sync::{mpsc, oneshot};
use vex_host::event::HostEvent;
use vex_host::limits::Limit;
use vex_host::mission::MissionReport;
use vex_host::reason::Closed;
use vex_host::{HostCore, LinkId};
use vex_store::{Answer, Asked, Keeper, Store};
use vex_wire::activity::session::SessionId;
use vex_wire::time::Instant;

/// Bytes read per socket read.
const READ_CHUNK: usize = 16 * 1024;
/// Bytes of queued frames a link's writer joins into one write.
const WRITE_BATCH: usize = 64 * 1024;
/// Reads waiting for the core, across all links.
const INPUT_QUEUE: usize = 256;
/// Pause after a failed accept (for example when out of file descriptors).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);
/// Timers run this late or later are logged: a keepalive due every 2 s that goes out this
/// late is one a load run sees as late.
const LATE_TIMER: Duration = Duration::from_millis(100);

enum Input {
    Bytes(LinkId, Vec<u8>),
    Closed(LinkId),
}

/// How many of the mission stage's last reports the server keeps for [`Control::Events`].
pub const RECENT_REPORTS: usize = 256;

/// What an operator asks of a running server's mission (SR "Where mission scripts plug
/// in": the Studio link and the Reload script button).
#[derive(Debug)]
pub enum Control {
    /// Swap in this script. The answer is the reload's end: swapped in, did not compile,
    /// or refused; a newer reload replaces one still held, whose answer is then dropped.
    Reload {
        /// The new script's text.
        source: String,
        /// Where the answer goes.
        reply: oneshot::Sender<MissionReport>,
    },
    /// What each running instance holds.
    Status {
        /// Where the answer goes.
        reply: oneshot::Sender<Vec<(SessionId, String)>>,
    },
    /// The mission stage's last reports, oldest first.
    Events {
        /// Where the answer goes.
        reply: oneshot::Sender<Vec<MissionReport>>,
    },
}

struct Conn {
    out: mpsc::UnboundedSender<Vec<u8>>,
    /// Bytes sent to the writer and not yet written: the queue's bound.
    queued: Arc<AtomicUsize>,
    reader: tokio::task::JoinHandle<()>,
}

impl Conn {
    /// Queues `frame`; false when the link's backlog would pass `max` bytes.
    fn send(&self, frame: Vec<u8>, max: usize) -> bool {
        let len = frame.len();
        if self.queued.fetch_add(len, Ordering::Relaxed) + len > max {
            return false;
        }
        self.out.send(frame).is_ok()
    }
}

fn spawn_writer(mut w: OwnedWriteHalf, queued: Arc<AtomicUsize>) -> mpsc::UnboundedSender<Vec<u8>> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        let mut next = rx.recv().await;
        while let Some(first) = next.take() {
            let (bytes, after) = batch(first, &mut rx);
            if w.write_all(&bytes).await.is_err() {
                break;
            }
            queued.fetch_sub(bytes.len(), Ordering::Relaxed);
            next = match after {
                Some(frame) => Some(frame),
                None => rx.recv().await,
            };
        }
        let _ = w.shutdown().await;
    });
    tx
}

/// `first` and the frames queued behind it, up to [`WRITE_BATCH`] bytes, as one write: a
/// join burst or a table to every member goes out in one system call and as few segments
/// as it fills, not one of each a frame. The frame that did not fit is returned.
fn batch(
    mut first: Vec<u8>,
    rx: &mut mpsc::UnboundedReceiver<Vec<u8>>,
) -> (Vec<u8>, Option<Vec<u8>>) {
    while first.len() < WRITE_BATCH {
        match rx.try_recv() {
            Ok(frame) if first.len() + frame.len() <= WRITE_BATCH => {
                first.extend_from_slice(&frame);
            }
            Ok(frame) => return (first, Some(frame)),
            Err(_) => break,
        }
    }
    (first, None)
}

fn spawn_reader(
    link: LinkId,
    r: OwnedReadHalf,
    tx: mpsc::Sender<Input>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(chunk) = read_chunk(&r).await {
            if tx.send(Input::Bytes(link, chunk)).await.is_err() {
                return;
            }
        }
        let _ = tx.send(Input::Closed(link)).await;
    })
}

/// The next bytes `r` reads, up to [`READ_CHUNK`]; none once the link closes or fails.
/// The read buffer lives on the stack for the read alone, so a link that waits holds none
/// (issue 26: a buffer kept by each link's reader was most of the host's memory).
async fn read_chunk(r: &OwnedReadHalf) -> Option<Vec<u8>> {
    loop {
        r.readable().await.ok()?;
        let mut buf = [0u8; READ_CHUNK];
        match r.try_read(&mut buf) {
            Ok(0) => return None,
            Ok(n) => return buf.get(..n).map(<[u8]>::to_vec),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return None,
        }
    }
}

fn connect(stream: TcpStream, link: LinkId, tx: mpsc::Sender<Input>) -> Conn {
    let _ = stream.set_nodelay(true);
    let (r, w) = stream.into_split();
    let queued = Arc::new(AtomicUsize::new(0));
    Conn {
        out: spawn_writer(w, queued.clone()),
        queued,
        reader: spawn_reader(link, r, tx),
    }
}

/// Serves `listener` with `core` until `shutdown` completes, and the UDP port of the same
/// address (NS "The engine peer transport"), the lobby's writes kept in memory for the
/// run (an SQLite database in memory, which starts from what `core` holds).
pub async fn serve(
    listener: TcpListener,
    core: HostCore,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let peer = UdpSocket::bind(listener.local_addr()?).await?;
    let (_control, controls) = mpsc::channel(1);
    let store = Store::open("sqlite::memory:")
        .await
        .map_err(std::io::Error::other)?;
    let keeper = Keeper::spawn(store);
    serve_with_control(listener, Some(peer), core, keeper, controls, shutdown).await
}

/// The core's next question for the store: a write, a lookup, a session index, a
/// listing or a question about regions.
fn next_ask(core: &mut HostCore) -> Option<Asked> {
    core.poll_write()
        .map(Asked::Write)
        .or_else(|| core.poll_lookup().map(Asked::Lookup))
        .or_else(|| core.poll_index().map(Asked::Index))
        .or_else(|| core.poll_listing().map(Asked::Listing))
        .or_else(|| core.poll_region_ask().map(Asked::Region))
}

/// Hands the store's `answer` to the core.
fn hand_answer(core: &mut HostCore, now: Instant, answer: Answer) {
    match answer {
        Answer::Written(ticket, written) => core.handle_written(ticket, written),
        Answer::Placed(ticket, placed) => core.handle_placed(ticket, placed),
        Answer::Listed(ticket, listed) => core.handle_listed(ticket, listed),
        Answer::Indexed(ticket, indexed) => core.handle_indexed(ticket, indexed),
        Answer::RegionPlaced {
            session,
            bubble,
            placed,
        } => core.handle_region_placed(session, bubble, placed),
        Answer::Hosted { session, hosted } => core.handle_hosted(now, session, hosted),
    }
}

/// The next datagram on `socket`, or never when there is none.
async fn next_datagram(
    socket: Option<&UdpSocket>,
    buf: &mut [u8],
) -> std::io::Result<(usize, SocketAddr)> {
    match socket {
        Some(socket) => socket.recv_from(buf).await,
        None => std::future::pending().await,
    }
}

/// [`serve`], with the UDP port `peer` (NS "The engine peer transport") when there is one,
/// what the core asks of the lobby's store answered by `keeper` (its writes, and in a
/// shared fleet its lookups, listings and session indexes), taking [`Control`]s of the
/// mission from `controls`.
pub async fn serve_with_control(
    listener: TcpListener,
    peer: Option<UdpSocket>,
    mut core: HostCore,
    mut keeper: Keeper,
    mut controls: mpsc::Receiver<Control>,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let mut datagram = vec![0u8; vex_wire::peer::MAX_DATAGRAM];
    let mut recent: VecDeque<MissionReport> = VecDeque::with_capacity(RECENT_REPORTS);
    let mut reload_reply: Option<oneshot::Sender<MissionReport>> = None;
    let start = tokio::time::Instant::now();
    let now = move || Instant::from_millis(start.elapsed().as_millis() as u64);
    let (in_tx, mut in_rx) = mpsc::channel::<Input>(INPUT_QUEUE);
    let mut conns: BTreeMap<LinkId, Conn> = BTreeMap::new();
    let mut next_link = 1u64;
    tokio::pin!(shutdown);
    loop {
        let deadline = core
            .poll_timeout()
            .map(|t| start + Duration::from_millis(t.millis()));
        let sleep = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let link = LinkId(next_link);
                    next_link += 1;
                    tracing::info!(%link, %peer, "accepted");
                    conns.insert(link, connect(stream, link, in_tx.clone()));
                    core.handle_connect(now(), link);
                }
                Err(e) => {
                    tracing::warn!(%e, "accept failed; retrying");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            },
            Some(input) = in_rx.recv() => match input {
                Input::Bytes(link, bytes) => core.handle_bytes(now(), link, &bytes),
                Input::Closed(link) => {
                    conns.remove(&link);
                    core.handle_close(now(), link);
                }
            },
            received = next_datagram(peer.as_ref(), &mut datagram) => match received {
                Ok((len, SocketAddr::V4(from))) => {
                    core.handle_datagram(now(), from, datagram.get(..len).unwrap_or_default());
                }
                Ok((_, from)) => tracing::warn!(%from, "a datagram from an IPv6 peer: dropped"),
                Err(e) => tracing::warn!(%e, "the UDP port could not read"),
            },
            () = sleep => {
                let late = deadline.map(|d| d.elapsed()).unwrap_or_default();
                if late >= LATE_TIMER {
                    let late_ms = late.as_millis() as u64;
                    tracing::warn!(late_ms, "the host's timers ran late: its loop was busy, or the process was not scheduled");
                }
                core.handle_timeout(now());
            }
            Some(answer) = keeper.answer() => hand_answer(&mut core, now(), answer),
            Some(control) = controls.recv() => match control {
                Control::Reload { source, reply } => {
                    reload_reply = Some(reply);
                    core.request_reload(now(), &source);
                }
                Control::Status { reply } => {
                    let _ = reply.send(core.mission_status());
                }
                Control::Events { reply } => {
                    let _ = reply.send(recent.iter().cloned().collect());
                }
            },
        }
        while let Some(asked) = next_ask(&mut core) {
            if let Err(asked) = keeper.ask(asked)
                && let Some(answer) = asked.unanswered("the store task ended")
            {
                hand_answer(&mut core, now(), answer);
            }
        }
        let mut backlogged = Vec::new();
        let max_queued = core.config().limits.output_queue_bytes;
        while let Some(t) = core.poll_transmit() {
            if let Some(c) = conns.get(&t.link)
                && !c.send(t.bytes, max_queued)
            {
                backlogged.push(t.link);
            }
        }
        while let Some(d) = core.poll_datagram() {
            // a datagram the socket cannot take now is lost, as the network may lose it
            if let Some(socket) = &peer
                && let Err(e) = socket.try_send_to(&d.bytes, d.peer.into())
            {
                tracing::warn!(to = %d.peer, %e, "datagram not sent");
            }
        }
        let mut closing: Vec<LinkId> = Vec::new();
        while let Some(event) = core.poll_event() {
            match event {
                HostEvent::Close { link, .. } => closing.push(link),
                HostEvent::Mission(report) => {
                    let ends_reload = matches!(
                        report,
                        MissionReport::Reloaded
                            | MissionReport::ReloadFailed(_)
                            | MissionReport::ReloadRefused
                    );
                    if ends_reload && let Some(reply) = reload_reply.take() {
                        let _ = reply.send(report.clone());
                    }
                    if recent.len() == RECENT_REPORTS {
                        recent.pop_front();
                    }
                    recent.push_back(report);
                }
                _ => {}
            }
        }
        for link in backlogged {
            let reason = Closed::Limit(Limit::OutputQueue(max_queued));
            tracing::warn!(%link, %reason, "link closed by host");
            closing.push(link);
        }
        for link in closing {
            if let Some(c) = conns.remove(&link) {
                c.reader.abort();
            }
            core.handle_close(now(), link);
        }
    }
    for (_, c) in conns {
        c.reader.abort();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queued_frames_go_out_as_one_write_in_order_up_to_the_batch() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        for frame in [vec![2u8; 3], vec![3u8; 4]] {
            tx.send(frame).unwrap();
        }
        let (bytes, after) = batch(vec![1u8; 2], &mut rx);
        assert_eq!(bytes, [1, 1, 2, 2, 2, 3, 3, 3, 3]);
        assert!(after.is_none(), "nothing was left behind");

        let big = vec![5u8; WRITE_BATCH - 2];
        tx.send(big).unwrap();
        tx.send(vec![6u8; 3]).unwrap();
        let (bytes, after) = batch(vec![4u8; 2], &mut rx);
        assert_eq!(bytes.len(), WRITE_BATCH, "filled to the byte");
        assert!(after.is_none(), "a full batch takes no more");
        assert_eq!(rx.try_recv().unwrap(), [6, 6, 6], "still queued, whole");

        tx.send(vec![8u8; WRITE_BATCH - 1]).unwrap();
        let (bytes, after) = batch(vec![7u8; 2], &mut rx);
        assert_eq!(bytes, [7, 7], "the next frame would pass the batch");
        assert_eq!(
            after.map(|f| f.len()),
            Some(WRITE_BATCH - 1),
            "and comes back whole"
        );
        assert!(rx.try_recv().is_err());
    }
}
