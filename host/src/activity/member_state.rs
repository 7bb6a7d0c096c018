//! What a member's message 22 committed: the region it stands in, its transition token,
//! its spawn and teleport state (SR "What each client message gets": 22 commits region,
//! spawn and teleport state; facts 4.10 and 4.11: the table carries a transition token per
//! member lane in each region record, and the host's spawn and teleport state in its tail).

use vex_wire::activity::client_state::{ClientState, LEAVING_REGION, SpawnState, TeleportState};
use vex_wire::activity::membership::{HostTail, REGION_INDEX_STRIDE, RegionRecord};

/// A member's committed client state: the after-image of every message 22 so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemberState {
    /// The slice set the member stands in, once it reported one.
    pub region: Option<i16>,
    /// The member's transition token, once it reported one.
    pub transition_token: Option<u8>,
    /// Its spawn state, once reported.
    pub spawn: Option<SpawnState>,
    /// Its teleport state, once reported.
    pub teleport: Option<TeleportState>,
}

impl MemberState {
    /// The slice set the member stands in: the one it reported, else `arrival`.
    pub fn region_or(&self, arrival: i16) -> i16 {
        self.region.unwrap_or(arrival)
    }

    /// Applies message 22 as a delta: a part the body leaves out keeps its value, and the
    /// region the client reports on its way out (-1) is no move. True when the region
    /// moved away from where the member stood (`arrival` before any report).
    pub fn commit(&mut self, report: &ClientState, arrival: i16) -> bool {
        let before = self.region_or(arrival);
        if let Some(leg) = report.region.filter(|l| l.index != LEAVING_REGION) {
            self.region = Some(leg.index);
        }
        self.transition_token = report.transition_token.or(self.transition_token);
        self.spawn = report.spawn.or(self.spawn);
        self.teleport = report.teleport.or(self.teleport);
        self.region_or(arrival) != before
    }

    /// Writes the member's transition token into the record of the bubble it stands in,
    /// at its `lane`.
    pub fn write_token(&self, regions: &mut [RegionRecord], lane: usize) {
        let (Some(region), Some(token)) = (self.region, self.transition_token) else {
            return;
        };
        let bubble = usize::try_from(i32::from(region) / REGION_INDEX_STRIDE).unwrap_or(usize::MAX);
        if let Some(t) = regions
            .get_mut(bubble)
            .and_then(|r| r.transition_tokens.get_mut(lane))
        {
            *t = token;
        }
    }

    /// Writes the member's spawn and teleport state into the host tail.
    pub fn write_host_tail(&self, tail: &mut HostTail) {
        if let Some(s) = self.spawn {
            tail.spawn_state = s.state;
            tail.spawn_opaque_byte = s.opaque_8;
            tail.spawn_opaque_value = s.opaque_64;
        }
        if let Some(t) = self.teleport {
            tail.teleport_state = t.state;
            tail.teleport_token = t.token;
            tail.teleport_slice_set = t.slice_set;
            tail.teleport_slice_hash = t.slice_hash;
        }
    }
}
