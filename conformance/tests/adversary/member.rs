//! Message 12, broken field by field, and its revision rule (facts 4.10; MEMBER-02 to
//! MEMBER-07).

use crate::host::Adversary;
use crate::mode::{Member as M, Mode};
use vex_wire::activity::membership::{Member, ReplicateMembership};

/// The table as the mode has it, remembering what went out.
pub fn table(adv: &Adversary, mut t: ReplicateMembership) -> ReplicateMembership {
    let Mode::Member(mode) = adv.mode else {
        return t;
    };
    let mut mem = adv.mem();
    let later = mem.tables > 0;
    mem.tables += 1;
    match mode {
        M::WithoutLocal => t.members.iter_mut().for_each(|m| *m = None),
        M::Field1(v) => t.members.iter_mut().flatten().for_each(|m| m.field1 = v),
        M::Field2(v) => t.members.iter_mut().flatten().for_each(|m| m.field2 = v),
        M::EpochLater(e) if later => t.epoch = e,
        M::AmbassadorZero => t.regions[0].ambassador_slot = 0,
        M::RevisionKept | M::RevisionSkips => {
            let host_revision = t.revision;
            let sent = match mem.table.take() {
                Some((last, sent)) if last != t => match mode {
                    M::RevisionKept => sent,
                    _ => sent + 2,
                },
                Some((_, sent)) => sent,
                None => host_revision,
            };
            mem.table = Some((t.clone(), sent));
            t.revision = sent;
        }
        M::Full => {
            let local = t.members.iter().flatten().next().copied();
            if let Some(local) = local {
                for (lane, m) in t.members.iter_mut().enumerate() {
                    if m.is_none() {
                        *m = Some(Member::seed(
                            local.member_key.wrapping_add(0x100 + lane as u64),
                            local.account_soid,
                            local.character_soid.wrapping_add(0x100 + lane as u64),
                        ));
                    }
                }
                t.member_mask = u32::MAX;
                t.second_mask = u32::MAX;
            }
        }
        _ => {}
    }
    t
}
