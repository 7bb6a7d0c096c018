//! The lobby calls (NS "The service registry"): with `Script::lobby_calls`, one request on
//! each lobby service of the registry goes out after the lobby hello, and each answer is
//! read as its codec reads it: service 24's list (BAP-11, BAP-22) and the protobuf
//! answers (BAP-21). The empty-body answers are read by codecs that read nothing.

use crate::core::ClientCore;
use crate::link::LinkKind;
use crate::rules::{Choice, Rule};
use crate::version_barrier::Parked;
use prost::Message;
use std::collections::VecDeque;
use vex_wire::bap::account_translation::{
    self, TranslationError, TranslationRequest, TranslationResponse,
};
use vex_wire::bap::matchmaking::{
    self, ASSIGNED, AdvertisementRequest, DESCRIPTOR_LEN, DescriptorMessage, Kind, Record, Request,
};
use vex_wire::bap::queuez::{self, Subscription};
use vex_wire::bap::services::{EMPTY_REPLY_REQUESTS, Reply, lobby_reply};
use vex_wire::bap::web_service::{
    self, EQUIP, NO_REVISION, SIGN_IN, SUBSCRIBE, Shape, Status, WsError, WsReply, WsRequest,
};
use vex_wire::lobby::signon::Unknown;
use vex_wire::time::Instant;

/// The lobby services the client calls, in order: subscribe to family 4 (12, 9 bytes,
/// which a service-123 snapshot follows) and unsubscribe
/// (14), client config (18), purchased offers (21), account id translation (23), user
/// message (32), the queue services (34, 36, 38, 40, 48), clan (44), queuez register
/// (121, 4 bytes), relay registration (302), the Steam certificate (304) and 306.
const CALLS: [u16; 16] = [
    12, 14, 18, 21, 23, 32, 34, 36, 38, 40, 44, 48, 121, 302, 304, 306,
];

/// The type bytes of the identity service 23 asks about (facts 2.2 gives the layout, not
/// the values).
const IDENTITY_TYPES: (u8, u8) = (1, 0);

/// The matchmaking requests the client makes (service 42), in order: the configuration, a
/// search and the statistics, then its own advertisement, which a locate must find, and
/// the rejoin advertisement, then both deleted.
const MATCHMAKING: [Kind; 8] = [
    Kind::Configuration,
    Kind::Search,
    Kind::LiveStats,
    Kind::Advertise,
    Kind::Locate,
    Kind::AdvertiseRejoin,
    Kind::DeleteRejoin,
    Kind::DeleteAdvertisement,
];

/// Where a join descriptor's join key starts (NS "The join descriptor": +94).
const JOIN_KEY: usize = 94;

/// The web-service calls the client makes (service 10): the Investment sign-in (503), the
/// family-4 subscription (206), an equip (403) of the first item instance the scenario's
/// character holds, a change whose reply may name the revision that publishes it (WS-01),
/// and an equip of an item instance it does not hold, which a host answers with an error
/// and nothing to wait for.
const WEB_SERVICE: [(u16, Equip); 4] = [
    (SIGN_IN, Equip::Nothing),
    (SUBSCRIBE, Equip::Nothing),
    (EQUIP, Equip::Held),
    (EQUIP, Equip::NotHeld),
];

/// What an equip call names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Equip {
    /// Not an equip.
    Nothing,
    /// The scenario's first item (the item not held when it gives none).
    Held,
    /// [`NOT_HELD`].
    NotHeld,
}

/// The item instance the refused equip names: one no scenario's character holds.
const NOT_HELD: u64 = 1;

/// Lobby calls not answered yet, oldest first: answers come in request order (BAP-16), so
/// each answer is to the front one. Matchmaking keeps each request's kind, the web service
/// its opcode and transaction id.
#[derive(Debug, Clone)]
pub(crate) struct Asked<T>(VecDeque<T>);

impl<T> Default for Asked<T> {
    fn default() -> Self {
        Self(VecDeque::new())
    }
}

impl ClientCore {
    /// Sends every lobby call on the lobby link.
    pub(crate) fn call_lobby(&mut self, now: Instant) {
        for service in CALLS {
            let body = match service {
                queuez::SUBSCRIBE => {
                    self.store.subscribe(queuez::ACCOUNT_FAMILY);
                    self.account_subscription().encode()
                }
                121 => vec![0; 4],
                account_translation::REQUEST => self.translation_request().encode(),
                _ => Vec::new(),
            };
            self.links
                .send_request(now, LinkKind::Primary, service, &body);
        }
        let held = self.config.scenario.lobby.items.first().copied();
        for (transaction, (opcode, equip)) in (1..).zip(WEB_SERVICE) {
            let payload = match (opcode, equip) {
                (SUBSCRIBE, _) => {
                    let root = self.config.scenario.player.account_soid;
                    web_service::subscribe_payload(queuez::ACCOUNT_FAMILY as u8, root)
                }
                (EQUIP, Equip::Held) => web_service::equip_payload(held.unwrap_or(NOT_HELD)),
                (EQUIP, _) => web_service::equip_payload(NOT_HELD),
                _ => Vec::new(),
            };
            let request = WsRequest {
                opcode,
                transaction,
                payload,
            };
            self.links.send_request(
                now,
                LinkKind::Primary,
                web_service::REQUEST,
                &request.encode(),
            );
            self.web_service.0.push_back((opcode, transaction));
        }
        for kind in MATCHMAKING {
            let request = self.matchmaking_request(kind, 0);
            self.links
                .send_request(now, LinkKind::Primary, matchmaking::REQUEST, &request);
            self.matchmaking.0.push_back(kind);
        }
    }

    /// Advertises `session` (`Script::advertise`), once service 7 named it.
    pub(crate) fn advertise_session(&mut self, now: Instant, session: u64) {
        let request = self.matchmaking_request(Kind::Advertise, session);
        self.links
            .send_request(now, LinkKind::Primary, matchmaking::REQUEST, &request);
        self.matchmaking.0.push_back(Kind::Advertise);
    }

    /// Asks matchmaking for a session to join (`Script::locate`).
    pub(crate) fn locate_session(&mut self, now: Instant) {
        let request = self.matchmaking_request(Kind::Locate, 0);
        self.links
            .send_request(now, LinkKind::Primary, matchmaking::REQUEST, &request);
        self.matchmaking.0.push_back(Kind::Locate);
    }

    /// A service-42 body of `kind`; the advertisements carry the client's join
    /// descriptor (NS "The join descriptor"): its member key as the machine id (+0), the
    /// activity `session` in the first 8 bytes of the join key (+94, Vex's own use of it:
    /// the emulated clients join activities through the route, not a peer session), the
    /// rest zero.
    fn matchmaking_request(&self, kind: Kind, session: u64) -> Vec<u8> {
        let advertises = matches!(kind, Kind::Advertise | Kind::AdvertiseRejoin);
        let player = &self.config.scenario.player;
        let mut descriptor = player.member_key.to_be_bytes().to_vec();
        descriptor.resize(DESCRIPTOR_LEN, 0);
        descriptor[JOIN_KEY..JOIN_KEY + 8].copy_from_slice(&session.to_be_bytes());
        Request {
            kind: Some(kind.field()),
            advertisement: advertises.then_some(AdvertisementRequest {
                existing_id: None,
                record: Some(Record {
                    descriptor: Some(DescriptorMessage {
                        bytes: Some(descriptor),
                    }),
                    variant_key: None,
                }),
            }),
        }
        .encode_to_vec()
    }

    /// Service 11: the reply echoes the opcode and the transaction and reads as its
    /// opcode's definition (WS-02); a reply that does not complete names no revision
    /// (WS-01); one that completes naming a revision parks its operation until the
    /// family-4 copy reaches it (`version_barrier.rs`). The reply is frame `idx`, read at
    /// `now`.
    fn on_web_service(&mut self, (idx, now): (u64, Instant), body: &[u8]) {
        let Some((opcode, transaction)) = self.web_service.0.pop_front() else {
            return;
        };
        let status = match read_ws(opcode, transaction, body) {
            Ok(status) => status,
            Err(b) => return self.record(idx, b),
        };
        if let Some(s) = status.filter(|s| matches!(s.code, 0 | 7) && s.value != NO_REVISION) {
            let parked = Parked {
                opcode,
                transaction,
                revision: s.value,
                frame: idx,
                at: now,
            };
            let held = self.store.version(queuez::ACCOUNT_FAMILY);
            self.barrier.park(parked, held);
        }
    }

    /// Records `b`, found in frame `idx`: advisory when it rests on a choice of Vex's.
    fn record(&mut self, idx: u64, b: Found) {
        match b.on {
            Some(choice) => self
                .verdict
                .advise(b.rule, choice, Some(idx), None, b.reason),
            None => self.verdict.violate(b.rule, Some(idx), None, b.reason),
        }
    }

    /// A locate's answer (`Script::locate`): the session its descriptor carries is the one
    /// to join, unless the client was given one.
    fn found(&mut self, reply: &matchmaking::Reply) {
        let bytes = reply
            .located
            .as_ref()
            .and_then(|l| l.descriptor.as_ref())
            .and_then(|d| d.bytes.as_deref());
        let session = bytes
            .and_then(|b| b.get(JOIN_KEY..JOIN_KEY + 8))
            .and_then(|k| k.try_into().ok())
            .map(u64::from_be_bytes)
            .filter(|s| *s != 0);
        match session {
            Some(s) => {
                self.config.join_session.get_or_insert(s);
            }
            None => tracing::info!("matchmaking located no session: the client joins its own"),
        }
    }

    /// Service 43: the reply of the kind asked, in its shape (MM-01); the configuration's
    /// field 4 (MM-03); an advertisement's assignment and id (MM-06).
    fn on_matchmaking(&mut self, idx: u64, body: &[u8]) {
        let Some(kind) = self.matchmaking.0.pop_front() else {
            return;
        };
        let reply = match read_matchmaking(kind, body) {
            Ok(r) => r,
            Err(b) => return self.record(idx, b),
        };
        if kind == Kind::Locate && self.config.script.locate {
            self.found(&reply);
        }
        if let Some(b) = matchmaking_breach(kind, &reply) {
            self.record(idx, b);
        }
    }

    /// Service 12: family 4, rooted at the player's account.
    fn account_subscription(&self) -> Subscription {
        Subscription {
            family: queuez::ACCOUNT_FAMILY as u8,
            root: self.config.scenario.player.account_soid,
        }
    }

    fn translation_request(&self) -> TranslationRequest {
        TranslationRequest {
            count: 1,
            type_a: IDENTITY_TYPES.0,
            type_b: IDENTITY_TYPES.1,
            identity: self.config.scenario.player.steam_id,
        }
    }

    /// The answer to lobby call `request`, read as its codec reads it.
    pub(crate) fn on_lobby_answer(
        &mut self,
        (idx, now): (u64, Instant),
        request: u16,
        body: &[u8],
    ) {
        if request == matchmaking::REQUEST {
            return self.on_matchmaking(idx, body);
        }
        if request == web_service::REQUEST {
            return self.on_web_service((idx, now), body);
        }
        let asked = self.translation_request().identity;
        let found = match lobby_reply(request) {
            Some(Reply::AccountTranslation) => translation_breach(asked, body),
            Some(Reply::Protobuf) => protobuf_breach(request, body),
            Some(Reply::Empty) => empty_reply_breach(request, body),
            None => None,
        };
        if let Some(b) = found {
            self.record(idx, b);
        }
    }
}

/// A rule an answer broke, why, and the choice of Vex's the finding rests on, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    rule: Rule,
    on: Option<Choice>,
    reason: String,
}

impl Found {
    /// A breach of `rule` as the pages or the facts give it.
    fn of(rule: Rule, reason: String) -> Self {
        Self {
            rule,
            on: None,
            reason,
        }
    }

    /// A breach of `rule` that rests on `choice`.
    fn on(rule: Rule, choice: Choice, reason: String) -> Self {
        Self {
            rule,
            on: Some(choice),
            reason,
        }
    }

    /// The rule.
    pub(crate) fn rule(&self) -> Rule {
        self.rule
    }

    /// Why.
    pub(crate) fn reason(&self) -> &str {
        &self.reason
    }
}

/// What an answer broke, if anything.
type Breach = Option<Found>;

/// An answer to `request` with a body where the reply is empty and the client reads
/// nothing from it: services 13, 122, 251 and 303 (BAP-15). Every other empty-body answer
/// is read by a codec that takes any body (BAP-20).
pub(crate) fn empty_reply_breach(request: u16, body: &[u8]) -> Breach {
    if body.is_empty() || !EMPTY_REPLY_REQUESTS.contains(&request) {
        return None;
    }
    let reason = format!(
        "service {} answers {request} with {} bytes; its body is empty, and the client reads nothing from it",
        request + 1,
        body.len()
    );
    Some(Found::of(Rule::Bap15, reason))
}

/// A protobuf answer to `request` (19, 22, 33, 305) that is not protobuf (BAP-21). An
/// empty body is not judged: it is the empty message, which nanopb decodes unless the
/// schema marks a field required ("A missing required field fails the whole message",
/// NS "Protobuf in the client"), and the pages do not give these schemas, so no field can
/// be called missing, nor the body called legal.
fn protobuf_breach(request: u16, body: &[u8]) -> Breach {
    let e = Unknown::decode(body).err()?;
    let reason = format!(
        "service {} answers {request} with a body that is not protobuf: {e}",
        request + 1
    );
    Some(Found::of(Rule::Bap21, reason))
}

/// Service 24: not empty (BAP-11), its length what its count says, and the identity
/// `asked` echoed (BAP-22).
fn translation_breach(asked: u64, body: &[u8]) -> Breach {
    match TranslationResponse::decode(body) {
        Err(TranslationError::Empty) => {
            Some(Found::of(Rule::Bap11, "service 24 is empty".to_string()))
        }
        Err(e) => Some(Found::of(Rule::Bap22, format!("service 24: {e}"))),
        Ok(r) => {
            let e = r.entries.first().filter(|e| e.identity != asked)?;
            let reason = format!(
                "service 24 translates identity {:#x}, not the {asked:#x} service 23 asked for",
                e.identity
            );
            Some(Found::of(Rule::Bap22, reason))
        }
    }
}

/// Service 43 to a request of `kind` read as protobuf: bytes that are not protobuf break
/// BAP-21; protobuf that does not read in the fields Vex gives the reply beyond NS's (5, 7
/// and 8) may be a layout of the host's own.
fn read_matchmaking(kind: Kind, body: &[u8]) -> Result<matchmaking::Reply, Found> {
    matchmaking::Reply::decode(body).map_err(|e| {
        let reason = format!(
            "service 43 answers kind {} with a body that does not read as its reply: {e}",
            kind.field()
        );
        match Unknown::decode(body) {
            Ok(_) => Found::on(Rule::Bap21, Choice::MatchmakingFields, reason),
            Err(_) => Found::of(Rule::Bap21, reason),
        }
    })
}

/// The kind a reply answers by the fields NS numbers: 3, search results (kind 1); 4, the
/// configuration (kind 4); 1, an advertisement's assignment (kind 2, or 5).
fn page_shape(reply: &matchmaking::Reply) -> Option<Kind> {
    if reply.search.is_some() {
        Some(Kind::Search)
    } else if reply.configuration.is_some() {
        Some(Kind::Configuration)
    } else if reply.assignment.is_some() {
        Some(Kind::Advertise)
    } else {
        None
    }
}

/// The kind a reply answers by the fields Vex gives it beyond NS's: 5, an advertisement
/// id (kinds 2 and 5); 7, a located session (kind 7); 8, live statistics (kind 8).
fn vex_shape(reply: &matchmaking::Reply) -> Option<Kind> {
    if reply.located.is_some() {
        Some(Kind::Locate)
    } else if reply.live_stats.is_some() {
        Some(Kind::LiveStats)
    } else if reply.advertisement.is_some() {
        Some(Kind::AdvertiseRejoin)
    } else {
        None
    }
}

/// Service 43 to a request of `kind` (NS "Matchmaking, services 42 and 43"):
/// - MM-01, its kind: a field NS gives another kind (3 search, 4 configuration, 1
///   assignment) answers another request, and a search may omit its empty result list;
///   the two replies NS gives no field for and that may carry one of those (a locate's,
///   the statistics') and Vex's own fields 5, 7 and 8 are judged advisory;
/// - MM-03, the configuration's field 4;
/// - MM-06, a successful advertisement (field 1 is 2) assigns a non-zero id, which sits in
///   Vex's field 5 (advisory); a reply without that success is a refusal, the host's to
///   give.
fn matchmaking_breach(kind: Kind, reply: &matchmaking::Reply) -> Breach {
    let advertises = matches!(kind, Kind::Advertise | Kind::AdvertiseRejoin);
    let known = |k: Kind| !matches!(k, Kind::Locate | Kind::LiveStats);
    match page_shape(reply) {
        Some(shape) if shape != kind && !(advertises && shape == Kind::Advertise) => {
            let reason = format!(
                "service 43 answers kind {} ({kind:?}) with NS's field for {shape:?}",
                kind.field()
            );
            let found = if known(kind) {
                Found::of(Rule::Mm01, reason)
            } else {
                Found::on(Rule::Mm01, Choice::MatchmakingFields, reason)
            };
            return Some(found);
        }
        _ => {}
    }
    if let Some(shape) = vex_shape(reply) {
        let fits = shape == kind || (advertises && shape == Kind::AdvertiseRejoin);
        if !fits {
            let reason = format!(
                "service 43 answers kind {} ({kind:?}) with the field Vex gives {shape:?}",
                kind.field()
            );
            return Some(Found::on(Rule::Mm01, Choice::MatchmakingFields, reason));
        }
    }
    if kind == Kind::Configuration && reply.configuration.is_none() {
        let reason = "the configuration reply has no field 4, the one thing the client needs";
        return Some(Found::of(Rule::Mm03, reason.to_string()));
    }
    let located = reply.located.as_ref().and_then(|l| l.descriptor.as_ref());
    if let Some(len) = located.map(|d| d.bytes.as_ref().map_or(0, Vec::len))
        && len != DESCRIPTOR_LEN
    {
        let reason = format!(
            "the located session's join descriptor is {len} bytes; a join descriptor is exactly {DESCRIPTOR_LEN}"
        );
        return Some(Found::on(Rule::Peer04, Choice::MatchmakingFields, reason));
    }
    let id = reply.advertisement.as_ref().and_then(|a| a.id).unwrap_or(0);
    if kind == Kind::Advertise && reply.assignment == Some(ASSIGNED) && id == 0 {
        let reason = format!(
            "the advertisement reply succeeds (field 1 is 2) and assigns id {id}: a success assigns a non-zero id"
        );
        return Some(Found::on(Rule::Mm06, Choice::MatchmakingFields, reason));
    }
    None
}

/// Service 11 to `opcode` with `transaction` (NS "Web-service RPC, services 10 and 11"):
/// its header echoes both (WS-02); its fields read as the opcode's definition, in the
/// shape Vex gives the opcode's reply (WS-02, advisory); a status that does not complete
/// names no revision (WS-01, advisory: where the status sits is the shape's). A status that
/// refuses the call is the host's answer to give. The reply's status, or what it broke.
fn read_ws(opcode: u16, transaction: u32, body: &[u8]) -> Result<Option<Status>, Found> {
    let shape = Shape::of(opcode);
    match WsReply::decode(body, shape) {
        Err(e @ WsError::Bits { .. }) => Err(Found::on(
            Rule::Ws02,
            Choice::WebServiceReplyShapes,
            format!("the reply to opcode {opcode} does not read as {shape:?}: {e}"),
        )),
        Err(e) => Err(Found::of(
            Rule::Ws02,
            format!("the reply to opcode {opcode}: {e}"),
        )),
        Ok(r) if (r.opcode, r.transaction) != (opcode, transaction) => Err(Found::of(
            Rule::Ws02,
            format!(
                "opcode {} transaction {} answers opcode {opcode} transaction {transaction}: the client reads it with another descriptor",
                r.opcode, r.transaction
            ),
        )),
        Ok(WsReply {
            status: Some(s), ..
        }) => status_breach(opcode, s).map_or(Ok(Some(s)), Err),
        Ok(_) => Ok(None),
    }
}

/// A reply that does not complete (0 and 7 complete) naming a revision to wait for
/// (WS-01: "any other reply sends -1").
fn status_breach(opcode: u16, s: Status) -> Breach {
    let completes = matches!(s.code, 0 | 7);
    (!completes && s.value != NO_REVISION).then(|| {
        let reason = format!(
            "opcode {opcode} answers status {} with revision {} (not -1): the client parks the failed operation until its family-4 objects reach it",
            s.code, s.value
        );
        Found::on(Rule::Ws01, Choice::WebServiceReplyShapes, reason)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::bap::matchmaking::{AdvertisementId, Located, Reply as MmReply};

    fn rule(b: Breach) -> Option<Rule> {
        b.map(|f| f.rule)
    }

    /// The rule and whether the finding is advisory.
    fn found(b: Breach) -> Option<(Rule, bool)> {
        b.map(|f| (f.rule, f.on.is_some()))
    }

    #[test]
    fn each_protobuf_answer_is_judged() {
        for request in [18, 21, 32, 304] {
            for bad in [&[0x0A, 0x05][..], &[0x08], &[0xFF]] {
                assert_eq!(
                    rule(protobuf_breach(request, bad)),
                    Some(Rule::Bap21),
                    "{request} {bad:?}"
                );
            }
            assert_eq!(rule(protobuf_breach(request, &[])), None);
            assert_eq!(
                rule(protobuf_breach(request, &[0x08, 0x01])),
                None,
                "unknown fields are skipped"
            );
        }
    }

    /// BAP-15 on each of the four empty replies, one byte or many; an empty one passes,
    /// and so does a body on an empty-body answer BAP-15 does not name (service 15).
    #[test]
    fn each_empty_reply_is_judged() {
        for request in [12, 121, 250, 302] {
            assert_eq!(rule(empty_reply_breach(request, &[])), None, "{request}");
            for body in [&[0u8][..], &[0xFF; 64]] {
                assert_eq!(
                    rule(empty_reply_breach(request, body)),
                    Some(Rule::Bap15),
                    "{request}: {} bytes",
                    body.len()
                );
            }
        }
        assert_eq!(rule(empty_reply_breach(14, &[0])), None);
    }

    #[test]
    fn the_translation_is_judged_at_each_length_and_field() {
        let good = vex_wire::bap::account_translation::TranslationResponse::one(7, 9).encode();
        assert_eq!(rule(translation_breach(7, &good)), None);
        assert_eq!(
            rule(translation_breach(7, &[0, 0, 0xFF, 0xFF])),
            None,
            "the smallest answer"
        );
        assert_eq!(rule(translation_breach(7, &[])), Some(Rule::Bap11));
        for len in [1, 3, 19] {
            assert_eq!(
                rule(translation_breach(7, &good[..len])),
                Some(Rule::Bap22),
                "{len} bytes"
            );
        }
        let longer = [good.as_slice(), &[0]].concat();
        assert_eq!(
            rule(translation_breach(7, &longer)),
            Some(Rule::Bap22),
            "21 bytes"
        );
        assert_eq!(
            rule(translation_breach(8, &good)),
            Some(Rule::Bap22),
            "another identity"
        );
    }

    /// PEER-04: a located session's join descriptor of 127 or 129 bytes is caught
    /// (advisory: field 7 is Vex's), of 128 not, and a locate that found none says nothing.
    #[test]
    fn a_located_descriptor_is_128_bytes() {
        use vex_wire::bap::matchmaking::DescriptorMessage;
        let located = |len: usize| MmReply {
            located: Some(Located {
                descriptor: Some(DescriptorMessage {
                    bytes: Some(vec![0; len]),
                }),
                ..Located::default()
            }),
            ..MmReply::default()
        };
        for (len, want) in [
            (127, Some((Rule::Peer04, true))),
            (128, None),
            (129, Some((Rule::Peer04, true))),
        ] {
            assert_eq!(
                found(matchmaking_breach(Kind::Locate, &located(len))),
                want,
                "{len}"
            );
        }
    }

    /// MM-01 on NS's fields (3 search, 4 configuration, 1 assignment) is a finding for the
    /// kinds NS gives a reply field; on Vex's (5, 7, 8) and for the other kinds it is
    /// advisory. A search may leave its empty result list out; a delete takes an empty
    /// reply. MM-03: the configuration needs field 4. MM-06: only a success (field 1 is 2)
    /// must assign a non-zero id; a refusal is silent.
    #[test]
    fn every_kind_wants_its_own_shape() {
        let reply = |f: fn(&mut MmReply)| {
            let mut r = MmReply::default();
            f(&mut r);
            r
        };
        let search = reply(|r| r.search = Some(Vec::new()));
        let configuration = reply(|r| r.configuration = Some(Vec::new()));
        let stats = reply(|r| r.live_stats = Some(Vec::new()));
        let located = reply(|r| r.located = Some(Located::default()));
        let rejoin = reply(|r| r.advertisement = Some(AdvertisementId { id: Some(5) }));
        let advertise = reply(|r| {
            r.assignment = Some(ASSIGNED);
            r.advertisement = Some(AdvertisementId { id: Some(5) });
        });
        let empty = MmReply::default();
        let page = Some((Rule::Mm01, false));
        let vex = Some((Rule::Mm01, true));
        let cases = [
            (Kind::Search, &search, None),
            (Kind::Search, &empty, None),
            (Kind::Search, &configuration, page),
            (Kind::Search, &advertise, page),
            (Kind::Search, &located, vex),
            (Kind::Configuration, &configuration, None),
            (Kind::Configuration, &search, page),
            (Kind::Configuration, &stats, vex),
            (Kind::Configuration, &empty, Some((Rule::Mm03, false))),
            (Kind::Advertise, &advertise, None),
            (Kind::Advertise, &rejoin, None),
            (Kind::Advertise, &empty, None),
            (Kind::Advertise, &search, page),
            (Kind::AdvertiseRejoin, &rejoin, None),
            (Kind::AdvertiseRejoin, &configuration, page),
            (Kind::LiveStats, &stats, None),
            (Kind::LiveStats, &empty, None),
            (Kind::LiveStats, &search, vex),
            (Kind::Locate, &located, None),
            (Kind::Locate, &empty, None),
            (Kind::Locate, &configuration, vex),
            (Kind::DeleteAdvertisement, &empty, None),
            (Kind::DeleteRejoin, &empty, None),
            (Kind::DeleteRejoin, &configuration, page),
            (Kind::DeleteAdvertisement, &rejoin, vex),
        ];
        for (kind, reply, want) in cases {
            assert_eq!(
                found(matchmaking_breach(kind, reply)),
                want,
                "{kind:?} {reply:?}"
            );
        }
        for (assignment, id, want) in [
            (None, Some(5), None),
            (Some(1), Some(5), None),
            (Some(3), None, None),
            (Some(ASSIGNED), Some(5), None),
            (Some(ASSIGNED), Some(0), Some((Rule::Mm06, true))),
            (Some(ASSIGNED), None, Some((Rule::Mm06, true))),
        ] {
            let reply = MmReply {
                assignment,
                advertisement: id.map(|id| AdvertisementId { id: Some(id) }),
                ..MmReply::default()
            };
            assert_eq!(
                found(matchmaking_breach(Kind::Advertise, &reply)),
                want,
                "{assignment:?} {id:?}"
            );
        }
    }

    /// A body that is not protobuf is BAP-21 on the pages; protobuf whose field 5 is a
    /// number, where Vex reads a message, is advisory.
    #[test]
    fn a_matchmaking_reply_in_another_layout_is_advisory() {
        let not_protobuf = read_matchmaking(Kind::Search, &[0x0A, 0x05]).unwrap_err();
        assert_eq!((not_protobuf.rule, not_protobuf.on), (Rule::Bap21, None));
        let field_5_varint = read_matchmaking(Kind::Advertise, &[0x28, 0x07]).unwrap_err();
        assert_eq!(
            (field_5_varint.rule, field_5_varint.on),
            (Rule::Bap21, Some(Choice::MatchmakingFields))
        );
    }

    /// WS-02: the header echoes the opcode and the transaction (NS's own words); fields
    /// that do not read in the shape Vex gives the opcode's reply are advisory.
    #[test]
    fn a_web_service_reply_echoes_its_opcode_and_transaction_in_its_shape() {
        let reply = |opcode, transaction| WsReply {
            opcode,
            transaction,
            status: Some(Status::DONE),
        };
        let page = Some((Rule::Ws02, false));
        let vex = Some((Rule::Ws02, true));
        let good = reply(SUBSCRIBE, 2).encode(Shape::StatusOnly);
        assert_eq!(found(read_ws(SUBSCRIBE, 2, &good).err()), None);
        assert_eq!(
            found(read_ws(SUBSCRIBE, 3, &good).err()),
            page,
            "another transaction"
        );
        let other = reply(SUBSCRIBE + 1, 2).encode(Shape::StatusOnly);
        assert_eq!(
            found(read_ws(SUBSCRIBE, 2, &other).err()),
            page,
            "another opcode"
        );
        assert_eq!(
            found(read_ws(SUBSCRIBE, 2, &good[..5]).err()),
            page,
            "no header"
        );
        assert_eq!(
            found(read_ws(SUBSCRIBE, 2, &good[..6]).err()),
            vex,
            "no status"
        );
        let pair = reply(EQUIP, 3).encode(Shape::StatusPair);
        assert_eq!(found(read_ws(EQUIP, 3, &pair).err()), None);
        assert_eq!(
            found(read_ws(EQUIP, 3, &pair[..8]).err()),
            vex,
            "the pair cut short"
        );
        let header_only = reply(SIGN_IN, 1).encode(Shape::Generic);
        assert_eq!(found(read_ws(SIGN_IN, 1, &header_only).err()), None);
    }

    fn status(code: i32, value: i32) -> Status {
        Status {
            code,
            value,
            flag: false,
        }
    }

    /// A status that refuses the call (1, 6, 8, 16, 30) is the host's to give; only one
    /// that names a revision while it does not complete is WS-01 (advisory: where the
    /// status sits is the reply's shape).
    #[test]
    fn statuses_complete_reject_or_fail_and_only_completions_name_revisions() {
        let rule = |opcode, code, value| found(status_breach(opcode, status(code, value)));
        for code in [0, 7] {
            assert_eq!(rule(SUBSCRIBE, code, NO_REVISION), None, "{code} completes");
            assert_eq!(
                rule(EQUIP, code, 12),
                None,
                "a completion may name a revision"
            );
        }
        for code in [1, 6, 8, 16, 30] {
            assert_eq!(rule(SUBSCRIBE, code, NO_REVISION), None, "{code} refuses");
            assert_eq!(rule(EQUIP, code, NO_REVISION), None, "{code} refuses");
            let ws01 = Some((Rule::Ws01, true));
            assert_eq!(rule(EQUIP, code, 0), ws01, "{code} with a revision");
            assert_eq!(rule(EQUIP, code, i32::MIN), ws01, "a zero on the wire");
        }
    }
}
