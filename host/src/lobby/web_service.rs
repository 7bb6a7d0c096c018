//! Web-service RPC, services 10/11 and 110/112 (NS "Web-service RPC, services 10 and 11",
//! "The reply's version barrier"): every request gets its reply, the opcode and the
//! transaction echoed, in the shape its opcode's definition has (`vex_wire::bap::
//! web_service::Shape`).
//!
//! Two calls change what the lobby stores, each kept by the store before it is answered
//! (`changes.rs`): an equip (403) of an item the character holds rewrites the character
//! object and moves the family-4 revision; its reply names the version of the service-123
//! update that publishes it on the link, and that update follows at once on every link
//! subscribed to the account's family 4 (WS-01). The sign-in (503) counts one more
//! sign-in. Every other reply, an error among them, names no revision (WS-01: -1); a
//! family subscription (206) is followed by the family's snapshot.

use super::LobbyServices;
use super::changes::{Call, Op};
use super::stored::{StoredAccount, StoredObject};
use super::write::{Change, Written};
use crate::link::Links;
use crate::link_id::LinkId;
use crate::reason::Dropped;
use vex_wire::bap::header::{FrameType, InnerHeader};
use vex_wire::bap::queuez::{ACCOUNT_FAMILY, Subscription};
use vex_wire::bap::web_service::{
    EQUIP, NO_REVISION, SIGN_IN, SUBSCRIBE, Shape, Status, WsReply, WsRequest, read_equip,
    read_subscribe,
};

/// The status of an equip of an item the character does not hold: an error (WS-05: any
/// status but 0, 7 and 16 is one). The code is Vex's choice.
const NO_SUCH_ITEM: i32 = 1;
/// The status of a change the store did not keep, or that waited behind too many others:
/// an error, Vex's choice of code.
const NOT_KEPT: i32 = 2;

impl LobbyServices {
    /// Service 10 or 110: the reply of the opcode's shape, at once or once the change it
    /// asks for is kept.
    pub(crate) fn web_service(
        &mut self,
        links: &mut Links,
        link: LinkId,
        reply_type: FrameType,
        header: InnerHeader,
        body: &[u8],
    ) {
        let request = match WsRequest::decode(body) {
            Ok(r) => r,
            Err(e) => {
                // answered all the same, empty, so the client's ring moves (BAP-06)
                links.drop_input(link, Dropped::WebService(e));
                return links.reply(link, reply_type, header, Vec::new());
            }
        };
        let account = self.player.account_soid;
        let op = match request.opcode {
            EQUIP => match read_equip(&request.payload) {
                Some(item) if self.holds(account, item) => Some(Op::Equip(item)),
                _ => {
                    let status = error(NO_SUCH_ITEM);
                    let reply = reply_to(request.opcode, request.transaction, status);
                    return links.reply(link, reply_type, header, reply);
                }
            },
            SIGN_IN => Some(Op::SignIn),
            _ => None,
        };
        if let Some(op) = op {
            let call = Call {
                id: self.changes.next_call(),
                link,
                reply_type,
                header,
                opcode: request.opcode,
                transaction: request.transaction,
                op,
            };
            return self.call(links, account, call);
        }
        let shape = Shape::of(request.opcode);
        if shape == Shape::Generic {
            tracing::warn!(
                opcode = request.opcode,
                "a web-service opcode with no known definition: answered with the header alone"
            );
        }
        let reply = reply_to(request.opcode, request.transaction, Status::DONE);
        links.reply(link, reply_type, header, reply);
        if let (SUBSCRIBE, Some((family, root))) =
            (request.opcode, read_subscribe(&request.payload))
        {
            self.push_family(links, link, Subscription { family, root });
        }
    }

    /// The store's answer to the write `ticket`: the call's reply, then, for a kept
    /// change of the family-4 objects, the update that publishes it; then the account's
    /// next call.
    pub(crate) fn written(&mut self, links: &mut Links, ticket: u64, written: Written) {
        if let Written::Superseded(now) = written {
            return self.superseded(links, ticket, now);
        }
        let Some((account, call, change)) = self.changes.take(ticket) else {
            tracing::warn!(ticket, "the store answered a write the lobby did not make");
            return;
        };
        let (status, published) = match written {
            Written::Kept => self.keep(links, account, &call, change),
            not_kept => {
                tracing::warn!(
                    account,
                    ticket,
                    ?not_kept,
                    "the store did not keep a change"
                );
                (error(NOT_KEPT), None)
            }
        };
        let reply = reply_to(call.opcode, call.transaction, status);
        links.answer_call(call.link, call.id, call.reply_type, call.header, reply);
        if let Some(objects) = published {
            self.publish(links, account, &objects);
        }
        self.start(account);
    }

    /// Another writer changed the account before the write `ticket`: the lobby takes the
    /// account as the store holds it `now`, publishes the other writer's objects to the
    /// links subscribed here, and makes the call again on them.
    fn superseded(&mut self, links: &mut Links, ticket: u64, now: StoredAccount) {
        let Some(account) = self.changes.again(ticket) else {
            tracing::warn!(ticket, "the store answered a write the lobby did not make");
            return;
        };
        tracing::info!(
            account,
            revision = now.revision,
            "another writer changed the account first: the call is made again"
        );
        let moved = self
            .accounts
            .get(&account)
            .is_none_or(|held| held.revision != now.revision);
        let objects = now.objects.clone();
        self.accounts.insert(account, now);
        if moved {
            self.publish(links, account, &objects);
        }
        self.start(account);
    }

    /// True when `account`'s character holds `item`.
    fn holds(&self, account: u64, item: u64) -> bool {
        self.accounts
            .get(&account)
            .is_some_and(|a| a.items.contains(&item))
    }

    /// Queues `call` on `account`, its answer held on its link until its write is kept;
    /// a call on an account the lobby does not store, or past the queue's bound, is
    /// refused at once.
    fn call(&mut self, links: &mut Links, account: u64, call: Call) {
        if !links.hold_answer(call.link, call.id) {
            return;
        }
        if !self.accounts.contains_key(&account) || !self.changes.queue(account, call) {
            let reply = reply_to(call.opcode, call.transaction, error(NOT_KEPT));
            return links.answer_call(call.link, call.id, call.reply_type, call.header, reply);
        }
        self.start(account);
    }

    /// Sends `account`'s due call to the store, made on what the store last kept.
    fn start(&mut self, account: u64) {
        let Some(call) = self.changes.due(account) else {
            return;
        };
        let Some(stored) = self.accounts.get(&account) else {
            return;
        };
        let change = match call.op {
            Op::Equip(item) => Change::Objects {
                from: stored.revision,
                objects: stored.objects_equipping(item),
            },
            Op::SignIn => Change::SignIn {
                sign_ins: stored.sign_ins + 1,
            },
        };
        self.changes.send(account, change);
    }

    /// Applies the kept `change` to `account`: the status of `call`'s reply, and the
    /// family-4 objects to publish when they changed. An equip's status names the version
    /// of the update that will publish it on the call's link (-1 when the link is not
    /// subscribed to the account's family 4: it sees the change in its next snapshot).
    fn keep(
        &mut self,
        links: &Links,
        account: u64,
        call: &Call,
        change: Change,
    ) -> (Status, Option<Vec<StoredObject>>) {
        let Some(stored) = self.accounts.get_mut(&account) else {
            return (error(NOT_KEPT), None);
        };
        match change {
            Change::Objects { objects, .. } => {
                stored.objects = objects.clone();
                stored.revision += 1;
                let version = links
                    .get(call.link)
                    .and_then(|l| l.next_family_version(ACCOUNT_FAMILY, account));
                let status = Status {
                    value: version.unwrap_or(NO_REVISION),
                    ..Status::DONE
                };
                (status, Some(objects))
            }
            Change::SignIn { sign_ins } => {
                stored.sign_ins = sign_ins;
                (Status::DONE, None)
            }
        }
    }
}

/// A failed call's status: nothing to wait for (WS-01).
fn error(code: i32) -> Status {
    Status {
        code,
        ..Status::DONE
    }
}

/// The reply to `opcode`'s call `transaction`, in the opcode's shape.
fn reply_to(opcode: u16, transaction: u32, status: Status) -> Vec<u8> {
    WsReply {
        opcode,
        transaction,
        status: Some(status),
    }
    .encode(Shape::of(opcode))
}
