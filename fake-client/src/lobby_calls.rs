//! The lobby calls (NS "The service registry"): with `Script::lobby_calls`, one request on
//! each lobby service of the registry goes out after the lobby hello, and each answer is
//! read as its codec reads it: service 24's list (BAP-11, BAP-22) and the protobuf
//! answers (BAP-21). The empty-body answers are read by codecs that read nothing.

use crate::core::ClientCore;
use crate::link::LinkKind;
use crate::rules::Rule;
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
    self, EQUIP, NO_REVISION, SIGN_IN, SUBSCRIBE, Shape, Status, WsReply, WsRequest,
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
/// family-4 subscription (206), and an equip (403) of an item instance the scenario does
/// not hold, which a host answers with an error and nothing to wait for (WS-01).
const WEB_SERVICE: [u16; 3] = [SIGN_IN, SUBSCRIBE, EQUIP];

/// The item instance the equip names.
const ITEM_INSTANCE: u64 = 1;

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
        for (transaction, opcode) in (1..).zip(WEB_SERVICE) {
            let payload = match opcode {
                SUBSCRIBE => {
                    let root = self.config.scenario.player.account_soid;
                    web_service::subscribe_payload(queuez::ACCOUNT_FAMILY as u8, root)
                }
                EQUIP => web_service::equip_payload(ITEM_INSTANCE),
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

    /// Service 11: the reply reads as its opcode's definition, echoing the opcode and the
    /// transaction (WS-02); the sign-in and the subscription complete (WS-05); a reply
    /// that does not complete names no revision (WS-01).
    fn on_web_service(&mut self, idx: u64, body: &[u8]) {
        let Some((opcode, transaction)) = self.web_service.0.pop_front() else {
            return;
        };
        if let Some((rule, reason)) = ws_breach(opcode, transaction, body) {
            self.verdict.violate(rule, Some(idx), None, reason);
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
            Err((rule, reason)) => return self.verdict.violate(rule, Some(idx), None, reason),
        };
        if kind == Kind::Locate && self.config.script.locate {
            self.found(&reply);
        }
        if let Some((rule, reason)) = matchmaking_breach(kind, &reply) {
            self.verdict.violate(rule, Some(idx), None, reason);
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
    pub(crate) fn on_lobby_answer(&mut self, idx: u64, request: u16, body: &[u8]) {
        if request == matchmaking::REQUEST {
            return self.on_matchmaking(idx, body);
        }
        if request == web_service::REQUEST {
            return self.on_web_service(idx, body);
        }
        let asked = self.translation_request().identity;
        let found = match lobby_reply(request) {
            Some(Reply::AccountTranslation) => translation_breach(asked, body),
            Some(Reply::Protobuf) => protobuf_breach(request, body),
            Some(Reply::Empty) => empty_reply_breach(request, body),
            None => None,
        };
        if let Some((rule, reason)) = found {
            self.verdict.violate(rule, Some(idx), None, reason);
        }
    }
}

/// A rule an answer broke, and why.
type Breach = Option<(Rule, String)>;

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
    Some((Rule::Bap15, reason))
}

/// A protobuf answer to `request` (19, 22, 33, 305) that is not protobuf (BAP-21).
fn protobuf_breach(request: u16, body: &[u8]) -> Breach {
    let e = Unknown::decode(body).err()?;
    let reason = format!(
        "service {} answers {request} with a body that is not protobuf: {e}",
        request + 1
    );
    Some((Rule::Bap21, reason))
}

/// Service 24: not empty (BAP-11), its length what its count says, and the identity
/// `asked` echoed (BAP-22).
fn translation_breach(asked: u64, body: &[u8]) -> Breach {
    match TranslationResponse::decode(body) {
        Err(TranslationError::Empty) => Some((Rule::Bap11, "service 24 is empty".to_string())),
        Err(e) => Some((Rule::Bap22, format!("service 24: {e}"))),
        Ok(r) => {
            let e = r.entries.first().filter(|e| e.identity != asked)?;
            let reason = format!(
                "service 24 translates identity {:#x}, not the {asked:#x} service 23 asked for",
                e.identity
            );
            Some((Rule::Bap22, reason))
        }
    }
}

/// Service 43 to a request of `kind` read as protobuf, or BAP-21.
fn read_matchmaking(kind: Kind, body: &[u8]) -> Result<matchmaking::Reply, (Rule, String)> {
    matchmaking::Reply::decode(body).map_err(|e| {
        let reason = format!(
            "service 43 answers kind {} with a body that is not protobuf: {e}",
            kind.field()
        );
        (Rule::Bap21, reason)
    })
}

/// Service 43 to a request of `kind`: in the kind's shape (MM-01); the
/// configuration's field 4 (MM-03); an advertisement's assignment and id (MM-06).
fn matchmaking_breach(kind: Kind, reply: &matchmaking::Reply) -> Breach {
    let shape = Kind::answered_by(reply);
    let fits = match kind {
        Kind::DeleteAdvertisement | Kind::DeleteRejoin => shape.is_none(),
        Kind::Locate => matches!(shape, None | Some(Kind::Locate)),
        Kind::Configuration | Kind::Advertise => {
            shape.is_none()
                || shape == Some(kind)
                || (kind == Kind::Advertise && shape == Some(Kind::AdvertiseRejoin))
        }
        _ => shape == Some(kind),
    };
    if !fits {
        let reason = format!(
            "service 43 answers kind {} ({kind:?}) in the shape of {shape:?}",
            kind.field()
        );
        return Some((Rule::Mm01, reason));
    }
    if kind == Kind::Configuration && reply.configuration.is_none() {
        let reason = "the configuration reply has no field 4, the one thing the client needs";
        return Some((Rule::Mm03, reason.to_string()));
    }
    let id = reply.advertisement.as_ref().and_then(|a| a.id).unwrap_or(0);
    if kind == Kind::Advertise && (reply.assignment != Some(ASSIGNED) || id == 0) {
        let reason = format!(
            "the advertisement reply sets field 1 to {:?}, not 2, or assigns id {id}",
            reply.assignment
        );
        return Some((Rule::Mm06, reason));
    }
    None
}

/// Service 11 to `opcode` with `transaction`: it reads as the opcode's definition and
/// echoes both (WS-02), and its status breaks nothing ([`status_breach`]).
fn ws_breach(opcode: u16, transaction: u32, body: &[u8]) -> Breach {
    match WsReply::decode(body, Shape::of(opcode)) {
        Err(e) => Some((Rule::Ws02, format!("the reply to opcode {opcode}: {e}"))),
        Ok(r) if (r.opcode, r.transaction) != (opcode, transaction) => Some((
            Rule::Ws02,
            format!(
                "opcode {} transaction {} answers opcode {opcode} transaction {transaction}: the client reads it with another descriptor",
                r.opcode, r.transaction
            ),
        )),
        Ok(WsReply {
            status: Some(s), ..
        }) => status_breach(opcode, s),
        Ok(_) => None,
    }
}

/// What a web-service status breaks, if anything: a call that must complete and did not
/// (WS-05: 0 and 7 complete, 16 is a soft rejection, anything else an error), or a reply
/// that does not complete naming a revision to wait for (WS-01).
fn status_breach(opcode: u16, s: Status) -> Breach {
    let completes = matches!(s.code, 0 | 7);
    if !completes && s.value != NO_REVISION {
        let reason = format!(
            "opcode {opcode} answers status {} with revision {} (not -1): the client parks the failed operation until its family-4 objects reach it",
            s.code, s.value
        );
        return Some((Rule::Ws01, reason));
    }
    if !completes && opcode != EQUIP {
        let kind = if s.code == 16 {
            "a soft rejection"
        } else {
            "an error"
        };
        let reason = format!("opcode {opcode} answers status {}: {kind}", s.code);
        return Some((Rule::Ws05, reason));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::bap::matchmaking::{AdvertisementId, Located, Reply as MmReply};

    fn rule(b: Breach) -> Option<Rule> {
        b.map(|(r, _)| r)
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

    #[test]
    fn every_kind_wants_its_own_shape() {
        let shapes: [(&str, MmReply); 7] = [
            ("empty", MmReply::default()),
            (
                "search",
                MmReply {
                    search: Some(Vec::new()),
                    ..MmReply::default()
                },
            ),
            (
                "configuration",
                MmReply {
                    configuration: Some(Vec::new()),
                    ..MmReply::default()
                },
            ),
            (
                "stats",
                MmReply {
                    live_stats: Some(Vec::new()),
                    ..MmReply::default()
                },
            ),
            (
                "located",
                MmReply {
                    located: Some(Located::default()),
                    ..MmReply::default()
                },
            ),
            (
                "rejoin",
                MmReply {
                    advertisement: Some(AdvertisementId { id: Some(5) }),
                    ..MmReply::default()
                },
            ),
            (
                "advertise",
                MmReply {
                    assignment: Some(ASSIGNED),
                    advertisement: Some(AdvertisementId { id: Some(5) }),
                    ..MmReply::default()
                },
            ),
        ];
        // the shapes each kind takes without MM-01
        let takes = |kind| match kind {
            Kind::Search => vec!["search"],
            Kind::Configuration => vec!["empty", "configuration"],
            Kind::LiveStats => vec!["stats"],
            Kind::Advertise => vec!["empty", "rejoin", "advertise"],
            Kind::AdvertiseRejoin => vec!["rejoin"],
            Kind::Locate => vec!["empty", "located"],
            Kind::DeleteAdvertisement | Kind::DeleteRejoin => vec!["empty"],
        };
        for kind in Kind::ALL {
            for (name, reply) in &shapes {
                let got = rule(matchmaking_breach(kind, reply));
                if takes(kind).contains(name) {
                    assert_ne!(got, Some(Rule::Mm01), "{kind:?} answered {name}");
                } else {
                    assert_eq!(got, Some(Rule::Mm01), "{kind:?} answered {name}");
                }
            }
        }
        assert_eq!(
            rule(matchmaking_breach(Kind::Configuration, &shapes[0].1)),
            Some(Rule::Mm03)
        );
        assert_eq!(
            rule(matchmaking_breach(Kind::Advertise, &shapes[6].1)),
            None
        );
        for (assignment, id) in [
            (None, Some(5)),
            (Some(1), Some(5)),
            (Some(3), Some(5)),
            (Some(ASSIGNED), Some(0)),
            (Some(ASSIGNED), None),
        ] {
            let reply = MmReply {
                assignment,
                advertisement: Some(AdvertisementId { id }),
                ..MmReply::default()
            };
            assert_eq!(
                rule(matchmaking_breach(Kind::Advertise, &reply)),
                Some(Rule::Mm06),
                "{assignment:?} {id:?}"
            );
        }
    }

    #[test]
    fn a_web_service_reply_echoes_its_opcode_and_transaction_in_its_shape() {
        let reply = |opcode, transaction| WsReply {
            opcode,
            transaction,
            status: Some(Status::DONE),
        };
        let good = reply(SUBSCRIBE, 2).encode(Shape::StatusOnly);
        assert_eq!(rule(ws_breach(SUBSCRIBE, 2, &good)), None);
        assert_eq!(
            rule(ws_breach(SUBSCRIBE, 3, &good)),
            Some(Rule::Ws02),
            "another transaction"
        );
        let other = reply(SUBSCRIBE + 1, 2).encode(Shape::StatusOnly);
        assert_eq!(
            rule(ws_breach(SUBSCRIBE, 2, &other)),
            Some(Rule::Ws02),
            "another opcode"
        );
        assert_eq!(
            rule(ws_breach(SUBSCRIBE, 2, &good[..5])),
            Some(Rule::Ws02),
            "no header"
        );
        assert_eq!(
            rule(ws_breach(SUBSCRIBE, 2, &good[..6])),
            Some(Rule::Ws02),
            "no status"
        );
        let pair = reply(EQUIP, 3).encode(Shape::StatusPair);
        assert_eq!(rule(ws_breach(EQUIP, 3, &pair)), None);
        assert_eq!(
            rule(ws_breach(EQUIP, 3, &pair[..8])),
            Some(Rule::Ws02),
            "the pair cut short"
        );
        let header_only = reply(SIGN_IN, 1).encode(Shape::Generic);
        assert_eq!(rule(ws_breach(SIGN_IN, 1, &header_only)), None);
    }

    fn status(code: i32, value: i32) -> Status {
        Status {
            code,
            value,
            flag: false,
        }
    }

    #[test]
    fn statuses_complete_reject_or_fail_and_only_completions_name_revisions() {
        let rule = |opcode, code, value| status_breach(opcode, status(code, value)).map(|b| b.0);
        for code in [0, 7] {
            assert_eq!(rule(SUBSCRIBE, code, NO_REVISION), None, "{code} completes");
            assert_eq!(
                rule(EQUIP, code, 12),
                None,
                "a completion may name a revision"
            );
        }
        for code in [1, 6, 8, 16, 30] {
            assert_eq!(
                rule(SUBSCRIBE, code, NO_REVISION),
                Some(Rule::Ws05),
                "{code}"
            );
            assert_eq!(
                rule(EQUIP, code, NO_REVISION),
                None,
                "the equip is meant to fail"
            );
            assert_eq!(
                rule(EQUIP, code, 0),
                Some(Rule::Ws01),
                "{code} with a revision"
            );
            assert_eq!(
                rule(EQUIP, code, i32::MIN),
                Some(Rule::Ws01),
                "a zero on the wire"
            );
        }
    }
}
