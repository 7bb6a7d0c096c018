//! The tokio TCP server: a thin loop that feeds sockets and timers into [`HostCore`]
//! (design "Sans-IO cores"). Lobby and activity links share one listener (SR "Loading into
//! a destination").

use crate::core::{HostCore, LinkId};
use crate::event::HostEvent;
use std::collections::BTreeMap;
use std::future::Future;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::mpsc;
use vex_wire::time::Instant;

/// Bytes read per socket read.
const READ_CHUNK: usize = 16 * 1024;

enum Input {
    Bytes(LinkId, Vec<u8>),
    Closed(LinkId),
}

struct Conn {
    out: mpsc::UnboundedSender<Vec<u8>>,
    reader: tokio::task::JoinHandle<()>,
}

fn spawn_writer(mut w: OwnedWriteHalf) -> mpsc::UnboundedSender<Vec<u8>> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        while let Some(frame) = rx.recv().await {
            if w.write_all(&frame).await.is_err() {
                break;
            }
        }
        let _ = w.shutdown().await;
    });
    tx
}

/// Serves `listener` with `core` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    mut core: HostCore,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let start = tokio::time::Instant::now();
    let now = move || Instant::from_millis(start.elapsed().as_millis() as u64);
    let (in_tx, mut in_rx) = mpsc::unbounded_channel::<Input>();
    let mut conns: BTreeMap<LinkId, Conn> = BTreeMap::new();
    let mut next_link = 1u64;
    tokio::pin!(shutdown);
    loop {
        let deadline = core
            .poll_timeout()
            .map(|t| start + std::time::Duration::from_millis(t.millis()));
        let sleep = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => {
                let (stream, peer) = accepted?;
                let _ = stream.set_nodelay(true);
                let link = LinkId(next_link);
                next_link += 1;
                tracing::info!(%link, %peer, "accepted");
                let (mut r, w) = stream.into_split();
                let tx = in_tx.clone();
                let reader = tokio::spawn(async move {
                    let mut buf = vec![0u8; READ_CHUNK];
                    loop {
                        match r.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => {
                                if tx.send(Input::Bytes(link, buf[..n].to_vec())).is_err() {
                                    return;
                                }
                            }
                        }
                    }
                    let _ = tx.send(Input::Closed(link));
                });
                conns.insert(link, Conn { out: spawn_writer(w), reader });
                core.handle_connect(now(), link);
            }
            Some(input) = in_rx.recv() => match input {
                Input::Bytes(link, bytes) => core.handle_bytes(now(), link, &bytes),
                Input::Closed(link) => {
                    conns.remove(&link);
                    core.handle_close(now(), link);
                }
            },
            () = sleep => core.handle_timeout(now()),
        }
        while let Some(t) = core.poll_transmit() {
            if let Some(c) = conns.get(&t.link) {
                let _ = c.out.send(t.bytes);
            }
        }
        while let Some(event) = core.poll_event() {
            if let HostEvent::Close { link, .. } = event {
                if let Some(c) = conns.remove(&link) {
                    c.reader.abort();
                }
                core.handle_close(now(), link);
            }
        }
    }
    for (_, c) in conns {
        c.reader.abort();
    }
    Ok(())
}
