//! Our host and the emulated client in one loop on a virtual clock, joined for real, for
//! the targets that fuzz one side's traffic after the join.

use std::net::{Ipv4Addr, SocketAddrV4};
use vex_fake_client::{ClientConfig, ClientCore, LinkKind};
use vex_host::{HostConfig, HostCore, HostEvent, LinkId};
use vex_wire::time::Instant;

/// The host links of the client's primary and activity links.
pub const PRIMARY: LinkId = LinkId(1);
pub const ACTIVITY: LinkId = LinkId(2);

/// The two cores and the time.
pub struct Pair {
    pub host: HostCore,
    pub client: ClientCore,
    pub now: Instant,
}

fn host_link(kind: LinkKind) -> LinkId {
    match kind {
        LinkKind::Primary => PRIMARY,
        LinkKind::Activity => ACTIVITY,
    }
}

impl Pair {
    /// A client that has joined the host's activity and had its first roster, or as far as
    /// it got in 3 s.
    pub fn joined() -> Self {
        let address = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1);
        let mut config = ClientConfig::builtin(address);
        config.script.move_region_after_ms = Some(4_000);
        let mut pair = Self {
            host: HostCore::new(HostConfig::builtin(address)),
            client: ClientCore::new(config),
            now: Instant::default(),
        };
        while pair.now.millis() < 3_000 && pair.client.rosters_applied() == 0 {
            pair.advance(10);
        }
        pair
    }

    /// Moves every frame between the two until neither has one left.
    pub fn pump(&mut self) {
        loop {
            let mut moved = false;
            while let Some((kind, _)) = self.client.poll_connect() {
                self.host.handle_connect(self.now, host_link(kind));
                self.client.handle_connected(self.now, kind);
                moved = true;
            }
            while let Some(t) = self.client.poll_transmit() {
                self.host
                    .handle_bytes(self.now, host_link(t.link), &t.bytes);
                moved = true;
            }
            while let Some(t) = self.host.poll_transmit() {
                let kind = if t.link == PRIMARY {
                    LinkKind::Primary
                } else {
                    LinkKind::Activity
                };
                self.client.handle_bytes(self.now, kind, &t.bytes);
                moved = true;
            }
            while let Some(e) = self.host.poll_event() {
                if let HostEvent::Close { link, .. } = e {
                    self.host.handle_close(self.now, link);
                }
            }
            while self.client.poll_received().is_some() {}
            if !moved {
                return;
            }
        }
    }

    /// `ms` of time pass, every timer due firing on both sides.
    pub fn advance(&mut self, ms: u64) {
        self.pump();
        self.now = self.now + ms;
        self.client.handle_timeout(self.now);
        self.host.handle_timeout(self.now);
        self.pump();
    }
}
