//! The member table of an activity on the wire: message 12 goes to every member when the
//! table changes, message 23 commits a member's identity, message 38 acknowledges a
//! revision, and the keepalive carries message 12 again only while the current revision is
//! unacknowledged.
//!
//! SR "What the host does" (keep the member table: message 12 when membership changes),
//! "What each client message gets" (23, 38), "Timed sends that remain"; facts 4.10
//! "Publication rules", 4.12; MEMBER-03, MEMBER-07, HOST-15.

use crate::activities::Activities;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::mission::MissionEvent;
use crate::reason::Dropped;
use crate::roster;
use vex_wire::activity::body::Body;
use vex_wire::activity::identity::ClientIdentity;
use vex_wire::activity::ids::{CLIENT_IDENTITY_UPDATE, REPLICATE_MEMBERSHIP};
use vex_wire::activity::join::JoinRequest;
use vex_wire::activity::membership::{Member, ReplicateMembership};
use vex_wire::activity::session::SessionId;
use vex_wire::activity::small::MembershipAcknowledgement;
use vex_wire::time::Instant;

/// SR "Timed sends that remain": a membership body held back for a missing host record is
/// retried after 250 ms.
pub const MEMBERSHIP_RETRY_MS: u64 = 250;

/// True while the queue's entry is still its activity's retry.
fn retry_holds(
    activities: &std::collections::BTreeMap<SessionId, crate::activity::Activity>,
    &(at, session): &(Instant, SessionId),
) -> bool {
    activities
        .get(&session)
        .is_some_and(|a| a.membership_retry() == Some(at))
}

/// What a send of an activity's table may do now (SR "Timed sends that remain").
enum TableGate {
    /// It goes to the members it is for.
    Open,
    /// It waits for a host record; the retry is armed.
    Held,
    /// It waited, and the record has come: it goes to every member now, and nothing waits.
    /// The changes made while it waited share its one revision (MEMBER-07).
    Released,
}

impl Activities {
    /// The member message 3 seeds before any message 23 (facts 4.10 seed).
    pub(crate) fn seed_member(&self, join: &JoinRequest) -> Member {
        Member::seed(
            join.member_key,
            self.config.scenario.player.account_soid,
            join.character_id,
        )
    }

    /// The table of `session` as this host sends it (MEMBER-01).
    pub(crate) fn membership_table(&self, session: SessionId) -> Option<ReplicateMembership> {
        let activity = self.map.get(&session)?;
        Some(self.policy().membership(activity.table()))
    }

    /// The table a public join's burst carries: the player's own private session's, read
    /// and not changed (SR "The join burst"); while the link has no lane there, the table
    /// that session would hold, seeded from the join.
    pub(crate) fn private_table(
        &self,
        links: &Links,
        link: LinkId,
        join: &JoinRequest,
    ) -> ReplicateMembership {
        let private = links
            .binding(link)
            .and_then(|b| self.map.get(&b.private_session()))
            .filter(|a| a.has_member(link));
        let table = match private {
            Some(activity) => activity.table(),
            None => ReplicateMembership::for_local_member(
                self.seed_member(join),
                roster::FIRST_REVISION,
            ),
        };
        self.policy().membership(table)
    }

    /// Sends `session`'s table to `link` and records the revision sent.
    pub(crate) fn push_membership(&mut self, links: &mut Links, link: LinkId, session: SessionId) {
        self.send_table(links, session, &[link]);
    }

    /// The table of `session` changed: every member bound to it gets the new revision,
    /// `except` aside (a joiner whose burst carried it already).
    pub(crate) fn publish_membership(
        &mut self,
        links: &mut Links,
        session: SessionId,
        except: Option<LinkId>,
    ) {
        let members = self.joined_members(links, session, except);
        self.send_table(links, session, &members);
    }

    /// The members of `session` whose link is bound to it and joined, `except` aside.
    fn joined_members(
        &self,
        links: &Links,
        session: SessionId,
        except: Option<LinkId>,
    ) -> Vec<LinkId> {
        let Some(activity) = self.map.get(&session) else {
            return Vec::new();
        };
        let bound = |link: &LinkId| {
            links
                .binding(*link)
                .is_some_and(|b| b.session() == session && b.is_joined())
        };
        activity
            .member_links()
            .into_iter()
            .filter(|link| bound(link) && Some(*link) != except)
            .collect()
    }

    /// Encodes `session`'s table once and sends it to each of `to`, recording the
    /// revision each was sent; nothing while the table is held back, and every member
    /// when it was held back and its record has come ([`TableGate`]).
    fn send_table(&mut self, links: &mut Links, session: SessionId, to: &[LinkId]) {
        let to = match self.table_gate(session) {
            TableGate::Held => return,
            TableGate::Open => to.to_vec(),
            TableGate::Released => self.joined_members(links, session, None),
        };
        let (Some(table), Some(&first)) = (self.membership_table(session), to.first()) else {
            return;
        };
        let body = match table.encode() {
            Ok(body) => body,
            Err(error) => {
                let msg = REPLICATE_MEMBERSHIP;
                return links.not_built(first, msg, error);
            }
        };
        for link in to {
            links.push_message(link, REPLICATE_MEMBERSHIP, &body);
            if let Some(b) = links.binding_mut(link) {
                b.table_mut().sent(table.revision);
            }
        }
        self.answer_owed_snapshots(links, session);
    }

    /// SR "Timed sends that remain": "a membership body held back for a missing host
    /// record is retried after 250 ms". Held while a member of `session` stands in a
    /// bubble whose host record is missing (in a shared fleet, one the store has not
    /// placed yet): the table waits, its retry armed, and every member gets it at the
    /// first retry that finds the record, or at the first send after the record came.
    fn table_gate(&mut self, session: SessionId) -> TableGate {
        if self.hold_table(session) {
            return TableGate::Held;
        }
        let Some(activity) = self.map.get_mut(&session) else {
            return TableGate::Open;
        };
        match activity.membership_retry() {
            Some(_) => {
                activity.retry_membership_at(None);
                TableGate::Released
            }
            None => TableGate::Open,
        }
    }

    /// True while `session`'s table is held back for a missing host record, its retry
    /// armed ([`Self::table_gate`]). A join burst then goes without the table, and the
    /// joiner gets it with the others at the retry, under the one revision every member
    /// sees next (MEMBER-07).
    pub(crate) fn hold_table(&mut self, session: SessionId) -> bool {
        let now = self.now;
        let live = self.map.len();
        let Some(activity) = self.map.get_mut(&session) else {
            return false;
        };
        let Some(bubble) = activity.missing_host_record() else {
            return false;
        };
        if activity.membership_retry().is_none() {
            let at = now + MEMBERSHIP_RETRY_MS;
            activity.retry_membership_at(Some(at));
            let activities = &self.map;
            let holds = |d: &(Instant, SessionId)| retry_holds(activities, d);
            self.membership_retries.arm(at, session, live, holds);
            tracing::debug!(%session, bubble, "the member table waits for a host record");
        }
        true
    }

    /// Every table held back whose retry is due at `now` is tried again.
    pub(crate) fn retry_membership_due(&mut self, links: &mut Links, now: Instant) {
        let activities = &self.map;
        let due = self
            .membership_retries
            .take_due(now, |d| retry_holds(activities, d));
        for (_, session) in due {
            if let Some(a) = self.map.get_mut(&session) {
                a.retry_membership_at(None);
            }
            self.publish_membership(links, session, None);
        }
    }

    /// When the next table held back is tried again.
    pub(crate) fn next_membership_retry(&mut self) -> Option<Instant> {
        let activities = &self.map;
        self.membership_retries.next(|d| retry_holds(activities, d))
    }

    /// `link`'s member leaves `session`: its lane and lease are freed, the others get the
    /// new table, and an activity with no member and no owner bound to it is dropped.
    pub(crate) fn depart(&mut self, links: &mut Links, link: LinkId, session: SessionId) {
        let Some(activity) = self.map.get_mut(&session) else {
            return;
        };
        let lane = activity.lane(link);
        if activity.depart(link) {
            self.publish_membership(links, session, Some(link));
            self.epoch_waits(links, session, Some(link));
        }
        if let Some(member) = lane {
            self.mission_event(session, MissionEvent::MemberLeft { member });
        }
        let owner_bound = |a: &crate::activity::Activity| {
            links
                .binding(a.owner())
                .is_some_and(|b| b.private_session() == a.session())
        };
        if let Some(a) = self.map.get(&session)
            && a.is_empty()
            && !owner_bound(a)
        {
            let ended = self.map.remove(&session);
            self.regions_ended(session, ended.is_some_and(|a| a.any_bubble_placed()));
            self.mission_ended(session);
        }
    }

    /// The peers the members of `session` replicate with changed (a member joined or left;
    /// `except` is the one that did): each other member's next replication epoch waits for
    /// its keepalive (SR "Timed sends that remain": message 44 "when a replication epoch is
    /// waiting"). The pages do not say what makes an epoch wait; Vex takes a change in a
    /// member's peers, or its own move into another region, as the cause.
    pub(crate) fn epoch_waits(
        &self,
        links: &mut Links,
        session: SessionId,
        except: Option<LinkId>,
    ) {
        for link in self.joined_members(links, session, except) {
            if let Some(b) = links.binding_mut(link) {
                b.replication_mut().wait();
            }
        }
    }

    /// Message 23: commits the member's identity; a changed table goes to every member
    /// (HOST-15). A link with no member in its activity gets nothing.
    pub(crate) fn client_identity(
        &mut self,
        links: &mut Links,
        link: LinkId,
        identity: ClientIdentity,
    ) {
        let Some(session) = self.joined_session(links, link) else {
            return links.drop_input(link, Dropped::NotJoined(CLIENT_IDENTITY_UPDATE));
        };
        if !self.policy().commit_identity() {
            return;
        }
        let Some(activity) = self.map.get_mut(&session) else {
            return;
        };
        let before = activity.revision();
        activity.set_identity(link, identity.0);
        if activity.revision() != before {
            self.publish_membership(links, session, None);
        }
    }

    /// Message 38: the revision the client applied.
    pub(crate) fn membership_acknowledged(
        &mut self,
        links: &mut Links,
        link: LinkId,
        MembershipAcknowledgement { revision }: MembershipAcknowledgement,
    ) {
        if let Some(binding) = links.binding_mut(link) {
            binding.table_mut().acknowledge(revision);
        }
    }

    /// On the keepalive: message 12 again while the current revision is unacknowledged.
    pub(crate) fn resend_membership_if_owed(&mut self, links: &mut Links, link: LinkId) {
        let Some(binding) = links.binding(link) else {
            return;
        };
        let session = binding.session();
        let current = self.map.get(&session).map(|a| a.revision());
        let (Some(unacknowledged), true) =
            (binding.table().unacknowledged(current), binding.is_joined())
        else {
            return;
        };
        if self.policy().resend_membership(unacknowledged) {
            self.push_membership(links, link, session);
        }
    }

    /// The session `link` joined, when its client is joined.
    /// The slice set member `link` of `session` stands in: the region its message 22
    /// committed, else the scenario's arrival slice set.
    pub(crate) fn region_of(&self, link: LinkId, session: SessionId) -> i16 {
        let arrival = self.config.scenario.arrival_slice_set;
        self.map
            .get(&session)
            .map_or(arrival, |a| a.member_state(link).region_or(arrival))
    }

    pub(crate) fn joined_session(&self, links: &Links, link: LinkId) -> Option<SessionId> {
        let b = links.binding(link)?;
        b.is_joined().then_some(b.session())
    }
}
