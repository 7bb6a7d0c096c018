//! Message 19 written by hand in place of the host's own at 3.5 s: five fields, no
//! presence bits and no biases (AH "incident, message 19"; facts 4.13 for the selector).

use crate::edit::replace;
use crate::mode::{Incident, Mode};
use vex_host::outbound::Payload;
use vex_wire::activity::ids::INCIDENT;
use vex_wire::bits::written;

/// The selector as written.
enum Selector {
    /// The bit clear.
    Clear,
    /// The bit set and nothing after it (AH).
    Bit,
    /// The bit, a 9-bit byte length, that many bytes (facts 4.13).
    Bytes(u16),
}

/// The body: definition, extra targets, selector, the unread pair's gate, payload.
fn body(definition: u16, targets: &[u16], selector: Selector, payload: usize) -> Vec<u8> {
    written(|w| {
        w.write(u64::from(definition), 13);
        w.write(targets.len() as u64, 5);
        for t in targets {
            w.write(u64::from(*t), 13);
        }
        match selector {
            Selector::Clear => w.write_bool(false),
            Selector::Bit => w.write_bool(true),
            Selector::Bytes(n) => {
                w.write_bool(true);
                w.write(u64::from(n), 9);
                w.write_zeros(8 * usize::from(n));
            }
        }
        w.write_bool(false);
        w.write(payload as u64, 9);
        w.write_zeros(8 * payload);
    })
    .expect("an incident body")
}

/// The host's incident replaced by the mode's.
pub fn payload(mode: Mode, msg: u32, p: &mut Payload<'_>) {
    let Mode::Incident(i) = mode else {
        return;
    };
    if msg != INCIDENT {
        return;
    }
    let bytes = match i {
        Incident::Definition(d) => body(d, &[], Selector::Clear, 0),
        Incident::Target(t) => body(2, &[t], Selector::Clear, 0),
        Incident::Targets(n) => body(2, &vec![3; n], Selector::Clear, 0),
        Incident::SelectorBit => body(2, &[], Selector::Bit, 0),
        Incident::SelectorBytes(n) => body(2, &[], Selector::Bytes(n), 0),
        Incident::Payload(n) => body(2, &[], Selector::Clear, n),
        Incident::AtLimits => body(7762, &[7762; 25], Selector::Clear, 500),
    };
    replace(p, &bytes);
}
