//! The lobby calls (NS "The service registry"): with `Script::lobby_calls`, one request on
//! each lobby service of the registry goes out after the lobby hello, and each answer is
//! read as its codec reads it: service 24's list (BAP-11, BAP-22) and the protobuf
//! answers (BAP-21). The empty-body answers are read by codecs that read nothing.

use crate::core::ClientCore;
use crate::link::LinkKind;
use crate::rules::Rule;
use prost::Message;
use vex_wire::bap::account_translation::{
    self, TranslationError, TranslationRequest, TranslationResponse,
};
use vex_wire::bap::queuez::{self, Subscription};
use vex_wire::bap::services::{Reply, lobby_reply};
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
        match lobby_reply(request) {
            Some(Reply::AccountTranslation) => self.on_translation(idx, body),
            Some(Reply::Protobuf) => {
                if let Err(e) = Unknown::decode(body) {
                    let reason = format!(
                        "service {} answers {request} with a body that is not protobuf: {e}",
                        request + 1
                    );
                    self.verdict.violate(Rule::Bap21, Some(idx), None, reason);
                }
            }
            Some(Reply::Empty) | None => {}
        }
    }

    /// Service 24: not empty (BAP-11), its length what its count says, and the identity
    /// asked for echoed (BAP-22).
    fn on_translation(&mut self, idx: u64, body: &[u8]) {
        let (rule, reason) = match TranslationResponse::decode(body) {
            Err(TranslationError::Empty) => (Rule::Bap11, "service 24 is empty".to_string()),
            Err(e) => (Rule::Bap22, format!("service 24: {e}")),
            Ok(r) => {
                let asked = self.translation_request().identity;
                match r.entries.first() {
                    Some(e) if e.identity != asked => (
                        Rule::Bap22,
                        format!(
                            "service 24 translates identity {:#x}, not the {asked:#x} service 23 asked for",
                            e.identity
                        ),
                    ),
                    _ => return,
                }
            }
        };
        self.verdict.violate(rule, Some(idx), None, reason);
    }
}
