//! The region an activity client stands in, and its move into another (AH "How the client
//! applies an Auth body": the client reports the transition in message 22, sweeps its
//! roster, then asks for a new one; SR "What each client message gets": 22 commits the
//! region; the HOST-05 and AUTH-13 note of `rules.md`).

use super::roster::named_keys;
use crate::links::Outgoing;
use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::auth::participation::ParticipationAuth;
use vex_wire::activity::body::Body;
use vex_wire::activity::client_state::{ClientState, RegionLeg};
use vex_wire::activity::ids;
use vex_wire::activity::sensor_auth::{DecodedAuthUpdate, RosterDelta};
use vex_wire::activity::slot::TYPE_PARTICIPATION;
use vex_wire::scenario::Scenario;
use vex_wire::time::Instant;

/// How long the client takes between its region report and its roster request: the
/// sweep and the new slice set's load. The pages give no figure; the window only needs to
/// be long enough for a host's message 5 to land in it.
pub(crate) const ROSTER_REQUEST_DELAY_MS: u64 = 200;
/// Slice sets per bubble: a bubble is the selected region divided by 8 (AH "Type 17").
const SLICE_SETS_PER_BUBBLE: i16 = 8;

/// Where the client stands, and its scripted move (HOST-05, AUTH-13).
#[derive(Debug)]
pub(crate) struct Region {
    /// The slice set the client stands in.
    slice_set: i16,
    /// When the client moves, if the script moves it.
    move_at: Option<Instant>,
    /// Message 22 went out, and message 18 goes at this time.
    request_at: Option<Instant>,
    /// The roster request went out at this time, and the roster of the new region is owed.
    owed_since: Option<Instant>,
    /// The transition token of the last report.
    token: u8,
}

impl Region {
    /// A client standing in `slice_set`, the scenario's arrival.
    pub(crate) fn new(slice_set: i16) -> Self {
        Self {
            slice_set,
            move_at: None,
            request_at: None,
            owed_since: None,
            token: 0,
        }
    }

    /// The bubble the client stands in.
    pub(crate) fn bubble(&self) -> u8 {
        u8::try_from(self.slice_set.max(0) / SLICE_SETS_PER_BUBBLE).unwrap_or(u8::MAX)
    }

    /// The client moves at `at`, if the script moves it.
    pub(super) fn schedule(&mut self, at: Option<Instant>) {
        self.move_at = at;
    }

    /// When message 22 is due.
    pub(crate) fn move_due(&self) -> Option<Instant> {
        self.move_at
    }

    /// When the roster request is due.
    pub(crate) fn request_due(&self) -> Option<Instant> {
        self.request_at
    }

    /// True between the region report and the roster request: a message 5 now lands
    /// while no slice set is current (AUTH-13).
    pub(super) fn between_report_and_request(&self) -> bool {
        self.request_at.is_some()
    }

    /// Whether message 5 `m`, arriving between the region report and the roster request,
    /// was built after the host committed the move: the player's type-13 body names the
    /// region reported (facts 4.8: "the client-reported region (msg 22)"). Any other
    /// message 5 there may have crossed message 22 on the wire, sent before the host could
    /// see the move, which SR's hold (from the moment the host commits 22) cannot stop
    /// (AUTH-13).
    pub(super) fn built_after_move(&self, m: &DecodedAuthUpdate) -> bool {
        let player_region = m
            .groups
            .iter()
            .flat_map(|g| &g.objects)
            .filter(|o| o.slot.slot_type == TYPE_PARTICIPATION)
            .filter_map(|o| {
                let mut r = o.content.reader();
                let (_reset, root) = (r.read_bool().ok()?, r.read_bool().ok()?);
                root.then(|| ParticipationAuth::read(&mut r).ok()).flatten()
            })
            .find(|p| p.player_key.is_some())
            .and_then(|p| p.region);
        player_region == Some(i32::from(self.slice_set))
    }

    /// Message 22 at `now`: the client stands in the next bubble of `scenario` (the first
    /// slice set of it), with a new transition token. The caller sweeps the roster.
    pub(crate) fn report_move(&mut self, now: Instant, scenario: &Scenario) -> Outgoing {
        let bubbles = i16::from(scenario.bubble_count.max(1));
        let next = (i16::from(self.bubble()) + 1) % bubbles;
        self.slice_set = next * SLICE_SETS_PER_BUBBLE;
        self.token = self.token.wrapping_add(1);
        self.move_at = None;
        self.request_at = Some(now + ROSTER_REQUEST_DELAY_MS);
        let report = ClientState {
            region: Some(RegionLeg {
                index: self.slice_set,
                hash: 0,
            }),
            transition_token: Some(self.token),
            ..ClientState::default()
        };
        Outgoing {
            message: ids::CLIENT_AUTHORITATIVE_DATA_UPDATE,
            body: report.encode().unwrap_or_default(), // in range by construction
        }
    }

    /// The roster request goes out at `now` (the caller sends message 18).
    pub(crate) fn request_sent(&mut self, now: Instant) {
        self.request_at = None;
        self.owed_since = Some(now);
    }

    /// A roster applied after the request: the first one answers the move. It must name
    /// the objects of the bubble the client moved into (registered, or retired with their
    /// presence bit clear: a host may retire a group), and the type-13 body
    /// carrying the player key, `player_region` when it has one, must name the region
    /// reported (HOST-05: 22 commits the region; facts 4.8: that region is "the
    /// client-reported region (msg 22)"). Spawn and teleport state, which 22 commits too,
    /// come back in no documented field, so they are not judged.
    pub(super) fn on_roster(
        &mut self,
        verdict: &mut Verdict,
        scenario: &Scenario,
        idx: u64,
        (roster, player_region): (Option<&RosterDelta>, Option<i128>),
    ) {
        if self.owed_since.take().is_none() {
            return;
        }
        let bubble = self.bubble();
        let named = roster.map(|r| named_keys(r, bubble)).unwrap_or_default();
        let missing: Vec<String> = scenario
            .objects
            .iter()
            .filter(|o| o.bubble == Some(bubble) && !named.contains(&o.key))
            .map(|o| format!("{:#x}", o.key))
            .collect();
        if !missing.is_empty() {
            let reason = format!(
                "the roster answering the move into bubble {bubble} does not name its objects {}: the region message 22 reported was not committed",
                missing.join(", ")
            );
            verdict.violate(Rule::Host05, Some(idx), None, reason);
        }
        if let Some(region) = player_region.filter(|r| *r != i128::from(self.slice_set)) {
            let reason = format!(
                "the roster answering the move names region {region} in the player's type-13 body, not {} that message 22 reported: the region was not committed",
                self.slice_set
            );
            verdict.violate(Rule::Host05, Some(idx), None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::sensor_auth::SubBlock;

    /// The roster of the built-in scenario's bubble 1: the top-level player group and
    /// bubble 1's object.
    fn bubble_1_roster() -> RosterDelta {
        RosterDelta {
            keys: vec![0xAAAA_0001],
            mask: RosterDelta::mask_for(1),
            states: vec![1],
            sub_blocks: Some(vec![SubBlock {
                bubble: 1,
                keys: vec![0xBBBB_0002],
                mask: RosterDelta::mask_for(1),
                states: vec![1],
            }]),
        }
    }

    /// HOST-05: after a move into bubble 1 (slice set 8), a roster that registers its
    /// objects and names slice set 8 in the player's type-13 body passes, as does one with
    /// no region there; slice set 0 or 9 there, or bubble 1's object left out, is caught;
    /// a roster no move owes is not judged.
    #[test]
    fn the_roster_after_a_move_commits_the_region() {
        let scenario = Scenario::builtin();
        let roster = bubble_1_roster();
        let mut unregistered = roster.clone();
        unregistered.sub_blocks = None;
        let cases = [
            (&roster, Some(8), false),
            (&roster, None, false),
            (&roster, Some(0), true),
            (&roster, Some(9), true),
            (&unregistered, Some(8), true),
        ];
        for (roster, region, caught) in cases {
            let mut r = Region::new(0);
            let mut v = Verdict::new();
            r.report_move(Instant::default(), &scenario);
            r.request_sent(Instant::from_millis(200));
            r.on_roster(&mut v, &scenario, 1, (Some(roster), region));
            let want: &[Rule] = if caught { &[Rule::Host05] } else { &[] };
            assert_eq!(v.rules(), want, "{region:?}");
            r.on_roster(&mut v, &scenario, 2, (Some(roster), Some(0)));
            assert_eq!(v.rules(), want, "owed once");
        }
    }
}
