//! The lobby services of the registry the route does not use (NS "The service registry";
//! facts 2.2): every request gets its one answer, in the shape its codec reads, so the
//! client's pending ring never jams (BAP-06): empty bodies for the empty-body services and
//! the ones Sunrise answers empty, protobuf with the fields each requires for the protobuf
//! ones (`vex_wire::bap::registry_answers`), and the account id
//! translation of service 23 from the scenario's player (BAP-11, BAP-22).

use super::Advertisements;
use super::changes::Changes;
use super::listing::Listing;
use super::pending::{Held, Pending};
use super::placement::Lookup;
use super::stored::{StoredAccount, StoredLobby};
use super::write::Write;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::reason::Dropped;
use std::collections::BTreeMap;
use std::net::SocketAddrV4;
use vex_wire::bap::account_translation::{TranslationRequest, TranslationResponse};
use vex_wire::bap::header::{FrameType, InnerHeader};
use vex_wire::bap::matchmaking::Kind;
use vex_wire::bap::queuez::{SUBSCRIBE, Subscription};
use vex_wire::bap::registry_answers;
use vex_wire::bap::services::Reply;
use vex_wire::scenario::Player;

/// The lobby services a link calls beside the route into an activity, answering for the
/// scenario's player: matchmaking and the advertisements it holds, web-service RPC, the
/// replicated objects, and the rest of the registry. Each answer leaves through the links'
/// outbox.
#[derive(Debug)]
pub(crate) struct LobbyServices {
    /// The matchmaking advertisements (services 42 and 43).
    pub(super) advertisements: Advertisements,
    /// The player every answer is for.
    pub(super) player: Player,
    /// What the store last kept, by account.
    pub(super) accounts: BTreeMap<u64, StoredAccount>,
    /// The calls that change an account, waiting for the store.
    pub(super) changes: Changes,
    /// One of several processes sharing the store: the advertisements live there.
    pub(super) shared: bool,
    /// This process, by the address service 17 names for it.
    pub(super) process: SocketAddrV4,
    /// The service-16 requests waiting for the store to place their activity, with the
    /// host id each asked for.
    lookups: Pending<Lookup, u64>,
    /// The service-42 requests waiting for the store's advertisements, with their kind.
    pub(super) listings: Pending<Listing, Kind>,
}

impl LobbyServices {
    /// No advertisement yet; answers for `player`, from what `stored` holds, as the
    /// process at `process`, `shared` when processes share the store.
    pub(crate) fn new(
        player: Player,
        stored: StoredLobby,
        process: SocketAddrV4,
        shared: bool,
    ) -> Self {
        Self {
            advertisements: Advertisements::default(),
            player,
            accounts: stored
                .accounts
                .into_iter()
                .map(|a| (a.account, a))
                .collect(),
            changes: Changes::default(),
            shared,
            process,
            lookups: Pending::default(),
            listings: Pending::default(),
        }
    }

    /// A fresh name for a held answer: the names of a link's held answers never repeat.
    pub(crate) fn next_ticket(&mut self) -> u64 {
        self.changes.next_call()
    }

    /// Service 16 in a shared fleet: the answer to `held`, asking for `host_id`, waits on
    /// its link for the store to say which process holds the activity
    /// (`super::placement`).
    pub(crate) fn ask_placement(&mut self, links: &mut Links, held: Held, host_id: u64) {
        let ticket = self.next_ticket();
        let lookup = Lookup { ticket, host_id };
        self.lookups.ask(links, ticket, held, host_id, lookup);
    }

    /// The next lookup for the store.
    pub(crate) fn poll_lookup(&mut self) -> Option<Lookup> {
        self.lookups.poll()
    }

    /// The request the lookup `ticket` answers, and the host id it asked for.
    pub(crate) fn placed(&mut self, ticket: u64) -> Option<(Held, u64)> {
        self.lookups.take(ticket)
    }

    /// The next change for the store to keep.
    pub(crate) fn poll_write(&mut self) -> Option<Write> {
        self.changes.poll_write()
    }

    /// Answers registry service `header.service`, whose answer is `reply`.
    pub(crate) fn registry(
        &mut self,
        links: &mut Links,
        link: LinkId,
        reply_type: FrameType,
        header: InnerHeader,
        reply: Reply,
        body: &[u8],
    ) {
        let answer = match reply {
            Reply::Empty => Vec::new(),
            Reply::Protobuf => registry_answers::answer(header.service, body),
            Reply::AccountTranslation => self.translation(links, link, body),
        };
        links.reply(link, reply_type, header, answer);
        // a body that names no family is answered, and nothing is pushed
        if let (SUBSCRIBE, Some(sub)) = (header.service, Subscription::decode(body)) {
            self.push_family(links, link, sub);
        }
    }

    /// Service 24: the identity of service 23 echoed with the player's account id; a
    /// request that does not decode gets Sunrise's smallest answer, `00 00 FF FF`.
    fn translation(&self, links: &mut Links, link: LinkId, body: &[u8]) -> Vec<u8> {
        let account = self.player.account_soid;
        match TranslationRequest::decode(body) {
            Ok(r) => TranslationResponse::one(r.identity, account).encode(),
            Err(e) => {
                links.drop_input(link, Dropped::Translation(e));
                TranslationResponse {
                    kinds: [0xFF, 0xFF],
                    entries: Vec::new(),
                }
                .encode()
            }
        }
    }
}
