//! The in-process transport between the host and the clients: bytes pass at once, or
//! through a [`FaultyLink`] on one of client 1's links, on the virtual clock (issue "Under
//! load and faults": a fault-injecting transport in the harness); client 1's datagrams
//! pass through a [`DatagramPath`], lossy when the wire is made so.

use crate::datagram_fault::{DatagramFault, DatagramPath};
use crate::link_fault::{Direction, FaultyLink, LinkFault, Passed};
use vex_fake_client::LinkKind;
use vex_wire::time::Instant;

/// Where bytes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    /// The client.
    pub client: usize,
    /// Its link.
    pub link: LinkKind,
    /// Which way.
    pub direction: Direction,
}

/// What the transport hands over now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// Bytes for `hop`'s receiver.
    Bytes(Hop, Vec<u8>),
    /// `hop`'s link is cut: both ends see it close.
    Cut(Hop),
}

/// The transport: a fault on one link of client 1 (index 0), and the bytes it holds.
#[derive(Debug, Default)]
pub struct Wire {
    fault: Option<LinkFault>,
    /// The faulted link's machine, once it opened.
    faulty: Option<FaultyLink>,
    /// Bytes held, with when they pass, in the order they came.
    held: Vec<(Instant, Delivery)>,
    /// Client 1's datagrams' path.
    datagrams: DatagramPath,
}

impl Wire {
    /// A transport that passes every byte at once.
    pub fn clean() -> Self {
        Self::default()
    }

    /// A transport with `fault` on client 1's activity link (its lobby link for
    /// [`LinkFault::Reorder`], so its two links' frames cross).
    pub fn faulty(fault: LinkFault) -> Self {
        Self {
            fault: Some(fault),
            ..Self::default()
        }
    }

    /// A transport whose links pass every byte at once, and whose datagrams to and from
    /// client 1 go through `fault`.
    pub fn lossy_datagrams(fault: DatagramFault) -> Self {
        Self {
            datagrams: DatagramPath::new(fault),
            ..Self::default()
        }
    }

    /// A datagram client `client` sent, or was sent, `direction`: what arrives now.
    pub fn datagram(&mut self, client: usize, direction: Direction, bytes: &[u8]) -> Vec<Vec<u8>> {
        if client == 0 {
            self.datagrams.pass(direction, bytes)
        } else {
            vec![bytes.to_vec()]
        }
    }

    fn faulted(&self, client: usize, link: LinkKind) -> bool {
        client == 0 && self.fault.is_some_and(|f| f.link() == link)
    }

    /// `hop`'s link opened at `now`.
    pub fn opened(&mut self, now: Instant, client: usize, link: LinkKind) {
        if let (true, Some(fault)) = (self.faulted(client, link), self.fault) {
            self.faulty = Some(FaultyLink::new(fault, now.millis()));
        }
    }

    /// `bytes` were sent over `hop` at `now`: what arrives at once; the rest is held.
    pub fn send(&mut self, now: Instant, hop: Hop, bytes: &[u8]) -> Vec<Delivery> {
        let faulted = self.faulted(hop.client, hop.link);
        let Some(faulty) = self.faulty.as_mut().filter(|_| faulted) else {
            return vec![Delivery::Bytes(hop, bytes.to_vec())];
        };
        let mut now_out = Vec::new();
        for passed in faulty.pass(now.millis(), hop.direction, bytes) {
            let (after_ms, delivery) = match passed {
                Passed::Bytes { after_ms, bytes } => (after_ms, Delivery::Bytes(hop, bytes)),
                Passed::CutAfter(bytes) => {
                    now_out.push(Delivery::Bytes(hop, bytes));
                    (0, Delivery::Cut(hop))
                }
            };
            // a held frame keeps every later one of its stream behind it
            let behind = self
                .held
                .iter()
                .filter(|(_, d)| matches!(d, Delivery::Bytes(h, _) if *h == hop))
                .map(|(at, _)| *at)
                .max();
            let at = behind.map_or(now + after_ms, |b| b.max(now + after_ms));
            if at <= now {
                now_out.push(delivery);
            } else {
                self.held.push((at, delivery));
            }
        }
        now_out
    }

    /// When held bytes next pass.
    pub fn next_at(&self) -> Option<Instant> {
        self.held.iter().map(|(at, _)| *at).min()
    }

    /// The held deliveries due at `now`, in the order they were held.
    pub fn due(&mut self, now: Instant) -> Vec<Delivery> {
        let (due, held): (Vec<_>, Vec<_>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|(at, _)| *at <= now);
        self.held = held;
        due.into_iter().map(|(_, d)| d).collect()
    }
}
