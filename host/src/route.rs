//! The BAP services of the route into an activity: channel start (30/31), the secure
//! hello (25/26), the host lookup (16/17), the host request (6/7) and echo (250/251).
//!
//! SR "Loading into a destination"; NS "bdLobby BAP"; facts 1.2, 1.3, 1.5, 2.2, 5.

use crate::activity::Activity;
use crate::activity::advertised_host::{AdvertisedHost, AdvertisedHosts};
use crate::core::HostCore;
use crate::link::Binding;
use crate::link_id::LinkId;
use crate::lobby::Placed;
use crate::lobby::pending::Held;
use crate::outbound::Moment;
use crate::reason::Dropped;
use crate::session_index::{IndexAsk, Indexed};
use rand_core::RngCore;
use std::net::SocketAddrV4;
use vex_wire::activity::selection::{DescriptorBits, SelectionRequest};
use vex_wire::activity::session::SessionId;
use vex_wire::bap::header::{FrameType, InnerHeader};
use vex_wire::bap::secure::{ChannelSecrets, Role, SecureChannel, seal_hello};
use vex_wire::bap::services::{
    CHANNEL_START, ECHO, HELLO, HELLO_RESPONSE, HOST_LOOKUP, HOST_LOOKUP_RESPONSE, HOST_REQUEST,
    HOST_RESPONSE, HostLookup, HostLookupResponse, HostResponse, lobby_reply,
};
use vex_wire::bap::{matchmaking, web_service};
use vex_wire::time::Instant;

impl HostCore {
    /// Answers one BAP request (BAP-06: every request gets exactly one response).
    pub(crate) fn handle_service(
        &mut self,
        now: Instant,
        link: LinkId,
        reply_type: FrameType,
        header: InnerHeader,
        body: &[u8],
    ) {
        match header.service {
            // facts 1.5: the client checks only the length of service 31, so it is an echo
            CHANNEL_START => self.links.reply(link, reply_type, header, body.to_vec()),
            HELLO => self.hello(link, reply_type, header),
            HOST_LOOKUP => self.host_lookup(link, reply_type, header, body),
            HOST_REQUEST => self.host_request(now, link, reply_type, header, body),
            // BAP-15: the echo's answer is empty; the client reads nothing from it
            ECHO => self.links.reply(link, reply_type, header, Vec::new()),
            matchmaking::REQUEST => {
                self.lobby
                    .matchmaking(&mut self.links, link, reply_type, header, body)
            }
            web_service::REQUEST | web_service::SERVER_REQUEST => {
                self.lobby
                    .web_service(&mut self.links, link, reply_type, header, body)
            }
            service => match lobby_reply(service) {
                Some(reply) => {
                    let links = &mut self.links;
                    self.lobby
                        .registry(links, link, reply_type, header, reply, body)
                }
                None => self.links.drop_input(link, Dropped::NoHandler(service)),
            },
        }
    }

    /// Service 25: answers with the 84-byte service-26 envelope holding this link's own
    /// session key and base nonce, then arms encryption (facts 1.3). A repeated hello is
    /// answered again and re-arms the channel. The hello body is not enforced (facts 1.2).
    fn hello(&mut self, link: LinkId, reply_type: FrameType, header: InnerHeader) {
        let mut secrets = ChannelSecrets {
            base_nonce: [0; 12],
            session_key: [0; 16],
        };
        let mut iv = [0u8; 16];
        self.rng.fill_bytes(&mut secrets.base_nonce);
        self.rng.fill_bytes(&mut secrets.session_key);
        self.rng.fill_bytes(&mut iv);
        secrets.base_nonce = self.policy().base_nonce(secrets.base_nonce);
        let body = seal_hello(&self.config.signon, iv, &secrets).to_vec();
        self.links
            .respond(link, reply_type, HELLO_RESPONSE, header.task, body);
        if let Some(l) = self.links.get_mut(link) {
            l.secure_with(SecureChannel::new(&secrets, Role::Host));
        }
    }

    /// Service 16: echoes the id with this host's own listener address (BAP-12), or, in a
    /// shared fleet, the address of the process the store places the activity on
    /// (`lobby::placement`), answered by [`Self::handle_placed`].
    fn host_lookup(
        &mut self,
        link: LinkId,
        reply_type: FrameType,
        header: InnerHeader,
        body: &[u8],
    ) {
        let host_id = match HostLookup::decode(body) {
            Ok(req) => req.host_id,
            Err(e) => {
                // facts 5.3: Sunrise answers a bad size with an empty 17 so the ring moves.
                self.links.drop_input(link, Dropped::Lookup(e));
                return self.answer_lookup(link, reply_type, header, Vec::new());
            }
        };
        if self.config.shared {
            let held = Held {
                link,
                reply_type,
                header,
            };
            return self.lobby.ask_placement(&mut self.links, held, host_id);
        }
        let body = lookup_answer(host_id, self.config.advertised);
        self.answer_lookup(link, reply_type, header, body);
    }

    /// Service 17 with `body`, then what the outbound hook adds once it is out.
    fn answer_lookup(
        &mut self,
        link: LinkId,
        reply_type: FrameType,
        header: InnerHeader,
        body: Vec<u8>,
    ) {
        self.links
            .respond(link, reply_type, HOST_LOOKUP_RESPONSE, header.task, body);
        self.activities
            .inject(&mut self.links, link, Moment::LookupAnswered);
    }

    /// The store placed the lookup `ticket`'s activity: its service 17 names that process,
    /// or this one when the store could not place it.
    pub fn handle_placed(&mut self, ticket: u64, placed: Placed) {
        let Some((held, host_id)) = self.lobby.placed(ticket) else {
            tracing::warn!(ticket, "the store answered a lookup the host did not make");
            return;
        };
        let address = match placed {
            Placed::At(address) => address,
            Placed::Failed(why) => {
                tracing::warn!(host_id, %why, "the store placed no activity: this process holds it");
                self.config.advertised
            }
        };
        held.answer(&mut self.links, ticket, lookup_answer(host_id, address));
        self.activities
            .inject(&mut self.links, held.link, Moment::LookupAnswered);
    }

    /// A session id of the account's shape: account half, class 0x0020, index (ENV-09).
    /// The 16-bit index skips 0, the ids of live activities and any id a link is still
    /// bound to, so ids stay unique however many sessions come and go (ENV-08).
    fn new_session_id(&mut self) -> SessionId {
        let account = self.config.scenario.player.account_soid;
        let shape = |index: u16| SessionId::shaped(account, index);
        let mut index = self.next_session_index;
        for _ in 0..u16::MAX {
            if !self.session_in_use(shape(index)) {
                break;
            }
            index = index.checked_add(1).unwrap_or(1);
        }
        self.next_session_index = index.checked_add(1).unwrap_or(1);
        self.policy().session_id(shape(index))
    }

    /// True when `session` is a live activity's or a link is bound to it.
    fn session_in_use(&self, session: SessionId) -> bool {
        self.activities.get(session).is_some() || self.links.names_session(session)
    }

    /// Service 6: always answered with service 7 (BAP-14); a malformed request falls back
    /// to the scenario's own selection. The link that asked owns the new session, unless
    /// it asked in plaintext: that is answered with no side effect (facts 1.5). In a
    /// shared fleet the answer waits for the store to count the session's index
    /// ([`Self::handle_indexed`]).
    fn host_request(
        &mut self,
        _now: Instant,
        link: LinkId,
        reply_type: FrameType,
        header: InnerHeader,
        body: &[u8],
    ) {
        let descriptor = match SelectionRequest::decode_service6(body) {
            Ok(req) => req.descriptor,
            Err(e) => {
                self.links.drop_input(link, Dropped::Selection(e));
                if !self.policy().answer_malformed_selection() {
                    return;
                }
                self.config
                    .scenario
                    .destination
                    .to_bits()
                    .unwrap_or_default()
            }
        };
        if self.config.shared && reply_type == FrameType::Encrypted {
            let held = Held {
                link,
                reply_type,
                header,
            };
            return self.ask_session_index(held, descriptor);
        }
        let session = self.new_session_id();
        let body = HostResponse::new(session.0).encode();
        self.links
            .respond(link, reply_type, HOST_RESPONSE, header.task, body);
        if reply_type != FrameType::Encrypted {
            return self.links.drop_input(link, Dropped::PlaintextHostRequest);
        }
        self.open_session(link, session, descriptor);
    }

    /// Service 6 in a shared fleet: the answer to `held` waits on its link for the
    /// store's index of the new session (`session_index`).
    fn ask_session_index(&mut self, held: Held, descriptor: DescriptorBits) {
        let ticket = self.lobby.next_ticket();
        let account_half = SessionId(self.config.scenario.player.account_soid).account_half();
        let ask = IndexAsk {
            ticket,
            account_half,
        };
        self.session_indexes
            .ask(&mut self.links, ticket, held, descriptor, ask);
    }

    /// The store counted the index of the session the service-6 request `ticket` makes:
    /// service 7 names it (this process counts one itself when the store could not, or
    /// when the index is one a session here still holds), and the session opens.
    pub fn handle_indexed(&mut self, ticket: u64, indexed: Indexed) {
        let Some((held, descriptor)) = self.session_indexes.take(ticket) else {
            tracing::warn!(
                ticket,
                "the store answered an index the host did not ask for"
            );
            return;
        };
        let account = self.config.scenario.player.account_soid;
        let counted = match indexed {
            Indexed::Next(index) => {
                Some(self.policy().session_id(SessionId::shaped(account, index)))
            }
            Indexed::Failed(why) => {
                tracing::warn!(%why, "the store counted no session index: this process counts it");
                None
            }
        };
        let session = match counted.filter(|s| !self.session_in_use(*s)) {
            Some(session) => session,
            None => self.new_session_id(),
        };
        held.answer(
            &mut self.links,
            ticket,
            HostResponse::new(session.0).encode(),
        );
        self.open_session(held.link, session, descriptor);
    }

    /// `link` owns the new `session`, which names `descriptor`: bound to it, its activity
    /// made, and any session it was bound to before left.
    fn open_session(&mut self, link: LinkId, session: SessionId, descriptor: DescriptorBits) {
        let Some(l) = self.links.get_mut(link) else {
            return;
        };
        l.keepalive_at(None); // a new session has no accepted join yet
        let previous = self.links.bind(link, Binding::new(session, descriptor));
        let own = AdvertisedHost::new(self.config.advertised, session);
        let arrival = self.config.scenario.arrival_slice_set;
        let advertised = if self.config.shared {
            AdvertisedHosts::in_fleet(own, crate::roster::bubble_of(arrival))
        } else {
            AdvertisedHosts::alone(own)
        };
        let activity = Activity::new(session, link, advertised, arrival);
        self.activities.map.insert(session, activity);
        if let Some(previous) = previous {
            self.activities
                .depart(&mut self.links, link, previous.session());
            self.activities
                .depart(&mut self.links, link, previous.private_session());
        }
        self.activities
            .inject(&mut self.links, link, Moment::SessionCreated);
    }
}

/// Service 17's body: `host_id` echoed with the listener at `address` (BAP-12).
fn lookup_answer(host_id: u64, address: SocketAddrV4) -> Vec<u8> {
    HostLookupResponse {
        host_id,
        address: *address.ip(),
        reserved: 0,
        port: address.port(),
    }
    .encode()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HostConfig;
    use crate::link::Link;

    #[test]
    fn session_index_wraps_past_zero_and_skips_live_ids() {
        let mut h = HostCore::new(HostConfig::builtin(HostConfig::default_address()));
        h.next_session_index = u16::MAX;
        let last = h.new_session_id();
        assert_eq!(last.index(), 0xFFFF);
        let taken = SessionId(last.0 & !0xFFFF | 1);
        let own = AdvertisedHost::new(HostConfig::default_address(), taken);
        let advertised = AdvertisedHosts::alone(own);
        let activity = Activity::new(taken, LinkId(1), advertised, 0);
        h.activities.map.insert(taken, activity);
        let next = h.new_session_id();
        assert_eq!(
            next.index(),
            2,
            "index 0 is skipped, and 1 is a live activity's"
        );
    }

    #[test]
    fn a_session_a_link_still_names_is_not_given_again() {
        let mut h = HostCore::new(HostConfig::builtin(HostConfig::default_address()));
        h.next_session_index = 7;
        let named = h.new_session_id();
        h.next_session_index = 7;
        let link = LinkId(1);
        let limits = h.config.limits;
        h.links
            .insert(link, Link::new(link, Instant::from_millis(0), &limits));
        // bound, with no activity: as after a leave whose activity then ended
        h.links
            .bind(link, Binding::new(named, DescriptorBits::default()));
        assert!(h.activities.get(named).is_none());
        assert_eq!(h.new_session_id().index(), 8, "index 7 is still named");

        h.links.remove(link);
        h.next_session_index = 7;
        assert_eq!(
            h.new_session_id(),
            named,
            "once the link is gone it is free"
        );
    }
}
