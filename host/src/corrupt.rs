//! Bit surgery on encoded bodies, for faults the encoders refuse to commit (a type-17
//! state of 11, a remainder one bit long). Used only by the [`crate::FaultPlan`].

use crate::fault::{Fault, FaultPlan};
use vex_wire::activity::sensor_auth::{DecodedAuthUpdate, OBJECT_HEAD_BITS};
use vex_wire::activity::slot::{CLIENT_REF_BITS, TYPE_LIFETIME};

/// Overwrites `width` bits at bit `at` of `bytes` with the low bits of `value`.
fn patch(bytes: &mut [u8], at: usize, width: usize, value: u64) {
    for i in 0..width {
        let bit = (value >> (width - 1 - i)) & 1 == 1;
        let pos = at + i;
        if let Some(b) = bytes.get_mut(pos / 8) {
            let mask = 0x80 >> (pos % 8);
            if bit {
                *b |= mask;
            } else {
                *b &= !mask;
            }
        }
    }
}

/// Applies the message-5 faults of `plan` to an encoded body.
pub fn sensor_auth(plan: &FaultPlan, body: &mut [u8]) {
    let Ok(m) = DecodedAuthUpdate::decode(body) else {
        return;
    };
    let mut objects = m.groups.iter().flat_map(|g| &g.objects);
    if plan.has(Fault::WrongRemainder)
        && let Some(first) = objects.clone().next()
    {
        // AUTH-05: one bit more than the block holds
        let at = first.at + 1 + CLIENT_REF_BITS;
        patch(body, at, 32, u64::from(first.remainder) + 1);
    }
    if plan.has(Fault::LifetimeStateEleven)
        && let Some(lifetime) = objects.find(|o| o.slot.slot_type == TYPE_LIFETIME)
    {
        // T17-01: state 11 (wire 12) after the reset and root bits
        patch(body, lifetime.at + OBJECT_HEAD_BITS + 2, 4, 12);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_sets_bits_across_bytes() {
        let mut b = [0u8; 3];
        patch(&mut b, 6, 4, 0b1011);
        assert_eq!(b, [0b0000_0010, 0b1100_0000, 0]);
        patch(&mut b, 6, 4, 0);
        assert_eq!(b, [0; 3]);
    }
}
