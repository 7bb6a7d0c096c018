//! `vex proxy`: a TCP proxy between clients and a host that faults the links it carries,
//! frame by frame, with the machine the in-process `link.*` cases use
//! (`vex_harness::link_fault`): split at every byte, delay, stall past the 20.5 s window,
//! cut mid-frame, flip a ciphertext bit, replay an encrypted frame, or hold one link so
//! frames cross between a client's two links (issue "Under load and faults"); and the
//! host's UDP port on the same address, its datagrams lost, overtaken or doubled
//! (`proxy_udp.rs`).

use crate::error;
use std::net::SocketAddrV4;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use vex_harness::datagram_fault::DatagramFault;
use vex_harness::link_fault::{Direction, FaultyLink, LinkFault, Passed};

/// `vex proxy`'s arguments.
#[derive(clap::Args)]
pub struct ProxyArgs {
    /// Where clients connect (give the host `--advertise` this address, so the activity
    /// link comes through the proxy too).
    #[arg(long)]
    listen: SocketAddrV4,
    /// The host.
    #[arg(long)]
    target: SocketAddrV4,
    /// The links' fault: split, delay=MS, stall=MS, cut=FRAMES, flip-to-host=N,
    /// flip-to-client=N, replay-to-host=N, replay-to-client=N, reorder=MS (N counts
    /// encrypted frames from 1); none carries every byte as it comes.
    #[arg(long)]
    fault: Option<LinkFault>,
    /// The datagrams' fault, each way for each client: drop=N (every Nth lost),
    /// reorder=N (every Nth overtaken by the next), dup=N (every Nth doubled).
    #[arg(long, default_value = "")]
    udp_fault: DatagramFault,
    /// Fault only the Nth link the proxy carries, counted as each sends its first byte
    /// (1-based: a client's lobby link is 1, its activity link 2); default: every link.
    #[arg(long)]
    on: Option<u64>,
}

/// Carries links until Ctrl-C.
pub async fn run(args: ProxyArgs) -> ExitCode {
    crate::init_logs("info");
    let listener = match TcpListener::bind(args.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("vex proxy: cannot listen at {}: {e}", args.listen);
            return error();
        }
    };
    out!(
        "vex proxy: {} -> {} with {}{}; datagrams with {}",
        args.listen,
        args.target,
        args.fault.map_or("no fault".into(), |f| f.to_string()),
        args.on.map_or(String::new(), |n| format!(" on link {n}")),
        args.udp_fault
    );
    let _udp = tokio::spawn(crate::proxy_udp::relay(
        args.listen,
        args.target,
        args.udp_fault,
    ));
    let start = tokio::time::Instant::now();
    let count = Arc::new(AtomicU64::new(0));
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => return ExitCode::SUCCESS,
            accepted = listener.accept() => {
                let Ok((client, peer)) = accepted else { continue };
                let (count, fault, on, target) = (count.clone(), args.fault, args.on, args.target);
                tokio::spawn(async move {
                    // a link counts once it sends: a reachability check (one connection
                    // opened and closed) is no link
                    if !matches!(client.peek(&mut [0u8; 1]).await, Ok(1..)) {
                        return;
                    }
                    let n = count.fetch_add(1, Ordering::Relaxed) + 1;
                    let fault = fault.filter(|_| on.is_none_or(|on| on == n));
                    tracing::info!(link = n, %peer, fault = ?fault.map(|f| f.to_string()), "carrying");
                    carry(client, target, fault, start).await;
                });
            }
        }
    }
}

/// Carries one link to `target`, through `fault` when it has one.
async fn carry(
    client: TcpStream,
    target: SocketAddrV4,
    fault: Option<LinkFault>,
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
    let now_ms = move || start.elapsed().as_millis() as u64;
    let faulty = fault.map(|f| Arc::new(Mutex::new(FaultyLink::new(f, now_ms()))));
    let (client_r, client_w) = client.into_split();
    let (host_r, host_w) = host.into_split();
    let (cut_tx, cut_rx) = tokio::sync::watch::channel(false);
    let to_host = pump(
        client_r,
        host_w,
        Direction::ToHost,
        faulty.clone(),
        start,
        cut_tx.clone(),
    );
    let to_client = pump(host_r, client_w, Direction::ToClient, faulty, start, cut_tx);
    let mut cut_rx = cut_rx;
    tokio::select! {
        _ = async { tokio::join!(to_host, to_client) } => {}
        _ = cut_rx.wait_for(|cut| *cut) => tracing::info!("the link is cut"),
    }
}

/// Reads `from` and writes to `to` what the fault passes, each write at its time.
async fn pump(
    mut from: OwnedReadHalf,
    to: OwnedWriteHalf,
    direction: Direction,
    faulty: Option<Arc<Mutex<FaultyLink>>>,
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
            Some(f) => f.lock().unwrap_or_else(PoisonError::into_inner).pass(
                start.elapsed().as_millis() as u64,
                direction,
                bytes,
            ),
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
