//! Requests whose answer waits on its link for the store (a shared fleet's lookups,
//! listings and session indexes): what goes to the store, in order, and what the answer
//! needs, by ticket. Bounded by the links' held answers (`MAX_HELD_ANSWERS` a link).

use crate::link::Links;
use crate::link_id::LinkId;
use std::collections::{BTreeMap, VecDeque};
use vex_wire::bap::header::{FrameType, InnerHeader};

/// The request a held answer answers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Held {
    /// The link that asked.
    pub(crate) link: LinkId,
    /// The frame type its answer goes out as.
    pub(crate) reply_type: FrameType,
    /// The request's header.
    pub(crate) header: InnerHeader,
}

impl Held {
    /// `body` answers the request, whose answer waited on its link as `ticket`; it goes
    /// out with the answers held behind it that are ready (BAP-16).
    pub(crate) fn answer(self, links: &mut Links, ticket: u64, body: Vec<u8>) {
        links.answer_call(self.link, ticket, self.reply_type, self.header, body);
    }
}

/// The questions `Q` out to the store, each waiting with its request and `C`, what its
/// answer is made from.
#[derive(Debug)]
pub(crate) struct Pending<Q, C> {
    waiting: BTreeMap<u64, (Held, C)>,
    outbox: VecDeque<Q>,
}

impl<Q, C> Default for Pending<Q, C> {
    fn default() -> Self {
        Self {
            waiting: BTreeMap::new(),
            outbox: VecDeque::new(),
        }
    }
}

impl<Q, C> Pending<Q, C> {
    /// `held`'s answer waits on its link under `ticket`, with `context`, and `question`
    /// goes to the store; nothing when the link is gone or is closed for holding too many
    /// answers (`Links::hold_answer`).
    pub(crate) fn ask(
        &mut self,
        links: &mut Links,
        ticket: u64,
        held: Held,
        context: C,
        question: Q,
    ) {
        if links.hold_answer(held.link, ticket) {
            self.waiting.insert(ticket, (held, context));
            self.outbox.push_back(question);
        }
    }

    /// The next question for the store.
    pub(crate) fn poll(&mut self) -> Option<Q> {
        self.outbox.pop_front()
    }

    /// The request `ticket` answers, no longer waiting, and its context.
    pub(crate) fn take(&mut self, ticket: u64) -> Option<(Held, C)> {
        self.waiting.remove(&ticket)
    }
}
