//! Message 15, peer_leave_request: the client releases its activity slot, and the host
//! answers with the state change that implies (AH "peer_leave_request, message 15"; SR
//! "Client reports come in": 15 "sends the message 5 leave delta"; LEAVE-01, LEAVE-02).

use crate::core::{HostCore, LinkId};
use crate::fault::Fault;
use crate::roster;
use vex_wire::activity::ids::SENSOR_AUTH_UPDATE;
use vex_wire::activity::small::PeerLeave;

impl HostCore {
    /// One message 5 on the link removes the client's roster, and no roster follows it.
    /// A client that leaves before its first roster registered nothing, so nothing is
    /// sent; either way no roster is owed any more, and the link has no joined client.
    pub(crate) fn peer_leave(&mut self, link: LinkId, payload: &[u8]) {
        let leave = match PeerLeave::decode(payload) {
            Ok(l) => l,
            Err(e) => return self.drop_input(link, format!("peer_leave_request: {e}")),
        };
        tracing::info!(%link, reason = format_args!("{:#010x}", leave.reason_hash), "peer leave");
        let faults = &self.config.faults;
        if faults.has(Fault::LeaveIgnored) {
            return; // the host acts as if message 15 never came
        }
        let Some(binding) = self.links.get_mut(&link).and_then(|l| l.binding.as_mut()) else {
            return;
        };
        let registered = binding.join.is_some() && !binding.roster_owed;
        binding.roster_owed = false;
        // the client is gone: no request of its is answered, its lane and slots are free
        // again, and the other members get the table without it
        let (join, epoch, session) = (binding.join.take(), binding.epoch, binding.session);
        self.depart(link, session);
        let (Some(epoch), Some(join), true) = (epoch, join, registered) else {
            return;
        };
        let faults = &self.config.faults;
        let scenario = &self.config.scenario;
        let mut bodies = Vec::new();
        let delta = if faults.has(Fault::LeaveKeepsPresence) {
            roster::sensor_auth(scenario, &join, epoch.0).map(|mut m| {
                m.groups.clear();
                m
            })
        } else {
            Ok(roster::leave_delta(scenario, epoch.0))
        };
        bodies.push(delta.and_then(|m| m.encode()));
        if faults.has(Fault::RosterAfterLeave) {
            bodies.push(roster::sensor_auth(scenario, &join, epoch.0).and_then(|m| m.encode()));
        }
        for body in bodies {
            match body {
                Ok(body) => self.push_message(link, SENSOR_AUTH_UPDATE, body),
                Err(e) => self.drop_input(link, format!("leave delta not built: {e}")),
            }
        }
    }
}
