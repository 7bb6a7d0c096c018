//! Matchmaking, services 42 and 43 (NS "Matchmaking, services 42 and 43"; the reply
//! shapes are facts from Sunrise, see `vex_wire::bap::matchmaking`): every kind gets the
//! reply of its own shape (MM-01). Advertisements are kept host-wide, each under an id
//! that is never 0 and never reused (MM-05, MM-06), so a client can locate (kind 7) the
//! session another one advertised: in memory for a host alone, in the store when
//! processes share it (`listing.rs`), the answer then waiting for the store. A request
//! that does not decode gets the empty reply, as Sunrise answers it, so the client's ring
//! moves (BAP-06).

use super::LobbyServices;
use super::listing::{Ask, Listed, Listing};
use super::pending::Held;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::reason::Dropped;
use prost::Message;
use vex_wire::bap::header::{FrameType, InnerHeader};
use vex_wire::bap::matchmaking::{
    ASSIGNED, AdvertisementId, DescriptorMessage, Kind, Located, Reply, Request,
};

impl LobbyServices {
    /// Service 42: the reply of the request's kind.
    pub(crate) fn matchmaking(
        &mut self,
        links: &mut Links,
        link: LinkId,
        reply_type: FrameType,
        header: InnerHeader,
        body: &[u8],
    ) {
        let request = Request::decode(body);
        let kind = request
            .as_ref()
            .ok()
            .and_then(|r| r.kind)
            .and_then(Kind::from_field);
        let reply = match (request, kind) {
            (Ok(r), Some(kind)) => {
                if self.shared
                    && let Some(ask) = listing_ask(link, kind, &r)
                {
                    let held = Held {
                        link,
                        reply_type,
                        header,
                    };
                    return self.ask_listing(links, held, kind, ask);
                }
                self.matchmaking_reply(link, kind, &r)
            }
            (request, _) => {
                let why = match request {
                    Err(e) => e.to_string(),
                    Ok(r) => format!("field 2 names no kind: {:?}", r.kind),
                };
                links.drop_input(link, Dropped::Matchmaking(why));
                Reply::default()
            }
        };
        links.reply(link, reply_type, header, reply.encode_to_vec());
    }

    fn matchmaking_reply(&mut self, link: LinkId, kind: Kind, request: &Request) -> Reply {
        match kind {
            Kind::Search => Reply {
                search: Some(Vec::new()),
                ..Reply::default()
            },
            Kind::Configuration => Reply {
                configuration: Some(Vec::new()),
                ..Reply::default()
            },
            Kind::LiveStats => Reply {
                live_stats: Some(Vec::new()),
                ..Reply::default()
            },
            Kind::DeleteAdvertisement | Kind::DeleteRejoin => {
                self.advertisements.delete(link);
                Reply::default()
            }
            Kind::Advertise | Kind::AdvertiseRejoin => {
                let (existing, descriptor) = advertised(request);
                let id = self.advertisements.advertise(link, existing, descriptor);
                advertised_reply(kind, id)
            }
            Kind::Locate => {
                located_reply(self.advertisements.latest().map(|(id, d)| (id, d.to_vec())))
            }
        }
    }

    /// Service 42 in a shared fleet: the answer waits for the store's [`Listed`].
    fn ask_listing(&mut self, links: &mut Links, held: Held, kind: Kind, ask: Ask) {
        let ticket = self.next_ticket();
        let listing = Listing {
            ticket,
            process: self.process,
            ask,
        };
        self.listings.ask(links, ticket, held, kind, listing);
    }

    /// The next question about the advertisements for the store.
    pub(crate) fn poll_listing(&mut self) -> Option<Listing> {
        self.listings.poll()
    }

    /// The store's answer to the listing `ticket`: the service-42 reply of its kind.
    pub(crate) fn listed(&mut self, links: &mut Links, ticket: u64, listed: Listed) {
        let Some((held, kind)) = self.listings.take(ticket) else {
            tracing::warn!(
                ticket,
                "the store answered a listing the lobby did not make"
            );
            return;
        };
        let reply = match listed {
            Listed::Advertised(id) => advertised_reply(kind, id),
            Listed::Located(found) => located_reply(found),
            Listed::Withdrawn => Reply::default(),
            Listed::Failed(why) => {
                tracing::warn!(?kind, %why, "the store kept no listing: the reply carries nothing");
                Reply::default()
            }
        };
        held.answer(links, ticket, reply.encode_to_vec());
    }
}

/// What the store is asked for `kind` in a shared fleet; none for the kinds answered
/// alike by every process.
fn listing_ask(link: LinkId, kind: Kind, request: &Request) -> Option<Ask> {
    match kind {
        Kind::Advertise | Kind::AdvertiseRejoin => {
            let (existing, descriptor) = advertised(request);
            Some(Ask::Advertise {
                link: link.0,
                existing,
                descriptor,
            })
        }
        Kind::DeleteAdvertisement | Kind::DeleteRejoin => Some(Ask::Withdraw { link: link.0 }),
        Kind::Locate => Some(Ask::Locate),
        Kind::Search | Kind::Configuration | Kind::LiveStats => None,
    }
}

/// The id an advertisement request names (0 names none) and its join descriptor.
fn advertised(request: &Request) -> (Option<u64>, Vec<u8>) {
    let ad = request.advertisement.clone().unwrap_or_default();
    let descriptor = ad
        .record
        .and_then(|r| r.descriptor)
        .and_then(|d| d.bytes)
        .unwrap_or_default();
    (ad.existing_id.filter(|i| *i != 0), descriptor)
}

/// The reply keeping an advertisement under `id`: assigned, for a session advertisement.
fn advertised_reply(kind: Kind, id: u64) -> Reply {
    Reply {
        advertisement: Some(AdvertisementId { id: Some(id) }),
        assignment: (kind == Kind::Advertise).then_some(ASSIGNED),
        ..Reply::default()
    }
}

/// The reply to a locate: the advertisement found, if any.
fn located_reply(found: Option<(u64, Vec<u8>)>) -> Reply {
    Reply {
        located: found.map(|(id, bytes)| Located {
            id: Some(id),
            descriptor: Some(DescriptorMessage { bytes: Some(bytes) }),
        }),
        ..Reply::default()
    }
}
