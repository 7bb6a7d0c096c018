//! `vex proxy`'s datagrams: the host's UDP port relayed on the proxy's own address (a
//! client that reaches the host through the proxy sends its QoS probes and association
//! there), each client's datagrams both ways through its own
//! [`DatagramPath`](vex_harness::datagram_fault::DatagramPath): lost, overtaken or doubled
//! as `--udp-fault` says.

use std::collections::BTreeMap;
use std::net::{SocketAddr, SocketAddrV4};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::net::UdpSocket;
use vex_harness::datagram_fault::{DatagramFault, DatagramPath};
use vex_harness::link_fault::Direction;
use vex_wire::peer::MAX_DATAGRAM;

/// The clients relayed at once; a datagram from one more is dropped.
const MAX_CLIENTS: usize = 4_096;

type Path = Arc<Mutex<DatagramPath>>;

/// Relays datagrams between clients at `listen` and the host's port at `target` until
/// the task is dropped; a port that cannot be bound is logged and nothing is relayed.
pub async fn relay(listen: SocketAddrV4, target: SocketAddrV4, fault: DatagramFault) {
    let socket = match UdpSocket::bind(listen).await {
        Ok(s) => Arc::new(s),
        Err(e) => return tracing::warn!(%listen, %e, "no UDP relay: the port cannot be bound"),
    };
    let mut clients: BTreeMap<SocketAddr, (Arc<UdpSocket>, Path)> = BTreeMap::new();
    let mut buf = vec![0u8; MAX_DATAGRAM];
    loop {
        let Ok((n, from)) = socket.recv_from(&mut buf).await else {
            continue;
        };
        let bytes = buf.get(..n).unwrap_or_default();
        if !clients.contains_key(&from) {
            if clients.len() >= MAX_CLIENTS {
                tracing::warn!(%from, "a datagram from one client too many: dropped");
                continue;
            }
            match upstream(target).await {
                Ok(up) => {
                    let path = Arc::new(Mutex::new(DatagramPath::new(fault)));
                    tokio::spawn(back(up.clone(), socket.clone(), from, path.clone()));
                    clients.insert(from, (up, path));
                }
                Err(e) => {
                    tracing::warn!(%target, %e, "the host's UDP port cannot be reached");
                    continue;
                }
            }
        }
        if let Some((up, path)) = clients.get(&from) {
            for datagram in pass(path, Direction::ToHost, bytes) {
                let _ = up.send(&datagram).await;
            }
        }
    }
}

/// A socket of the proxy's own that talks to the host's port only.
async fn upstream(target: SocketAddrV4) -> std::io::Result<Arc<UdpSocket>> {
    let up = UdpSocket::bind((std::net::Ipv4Addr::UNSPECIFIED, 0)).await?;
    up.connect(target).await?;
    Ok(Arc::new(up))
}

/// The host's datagrams to the client at `client`, through its path.
async fn back(up: Arc<UdpSocket>, socket: Arc<UdpSocket>, client: SocketAddr, path: Path) {
    let mut buf = vec![0u8; MAX_DATAGRAM];
    while let Ok(n) = up.recv(&mut buf).await {
        for datagram in pass(&path, Direction::ToClient, buf.get(..n).unwrap_or_default()) {
            let _ = socket.send_to(&datagram, client).await;
        }
    }
}

fn pass(path: &Path, direction: Direction, bytes: &[u8]) -> Vec<Vec<u8>> {
    path.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .pass(direction, bytes)
}
