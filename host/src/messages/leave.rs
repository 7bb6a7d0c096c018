//! Message 15, peer_leave_request: the client releases its activity slot, and the host
//! answers with the state change that implies (AH "peer_leave_request, message 15"; SR
//! "Client reports come in": 15 "sends the message 5 leave delta"; LEAVE-01, LEAVE-02).

use crate::activities::Activities;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::outbound::{Injected, Moment};
use crate::roster;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::SENSOR_AUTH_UPDATE;
use vex_wire::activity::join::JoinRequest;
use vex_wire::activity::session::SessionId;
use vex_wire::activity::small::PeerLeave;
use vex_wire::bits::BitError;

impl Activities {
    /// One message 5 on the link removes the client's roster, and no roster follows it.
    /// A client that leaves before its first roster registered nothing, so nothing is
    /// sent; either way no roster is owed any more, and the link has no joined client.
    pub(crate) fn peer_leave(&mut self, links: &mut Links, link: LinkId, leave: PeerLeave) {
        tracing::info!(%link, reason = format_args!("{:#010x}", leave.reason_hash), "peer leave");
        if !self.policy().answer_leave() {
            return; // the host acts as if message 15 never came
        }
        let Some(l) = links.get_mut(link) else {
            return;
        };
        l.keepalive_at(None); // no push is owed to a client that left
        let Some(binding) = l.binding_mut() else {
            return;
        };
        let rostered = binding.roster_mut().leave();
        let registered = binding.is_joined() && rostered;
        let (join, epoch, session) = (binding.leave(), binding.epoch(), binding.session());
        // the answer is built from what the member had, before it departs
        let answer = match (epoch, join, registered) {
            (Some(epoch), Some(join), true) => {
                Some(self.leave_answer(links, link, session, &join, epoch.0))
            }
            _ => None,
        };
        // the client is gone: no request of its is answered, its lane and slots are free
        // again, and the other members get the table without it
        if self.policy().leave_frees_member() {
            self.depart(links, link, session);
        }
        match answer {
            None => {}
            Some(Ok((body, added))) => {
                links.push_message(link, SENSOR_AUTH_UPDATE, &body);
                self.send_injected(links, link, added);
            }
            Some(Err(error)) => {
                let msg = SENSOR_AUTH_UPDATE;
                links.not_built(link, msg, error);
            }
        }
    }

    /// The leave delta of member `link` of `session`, and what the hook adds after it.
    fn leave_answer(
        &self,
        links: &Links,
        link: LinkId,
        session: SessionId,
        join: &JoinRequest,
        epoch: [u64; 2],
    ) -> Result<(Vec<u8>, Vec<Injected>), BitError> {
        let inputs = self.roster_inputs(link, session, join, epoch);
        let delta = roster::leave_delta(inputs.scenario, inputs.region, epoch);
        let sent = links.binding(link).map_or(0, |b| b.roster().sent());
        let body = self.policy().leave_delta(delta, inputs, sent)?.encode()?;
        Ok((
            body,
            self.outbound().after(Moment::LeaveAnswered { inputs }),
        ))
    }
}
