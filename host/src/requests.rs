//! The host's one door for world changes: typed requests commit together, and every
//! member whose roster they change gets one message 5 carrying everything the host holds
//! (SR
//! "Auth state goes out": requests that commit together go out in one push, reported as
//! transport_staged; "What the host pushes on its own": a new committed Auth revision;
//! HOST-19, AUTH-09).

use crate::activities::Activities;
use crate::commit_error::CommitError;
use crate::event::HostEvent;
use crate::exchange::Exchange;
use crate::link::Links;
use crate::roster;
use crate::world::WorldRequest;
use std::collections::BTreeSet;
use vex_wire::activity::session::SessionId;
use vex_wire::activity::slot::ClientRef;
use vex_wire::scenario::Scenario;

/// The bubble of the object that holds `slot` (`None` for a top-level one), when the
/// scenario places it.
fn scenario_of(scenario: &Scenario, slot: &ClientRef) -> Option<Option<u8>> {
    scenario
        .objects
        .iter()
        .find(|o| o.key == slot.key)
        .map(|o| o.bubble)
}

impl Activities {
    /// Commits `requests` to the world of `session`'s activity, all or none. A commit
    /// that changed a body goes in one message 5 to each member whose roster holds a
    /// changed slot, and to no other (HOST-02; a member whose roster waits for its epoch or
    /// a region move's request gets it then), and is
    /// reported as [`HostEvent::Staged`] with the new revision; then the authority resets
    /// and queries, the incidents and the armed teleports (a new member table) it asks for
    /// go to every member. The slots whose body changed.
    pub(crate) fn request(
        &mut self,
        links: &mut Links,
        session: SessionId,
        requests: &[WorldRequest],
    ) -> Result<BTreeSet<ClientRef>, CommitError> {
        let scenario = &self.config.scenario;
        let activity = self
            .map
            .get_mut(&session)
            .ok_or(CommitError::NoActivity(session))?;
        let changed = activity.world_mut().commit(scenario, requests)?;
        if !changed.is_empty() {
            let revision = activity.world().revision();
            for link in activity.member_links() {
                // a member whose roster holds none of the changed slots is owed nothing
                let bubble = roster::bubble_of(self.region_of(link, session));
                let in_roster = |s: &ClientRef| {
                    scenario_of(&self.config.scenario, s)
                        .is_some_and(|b| b.is_none_or(|b| b == bubble))
                };
                if changed.iter().any(in_roster) {
                    self.push_current_roster(links, link);
                }
            }
            links.event(HostEvent::Staged { session, revision });
        }
        for request in requests {
            match request {
                WorldRequest::ResetAuthority => {
                    self.start_exchange(links, session, Exchange::Reset)
                }
                WorldRequest::QueryAuthority => {
                    self.start_exchange(links, session, Exchange::Query)
                }
                WorldRequest::FireIncident(incident) => {
                    self.fire_incident(links, session, incident)
                }
                WorldRequest::ArmTeleport {
                    state,
                    slice_set,
                    slice_hash,
                } => {
                    if let Some(a) = self.map.get_mut(&session) {
                        a.arm_teleport(*state, *slice_set, *slice_hash);
                    }
                    self.publish_membership(links, session, None);
                }
                WorldRequest::SetAuth { .. }
                | WorldRequest::SetAuthField { .. }
                | WorldRequest::ClearAuth { .. }
                | WorldRequest::Retire { .. } => {}
            }
        }
        Ok(changed)
    }
}
