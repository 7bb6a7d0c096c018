//! The lobby services of the registry the route does not use (NS "The service registry";
//! facts 2.2): every request gets its one answer, in the shape its codec reads, so the
//! client's pending ring never jams (BAP-06): empty bodies for the empty-body services and
//! the ones Sunrise answers empty, protobuf for the protobuf ones, and the account id
//! translation of service 23 from the scenario's player (BAP-11, BAP-22).

use crate::core::{HostCore, LinkId};
use crate::fault::Fault;
use crate::reason::Dropped;
use vex_wire::bap::account_translation::{TranslationRequest, TranslationResponse};
use vex_wire::bap::header::{FrameType, InnerHeader};
use vex_wire::bap::queuez::{SUBSCRIBE, Subscription};
use vex_wire::bap::services::Reply;

impl HostCore {
    /// Answers lobby service `header.service`, whose answer is `reply`.
    pub(crate) fn lobby_service(
        &mut self,
        link: LinkId,
        reply_type: FrameType,
        header: InnerHeader,
        reply: Reply,
        body: &[u8],
    ) {
        if header.service == 44 && self.config.faults.has(Fault::ClanUnanswered) {
            return; // BAP-06, on purpose
        }
        let answer = match reply {
            Reply::Empty => Vec::new(),
            Reply::Protobuf => self.protobuf_answer(header.service),
            Reply::AccountTranslation => self.translation(link, body),
        };
        self.reply(link, reply_type, header, answer);
        // a body that names no family is answered, and nothing is pushed
        if let (SUBSCRIBE, Some(sub)) = (header.service, Subscription::decode(body)) {
            self.push_family(link, sub);
        }
    }

    /// A protobuf answer: no field, as Sunrise answers 21 (facts 2.2). The pages give none
    /// of these schemas, so no field can be filled; an empty message is protobuf.
    fn protobuf_answer(&self, service: u16) -> Vec<u8> {
        let faults = &self.config.faults;
        match service {
            18 if faults.has(Fault::ClientConfigNotProtobuf) => vec![0x0A, 0x05],
            304 if faults.has(Fault::SteamCertificateNotProtobuf) => vec![0x08],
            _ => Vec::new(),
        }
    }

    /// Service 24: the identity of service 23 echoed with the player's account id; a
    /// request that does not decode gets Sunrise's smallest answer, `00 00 FF FF`.
    fn translation(&mut self, link: LinkId, body: &[u8]) -> Vec<u8> {
        let faults = &self.config.faults;
        if faults.has(Fault::AccountTranslationEmpty) {
            return Vec::new();
        }
        let account = self.config.scenario.player.account_soid;
        match TranslationRequest::decode(body) {
            Ok(r) => {
                let echoed = if faults.has(Fault::AccountTranslationWrongIdentity) {
                    r.identity ^ 1
                } else {
                    r.identity
                };
                TranslationResponse::one(echoed, account).encode()
            }
            Err(e) => {
                self.drop_input(link, Dropped::Translation(e));
                TranslationResponse {
                    kinds: [0xFF, 0xFF],
                    entries: Vec::new(),
                }
                .encode()
            }
        }
    }
}
