//! Checks across the clients of one activity, which no single client can make: two
//! members never hold the same entity slot (AH "The main messages": message 0 grants are
//! ORed into each client's lease; SLOTS-04).

use crate::rules::Rule;
use crate::violation::Violation;
use vex_wire::activity::small::{ENTITY_SLOTS, EntitySlotMask};

/// The violations between the members whose leases (see `ClientCore::lease`) are
/// `leases`, in member order from 1: every pair holding a slot in common breaks SLOTS-04.
pub fn check_activity(leases: &[Option<&EntitySlotMask>]) -> Vec<Violation> {
    let mut found = Vec::new();
    for (a, first) in leases.iter().enumerate() {
        for (b, second) in leases.iter().enumerate().skip(a + 1) {
            let (Some(x), Some(y)) = (first, second) else {
                continue;
            };
            let shared: Vec<usize> = (0..ENTITY_SLOTS)
                .filter(|&i| x.get(i) && y.get(i))
                .collect();
            if let (Some(lowest), Some(highest)) = (shared.first(), shared.last()) {
                let rule = Rule::Slots04;
                found.push(Violation {
                    rule,
                    effect: rule.effect(),
                    frame: None,
                    bit: None,
                    reason: format!(
                        "members {} and {} both hold {} entity slots ({lowest} to {highest})",
                        a + 1,
                        b + 1,
                        shared.len()
                    ),
                });
            }
        }
    }
    found
}
