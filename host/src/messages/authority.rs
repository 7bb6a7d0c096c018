//! Entity-slot authority between the host and its members (SR "What each client message
//! gets": 27 gets a purge notice that keeps the client's mask and reason; 29, 31 and 32
//! are recorded as the answers to the host's 28 and 30; 33 releases authority; "What the
//! host pushes on its own": an authority reset or query the host started; HOST-08,
//! HOST-16, HOST-17).

use crate::activities::Activities;
use crate::event::WorldEvent;
use crate::exchange::Exchange;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::reason::Dropped;
use vex_wire::activity::authority::{
    Abdication, AuthorityToken, BubbleMaskAnswer, FullMaskAnswer, Purge,
};
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::{
    ABDICATE_AUTHORITY, AUTHORITY_BUBBLE_MASK, AUTHORITY_FULL_MASK, PURGE_NOTICE, QUERY_AUTHORITY,
    RESET_AUTHORITY, RESET_AUTHORITY_ACK,
};
use vex_wire::activity::session::SessionId;

impl Activities {
    /// Starts `exchange` with every joined member of `session`, each with a token of its
    /// own, which its answer must carry.
    pub(crate) fn start_exchange(
        &mut self,
        links: &mut Links,
        session: SessionId,
        exchange: Exchange,
    ) {
        let Some(activity) = self.map.get(&session) else {
            return;
        };
        for link in activity.member_links() {
            let Some(b) = links.binding_mut(link) else {
                continue;
            };
            if !b.is_joined() {
                continue;
            }
            let token = b.authority_mut().start(exchange);
            let msg = match exchange {
                Exchange::Reset => RESET_AUTHORITY,
                Exchange::Query => QUERY_AUTHORITY,
            };
            match AuthorityToken(token).encode() {
                Ok(body) => links.push_message(link, msg, &body),
                Err(error) => links.not_built(link, msg, error),
            }
        }
    }

    /// True when `link` has `exchange` with `token` outstanding; a 32 or 29 ends it.
    fn answers(
        &mut self,
        links: &mut Links,
        link: LinkId,
        exchange: Exchange,
        token: u32,
        ends: bool,
    ) -> bool {
        let binding = links.binding_mut(link);
        binding.is_some_and(|b| b.authority_mut().answers(exchange, token, ends))
    }

    /// Message 27: the purge notice (message 25) keeps the client's mask and reason
    /// (HOST-08).
    pub(crate) fn purge_request(&mut self, links: &mut Links, link: LinkId, purge: Purge) {
        let slots = purge.mask.count();
        let Some(notice) = self.policy().purge_notice(purge) else {
            return;
        };
        match notice.encode() {
            Ok(body) => links.push_message(link, PURGE_NOTICE, &body),
            Err(error) => {
                let msg = PURGE_NOTICE;
                return links.not_built(link, msg, error);
            }
        }
        self.world_event(links, WorldEvent::PurgeRequested { link, slots });
    }

    /// Message 29: the answer to the host's reset with its token, recorded (HOST-16).
    pub(crate) fn reset_acknowledged(
        &mut self,
        links: &mut Links,
        link: LinkId,
        AuthorityToken(token): AuthorityToken,
    ) {
        let msg = RESET_AUTHORITY_ACK;
        if !self.answers(links, link, Exchange::Reset, token, true) {
            return links.drop_input(link, Dropped::UnknownToken { msg, token });
        }
        self.world_event(links, WorldEvent::AuthorityReset { link, token });
    }

    /// Message 31: one bubble's part of the answer to the host's query, recorded
    /// (HOST-16).
    pub(crate) fn bubble_mask_answered(
        &mut self,
        links: &mut Links,
        link: LinkId,
        answer: BubbleMaskAnswer,
    ) {
        let msg = AUTHORITY_BUBBLE_MASK;
        let token = answer.token;
        if !self.answers(links, link, Exchange::Query, token, false) {
            return links.drop_input(link, Dropped::UnknownToken { msg, token });
        }
        let (bubble, slots) = (answer.selector, answer.mask.count());
        self.world_event(
            links,
            WorldEvent::AuthorityInBubble {
                link,
                token,
                bubble,
                slots,
            },
        );
    }

    /// Message 32: the member's whole authority mask, the end of its answer to the
    /// host's query: the activity records it (HOST-16).
    pub(crate) fn full_mask_answered(
        &mut self,
        links: &mut Links,
        link: LinkId,
        answer: FullMaskAnswer,
    ) {
        let msg = AUTHORITY_FULL_MASK;
        let token = answer.token;
        if !self.answers(links, link, Exchange::Query, token, true) {
            return links.drop_input(link, Dropped::UnknownToken { msg, token });
        }
        let slots = answer.mask.count();
        if let Some(a) = self
            .joined_session(links, link)
            .and_then(|s| self.map.get_mut(&s))
        {
            a.set_authority(link, answer.mask);
        }
        self.world_event(links, WorldEvent::AuthorityReported { link, token, slots });
    }

    /// Message 33: the member gives up authority over the slots it names (HOST-17).
    pub(crate) fn abdicate(&mut self, links: &mut Links, link: LinkId, abdication: Abdication) {
        let msg = ABDICATE_AUTHORITY;
        let Some(activity) = self
            .joined_session(links, link)
            .and_then(|s| self.map.get_mut(&s))
        else {
            return links.drop_input(link, Dropped::NotJoined(msg));
        };
        activity.release_authority(link, &abdication.mask);
        let slots = abdication.mask.count();
        self.world_event(links, WorldEvent::AuthorityReleased { link, slots });
    }
}
