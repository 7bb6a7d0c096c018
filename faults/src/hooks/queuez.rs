//! The queuez faults (`fault.rs`) and variations (`variation.rs`): each fault turns the
//! snapshot a subscription gets into service-123 pushes that break one rule, a variation
//! into pushes that take a freedom the pages leave (NS "Replicated objects, service 123").

use crate::fault::Fault;
use crate::plan::HostPlan;
use crate::variation::Variation;
use vex_host::lobby::queuez::{account, raw};
use vex_wire::bap::queuez::{
    ACCOUNT_OBJECT, CHARACTER_OBJECT, ENCODING_OODLE, ObjectUpdate, SLOTS_PER_FAMILY, Update,
};

/// A character payload that, beside a full account object, takes one message past the
/// 143,285 bytes that end the link (QZ-08).
const OVERSIZE_CHARACTER: usize = 50_000;
/// The version of a family's first snapshot from our host.
const FIRST_VERSION: i32 = 1;
/// The bytes [`Variation::QueuezEncodings`] sends the account object as: opaque to Vex,
/// which has no Oodle.
const PACKED: [u8; 64] = [0xA5; 64];
/// Service 123's leading family count, a u32.
const FAMILY_COUNT_LEN: usize = 4;

/// The service-123 bodies `update` (one family's full snapshot) goes out as under `plan`;
/// [`Fault::QueuezCutShort`] cuts each one byte short, [`Fault::QueuezLittleEndianCount`]
/// writes the family count little-endian (QZ-02).
pub fn pushes(plan: &HostPlan, update: Update) -> Vec<Vec<u8>> {
    let cut = usize::from(plan.has(Fault::QueuezCutShort));
    updates(plan, update)
        .iter()
        .map(|u| {
            let mut body = u.encode();
            body.truncate(body.len() - cut);
            if plan.has(Fault::QueuezLittleEndianCount)
                && let Some(count) = body.get_mut(..FAMILY_COUNT_LEN)
            {
                count.reverse();
            }
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
            Fault::WsRevisionUnpublished if !family.full_snapshot => return Vec::new(),
            Fault::QueuezTooLarge => {
                family.objects = vec![
                    account(key, 0),
                    raw(CHARACTER_OBJECT, key, OVERSIZE_CHARACTER),
                ];
            }
            _ => {}
        }
    }
    if plan.varies(Variation::AccountRawWhole) {
        family.objects.push(account(key, 0));
    }
    if plan.varies(Variation::QueuezEncodings) {
        return encodings(update);
    }
    if plan.varies(Variation::QueuezEmptyFirst) && family.version == FIRST_VERSION {
        // the same family one version earlier, with no object, then the snapshot itself
        let mut empty = family.clone();
        empty.objects.clear();
        empty.version -= 1;
        return [empty, family.clone()]
            .map(|f| Update { families: vec![f] })
            .to_vec();
    }
    vec![update]
}

/// `update` with its raw objects' keys in their own byte order, little-endian, and the
/// account object packed (encoding 4).
fn encodings(mut update: Update) -> Vec<Update> {
    let Some(family) = update.families.first_mut() else {
        return vec![update];
    };
    let key = family.objects.first().map_or(0, |o| o.key);
    for o in &mut family.objects {
        if let Some(first) = o.payload.get_mut(..8) {
            first.copy_from_slice(&o.key.to_le_bytes());
        }
    }
    family.objects.push(ObjectUpdate {
        object_id: ACCOUNT_OBJECT,
        key,
        encoding: ENCODING_OODLE,
        payload: PACKED.to_vec(),
    });
    vec![update]
}
