//! Incidents the host can be told to break (AH "incident, message 19", "Values that crash
//! the client"). The built-in mission posts no incident; under these faults the host
//! sends one right after the first message 5, written bit by bit, since the schema's
//! encoder refuses each of them.

use crate::fault::Fault;
use crate::plan::HostPlan;
use vex_wire::bits::written;

/// The first index past the 7,763-row definition table (INCIDENT-01).
const PAST_THE_TABLE: u64 = 7763;
/// A row with type code -1 (INCIDENT-02), and the other two.
const CRASHING_ROW: u64 = 4690;
const CRASHING_ROWS: [u64; 2] = [795, 5375];
/// One more extra target than the client holds (INCIDENT-03).
const TOO_MANY_TARGETS: usize = 26;
/// One more payload byte than the client takes (INCIDENT-05).
const TOO_LONG_PAYLOAD: usize = 501;

/// An incident body in facts 4.13's layout: index, extra targets, the compressed-selector
/// presence bit (with an empty selector when set), the unread pair absent, the payload.
fn incident(index: u64, targets: usize, selector: bool, payload: usize) -> Vec<u8> {
    written(|w| {
        w.write(index, 13);
        w.write(targets as u64, 5);
        for t in 0..targets {
            w.write(t as u64, 13);
        }
        w.write_bool(selector);
        if selector {
            w.write(0, 9);
        }
        w.write_bool(false);
        w.write(payload as u64, 9);
        w.write_zeros(payload * 8);
    })
    .unwrap_or_default()
}

/// The incident the plan asks for, if any.
pub(crate) fn faulty_incident(plan: &HostPlan) -> Option<Vec<u8>> {
    Some(if plan.has(Fault::IncidentPastTable) {
        incident(PAST_THE_TABLE, 0, false, 0)
    } else if plan.has(Fault::IncidentCrashingRow) {
        incident(CRASHING_ROW, 0, false, 0)
    } else if plan.has(Fault::IncidentRow795) {
        incident(CRASHING_ROWS[0], 0, false, 0)
    } else if plan.has(Fault::IncidentRow5375) {
        incident(CRASHING_ROWS[1], 0, false, 0)
    } else if plan.has(Fault::IncidentTooManyTargets) {
        incident(1, TOO_MANY_TARGETS, false, 0)
    } else if plan.has(Fault::IncidentCompressedSelector) {
        incident(1, 0, true, 0)
    } else if plan.has(Fault::IncidentPayloadTooLong) {
        incident(1, 0, false, TOO_LONG_PAYLOAD)
    } else if plan.has(Fault::ShortIncident) {
        vec![0, 0] // BODY-04: 16 bits, short of the 29 every incident holds
    } else {
        return None;
    })
}
