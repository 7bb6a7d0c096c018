//! The queuez faults (`fault.rs`): each turns the snapshot a subscription gets into
//! service-123 pushes that break one rule (NS "Replicated objects, service 123").

use crate::fault::Fault;
use crate::plan::HostPlan;
use crate::queuez::{account, raw};
use vex_wire::bap::queuez::{CHARACTER_OBJECT, SLOTS_PER_FAMILY, Update};

/// A character payload that, beside a full account object, takes one message past the
/// 143,285 bytes that end the link (QZ-08).
const OVERSIZE_CHARACTER: usize = 50_000;

/// The service-123 bodies `update` (one family's full snapshot) goes out as under `plan`;
/// [`Fault::QueuezCutShort`] cuts each one byte short (QZ-02).
pub fn pushes(plan: &HostPlan, update: Update) -> Vec<Vec<u8>> {
    let cut = usize::from(plan.has(Fault::QueuezCutShort));
    updates(plan, update)
        .iter()
        .map(|u| {
            let mut body = u.encode();
            body.truncate(body.len() - cut);
            body
        })
        .collect()
}

/// The updates `update` becomes under `plan`.
fn updates(plan: &HostPlan, mut update: Update) -> Vec<Update> {
    let Some(family) = update.families.first_mut() else {
        return vec![update];
    };
    let key = family.objects.first().map_or(0, |o| o.key);
    for fault in plan.iter() {
        match fault {
            Fault::QueuezNoFamily => {
                return vec![Update {
                    families: Vec::new(),
                }];
            }
            Fault::QueuezVersionMinusOne => family.version = -1,
            Fault::QueuezVersionGap => {
                let mut next = family.clone();
                next.version += 2;
                let first = Update {
                    families: vec![family.clone()],
                };
                return vec![
                    first,
                    Update {
                        families: vec![next],
                    },
                ];
            }
            Fault::QueuezKeyNotFirstQword => {
                if let Some(o) = family.objects.first_mut() {
                    o.key ^= 1;
                }
            }
            Fault::QueuezUnsubscribedFamily => family.family = (family.family + 1) % 8,
            Fault::QueuezSevenObjects => {
                family.objects = (0..=SLOTS_PER_FAMILY as u32)
                    .map(|i| raw(CHARACTER_OBJECT + i, key, 8))
                    .collect();
            }
            Fault::QueuezRawPastSlot => family.objects.push(account(key, 1)),
            Fault::QueuezTooLarge => {
                family.objects = vec![
                    account(key, 0),
                    raw(CHARACTER_OBJECT, key, OVERSIZE_CHARACTER),
                ];
            }
            _ => {}
        }
    }
    vec![update]
}
