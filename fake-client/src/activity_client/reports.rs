//! The client's own gameplay reports that the script drives: an incident, message 19, as
//! a type-31 player_trigger_sensor posts one when a player enters its volume (AH "Types 30
//! and 31"; SR "What each client message gets": 19 is decoded and passed to the host
//! runtime, with no acknowledgement; HOST-13, HOST-18).

use crate::links::Outgoing;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids;
use vex_wire::activity::incident::Incident;
use vex_wire::time::Instant;

/// The definition row the client's incident names: a row inside the table and off its
/// crashing rows (INCIDENT-01, INCIDENT-02); the pages name no row's meaning.
const ENTERED_ROW: u16 = 1;

/// When the client posts its incident.
#[derive(Debug, Default)]
pub(crate) struct Reports {
    /// When the client sends message 19.
    incident_at: Option<Instant>,
}

impl Reports {
    /// Message 19 is sent at `at`, if the script posts one.
    pub(super) fn schedule(&mut self, incident_at: Option<Instant>) {
        self.incident_at = incident_at;
    }

    /// When message 19 is due.
    pub(crate) fn incident_due(&self) -> Option<Instant> {
        self.incident_at
    }

    /// Message 19 naming the local player (`target`, its entity index) as the one who
    /// entered.
    pub(crate) fn incident(&mut self, target: u16) -> Outgoing {
        self.incident_at = None;
        let incident = Incident {
            definition: ENTERED_ROW,
            targets: vec![target],
            payload: Vec::new(),
        };
        Outgoing {
            message: ids::INCIDENT,
            body: incident.encode().unwrap_or_default(), // in range by construction
        }
    }
}
