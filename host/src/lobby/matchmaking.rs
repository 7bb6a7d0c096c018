//! Matchmaking, services 42 and 43 (NS "Matchmaking, services 42 and 43"; the reply
//! shapes are facts from Sunrise, see `vex_wire::bap::matchmaking`): every kind gets the
//! reply of its own shape (MM-01). Advertisements are kept host-wide, each under an id
//! that is never 0 and never reused (MM-05, MM-06), so a client can locate (kind 7) the
//! session another one advertised; a request that does not decode gets the empty reply,
//! as Sunrise answers it, so the client's ring moves (BAP-06).

use super::LobbyServices;
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
            (Ok(r), Some(kind)) => self.matchmaking_reply(link, kind, &r),
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
        let mut reply = Reply::default();
        match kind {
            Kind::Search => reply.search = Some(Vec::new()),
            Kind::Configuration => reply.configuration = Some(Vec::new()),
            Kind::LiveStats => reply.live_stats = Some(Vec::new()),
            Kind::DeleteAdvertisement | Kind::DeleteRejoin => self.advertisements.delete(link),
            Kind::Advertise | Kind::AdvertiseRejoin => {
                let ad = request.advertisement.clone().unwrap_or_default();
                let descriptor = ad
                    .record
                    .and_then(|r| r.descriptor)
                    .and_then(|d| d.bytes)
                    .unwrap_or_default();
                let id = self.advertisements.advertise(
                    link,
                    ad.existing_id.filter(|i| *i != 0),
                    descriptor,
                );
                reply.advertisement = Some(AdvertisementId { id: Some(id) });
                if kind == Kind::Advertise {
                    reply.assignment = Some(ASSIGNED);
                }
            }
            Kind::Locate => {
                reply.located = self.advertisements.latest().map(|(id, d)| Located {
                    id: Some(id),
                    descriptor: Some(DescriptorMessage {
                        bytes: Some(d.to_vec()),
                    }),
                });
            }
        }
        reply
    }
}
