//! What a link's client was sent of its roster (message 5) and what it is owed: the first
//! roster the first message 52 asks for (AUTH-16), the rosters a region move holds until
//! the client's roster request (AUTH-13), the slots Sense is read against (AUTH-15), a
//! Sense override to carry once (AH "Type 65"), and the per-tick budget (AUTH-10).

use std::collections::BTreeSet;
use vex_wire::activity::sensor_auth::BODY_BUDGET;
use vex_wire::activity::slot::ClientRef;
use vex_wire::bits::Bits;
use vex_wire::time::Instant;

/// The rosters of one link.
#[derive(Debug, Clone, Default)]
pub struct RosterLedger {
    /// From the join until the first message 5 answers the first message 52 (AUTH-16).
    first_owed: bool,
    /// From a message 22 that moved the member until its roster request: every message
    /// 5 waits, and the request is answered in full (AUTH-13).
    request_owed: bool,
    /// Message 5 bodies sent since the join.
    sent: u32,
    /// The slots the last message 5 registered: Sense is read against them (SR "Client
    /// reports come in"; AUTH-15).
    identity_map: BTreeSet<ClientRef>,
    /// A Sense override the next message 5 carries, once.
    sense_override: Option<(ClientRef, Bits)>,
    /// The client tick of the last message 5 and the bytes sent in it (AUTH-10: every
    /// message 5 of a tick shares the budget).
    tick_bytes: (u64, usize),
    /// When a roster that did not fit its tick goes out.
    deferred: Option<Instant>,
}

impl RosterLedger {
    /// A join: the first roster is owed, none sent.
    pub fn joined(&mut self) {
        self.first_owed = true;
        self.sent = 0;
    }

    /// The first message 52: true when it is owed its first roster, which is then sent.
    pub fn take_first(&mut self) -> bool {
        std::mem::take(&mut self.first_owed)
    }

    /// The member leaves: true when a roster registered its slots (one was sent).
    pub fn leave(&mut self) -> bool {
        !std::mem::take(&mut self.first_owed)
    }

    /// A snapshot request: it is the roster request a region move waits for; without a
    /// patch epoch yet (`epoch_known` false) the first roster is still owed.
    pub fn snapshot_asked(&mut self, epoch_known: bool) {
        self.first_owed = !epoch_known;
        self.request_owed = false;
    }

    /// A region move: every roster waits for the client's roster request.
    pub fn hold_for_request(&mut self) {
        self.request_owed = true;
    }

    /// True while rosters wait for the client's roster request.
    pub fn held(&self) -> bool {
        self.request_owed
    }

    /// Message 5 bodies sent since the join.
    pub fn sent(&self) -> u32 {
        self.sent
    }

    /// A message 5 registering `map` went out: it carried the override, if any.
    pub fn sent_one(&mut self, map: BTreeSet<ClientRef>) {
        self.sent += 1;
        self.sense_override = None;
        self.identity_map = map;
    }

    /// The slots the last message 5 registered.
    pub fn identity_map(&self) -> &BTreeSet<ClientRef> {
        &self.identity_map
    }

    /// The next message 5 overwrites `slot`'s Sense with `bits`.
    pub fn override_sense(&mut self, slot: ClientRef, bits: Bits) {
        self.sense_override = Some((slot, bits));
    }

    /// The Sense override the next message 5 carries.
    pub fn sense_override(&self) -> Option<&(ClientRef, Bits)> {
        self.sense_override.as_ref()
    }

    /// True when a message 5 of `len` bytes fits client tick `tick` beside the ones sent
    /// in it; then it is counted (AUTH-10).
    pub fn fits_tick(&mut self, tick: u64, len: usize) -> bool {
        if self.tick_bytes.0 != tick {
            self.tick_bytes = (tick, 0);
        }
        if self.tick_bytes.1 + len > BODY_BUDGET {
            return false;
        }
        self.tick_bytes.1 += len;
        true
    }

    /// A roster that did not fit goes out at `due`: true when that is a new deadline.
    pub fn defer(&mut self, due: Instant) -> bool {
        let new = self.deferred != Some(due);
        self.deferred = Some(due);
        new
    }

    /// When a deferred roster goes out.
    pub fn deferred(&self) -> Option<Instant> {
        self.deferred
    }

    /// The deferred roster's deadline came.
    pub fn deferred_due(&mut self) {
        self.deferred = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first roster is owed once from the join; a leave before it registered nothing;
    /// a snapshot request ends a region move's hold.
    #[test]
    fn the_first_roster_is_owed_once_and_a_move_holds_until_the_request() {
        let mut r = RosterLedger::default();
        r.joined();
        assert!(!r.clone().leave(), "left before its first roster");
        assert!(r.take_first());
        assert!(!r.take_first());
        r.sent_one(BTreeSet::new());
        assert_eq!(r.sent(), 1);
        assert!(r.clone().leave(), "left after a roster");
        r.hold_for_request();
        assert!(r.held());
        r.snapshot_asked(true);
        assert!(!r.held());
    }

    /// Message 5s of one tick share the budget; the next tick starts it anew.
    #[test]
    fn rosters_of_a_tick_share_its_budget() {
        let mut r = RosterLedger::default();
        assert!(r.fits_tick(1, BODY_BUDGET - 10));
        assert!(!r.fits_tick(1, 11));
        assert!(r.fits_tick(1, 10));
        assert!(r.fits_tick(2, BODY_BUDGET));
        assert!(r.defer(Instant::from_millis(7)));
        assert!(!r.defer(Instant::from_millis(7)));
        r.deferred_due();
        assert_eq!(r.deferred(), None);
    }
}
