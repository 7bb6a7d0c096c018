//! One TCP link carried between a client and a host through a [`LinkFault`], in real time:
//! `vex proxy` carries every link it accepts this way, and `vex check --target` puts it in
//! line on member 1's link, so a stranger's host meets the faults the in-process `link.*`
//! cases put on our own (issue "Every case against any host": link faults).

use crate::link_fault::{Direction, FaultyLink, LinkFault, Passed};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// One link's fault, shared by the proxy that carries the link and the run that judges
/// it, which asks whether it fired.
#[derive(Debug, Clone)]
pub struct SharedFault(Arc<Mutex<FaultyLink>>);

impl SharedFault {
    /// `fault` on a link opened at `opened_ms` of its proxy's clock.
    pub fn new(fault: LinkFault, opened_ms: u64) -> Self {
        Self(Arc::new(Mutex::new(FaultyLink::new(fault, opened_ms))))
    }

    /// Whether the fault has changed anything yet ([`FaultyLink::fired`]).
    pub fn fired(&self) -> bool {
        self.lock().fired()
    }

    /// The link the fault is on ([`LinkFault::link`]).
    pub fn link(&self) -> vex_fake_client::LinkKind {
        self.lock().fault().link()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FaultyLink> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Carries `client`'s link to `target`, through `fault` when it has one; the fault's times
/// count from `start`. Returns when either side closed or the fault cut the link.
pub async fn carry(
    client: TcpStream,
    target: SocketAddrV4,
    faulty: Option<SharedFault>,
    start: tokio::time::Instant,
) {
    let host = match TcpStream::connect(target).await {
        Ok(h) => h,
        Err(e) => {
            tracing::warn!(%target, %e, "the host cannot be reached; the link is closed");
            return;
        }
    };
    let _ = (client.set_nodelay(true), host.set_nodelay(true));
    let (client_r, client_w) = client.into_split();
    let (host_r, host_w) = host.into_split();
    let (cut_tx, mut cut_rx) = tokio::sync::watch::channel(false);
    let to_host = pump(
        client_r,
        host_w,
        Direction::ToHost,
        faulty.clone(),
        start,
        cut_tx.clone(),
    );
    let to_client = pump(host_r, client_w, Direction::ToClient, faulty, start, cut_tx);
    tokio::select! {
        _ = async { tokio::join!(to_host, to_client) } => {}
        _ = cut_rx.wait_for(|cut| *cut) => tracing::info!("the link is cut"),
    }
}

/// A link to `target` through `fault`: a proxy on a loopback port of its own carries the
/// one connection made to it, and the stream returned is that connection. The fault's
/// times count from when the link opened, as 0.
pub async fn connect_through(
    target: SocketAddrV4,
    fault: SharedFault,
) -> std::io::Result<TcpStream> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let at = listener.local_addr()?;
    let (client, accepted) = tokio::join!(TcpStream::connect(at), listener.accept());
    let (proxy_side, _) = accepted?;
    tokio::spawn(carry(
        proxy_side,
        target,
        Some(fault),
        tokio::time::Instant::now(),
    ));
    client
}

/// Reads `from` and writes to `to` what the fault passes, each write at its time.
async fn pump(
    mut from: OwnedReadHalf,
    to: OwnedWriteHalf,
    direction: Direction,
    faulty: Option<SharedFault>,
    start: tokio::time::Instant,
    cut: tokio::sync::watch::Sender<bool>,
) {
    let (tx, rx) = mpsc::unbounded_channel::<(tokio::time::Instant, Passed)>();
    let writer = tokio::spawn(write_in_time(to, rx, cut));
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = from.read(&mut buf).await {
        let Some(bytes) = buf.get(..n).filter(|b| !b.is_empty()) else {
            break;
        };
        let now = tokio::time::Instant::now();
        let passed = match &faulty {
            Some(f) => f
                .lock()
                .pass(start.elapsed().as_millis() as u64, direction, bytes),
            None => vec![Passed::Bytes {
                after_ms: 0,
                bytes: bytes.to_vec(),
            }],
        };
        for p in passed {
            let after = match &p {
                Passed::Bytes { after_ms, .. } => *after_ms,
                Passed::CutAfter(_) => 0,
            };
            if tx.send((now + Duration::from_millis(after), p)).is_err() {
                return;
            }
        }
    }
    drop(tx);
    let _ = writer.await;
}

/// Writes each passed piece no sooner than its time and never before the one before it;
/// a cut writes its bytes and ends the link.
async fn write_in_time(
    mut to: OwnedWriteHalf,
    mut rx: mpsc::UnboundedReceiver<(tokio::time::Instant, Passed)>,
    cut: tokio::sync::watch::Sender<bool>,
) {
    while let Some((at, passed)) = rx.recv().await {
        tokio::time::sleep_until(at).await;
        let (bytes, last) = match passed {
            Passed::Bytes { bytes, .. } => (bytes, false),
            Passed::CutAfter(bytes) => (bytes, true),
        };
        if to.write_all(&bytes).await.is_err() || last {
            let _ = cut.send(last);
            break;
        }
    }
    let _ = to.shutdown().await;
}
