//! The mission stage's state: the program, the events waiting for it, a reload held until
//! nothing is in flight, and the reports a handler's change is owed (SR "Where mission
//! scripts plug in"). `run.rs` runs it at the end of every entry point.

use super::{Mission, MissionEvent};
use std::collections::{BTreeMap, VecDeque};
use vex_wire::activity::session::SessionId;
use vex_wire::activity::slot::ClientRef;

/// One item of the stage's queue, in the order the host stage raised it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Input {
    Event(SessionId, MissionEvent),
    Ended(SessionId),
}

/// The mission stage of a [`HostCore`].
pub(crate) struct MissionStage {
    pub(crate) program: Box<dyn Mission>,
    /// Events raised since the stage last ran: at most what one entry point raised, since
    /// every entry point ends by running the stage.
    pub(crate) inputs: VecDeque<Input>,
    /// A compiled reload waits to be swapped in.
    pub(crate) reload_held: bool,
    /// Slots a handler changed whose first Sense report after is owed an outcome, with
    /// the handler: per activity session, at most one per slot.
    pub(crate) awaiting_report: BTreeMap<(SessionId, ClientRef), &'static str>,
}

impl std::fmt::Debug for MissionStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MissionStage")
            .field("inputs", &self.inputs)
            .field("reload_held", &self.reload_held)
            .finish_non_exhaustive()
    }
}

impl MissionStage {
    pub(crate) fn new(program: Box<dyn Mission>) -> Self {
        Self {
            program,
            inputs: VecDeque::new(),
            reload_held: false,
            awaiting_report: BTreeMap::new(),
        }
    }

    /// True when an event waits: a client report's, or a commit's outcome (SR: the swap
    /// waits until the program has no request, report, timer or event in flight). The
    /// stage has fired every due timer before it asks. An owed `Reported` does not hold
    /// the swap: a client may never report the slot again.
    pub(crate) fn in_flight(&self) -> bool {
        !self.inputs.is_empty()
    }
}
