//! The membership of an activity client: message 12, the activity's member table, which
//! the client applies without checks and acknowledges with message 38 (AH
//! "replicate_membership", "Hazards for a host"; SR "Timed sends that remain"; facts 4.10;
//! MEMBER-02, MEMBER-03, MEMBER-07).

use super::revisions::Revisions;
use crate::links::Outgoing;
use crate::rules::{Choice, Rule};
use crate::verdict::Verdict;
use std::collections::BTreeMap;
use std::net::SocketAddrV4;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids;
use vex_wire::activity::membership::{Member, ReplicateMembership};
use vex_wire::activity::small::MembershipAcknowledgement;
use vex_wire::peer::join_descriptor::JoinDescriptor;
use vex_wire::time::Instant;

/// How long a host push can still cross an acknowledgement the client sent: a round trip
/// on any link Vex expects to test over. How long the pages do not say: a finding on it
/// is advisory (`Choice::AckCrossing`).
const ACK_CROSSING_MS: u64 = 1000;
/// A revision step this large or larger, on 32 bits, goes back.
const REVISION_HALF: u32 = 1 << 31;

/// The member tables the client applied and what it acknowledged (AH
/// "replicate_membership"; facts 4.10).
#[derive(Debug, Default)]
pub(crate) struct Membership {
    /// The last message 12 applied, whole, with its revision.
    held: Option<(u32, Vec<u8>)>,
    /// The present members of the last message 12 applied (`held`).
    members: Vec<Member>,
    /// Message 12s applied.
    applied: usize,
    /// The revisions of every message 12 applied (MEMBER-07).
    revisions: Revisions,
    /// The revision and present members of every message 12 applied, in order, when the
    /// client keeps them for the checks between members ([`Membership::keep_last`]).
    history: Vec<(u32, Vec<Member>)>,
    /// The revision the client acknowledged with message 38, and when.
    acknowledged: Option<(u32, Instant)>,
    /// The membership epoch of the first table (MEMBER-05).
    epoch: Option<u32>,
    /// The group host each bubble's citizen record in the last table applied names, as
    /// the bdNet path dials it (NS "The join descriptor", "The engine peer transport").
    group_hosts: BTreeMap<u8, SocketAddrV4>,
}

/// A message 12 that decoded: frame `idx`, the table `m`, its bytes `payload`.
#[derive(Debug)]
pub(super) struct Table<'a> {
    idx: u64,
    m: ReplicateMembership,
    payload: &'a [u8],
}

impl Membership {
    /// The masks name the lanes present and the host key a member (MEMBER-01: the client
    /// applies the table without checks, so a wrong one is taken as it is), every
    /// member's field 1 and field 2 are -1 (MEMBER-04), the epoch stays the first
    /// table's (MEMBER-05), and no region record names ambassador slot 0 (MEMBER-06).
    fn check_fields(&mut self, verdict: &mut Verdict, idx: u64, m: &ReplicateMembership) {
        let f = Some(idx);
        let present = m
            .members
            .iter()
            .enumerate()
            .filter(|(_, l)| l.is_some())
            .fold(0u32, |mask, (lane, _)| mask | 1 << lane);
        let mut wrong = Vec::new();
        for (name, mask) in [
            ("member mask", m.member_mask),
            ("second mask", m.second_mask),
        ] {
            if mask != present {
                wrong.push(format!(
                    "the {name} is {mask:#x}, the lanes present are {present:#x}"
                ));
            }
        }
        if !m.has_member(m.host.host_key) {
            wrong.push(format!(
                "the host key {:#018x} names no member",
                m.host.host_key
            ));
        }
        if !wrong.is_empty() {
            let reason = format!(
                "message 12 is applied without checks, and this one is wrong: {}",
                wrong.join("; ")
            );
            verdict.violate(Rule::Member01, f, None, reason);
        }
        let seeded: Vec<String> = m
            .members
            .iter()
            .enumerate()
            .filter_map(|(lane, l)| l.map(|member| (lane, member)))
            .filter(|(_, member)| member.field1 != -1 || member.field2 != -1)
            .map(|(lane, member)| format!("lane {lane} ({}, {})", member.field1, member.field2))
            .collect();
        if !seeded.is_empty() {
            let reason = format!(
                "member field 1 and field 2 are not -1 for {}: seeding them costs the ship and the banner",
                seeded.join(", ")
            );
            verdict.violate(Rule::Member04, f, None, reason);
        }
        let first = *self.epoch.get_or_insert(m.epoch);
        if m.epoch != first {
            let reason = format!(
                "membership epoch {} after {first}: changing it clears the client's peer table",
                m.epoch
            );
            verdict.violate(Rule::Member05, f, None, reason);
        }
        let zero: Vec<usize> = (0..m.regions.len())
            .filter(|&b| m.regions[b].ambassador_slot == 0)
            .collect();
        if !zero.is_empty() {
            let reason = format!(
                "region records {zero:?} name ambassador slot 0, which is the client itself"
            );
            verdict.violate(Rule::Member06, f, None, reason);
        }
        // facts 4.10: a citizen record is 128 descriptor bytes, a join descriptor (NS "The
        // join descriptor": exactly full; PEER-04)
        let sizes: Vec<(usize, usize)> = (0..m.regions.len())
            .filter_map(|b| Some((b, m.regions[b].citizen_descriptor.as_ref()?.len())))
            .filter(|(_, len)| *len != JoinDescriptor::LEN)
            .collect();
        if !sizes.is_empty() {
            let reason = format!(
                "region records (bubble, bytes) {sizes:?} carry a citizen join descriptor that is not {} bytes",
                JoinDescriptor::LEN
            );
            verdict.violate(Rule::Peer04, f, None, reason);
        }
    }

    /// Message 12s applied.
    pub(crate) fn applied(&self) -> usize {
        self.applied
    }

    /// The revision and present members of the last message 12 applied.
    pub(crate) fn last_table(&self) -> Option<(u32, &[Member])> {
        let (revision, _) = self.held.as_ref()?;
        Some((*revision, &self.members))
    }

    /// The revision and present members of every message 12 applied, in order, that
    /// [`Membership::keep_last`] kept.
    pub(crate) fn history(&self) -> &[(u32, Vec<Member>)] {
        &self.history
    }

    /// Keeps the last table applied in the history: a client whose run is reported keeps
    /// each (`ClientConfig::keep_for_report`), a load generator's keeps none, so its memory
    /// does not grow with each change of a long life's activity.
    pub(crate) fn keep_last(&mut self) {
        let last = self.last_table().map(|(r, members)| (r, members.to_vec()));
        self.history.extend(last);
    }

    /// After a public join, the first table applied, `self`'s last, is the player's own
    /// private session's, which the client never joined: the player alone (HOST-14; SR
    /// "The join burst").
    pub(super) fn check_private_table(&self, verdict: &mut Verdict, idx: u64, me: u64) {
        let Some((_, members)) = self.last_table() else {
            return;
        };
        let others: Vec<String> = members
            .iter()
            .filter(|m| m.member_key != me)
            .map(|m| format!("{:#x}", m.member_key))
            .collect();
        if !others.is_empty() {
            let reason = format!(
                "the burst of a public join carries a table naming [{}] besides the player: not the player's own private session's",
                others.join(", ")
            );
            verdict.violate(Rule::Host14, Some(idx), None, reason);
        }
    }

    /// The group host the last table applied names for `bubble`, when its citizen record
    /// names one the bdNet path dials.
    pub(crate) fn group_host(&self, bubble: u8) -> Option<SocketAddrV4> {
        self.group_hosts.get(&bubble).copied()
    }

    /// The revision the client last acknowledged, 0 before any.
    pub(crate) fn acknowledged_revision(&self) -> u32 {
        self.acknowledged.map_or(0, |(r, _)| r)
    }

    /// Message 12 as the client's decoder reads it: a body that does not decode is
    /// dropped before its consumer runs, and M stays unset (BODY-04, JOIN-09).
    pub(super) fn decode<'a>(
        verdict: &mut Verdict,
        idx: u64,
        payload: &'a [u8],
    ) -> Option<Table<'a>> {
        match ReplicateMembership::decode(payload) {
            Ok(m) => Some(Table { idx, m, payload }),
            Err(e) => {
                let (msg, len) = (ids::REPLICATE_MEMBERSHIP, payload.len());
                verdict.undecodable(Rule::Body04, idx, msg, len, &e);
                None
            }
        }
    }

    /// Message 12 `m` (the bytes `payload`) at `now`, applied without checks (MEMBER-01): a table without the local
    /// player `me` removes the local player from the activity (MEMBER-02). The client
    /// applies one update per revision, so a different body under the revision it holds is
    /// not applied (MEMBER-07). It acknowledges each new revision with message 38, the
    /// message this returns, so a repeat of an acknowledged revision with nothing changed
    /// is a push the host does not owe (MEMBER-03), unless it is part of the snapshot
    /// message 18 asked for (`in_snapshot`, HOST-03) or left the host before the
    /// acknowledgement reached it. A changed table goes out under the next revision (+1 per
    /// change, MEMBER-07): one that skips ahead is applied, and the revisions it skipped
    /// were never published; one that goes back to a revision the client applied is not
    /// applied. A public joiner's first table is its private session's, whose revisions
    /// are not the activity's (`from_private`).
    pub(super) fn apply(
        &mut self,
        verdict: &mut Verdict,
        now: Instant,
        table: &Table<'_>,
        me: u64,
        (in_snapshot, from_private): (bool, bool),
    ) -> Option<Outgoing> {
        let Table { idx, m, payload } = table;
        let idx = *idx;
        if let Some((revision, body)) = &self.held
            && *revision == m.revision
            && body != payload
        {
            let reason = format!(
                "message 12 carries another table under revision {revision}, which the client holds: not applied"
            );
            verdict.violate(Rule::Member07, Some(idx), None, reason);
            return None;
        }
        if let Some((held, _)) = &self.held
            && !from_private
        {
            let step = m.revision.wrapping_sub(*held);
            let back = step >= REVISION_HALF;
            if back && self.revisions.contains(m.revision) {
                let reason = format!(
                    "message 12 goes back to revision {} after {held}, a revision the client applied: not applied again",
                    m.revision
                );
                verdict.violate(Rule::Member07, Some(idx), None, reason);
                return None;
            }
            if step > 1 && !back {
                let reason = format!(
                    "message 12 revision {} after {held}: revisions {} to {} were never published (+1 per change); applied",
                    m.revision,
                    held.wrapping_add(1),
                    m.revision.wrapping_sub(1)
                );
                verdict.violate(Rule::Member07, Some(idx), None, reason);
            }
        }
        if !m.has_member(me) {
            let reason = format!(
                "the membership table has no member {me:#018x}: the local player is removed"
            );
            verdict.violate(Rule::Member02, Some(idx), None, reason);
        }
        self.check_fields(verdict, idx, m);
        let acknowledged = self.acknowledged.filter(|(r, _)| *r == m.revision);
        // a host resend that crossed the acknowledgement on the wire is not a repeat
        let settled = acknowledged.is_some_and(|(_, at)| now.since(at) > ACK_CROSSING_MS);
        let unchanged = self
            .held
            .as_ref()
            .is_some_and(|(r, body)| *r == m.revision && body == payload);
        self.held = Some((m.revision, payload.to_vec()));
        self.group_hosts = group_hosts(m);
        self.members.clear();
        self.members.extend(m.members.iter().flatten().copied());
        self.applied += 1;
        self.revisions.insert(m.revision);
        if settled && unchanged && !in_snapshot {
            let reason = format!(
                "message 12 repeats revision {}, which the client acknowledged, with nothing changed",
                m.revision
            );
            verdict.advise(Rule::Member03, Choice::AckCrossing, Some(idx), None, reason);
            return None;
        }
        if acknowledged.is_some() {
            return None;
        }
        self.acknowledged = Some((m.revision, now));
        Some(Outgoing {
            message: ids::MEMBERSHIP_ACKNOWLEDGEMENT,
            body: MembershipAcknowledgement {
                revision: m.revision,
            }
            .encode()
            .unwrap_or_default(), // 32 bits: never fails
        })
    }
}

/// The group host each bubble's citizen record in `m` names, as the bdNet path dials it: a
/// record of 128 bytes that reads as a join descriptor whose host address takes that path
/// and names a public endpoint (the length is judged with the table; PEER-03, PEER-06).
fn group_hosts(m: &ReplicateMembership) -> BTreeMap<u8, SocketAddrV4> {
    (0u8..)
        .zip(&m.regions)
        .filter_map(|(bubble, record)| {
            let descriptor = JoinDescriptor::read(record.citizen_descriptor.as_deref()?).ok()?;
            Some((bubble, descriptor.host.dialed()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::membership::MEMBER_LANES;
    use vex_wire::scenario::Scenario;

    /// Message 12 `body` decoded and applied, as the dispatch does.
    fn feed(
        m: &mut Membership,
        v: &mut Verdict,
        now: Instant,
        idx: u64,
        body: &[u8],
        me: u64,
    ) -> Option<Outgoing> {
        let table = Membership::decode(v, idx, body)?;
        m.apply(v, now, &table, me, (false, false))
    }

    /// The group host of a bubble is the public endpoint its citizen record names on the
    /// bdNet path: a record naming Steam relay, no public endpoint, or no record at all
    /// names none.
    #[test]
    fn each_bubbles_group_host_is_the_one_its_record_dials() {
        use vex_wire::peer::net_addr::NetAddr;
        use zerocopy::IntoBytes;
        let p = Scenario::builtin().player;
        let me = Member::seed(p.member_key, p.account_soid, p.character_id);
        let mut table = ReplicateMembership::for_local_member(me, 1);
        let descriptor = |host: NetAddr| {
            let d = JoinDescriptor {
                machine_id: [1; 8],
                host,
                join_key: [0; 16],
                online_session_id: [0; 18],
            };
            Some(d.as_bytes().to_vec())
        };
        let host = NetAddr::direct([127, 0, 0, 2], 30975, 0);
        let mut steam = host;
        steam.transport_method = 6;
        let mut unreachable = host;
        unreachable.public_ipv4 = [0; 4];
        table.regions[1].citizen_descriptor = descriptor(host);
        table.regions[2].citizen_descriptor = descriptor(steam);
        table.regions[3].citizen_descriptor = descriptor(unreachable);
        let (mut m, mut v) = (Membership::default(), Verdict::new());
        feed(
            &mut m,
            &mut v,
            Instant::default(),
            1,
            &table.encode().unwrap(),
            p.member_key,
        );
        let named = "127.0.0.2:30975".parse().ok();
        assert_eq!((m.group_host(0), m.group_host(1)), (None, named));
        assert_eq!((m.group_host(2), m.group_host(3)), (None, None));
    }

    /// MEMBER-07 at each step from the revision held: +1 applies silently, and so does
    /// 0xFFFF_FFFF then 0; +2 and +2^31-1 skip ahead (applied, caught); back to a revision
    /// the client applied is caught and not applied, back to one it never saw is applied;
    /// a public joiner's first table, its private session's, is not judged against the
    /// activity's next.
    #[test]
    fn a_revision_skipping_ahead_or_going_back_is_caught() {
        let p = Scenario::builtin().player;
        let member = Member::seed(p.member_key, p.account_soid, p.character_id);
        let at = |revision: u32| {
            let mut t = ReplicateMembership::for_local_member(member, revision);
            // each revision a table of its own, so none repeats another's body
            t.members[0].as_mut().unwrap().field6 = u64::from(revision);
            t.encode().unwrap()
        };
        let judged = |revisions: &[u32], from_private: bool| {
            let (mut m, mut v) = (Membership::default(), Verdict::new());
            for (i, r) in revisions.iter().enumerate() {
                let body = at(*r);
                let table = Membership::decode(&mut v, i as u64, &body).unwrap();
                let private_first = from_private && i == 1;
                m.apply(
                    &mut v,
                    Instant::default(),
                    &table,
                    p.member_key,
                    (false, private_first),
                );
            }
            (v.rules(), m.applied)
        };
        assert_eq!(judged(&[4, 5, 6], false), (vec![], 3));
        assert_eq!(judged(&[u32::MAX, 0], false), (vec![], 2), "wraps");
        assert_eq!(
            judged(&[4, 6], false),
            (vec![Rule::Member07], 2),
            "+2, applied"
        );
        let far = 4 + (1 << 31) - 1;
        assert_eq!(judged(&[4, far], false), (vec![Rule::Member07], 2));
        assert_eq!(judged(&[4, 5, 4], false), (vec![Rule::Member07], 2), "back");
        assert_eq!(
            judged(&[4, 3], false),
            (vec![], 2),
            "back to one never seen"
        );
        assert_eq!(
            judged(&[1, 4, 5], true),
            (vec![], 3),
            "private, then the activity's"
        );
    }

    /// An acknowledged revision sent again unchanged is a repeat only once the
    /// acknowledgement had time to reach the host (MEMBER-03).
    #[test]
    fn a_repeat_within_the_crossing_window_is_spared() {
        let p = Scenario::builtin().player;
        let member = Member::seed(p.member_key, p.account_soid, p.character_id);
        let body = ReplicateMembership::for_local_member(member, 1)
            .encode()
            .unwrap();
        let (mut m, mut v) = (Membership::default(), Verdict::new());
        let apply = |m: &mut Membership, v: &mut Verdict, at: u64, idx: u64| {
            feed(m, v, Instant::from_millis(at), idx, &body, p.member_key)
        };
        assert!(apply(&mut m, &mut v, 0, 1).is_some(), "message 38 sent");
        assert_eq!(m.acknowledged, Some((1, Instant::from_millis(0))));
        assert!(apply(&mut m, &mut v, ACK_CROSSING_MS, 2).is_none());
        assert!(v.rules().is_empty(), "crossed the acknowledgement");
        assert!(apply(&mut m, &mut v, ACK_CROSSING_MS + 1, 3).is_none());
        assert_eq!(v.rules(), [Rule::Member03]);
    }

    /// A different body under the revision the client holds is not applied (MEMBER-07),
    /// whichever part differs: a member's record, a lane, the host key or a mask; the
    /// same body again is no breach of it, and the next revision applies.
    #[test]
    fn another_body_under_the_held_revision_is_not_applied() {
        let p = Scenario::builtin().player;
        let me = Member::seed(p.member_key, p.account_soid, p.character_id);
        let table = ReplicateMembership::for_local_member(me, 4);
        let mut other_record = table.clone();
        if let Some(m) = other_record.members[0].as_mut() {
            m.field6 = 1;
        }
        let mut second_lane = table.clone();
        second_lane.members[5] = Some(Member::seed(7, p.account_soid, 8));
        second_lane.member_mask |= 1 << 5;
        second_lane.second_mask |= 1 << 5;
        let mut host_tail = table.clone();
        host_tail.host.spawn_state = 1;
        let mut token = table.clone();
        token.regions[0].transition_tokens[0] = 1;
        for changed in [other_record, second_lane, host_tail, token] {
            let (mut m, mut v) = (Membership::default(), Verdict::new());
            let body = table.encode().unwrap();
            feed(&mut m, &mut v, Instant::default(), 1, &body, p.member_key);
            let again = feed(&mut m, &mut v, Instant::default(), 2, &body, p.member_key);
            assert!(
                again.is_none() && v.rules().is_empty(),
                "the same body again"
            );
            let other = changed.encode().unwrap();
            feed(&mut m, &mut v, Instant::default(), 3, &other, p.member_key);
            assert_eq!(v.rules(), [Rule::Member07]);
            assert_eq!(m.applied, 2, "not applied");
            let mut next = changed.clone();
            next.revision = 5;
            let ack = feed(
                &mut m,
                &mut v,
                Instant::default(),
                4,
                &next.encode().unwrap(),
                p.member_key,
            );
            assert!(ack.is_some(), "revision 5 applies and is acknowledged");
            assert_eq!(v.rules(), [Rule::Member07]);
        }
    }

    /// After a public join the first table is the player's alone: another member in it is
    /// a HOST-14 breach in the lane after the player's, in the last lane, and in lane 0
    /// with the player after it; the player alone, in lane 0 or in the last lane, is none.
    #[test]
    fn a_public_burst_table_names_the_player_alone() {
        let p = Scenario::builtin().player;
        let me = Member::seed(p.member_key, p.account_soid, p.character_id);
        let other = Member::seed(9, p.account_soid, 10);
        let table = |lanes: &[(usize, Member)]| {
            let mut members = [None; MEMBER_LANES];
            for (lane, member) in lanes {
                members[*lane] = Some(*member);
            }
            ReplicateMembership::for_members(members, 1, p.member_key)
        };
        let last = MEMBER_LANES - 1;
        let cases = [
            (table(&[(0, me)]), vec![]),
            (table(&[(last, me)]), vec![]),
            (table(&[(0, me), (1, other)]), vec![Rule::Host14]),
            (table(&[(0, me), (last, other)]), vec![Rule::Host14]),
            (table(&[(0, other), (1, me)]), vec![Rule::Host14]),
        ];
        for (table, want) in cases {
            let (mut m, mut v) = (Membership::default(), Verdict::new());
            let body = table.encode().unwrap();
            feed(&mut m, &mut v, Instant::default(), 1, &body, p.member_key);
            m.check_private_table(&mut v, 1, p.member_key);
            assert_eq!(v.rules(), want);
        }
    }

    /// MEMBER-04 at each field and lane, MEMBER-05 on a later table, MEMBER-06 at the
    /// first and last region record; the seed passes.
    #[test]
    fn member_fields_epoch_and_ambassador_slots_are_judged() {
        let p = Scenario::builtin().player;
        let me = Member::seed(p.member_key, p.account_soid, p.character_id);
        let table = ReplicateMembership::for_local_member(me, 1);
        let rules = |tables: &[ReplicateMembership]| {
            let (mut m, mut v) = (Membership::default(), Verdict::new());
            for (i, t) in tables.iter().enumerate() {
                m.check_fields(&mut v, i as u64, t);
            }
            v.rules()
        };
        assert!(rules(&[table.clone(), table.clone()]).is_empty());
        let mut field1 = table.clone();
        field1.members[0].as_mut().unwrap().field1 = 0;
        let mut field2 = table.clone();
        field2.members[0].as_mut().unwrap().field2 = 0;
        let mut lane5 = table.clone();
        let mut other = Member::seed(9, p.account_soid, 10);
        other.field2 = 5;
        lane5.members[5] = Some(other);
        (lane5.member_mask, lane5.second_mask) = (0b10_0001, 0b10_0001);
        for t in [field1, field2, lane5] {
            assert_eq!(rules(&[t]), [Rule::Member04]);
        }
        let mut moved = table.clone();
        moved.epoch = 1;
        assert_eq!(rules(&[table.clone(), moved]), [Rule::Member05]);
        for record in [0, 63] {
            let mut zero = table.clone();
            zero.regions[record].ambassador_slot = 0;
            assert_eq!(rules(&[zero]), [Rule::Member06], "record {record}");
        }
    }

    /// MEMBER-01 on a single table: each mask that disagrees with the lanes present, and
    /// a host key that names no member.
    #[test]
    fn a_wrong_table_is_caught_by_its_masks_and_host_key() {
        let p = Scenario::builtin().player;
        let me = Member::seed(p.member_key, p.account_soid, p.character_id);
        let table = ReplicateMembership::for_local_member(me, 1);
        let mut first = table.clone();
        first.member_mask = 0b11;
        let mut second = table.clone();
        second.second_mask = 0;
        let mut host = table.clone();
        host.host.host_key ^= 1;
        for t in [first, second, host] {
            let (mut m, mut v) = (Membership::default(), Verdict::new());
            m.check_fields(&mut v, 1, &t);
            assert_eq!(v.rules(), [Rule::Member01]);
        }
        let (mut m, mut v) = (Membership::default(), Verdict::new());
        m.check_fields(&mut v, 1, &table);
        assert!(v.rules().is_empty());
    }
}
