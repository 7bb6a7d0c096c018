//! Web-service calls that change an account, in the order they came: one [`Write`] per
//! account in the store at a time, each made on what the store last kept, so two calls
//! never race for one revision (NS "The reply's version barrier"). Each call's answer is
//! held on its link until its write is kept or refused (BAP-16).

use super::write::{Change, Write};
use crate::link_id::LinkId;
use std::collections::{BTreeMap, VecDeque};
use vex_wire::bap::header::{FrameType, InnerHeader};

/// The most calls one account may have waiting: past it a call is refused at once.
pub(crate) const MAX_QUEUED_CALLS: usize = 32;

/// What a call changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Web-service 403: equip this item instance.
    Equip(u64),
    /// Web-service 503: the Investment sign-in.
    SignIn,
}

/// A call waiting for its turn or its write.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call {
    /// The call's name on its link's held answers.
    pub(crate) id: u64,
    /// The link that made it.
    pub(crate) link: LinkId,
    /// The frame type its answer goes out as.
    pub(crate) reply_type: FrameType,
    /// The request's header.
    pub(crate) header: InnerHeader,
    /// The web-service opcode and transaction id the reply echoes.
    pub(crate) opcode: u16,
    /// See `opcode`.
    pub(crate) transaction: u32,
    /// What it changes.
    pub(crate) op: Op,
}

/// Per account, the calls waiting, the first one's write in the store when it is out.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    queues: BTreeMap<u64, Queue>,
    /// Writes made and not handed to the store yet.
    outbox: VecDeque<Write>,
    next_id: u64,
}

#[derive(Debug, Default)]
struct Queue {
    calls: VecDeque<Call>,
    /// The first call's change once its write is out (the write's ticket is the call's
    /// id).
    in_store: Option<Change>,
}

impl Changes {
    /// A fresh name for a call, or for any answer held for the store
    /// (`LobbyServices::next_ticket`): the names of a link's held answers never repeat.
    pub(crate) fn next_call(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Queues `call` on `account`; false when [`MAX_QUEUED_CALLS`] wait already.
    pub(crate) fn queue(&mut self, account: u64, call: Call) -> bool {
        let queue = self.queues.entry(account).or_default();
        if queue.calls.len() >= MAX_QUEUED_CALLS {
            return false;
        }
        queue.calls.push_back(call);
        true
    }

    /// The first call of `account` when its write is not out yet: it is due.
    pub(crate) fn due(&self, account: u64) -> Option<Call> {
        let queue = self.queues.get(&account)?;
        match queue.in_store {
            None => queue.calls.front().copied(),
            Some(_) => None,
        }
    }

    /// `account`'s due call goes to the store as `change`.
    pub(crate) fn send(&mut self, account: u64, change: Change) {
        let Some(queue) = self.queues.get_mut(&account) else {
            return;
        };
        let Some(call) = queue.calls.front() else {
            return;
        };
        queue.in_store = Some(change.clone());
        self.outbox.push_back(Write {
            ticket: call.id,
            account,
            change,
        });
    }

    /// The next write for the store.
    pub(crate) fn poll_write(&mut self) -> Option<Write> {
        self.outbox.pop_front()
    }

    /// The write `ticket` is to be made again: its call stays first on its account's queue,
    /// due again; the account.
    pub(crate) fn again(&mut self, ticket: u64) -> Option<u64> {
        let (account, queue) = self.queues.iter_mut().find(|(_, q)| {
            q.in_store.is_some() && q.calls.front().is_some_and(|c| c.id == ticket)
        })?;
        queue.in_store = None;
        Some(*account)
    }

    /// The call whose write is `ticket`, taken off its account's queue, with the account
    /// and the change.
    pub(crate) fn take(&mut self, ticket: u64) -> Option<(u64, Call, Change)> {
        let (account, queue) = self.queues.iter_mut().find(|(_, q)| {
            q.in_store.is_some() && q.calls.front().is_some_and(|c| c.id == ticket)
        })?;
        let account = *account;
        let change = queue.in_store.take()?;
        let call = queue.calls.pop_front()?;
        if queue.calls.is_empty() {
            self.queues.remove(&account);
        }
        Some((account, call, change))
    }
}
