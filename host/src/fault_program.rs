//! Commits the [`crate::FaultPlan`] adds to the host program's timeline: requests the
//! world accepts, whose bodies break a slot type's rule against what the built-in
//! timeline published before (T3-01, T3-02, T65-01).

use crate::config::TimedCommit;
use crate::fault::{Fault, FaultPlan};
use crate::world::WorldRequest;
use vex_wire::activity::slot::{ClientRef, TYPE_GHOST_LINK, TYPE_OBJECTIVE};
use vex_wire::schema::Value;

/// After the built-in timeline's last commit (4 s).
const AFTER_MS: u64 = 4_500;
/// The built-in scenario's object with the objective and the ghost link.
const OBJECT: u32 = 0xBBBB_0001;

fn field(slot_type: i8, index: i16, field: &str, value: Value) -> WorldRequest {
    WorldRequest::SetAuthField {
        slot: ClientRef {
            key: OBJECT,
            slot_type,
            index,
        },
        field: field.into(),
        value,
    }
}

/// The commits `plan` adds.
pub(crate) fn commits(plan: &FaultPlan) -> Vec<TimedCommit> {
    let mut requests = Vec::new();
    if plan.has(Fault::ObjectiveByteDropped) {
        // objective 0 held 3: the whole array goes without its bytes
        requests.push(field(TYPE_OBJECTIVE, 1, "objective", Value::Absent));
    }
    if plan.has(Fault::ObjectiveGenerationDropped) {
        requests.push(field(TYPE_OBJECTIVE, 1, "generation", Value::Absent));
    }
    if plan.has(Fault::GhostChangeWithoutGeneration) {
        requests.push(field(TYPE_GHOST_LINK, 4, "active", Value::Bool(true)));
    }
    if requests.is_empty() {
        return Vec::new();
    }
    vec![TimedCommit {
        after_ms: AFTER_MS,
        requests,
    }]
}
