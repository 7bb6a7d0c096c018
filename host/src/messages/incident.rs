//! Message 19, incidents both ways (SR "What each client message gets": 19 is decoded and
//! passed to the host runtime; "Auth state goes out": the host sends an incident through
//! the same output slot; AH "incident, message 19": no acknowledgement; HOST-13, HOST-18).

use crate::activities::Activities;
use crate::event::WorldEvent;
use crate::link::Links;
use crate::link_id::LinkId;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::INCIDENT;
use vex_wire::activity::incident::Incident;
use vex_wire::activity::session::SessionId;

impl Activities {
    /// A member's incident, decoded into an event; nothing goes back (HOST-13, HOST-18).
    pub(crate) fn incident(&mut self, links: &mut Links, link: LinkId, incident: Incident) {
        self.world_event(
            links,
            WorldEvent::Incident {
                link,
                definition: incident.definition,
                targets: incident.targets.len(),
                payload: incident.payload.len(),
            },
        );
    }

    /// `incident` to every joined member of `session`; the request was checked when it
    /// committed.
    pub(crate) fn fire_incident(
        &mut self,
        links: &mut Links,
        session: SessionId,
        incident: &Incident,
    ) {
        let msg = INCIDENT;
        let body = match incident.encode() {
            Ok(b) => b,
            Err(error) => {
                return tracing::warn!(%error, "incident not built");
            }
        };
        let Some(activity) = self.map.get(&session) else {
            return;
        };
        for link in activity.member_links() {
            if self.joined_session(links, link) == Some(session) {
                links.push_message(link, msg, &body);
            }
        }
    }
}
