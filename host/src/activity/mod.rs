//! One activity: what its members share, apart from what each link owns (design
//! "Activities, links and messages", after quinn-proto's Endpoint and Connection).
//!
//! SR "The join burst" (private and public joins), "What the host does" (keep the member
//! table, hand out entity indices); AH "The main messages" (message 0 is a mask over 8,192
//! entity slots; message 12 the member table); facts 4.3 (the join grant, the server
//! reserve) and 4.10 (32 member lanes, revision +1 per change).

pub mod advertised_host;
pub mod member;
pub mod member_state;

use crate::link_id::LinkId;
use crate::roster::bubble_of;
use crate::schedule::TimedCommit;
use crate::world::World;
use advertised_host::{AdvertisedHost, AdvertisedHosts};
use member::Member;
use member_state::MemberState;
use std::net::SocketAddrV4;
use std::ops::Range;
use vex_wire::activity::client_state::{ClientState, TeleportState};
use vex_wire::activity::membership::{MEMBER_LANES, Member as MemberRecord, ReplicateMembership};
use vex_wire::activity::session::SessionId;
use vex_wire::activity::small::{ENTITY_SLOTS, EntitySlotMask};
use vex_wire::time::Instant;

/// The top 256 slots are the server's and are never granted (facts 4.3).
pub const SERVER_RESERVE: usize = 256;
/// The slots a client may be granted: every slot below the server reserve (facts 4.3).
pub const GRANTABLE: Range<usize> = 0..ENTITY_SLOTS - SERVER_RESERVE;
/// Slots granted on a join: an equal share of [`GRANTABLE`] for each of the 32 member
/// lanes, so every member of a full activity gets a join grant. Sunrise grants a lone
/// client every free slot (facts 4.3: `client_join_grant_count` 8,192); with many members
/// that would leave every later member an empty grant.
pub const JOIN_GRANT_COUNT: usize = (ENTITY_SLOTS - SERVER_RESERVE) / MEMBER_LANES;

/// What committing a message 22 changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Committed {
    /// The member stands in another region.
    pub region_moved: bool,
    /// The member table changed, under the next revision.
    pub table_changed: bool,
}

/// Why a member was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AdmitError {
    /// Every one of the 32 member lanes of message 12 is taken (facts 4.10).
    #[error("the activity's {MEMBER_LANES} member lanes are all taken")]
    Full,
}

/// The most snapshots an activity owes while its table is held back: two requests from
/// each of its 32 members.
pub const SNAPSHOTS_OWED_MAX: usize = 64;

/// What the members of one activity session share: the member table with its revision,
/// and the entity slot allocator with each member link's lease.
#[derive(Debug)]
pub struct Activity {
    session: SessionId,
    owner: LinkId,
    lanes: [Option<Member>; MEMBER_LANES],
    revision: u32,
    world: World,
    teleport: Option<TeleportState>,
    started: Option<Instant>,
    timeline_done: usize,
    /// The citizen record of each region a member stands in.
    advertised: AdvertisedHosts,
    /// The table is held back for a missing host record, and is tried again at this time
    /// (SR "Timed sends that remain").
    membership_retry: Option<Instant>,
    /// The snapshots asked for while the table was held back, by link and request, oldest
    /// first: each is answered whole once the table goes out (HOST-03). At most
    /// [`SNAPSHOTS_OWED_MAX`].
    snapshots_owed: Vec<(LinkId, u32)>,
    /// Where a member stands before it reports a region: the arrival slice set.
    arrival: i16,
}

impl Activity {
    /// The activity service 7 creates for `owner`, the link that sent service 6: no
    /// member yet, no revision published. Its table advertises `advertised` in the
    /// record of each region a member stands in, `arrival` until it reports another.
    pub fn new(
        session: SessionId,
        owner: LinkId,
        advertised: AdvertisedHosts,
        arrival: i16,
    ) -> Self {
        Self {
            session,
            owner,
            advertised,
            membership_retry: None,
            snapshots_owed: Vec::new(),
            arrival,
            lanes: std::array::from_fn(|_| None),
            revision: 0,
            world: World::default(),
            teleport: None,
            started: None,
            timeline_done: 0,
        }
    }

    /// The session id every push to a member carries.
    pub fn session(&self) -> SessionId {
        self.session
    }

    /// The link that created the activity with service 6.
    pub fn owner(&self) -> LinkId {
        self.owner
    }

    /// True when `link` has a member lane.
    pub fn has_member(&self, link: LinkId) -> bool {
        self.lane(link).is_some()
    }

    /// The member links, in lane order.
    pub fn member_links(&self) -> Vec<LinkId> {
        self.members().map(Member::link).collect()
    }

    /// The members, in lane order.
    fn members(&self) -> impl Iterator<Item = &Member> {
        self.lanes.iter().flatten()
    }

    /// Member `link`.
    fn member(&self, link: LinkId) -> Option<&Member> {
        self.members().find(|m| m.link() == link)
    }

    /// Member `link`, to change.
    fn member_mut(&mut self, link: LinkId) -> Option<&mut Member> {
        self.lanes.iter_mut().flatten().find(|m| m.link() == link)
    }

    /// True when no member is left.
    pub fn is_empty(&self) -> bool {
        self.lanes.iter().all(Option::is_none)
    }

    /// The membership revision: 0 before the first member, then +1 per change (facts
    /// 4.10: the client applies one update per revision).
    pub fn revision(&self) -> u32 {
        self.revision
    }

    /// The table changed: it goes out under the next revision (MEMBER-07: +1 per
    /// change). While the table is held back for a missing host record, a change joins
    /// the revision that waits: every member gets that one table at the retry, and a
    /// revision no table carried would be a step the clients never saw.
    fn next_revision(&mut self) {
        if self.membership_retry.is_none() {
            self.revision = self.revision.wrapping_add(1);
        }
    }

    /// The lane of `link`'s member.
    pub fn lane(&self, link: LinkId) -> Option<usize> {
        self.lanes
            .iter()
            .position(|lane| lane.as_ref().is_some_and(|m| m.link() == link))
    }

    /// Gives `link` a lane holding `member`: the lane it has, or the lowest free one. The
    /// revision rises only when the table changes.
    pub fn admit(&mut self, link: LinkId, record: MemberRecord) -> Result<(), AdmitError> {
        if self.has_member(link) {
            self.set_identity(link, record);
            return Ok(());
        }
        let free = self.lanes.iter_mut().find(|lane| lane.is_none());
        *free.ok_or(AdmitError::Full)? = Some(Member::new(link, record));
        self.next_revision();
        Ok(())
    }

    /// Commits `link`'s identity (message 23); false when `link` is not a member.
    pub fn set_identity(&mut self, link: LinkId, record: MemberRecord) -> bool {
        let Some(member) = self.member_mut(link) else {
            return false;
        };
        if member.set_record(record) {
            self.next_revision();
        }
        true
    }

    /// Takes `link` out of the table, and with it its lease, its client state and its
    /// authority; false when it was not a member.
    pub fn depart(&mut self, link: LinkId) -> bool {
        let lane = self.lane(link).and_then(|i| self.lanes.get_mut(i));
        if lane.and_then(Option::take).is_none() {
            return false;
        }
        self.next_revision();
        true
    }

    /// Message 12 for every member: the table at the current revision, the owner's key
    /// (or the first member's, once the owner is gone) as the host key, each member's
    /// transition token in the record of the bubble it stands in, and the host's spawn and
    /// teleport state in the tail (facts 4.10).
    pub fn table(&self) -> ReplicateMembership {
        let records = self
            .lanes
            .each_ref()
            .map(|lane| lane.as_ref().map(Member::record));
        let host = self.member(self.owner).or_else(|| self.members().next());
        let host_key = host.map_or(0, |m| m.record().member_key);
        let mut table = ReplicateMembership::for_members(records, self.revision, host_key);
        for (lane, member) in self.lanes.iter().enumerate() {
            if let Some(m) = member {
                m.state().write_token(&mut table.regions, lane);
                let bubble = bubble_of(m.state().region_or(self.arrival));
                let host = self.advertised.get(bubble);
                if let (Some(record), Some(host)) =
                    (table.regions.get_mut(usize::from(bubble)), host)
                {
                    host.write(record);
                }
            }
        }
        if let Some(m) = host {
            m.state().write_host_tail(&mut table.host);
        }
        if let Some(t) = self.teleport {
            let tail = &mut table.host;
            (tail.teleport_state, tail.teleport_token) = (t.state, t.token);
            (tail.teleport_slice_set, tail.teleport_slice_hash) = (t.slice_set, t.slice_hash);
        }
        table
    }

    /// Arms a host teleport into `slice_set` (`slice_hash`) with `state`: the table's tail
    /// carries it with the next token, under the next revision (SR "What the host pushes
    /// on its own": a host teleport the host armed; facts 4.10).
    pub fn arm_teleport(&mut self, state: i8, slice_set: i16, slice_hash: u32) {
        let token = self.teleport.map_or(1, |t| t.token.wrapping_add(1));
        self.teleport = Some(TeleportState {
            state,
            token,
            slice_set,
            slice_hash,
        });
        self.next_revision();
    }

    /// Its first member joined at `now`: the host program's timeline starts. True on the
    /// first call only.
    pub fn start(&mut self, now: Instant) -> bool {
        let first = self.started.is_none();
        self.started.get_or_insert(now);
        first
    }

    /// When the next of `timeline` is due, if the activity started and one is left.
    pub fn next_commit_at(&self, timeline: &[TimedCommit]) -> Option<Instant> {
        let started = self.started?;
        timeline
            .get(self.timeline_done)
            .map(|c| started + c.after_ms)
    }

    /// How many entries of the timeline are done.
    pub fn timeline_position(&self) -> usize {
        self.timeline_done
    }

    /// The next entry of the timeline is done.
    pub fn commit_done(&mut self) {
        self.timeline_done += 1;
    }

    /// The slots member `link` said it has authority over, in its last answer to a query
    /// (message 32), less what it gave up since.
    pub fn authority(&self, link: LinkId) -> Option<&EntitySlotMask> {
        self.member(link)?.authority()
    }

    /// Member `link` has authority over `mask` (message 32).
    pub fn set_authority(&mut self, link: LinkId, mask: EntitySlotMask) {
        if let Some(m) = self.member_mut(link) {
            m.set_authority(mask);
        }
    }

    /// Member `link` gives up authority over `mask` (message 33).
    pub fn release_authority(&mut self, link: LinkId, mask: &EntitySlotMask) {
        if let Some(m) = self.member_mut(link) {
            m.release_authority(mask);
        }
    }

    /// The world the activity's members share: the Auth bodies the host holds.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world, to commit a change to.
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// The committed client state of member `link`.
    pub fn member_state(&self, link: LinkId) -> MemberState {
        self.member(link).map(Member::state).unwrap_or_default()
    }

    /// A bubble a member stands in whose host record is missing: in a shared fleet, one
    /// the store has not placed yet.
    pub fn missing_host_record(&self) -> Option<u8> {
        self.members()
            .map(|m| bubble_of(m.state().region_or(self.arrival)))
            .find(|bubble| self.advertised.get(*bubble).is_none())
    }

    /// The store placed `bubble` on the process whose UDP port is at `address`.
    pub fn place_bubble(&mut self, bubble: u8, address: SocketAddrV4) {
        let host = AdvertisedHost::new(address, self.session);
        self.advertised.place(bubble, host);
    }

    /// True when the store placed a bubble of the activity on a process.
    pub fn any_bubble_placed(&self) -> bool {
        self.advertised.any_placed()
    }

    /// When the table held back is tried again, if it is.
    pub fn membership_retry(&self) -> Option<Instant> {
        self.membership_retry
    }

    /// The table is held back until `at` (`None`: it is not held back).
    pub fn retry_membership_at(&mut self, at: Option<Instant>) {
        self.membership_retry = at;
    }

    /// `link` asked for the snapshot with message `msg` while the table was held back: it
    /// is owed once the table goes out. False when [`SNAPSHOTS_OWED_MAX`] are owed already.
    pub fn owe_snapshot(&mut self, link: LinkId, msg: u32) -> bool {
        let room = self.snapshots_owed.len() < SNAPSHOTS_OWED_MAX;
        if room {
            self.snapshots_owed.push((link, msg));
        }
        room
    }

    /// The snapshots owed, oldest first, leaving none.
    pub fn take_owed_snapshots(&mut self) -> Vec<(LinkId, u32)> {
        std::mem::take(&mut self.snapshots_owed)
    }

    /// Message 22 from member `link`, committed as a delta over what it reported before
    /// (SR "What each client message gets"); `arrival` is where a member stands before
    /// any report. The revision rises when the table changed. `None` when `link` is not a
    /// member.
    pub fn commit_client_state(
        &mut self,
        link: LinkId,
        report: &ClientState,
        arrival: i16,
    ) -> Option<Committed> {
        let before = self.table();
        let region_moved = self.member_mut(link)?.commit(report, arrival);
        let table_changed = self.table() != before;
        if table_changed {
            self.next_revision();
        }
        Some(Committed {
            region_moved,
            table_changed,
        })
    }

    /// The lowest `count` grantable slots no member holds, `except`'s own lease aside
    /// (facts 4.3, 4.4): two members never hold one slot (SLOTS-04), and a member that
    /// joins again may be granted what it holds already, since message 0 only ever adds.
    pub fn free_slots(&self, count: usize, except: Option<LinkId>) -> EntitySlotMask {
        let mut held = EntitySlotMask::empty();
        for m in self.members().filter(|m| Some(m.link()) != except) {
            held.add(m.lease());
        }
        let mut grant = EntitySlotMask::empty();
        for i in GRANTABLE.filter(|&i| !held.get(i)).take(count) {
            grant.set(i);
        }
        grant
    }

    /// Adds `grant` to `link`'s lease: what a message 0 to it gave.
    pub fn add_lease(&mut self, link: LinkId, grant: &EntitySlotMask) {
        if let Some(m) = self.member_mut(link) {
            m.grant(grant);
        }
    }

    /// Message 21: `link` stops holding `returned`.
    pub fn release(&mut self, link: LinkId, returned: &EntitySlotMask) {
        if let Some(m) = self.member_mut(link) {
            m.release(returned);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn advertised() -> AdvertisedHosts {
        AdvertisedHosts::alone(AdvertisedHost::new(
            crate::HostConfig::default_address(),
            SessionId(7),
        ))
    }

    fn member(n: u64) -> MemberRecord {
        MemberRecord::seed(n, 0x9EAA_3001_0000_0000, 100 + n)
    }

    #[test]
    fn every_change_is_one_revision_and_lanes_are_kept() {
        let mut a = Activity::new(SessionId(7), LinkId(2), advertised(), 0);
        a.admit(LinkId(2), member(1)).unwrap();
        a.admit(LinkId(4), member(2)).unwrap();
        a.admit(LinkId(6), member(3)).unwrap();
        assert_eq!(a.revision(), 3);
        a.admit(LinkId(4), member(2)).unwrap();
        assert_eq!(a.revision(), 3, "the same member again changes nothing");
        assert!(a.depart(LinkId(4)));
        assert!(!a.depart(LinkId(4)));
        assert_eq!(a.revision(), 4);
        let t = a.table();
        assert_eq!(t.member_keys(), [1, 3]);
        assert_eq!(t.member_mask, 0b101, "lanes 0 and 2");
        assert_eq!(t.host.host_key, 1, "the owner's key");
        a.admit(LinkId(8), member(4)).unwrap();
        assert_eq!(a.table().member_keys(), [1, 4, 3], "the lowest free lane");
        let mut changed = member(3);
        changed.field6 = 9;
        assert!(a.set_identity(LinkId(6), changed));
        assert!(!a.set_identity(LinkId(10), changed));
        assert_eq!(a.revision(), 6);
    }

    #[test]
    fn the_33rd_member_is_refused() {
        let mut a = Activity::new(SessionId(7), LinkId(0), advertised(), 0);
        for n in 0..MEMBER_LANES as u64 {
            a.admit(LinkId(n), member(n)).unwrap();
        }
        assert_eq!(a.admit(LinkId(99), member(99)), Err(AdmitError::Full));
        assert_eq!(a.table().member_mask, u32::MAX);
    }

    #[test]
    fn leases_never_overlap_and_free_on_departure() {
        let mut a = Activity::new(SessionId(7), LinkId(2), advertised(), 0);
        let [first, second] = [LinkId(2), LinkId(4)].map(|link| {
            a.admit(link, member(link.0)).unwrap();
            let grant = a.free_slots(JOIN_GRANT_COUNT, Some(link));
            a.add_lease(link, &grant);
            grant
        });
        assert_eq!(first.count(), JOIN_GRANT_COUNT);
        assert!(first.get(0) && !second.get(0) && second.get(JOIN_GRANT_COUNT));
        a.depart(LinkId(2));
        assert!(a.free_slots(1, None).get(0), "slot 0 is free again");
        let everything = a.free_slots(ENTITY_SLOTS, None);
        assert_eq!(everything.count(), GRANTABLE.len() - JOIN_GRANT_COUNT);
    }

    /// The snapshots an activity owes while its table waits are bounded: the one past
    /// [`SNAPSHOTS_OWED_MAX`] is refused, and taking them leaves none, oldest first.
    #[test]
    fn owed_snapshots_are_bounded_and_taken_in_order() {
        let mut a = Activity::new(SessionId(7), LinkId(1), advertised(), 0);
        for n in 0..SNAPSHOTS_OWED_MAX {
            assert!(a.owe_snapshot(LinkId(n as u64), 18));
        }
        assert!(!a.owe_snapshot(LinkId(99), 18), "full");
        let owed = a.take_owed_snapshots();
        assert_eq!(owed.len(), SNAPSHOTS_OWED_MAX);
        assert_eq!(owed[0], (LinkId(0), 18));
        assert!(a.take_owed_snapshots().is_empty());
        assert!(a.owe_snapshot(LinkId(99), 11), "room again");
    }
}
