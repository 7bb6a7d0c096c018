//! Message 22, client_authoritative_data_update: the report of the client's own state,
//! committed as a delta into its member record (SR "What each client message gets",
//! "Client reports come in": the host sees the committed after-image; HOST-05, AUTH-13).

use crate::activities::Activities;
use crate::event::WorldEvent;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::reason::Dropped;
use vex_wire::activity::client_state::ClientState;
use vex_wire::activity::ids::CLIENT_AUTHORITATIVE_DATA_UPDATE;

impl Activities {
    /// Commits region, spawn and teleport state. A changed member table goes to every
    /// member (MEMBER-03). A region move raises the event and holds every message 5 on the
    /// link until the client's roster request, which is answered in full with the new
    /// region's roster (the HOST-05 and AUTH-13 note of `rules.md`).
    pub(crate) fn client_state(&mut self, links: &mut Links, link: LinkId, report: ClientState) {
        let msg = CLIENT_AUTHORITATIVE_DATA_UPDATE;
        let Some(session) = self.joined_session(links, link) else {
            return links.drop_input(link, Dropped::NotJoined(msg));
        };
        if !self.policy().commit_client_state() {
            return;
        }
        let arrival = self.config.scenario.arrival_slice_set;
        let bubbles = self.config.scenario.bubble_count;
        if let Some(leg) = report.region
            && leg.index >= 0
            && crate::roster::bubble_of(leg.index) >= bubbles
        {
            return links.drop_input(link, Dropped::RegionOutside(leg.index));
        }
        let from = self.region_of(link, session);
        let Some(committed) = self
            .map
            .get_mut(&session)
            .and_then(|a| a.commit_client_state(link, &report, arrival))
        else {
            return links.drop_input(link, Dropped::NotJoined(msg));
        };
        if committed.region_moved {
            self.place_missing_region(session);
        }
        if committed.table_changed {
            self.publish_membership(links, session, None);
        }
        if committed.region_moved {
            if let Some(b) = links.binding_mut(link) {
                b.replication_mut().wait(); // its advertised host changed (SR "What the host pushes")
            }
            let to = self.region_of(link, session);
            self.world_event(links, WorldEvent::RegionChanged { link, from, to });
            if !self.policy().hold_rosters_for_region_request() {
                return self.push_current_roster(links, link);
            }
            if let Some(b) = links.binding_mut(link) {
                b.roster_mut().hold_for_request();
            }
        }
    }
}
