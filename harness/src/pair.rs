//! Our host and one emulated client on a virtual clock, joined for real: where the fuzz
//! targets that drive one side's traffic after the join start (`fuzz/`). Frames move
//! through [`crate::in_process::exchange`], as in every in-process run.

use crate::in_process::{exchange, link_id};
use crate::transcript::Transcript;
use crate::wire::Wire;
use std::net::{Ipv4Addr, SocketAddrV4};
use vex_fake_client::{ClientConfig, ClientCore, LinkKind};
use vex_host::{HostConfig, HostCore, HostEvent, LinkId};
use vex_wire::time::Instant;

/// How long [`Pair::joined`] waits for the first roster.
const JOIN_WITHIN_MS: u64 = 3_000;
/// The step [`Pair::joined`] advances the clock by.
const STEP_MS: u64 = 10;
/// When the client moves into the next bubble (message 22), so a run reaches a move.
const MOVE_AFTER_MS: u64 = 4_000;

/// The two cores, the clean wire between them and the time.
pub struct Pair {
    /// Our host.
    pub host: HostCore,
    /// The client, with its transcript.
    part: (ClientCore, Transcript),
    wire: Wire,
    events: Vec<(Instant, HostEvent)>,
    /// The virtual time.
    pub now: Instant,
}

impl Pair {
    /// A client that has joined the host's activity and had its first roster (or as far
    /// as it got in 3 s), and moves region at 4 s.
    pub fn joined() -> Self {
        let address = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1);
        let mut config = ClientConfig::builtin(address);
        config.script.move_region_after_ms = Some(MOVE_AFTER_MS);
        let transcript = Transcript::of(config.script);
        let mut pair = Self {
            host: HostCore::new(HostConfig::builtin(address)),
            part: (ClientCore::new(config), transcript),
            wire: Wire::clean(),
            events: Vec::new(),
            now: Instant::default(),
        };
        while pair.now.millis() < JOIN_WITHIN_MS && pair.client().rosters_applied() == 0 {
            pair.advance(STEP_MS);
        }
        pair
    }

    /// The host link of the client's activity link.
    pub fn activity_link() -> LinkId {
        link_id(0, LinkKind::Activity)
    }

    /// The client.
    pub fn client(&mut self) -> &mut ClientCore {
        &mut self.part.0
    }

    /// Moves every frame between the two until neither has one left.
    pub fn pump(&mut self) {
        while exchange(
            &mut self.host,
            std::slice::from_mut(&mut self.part),
            &mut self.wire,
            self.now,
            &mut self.events,
        ) {}
        self.events.clear();
    }

    /// `ms` of time pass, every timer due firing on both sides.
    pub fn advance(&mut self, ms: u64) {
        self.pump();
        self.now = self.now + ms;
        self.part.0.handle_timeout(self.now);
        self.host.handle_timeout(self.now);
        self.pump();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pair starts joined, its first roster applied, and time moves both sides: in
    /// steps short of every deadline, through the move at 4 s, nothing is reported. (At
    /// 4 s the host program's commit and the client's message 22 cross on the wire: the
    /// crossing roster is no host's to hold, and draws no AUTH-13.)
    #[test]
    fn a_pair_starts_joined_and_keeps_going() {
        let mut p = Pair::joined();
        assert!(p.client().rosters_applied() > 0);
        let at = p.now;
        for _ in 0..500 {
            p.advance(STEP_MS);
        }
        assert_eq!(p.now, at + 5_000);
        assert!(
            p.client().violations().is_empty(),
            "{:?}",
            p.client().violations()
        );
    }
}
