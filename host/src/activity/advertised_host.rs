//! The host a region record advertises: its citizen record, the 128-byte join descriptor
//! of the session's group host and the online session id (facts 4.10: "8 = 128 + 128×8
//! descriptor bytes + 64 online session id"; NS "The join descriptor"). SR "What the host
//! pushes on its own": a move of the client into another region changes the advertised
//! host, so the member table changes with it and goes out under the next revision.
//!
//! Which records carry it is Vex's choice, after Sunrise (not the pages): the record of
//! each region a member stands in, and no other. What it names is Vex's too: a host
//! process's UDP port (the group host of the region, NS "The engine peer transport"),
//! bdNet (transport method 0), a zero join key (the one the port derives its record keys
//! with), and the session id as machine id and online session id.
//!
//! Which process hosts a region is Vex's choice too ([`AdvertisedHosts`]): a host alone
//! hosts every region of its activities; in a shared fleet (`HostConfig::shared`) the
//! process holding the activity hosts its arrival region, and the store places each other
//! region a member moves into on a live process, as it places activities (README "Several
//! host processes"). So a move into another region can hand the member to another
//! process: its record names that process, and the client associates there.

use std::collections::BTreeMap;
use std::net::SocketAddrV4;
use vex_wire::activity::membership::RegionRecord;
use vex_wire::activity::session::SessionId;
use vex_wire::peer::join_descriptor::JoinDescriptor;
use vex_wire::peer::net_addr::NetAddr;
use zerocopy::IntoBytes;

/// The citizen record a region record carries while a member stands in the region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdvertisedHost {
    descriptor: Vec<u8>,
    online_session_id: u64,
}

impl AdvertisedHost {
    /// The group host of `session` at `address` (the host's UDP port).
    pub fn new(address: SocketAddrV4, session: SessionId) -> Self {
        let id = session.0.to_le_bytes();
        let mut online_session_id = [0u8; 18];
        online_session_id[..8].copy_from_slice(&id);
        let descriptor = JoinDescriptor {
            machine_id: id,
            // bdNet (transport method 0), address id 0, as the port's own group host
            host: NetAddr::direct(address.ip().octets(), address.port(), 0),
            join_key: [0; 16],
            online_session_id,
        };
        Self {
            descriptor: descriptor.as_bytes().to_vec(),
            online_session_id: session.0,
        }
    }

    /// Writes the citizen record into `record`.
    pub fn write(&self, record: &mut RegionRecord) {
        record.citizen_descriptor = Some(self.descriptor.clone());
        record.online_session_id = self.online_session_id;
    }
}

/// The citizen record of each bubble of one activity: the activity's own process's, or
/// the one the store placed the bubble on. A bubble with neither is a missing host record:
/// a table naming it is held back (SR "Timed sends that remain").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdvertisedHosts {
    own: AdvertisedHost,
    /// The bubble the own process hosts in a fleet; `None` for a host alone, which hosts
    /// every bubble.
    own_bubble: Option<u8>,
    placed: BTreeMap<u8, AdvertisedHost>,
}

impl AdvertisedHosts {
    /// A host alone: `own` in every bubble.
    pub fn alone(own: AdvertisedHost) -> Self {
        Self {
            own,
            own_bubble: None,
            placed: BTreeMap::new(),
        }
    }

    /// In a shared fleet: `own` in `arrival`, each other bubble once the store placed it.
    pub fn in_fleet(own: AdvertisedHost, arrival: u8) -> Self {
        Self {
            own,
            own_bubble: Some(arrival),
            placed: BTreeMap::new(),
        }
    }

    /// The record of `bubble`, once there is one.
    pub fn get(&self, bubble: u8) -> Option<&AdvertisedHost> {
        match self.own_bubble {
            None => Some(&self.own),
            Some(own) if own == bubble => Some(&self.own),
            Some(_) => self.placed.get(&bubble),
        }
    }

    /// The store placed `bubble` on the process whose record is `host`.
    pub fn place(&mut self, bubble: u8, host: AdvertisedHost) {
        self.placed.insert(bubble, host);
    }

    /// True when the store placed a bubble of the activity.
    pub fn any_placed(&self) -> bool {
        !self.placed.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn the_record_names_the_hosts_udp_port_over_bdnet() {
        let host = AdvertisedHost::new(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974), SessionId(9));
        let mut record = RegionRecord::seed(3);
        host.write(&mut record);
        let bytes = record.citizen_descriptor.unwrap();
        let d = JoinDescriptor::read(&bytes).unwrap();
        assert_eq!(d.host, NetAddr::direct([127, 0, 0, 1], 30974, 0));
        assert_eq!(bytes[JoinDescriptor::TRANSPORT_METHOD_AT], 0, "bdNet");
        assert_eq!(d.steam_lobby_id(), 9u64.to_le_bytes());
        assert_eq!(record.online_session_id, 9);
    }

    #[test]
    fn alone_every_bubble_is_the_own_process_and_in_a_fleet_only_the_arrival() {
        let at = |port| SocketAddrV4::new(Ipv4Addr::LOCALHOST, port);
        let own = AdvertisedHost::new(at(1), SessionId(9));
        let alone = AdvertisedHosts::alone(own.clone());
        assert_eq!(alone.get(5), Some(&own));
        let mut fleet = AdvertisedHosts::in_fleet(own.clone(), 0);
        assert_eq!(fleet.get(0), Some(&own));
        assert_eq!(fleet.get(1), None, "a missing host record");
        let other = AdvertisedHost::new(at(2), SessionId(9));
        fleet.place(1, other.clone());
        assert_eq!(fleet.get(1), Some(&other));
        assert!(fleet.any_placed() && !alone.any_placed());
    }
}
