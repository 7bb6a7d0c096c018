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
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::net::TcpListener;
use vex_harness::datagram_fault::DatagramFault;
use vex_harness::link_fault::LinkFault;
use vex_harness::link_proxy::{self, SharedFault};

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
                    let opened_ms = start.elapsed().as_millis() as u64;
                    let faulty = fault.map(|f| SharedFault::new(f, opened_ms));
                    link_proxy::carry(client, target, faulty, start).await;
                });
            }
        }
    }
}
