//! Checks across the clients of one activity, which no single client can make (AH "The
//! main messages": message 0 grants are ORed into each client's lease, message 12 is the
//! activity's member table; "Hazards for a host": message 12 is applied without checks):
//! two members never hold the same entity slot (SLOTS-04), and every member is told the
//! same table at one revision, naming the members that are in the activity (MEMBER-01).

use crate::rules::Rule;
use crate::violation::Violation;
use std::collections::BTreeSet;
use vex_wire::activity::membership::Member;
use vex_wire::activity::small::{ENTITY_SLOTS, EntitySlotMask};

/// What one member's client was told, for the checks between members.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemberView {
    /// The local player's member key.
    pub member_key: u64,
    /// The entity slots it held at the end, once it had joined.
    pub lease: Option<EntitySlotMask>,
    /// The revision and the present members of every message 12 it applied, in order (a
    /// client that keeps them: `ClientConfig::keep_for_report`).
    pub tables: Vec<(u32, Vec<Member>)>,
    /// It left the activity with message 15.
    pub left: bool,
    /// It joined and is still in the activity, running, at the end.
    pub present: bool,
    /// The activity session it joined.
    pub session: Option<u64>,
    /// The session the last service 7 named its own (ENV-08).
    pub own_session: Option<u64>,
}

impl MemberView {
    fn last_table(&self) -> Option<BTreeSet<u64>> {
        self.tables.last().map(|(_, members)| keys(members))
    }
}

fn between(rule: Rule, reason: String) -> Violation {
    Violation::new(rule, None, None, reason)
}

/// The violations between `members` (member 1 first) at the end of a run.
pub fn check_activity(members: &[MemberView]) -> Vec<Violation> {
    let mut found = shared_sessions(members);
    found.extend(shared_slots(members));
    found.extend(disagreeing_tables(members));
    found.extend(stale_tables(members));
    found
}

/// ENV-08: every pair of members whose service 7 named one session id for both (AH "The
/// activity envelope": "Give every activity session its own id": with one id for several
/// sessions, the first established client takes every later join_result).
fn shared_sessions(members: &[MemberView]) -> Vec<Violation> {
    let mut found = Vec::new();
    for (a, first) in members.iter().enumerate() {
        for (b, second) in members.iter().enumerate().skip(a + 1) {
            if let (Some(x), Some(y)) = (first.own_session, second.own_session)
                && x == y
            {
                let reason = format!(
                    "service 7 gave members {} and {} the same session id {x:#018x}: a join naming it is taken by the first client established on it",
                    a + 1,
                    b + 1
                );
                found.push(between(Rule::Env08, reason));
            }
        }
    }
    found
}

/// SLOTS-04: every pair of members still in the same activity holding a slot in common
/// (a member that left holds nothing: the host frees its lease).
fn shared_slots(members: &[MemberView]) -> Vec<Violation> {
    let mut found = Vec::new();
    for (a, first) in members.iter().enumerate() {
        for (b, second) in members.iter().enumerate().skip(a + 1) {
            let (Some(x), Some(y), false, false, true) = (
                &first.lease,
                &second.lease,
                first.left,
                second.left,
                first.session == second.session,
            ) else {
                continue;
            };
            let shared: Vec<usize> = (0..ENTITY_SLOTS)
                .filter(|&i| x.get(i) && y.get(i))
                .collect();
            if let (Some(lowest), Some(highest)) = (shared.first(), shared.last()) {
                let reason = format!(
                    "members {} and {} both hold {} entity slots ({lowest} to {highest})",
                    a + 1,
                    b + 1,
                    shared.len()
                );
                found.push(between(Rule::Slots04, reason));
            }
        }
    }
    found
}

/// MEMBER-01: one revision of the table, as two members were told it, one of them naming
/// the other, lists different members or different records of them (an identity one
/// member was told and the other not). Reported once per pair, at the first such revision.
fn disagreeing_tables(members: &[MemberView]) -> Vec<Violation> {
    let mut found = Vec::new();
    for (a, first) in members.iter().enumerate() {
        for (b, second) in members.iter().enumerate().skip(a + 1) {
            let clash = clash(first, second).or_else(|| {
                clash(second, first).map(|(revision, theirs, mine)| (revision, mine, theirs))
            });
            if let Some((revision, mine, theirs)) = clash {
                let reason = format!(
                    "revision {revision} of the member table names {} for member {} and {} for member {}",
                    keys_text(&mine, &theirs),
                    a + 1,
                    keys_text(&theirs, &mine),
                    b + 1
                );
                found.push(between(Rule::Member01, reason));
            }
        }
    }
    found
}

/// The first revision of `first`'s tables that names `second` and that `second` was told
/// otherwise: the revision, `first`'s members and `second`'s, each by member key.
fn clash(first: &MemberView, second: &MemberView) -> Option<(u32, Vec<Member>, Vec<Member>)> {
    first.tables.iter().find_map(|(revision, mine)| {
        if !keys(mine).contains(&second.member_key) {
            return None;
        }
        let (_, theirs) = second.tables.iter().find(|(r, _)| r == revision)?;
        let (mine, theirs) = (by_key(mine), by_key(theirs));
        (mine != theirs).then_some((*revision, mine, theirs))
    })
}

/// True when a table either member was told names the other.
fn shared_once(one: &MemberView, other: &MemberView) -> bool {
    let names = |v: &MemberView, key: u64| v.tables.iter().any(|(_, t)| keys(t).contains(&key));
    names(one, other.member_key) || names(other, one.member_key)
}

/// The member keys of a table.
fn keys(members: &[Member]) -> BTreeSet<u64> {
    members.iter().map(|m| m.member_key).collect()
}

/// A table's records in member-key order, so two tables compare whatever their lanes.
fn by_key(members: &[Member]) -> Vec<Member> {
    let mut sorted = members.to_vec();
    sorted.sort_by_key(|m| m.member_key);
    sorted
}

/// MEMBER-01: at the end, a member still in the activity holds a table that lacks another
/// member still in it, though the host once told it they share the activity, or names one
/// that left. Members whose tables never named each other are not judged: a public join
/// may keep each member to the table of its own private session (SR "The join burst";
/// facts 4.10, "one body per binding").
fn stale_tables(members: &[MemberView]) -> Vec<Violation> {
    let mut found = Vec::new();
    for (a, member) in members.iter().enumerate() {
        let (true, Some(table)) = (member.present, member.last_table()) else {
            continue;
        };
        for (b, other) in members.iter().enumerate() {
            let named = table.contains(&other.member_key);
            let problem = if other.present && !named && shared_once(member, other) {
                "lacks member"
            } else if other.left && named {
                "still names member"
            } else {
                continue;
            };
            let reason = format!(
                "member {}'s last member table {problem} {} ({:#018x})",
                a + 1,
                b + 1,
                other.member_key
            );
            found.push(between(Rule::Member01, reason));
        }
    }
    found
}

/// The members of a table as text: each key, and a record that differs from the other
/// table's shows its fields.
fn keys_text(members: &[Member], other: &[Member]) -> String {
    let text: Vec<String> = members
        .iter()
        .map(
            |m| match other.iter().find(|o| o.member_key == m.member_key) {
                Some(o) if o != m => format!("{:#x} {m:?}", m.member_key),
                _ => format!("{:#x}", m.member_key),
            },
        )
        .collect();
    format!("[{}]", text.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(key: u64) -> Member {
        Member::seed(key, 0x9EAA_3001_0000_0042, 0x100 + key)
    }

    fn member(key: u64, tables: &[(u32, &[u64])]) -> MemberView {
        MemberView {
            member_key: key,
            lease: None,
            tables: tables
                .iter()
                .map(|(r, k)| (*r, k.iter().map(|&k| record(k)).collect()))
                .collect(),
            left: false,
            present: true,
            session: Some(1),
            own_session: None,
        }
    }

    fn rules(v: &[Violation]) -> Vec<Rule> {
        v.iter().map(|v| v.rule).collect()
    }

    /// ENV-08: two members told one session id is caught; ids that differ in any bit, or
    /// a member never told one, stay silent.
    #[test]
    fn one_session_id_for_two_members_is_caught() {
        let shared = 0x9EAA_3001_0020_0001;
        let mut a = member(1, &[]);
        let mut b = member(2, &[]);
        a.own_session = Some(shared);
        b.own_session = Some(shared);
        let found = check_activity(&[a.clone(), b.clone()]);
        assert_eq!(rules(&found), [Rule::Env08]);
        assert!(
            found[0].reason.contains("members 1 and 2"),
            "{}",
            found[0].reason
        );
        b.own_session = Some(shared + 1);
        assert!(check_activity(&[a.clone(), b.clone()]).is_empty());
        b.own_session = None;
        assert!(check_activity(&[a, b]).is_empty());
    }

    #[test]
    fn agreeing_members_pass() {
        let a = member(1, &[(1, &[1]), (2, &[1, 2])]);
        let b = member(2, &[(1, &[2]), (2, &[2, 1])]);
        assert!(check_activity(&[a, b]).is_empty());
    }

    #[test]
    fn one_revision_with_two_bodies_is_caught() {
        let a = member(1, &[(2, &[1, 2]), (3, &[1, 2, 3])]);
        let b = member(2, &[(2, &[1, 2]), (3, &[1, 2])]);
        let c = member(3, &[(3, &[1, 2, 3])]);
        let found = check_activity(&[a, b, c]);
        assert!(found.iter().any(|v| v.reason.contains("revision 3")));
        assert!(found.iter().any(|v| {
            v.reason
                .contains("member 2's last member table lacks member 3")
        }));
        assert!(rules(&found).iter().all(|r| *r == Rule::Member01));
    }

    /// The same members at one revision, one of them with another record for one member
    /// than the other was told (an identity, message 23, that reached one member only).
    #[test]
    fn one_revision_with_two_records_of_a_member_is_caught() {
        let a = member(1, &[(2, &[1, 2])]);
        let mut b = member(2, &[(2, &[2, 1])]);
        b.tables[0].1[1].field6 = 9;
        let found = check_activity(&[a, b]);
        assert_eq!(rules(&found), [Rule::Member01]);
        assert!(found[0].reason.contains("field6: 9"), "{}", found[0].reason);
    }

    /// A table only the second member names the first in is judged too.
    #[test]
    fn a_clash_named_from_either_side_is_caught() {
        let a = member(1, &[(2, &[1])]);
        let b = member(2, &[(2, &[1, 2])]);
        let found = check_activity(&[a, b]);
        assert!(found.iter().any(|v| v.reason.contains("revision 2")));
    }

    #[test]
    fn a_table_naming_a_member_that_left_is_caught() {
        let a = member(1, &[(2, &[1, 2])]);
        let mut b = member(2, &[(2, &[1, 2])]);
        b.left = true;
        b.present = false;
        let found = check_activity(&[a.clone(), b.clone()]);
        assert_eq!(rules(&found), [Rule::Member01]);
        assert!(found[0].reason.contains("still names member 2"));
        let a = member(1, &[(2, &[1, 2]), (3, &[1])]);
        assert!(check_activity(&[a, b]).is_empty());
    }

    /// Members each kept to their own private session's table, as a host may keep a
    /// public joiner, are not judged against each other.
    #[test]
    fn members_never_told_they_share_are_not_judged() {
        let a = member(1, &[(1, &[1])]);
        let b = member(2, &[(1, &[2])]);
        assert!(check_activity(&[a, b]).is_empty());
    }

    /// A member that left holds nothing: its old lease granted again is no shared slot.
    #[test]
    fn the_lease_of_a_member_that_left_is_not_counted() {
        let mut a = member(1, &[]);
        let mut b = member(2, &[]);
        a.lease = Some(EntitySlotMask::with_range(0..10));
        b.lease = Some(EntitySlotMask::with_range(0..10));
        b.left = true;
        b.present = false;
        assert!(check_activity(&[a, b]).is_empty());
    }

    #[test]
    fn shared_slots_are_caught() {
        let mut a = member(1, &[]);
        let mut b = member(2, &[]);
        a.lease = Some(EntitySlotMask::with_range(0..10));
        b.lease = Some(EntitySlotMask::with_range(9..20));
        let found = check_activity(&[a.clone(), b.clone()]);
        assert_eq!(rules(&found), [Rule::Slots04]);
        assert!(found[0].reason.contains("(9 to 9)"));
        // members of two activities each hold their own slots: nothing is shared
        b.session = Some(2);
        assert!(check_activity(&[a, b]).is_empty());
    }
}
