//! What a mission program is to the host: the typed events it is called with, the
//! requests it answers with, and its errors (SR "Where mission scripts plug in"). The
//! stage that runs it: its state in `stage.rs`, its run at the end of every entry point in
//! `run.rs`.

mod run;
mod stage;

pub(crate) use stage::MissionStage;

use crate::world::WorldRequest;
use crate::world_event::WorldEvent;
use vex_wire::activity::session::SessionId;

use vex_wire::activity::slot::ClientRef;
use vex_wire::scenario::Scenario;
use vex_wire::time::Instant;

/// What a mission handler is called with. The script never sees packet bytes (SR "Where
/// mission scripts plug in").
#[derive(Debug, Clone, PartialEq)]
pub enum MissionEvent {
    /// The activity's first member joined: the mission starts for it.
    Started,
    /// A member took lane `member` of the activity's table.
    MemberJoined {
        /// The member's lane.
        member: usize,
    },
    /// The member of lane `member` left. When it was the last, the activity has ended:
    /// what the handler asks for is refused, and its instance goes after it.
    MemberLeft {
        /// The member's lane.
        member: usize,
    },
    /// A report of the member in lane `member` changed the world.
    World {
        /// The member's lane.
        member: usize,
        /// What changed.
        event: WorldEvent,
    },
    /// A timer the program set is due.
    Timer {
        /// The name the program gave it.
        name: String,
    },
    /// A handler's requests reached the transport queue of every member the host could
    /// reach: the strongest outcome the host can prove (SR "Auth state goes out":
    /// transport_staged).
    Staged {
        /// The handler that made the requests.
        handler: String,
        /// The activity's Auth revision after the commit.
        revision: u64,
    },
    /// A member's Sense report of a slot a handler changed, the first after the change
    /// was staged: where the slot reports back, the report shows what the client applied
    /// (SR "Auth state goes out"). The report itself is its own event, just before.
    Reported {
        /// The handler whose requests changed the slot.
        handler: String,
        /// The lane of the member that reported.
        member: usize,
        /// The slot.
        slot: ClientRef,
    },
    /// A handler's requests were refused, all of them, and nothing was sent.
    Refused {
        /// The handler that made the requests.
        handler: String,
        /// Why, with the client rule a request would have broken.
        error: String,
    },
}

impl MissionEvent {
    /// Every handler a program may define, one per kind of event.
    pub const HANDLERS: [&'static str; 17] = [
        "on_started",
        "on_member_joined",
        "on_member_left",
        "on_sensed",
        "on_ghost_scan",
        "on_purge_requested",
        "on_authority_reset",
        "on_authority_in_bubble",
        "on_authority_reported",
        "on_incident",
        "on_authority_released",
        "on_region_changed",
        "on_timer",
        "on_staged",
        "on_reported",
        "on_refused",
        // not an event: run once when an activity's instance is made, before on_started
        "init",
    ];

    /// True for the outcome of a handler's requests (staged, reported, refused), which
    /// is an event of that handler's activity, not of a client report.
    pub fn is_outcome(&self) -> bool {
        matches!(
            self,
            Self::Staged { .. } | Self::Reported { .. } | Self::Refused { .. }
        )
    }

    /// The name of the handler this event calls.
    pub fn handler(&self) -> &'static str {
        match self {
            Self::Started => "on_started",
            Self::MemberJoined { .. } => "on_member_joined",
            Self::MemberLeft { .. } => "on_member_left",
            Self::Timer { .. } => "on_timer",
            Self::Staged { .. } => "on_staged",
            Self::Reported { .. } => "on_reported",
            Self::Refused { .. } => "on_refused",
            Self::World { event, .. } => match event {
                WorldEvent::Sensed { .. } => "on_sensed",
                WorldEvent::GhostScan { .. } => "on_ghost_scan",
                WorldEvent::PurgeRequested { .. } => "on_purge_requested",
                WorldEvent::AuthorityReset { .. } => "on_authority_reset",
                WorldEvent::AuthorityInBubble { .. } => "on_authority_in_bubble",
                WorldEvent::AuthorityReported { .. } => "on_authority_reported",
                WorldEvent::Incident { .. } => "on_incident",
                WorldEvent::AuthorityReleased { .. } => "on_authority_released",
                WorldEvent::RegionChanged { .. } => "on_region_changed",
            },
        }
    }
}

/// A script's error, placed where an editor can jump to it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct ScriptError {
    /// The script's file name.
    pub file: String,
    /// Its line, from 1; 0 when the error has no place in the script.
    pub line: usize,
    /// Its column, from 1; 0 when the error has no place in the script.
    pub column: usize,
    /// What went wrong.
    pub message: String,
}

/// A mission program: one instance per started activity, each with its own variables and
/// timers. An implementation is deterministic: it reads no clock but `now`, and no file,
/// network or process.
pub trait Mission: Send {
    /// The scenario the host serves, given once before any event, so a request for a slot
    /// it does not place can be refused where the program makes it.
    fn serve(&mut self, scenario: &Scenario);

    /// Runs the handler of `event` in `session`'s instance (made on its first event): the
    /// requests the handler made, which commit together, or why it failed; a failed handler
    /// makes no request, and the instance goes on.
    fn handle(
        &mut self,
        now: Instant,
        session: SessionId,
        event: &MissionEvent,
    ) -> Result<Vec<WorldRequest>, ScriptError>;

    /// The earliest due time of any instance's timers.
    fn next_timer(&self) -> Option<Instant>;

    /// The earliest timer due at `now`, taken off its instance: its session and name.
    fn take_due_timer(&mut self, now: Instant) -> Option<(SessionId, String)>;

    /// `session`'s activity ended: its instance is dropped.
    fn end(&mut self, session: SessionId);

    /// True when some activity's instance runs.
    fn started(&self) -> bool;

    /// Compiles `source` and holds it for [`Mission::swap`]; a newer one replaces a held
    /// one. On an error the held program, if any, is dropped and the running one stays.
    fn prepare(&mut self, source: &str) -> Result<(), ScriptError>;

    /// Swaps the held program in: every instance keeps its variables and timers.
    fn swap(&mut self);

    /// What each instance holds, for `status`: its session and a line of its variables.
    fn status(&self) -> Vec<(SessionId, String)>;
}

/// What the mission stage did, for logs, the command link and tests.
#[derive(Debug, Clone, PartialEq)]
pub enum MissionReport {
    /// A handler ran and made `requests` requests.
    Handled {
        /// The activity's session.
        session: SessionId,
        /// The handler.
        handler: &'static str,
        /// Requests it made.
        requests: usize,
    },
    /// A handler failed; its instance goes on, and it made no request.
    Failed {
        /// The activity's session.
        session: SessionId,
        /// The handler.
        handler: &'static str,
        /// Why.
        error: ScriptError,
    },
    /// A reload compiled and is held until nothing is in flight.
    ReloadHeld,
    /// The held reload was swapped in.
    Reloaded,
    /// A reload did not compile; the running program goes on.
    ReloadFailed(ScriptError),
    /// A reload was refused: only a started mission reloads.
    ReloadRefused,
}
