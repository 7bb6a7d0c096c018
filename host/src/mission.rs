//! The mission stage: typed events in, typed requests out (SR "Where mission scripts plug
//! in"). A slice runs four stages in a fixed order: transport, host, mission, gameplay.
//! Every entry point of [`HostCore`] ends with this stage: it takes the events the host
//! stage queued, in the order the reports came (SR "Client reports come in": order is
//! kept), calls the program's handler for each, then its due timers, and commits each
//! handler's requests together (one commit, one push: SR "Auth state goes out"). The
//! outcome of each commit is an event of its own, for the next slice. A reload is swapped
//! in only when nothing is in flight.

use crate::core::HostCore;
use crate::event::{HostEvent, WorldEvent};
use crate::world::WorldRequest;
use std::collections::{BTreeMap, VecDeque};
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
        session: u64,
        event: &MissionEvent,
    ) -> Result<Vec<WorldRequest>, ScriptError>;

    /// The earliest due time of any instance's timers.
    fn next_timer(&self) -> Option<Instant>;

    /// The earliest timer due at `now`, taken off its instance: its session and name.
    fn take_due_timer(&mut self, now: Instant) -> Option<(u64, String)>;

    /// `session`'s activity ended: its instance is dropped.
    fn end(&mut self, session: u64);

    /// True when some activity's instance runs.
    fn started(&self) -> bool;

    /// Compiles `source` and holds it for [`Mission::swap`]; a newer one replaces a held
    /// one. On an error the held program, if any, is dropped and the running one stays.
    fn prepare(&mut self, source: &str) -> Result<(), ScriptError>;

    /// Swaps the held program in: every instance keeps its variables and timers.
    fn swap(&mut self);

    /// What each instance holds, for `status`: its session and a line of its variables.
    fn status(&self) -> Vec<(u64, String)>;
}

/// What the mission stage did, for logs, the command link and tests.
#[derive(Debug, Clone, PartialEq)]
pub enum MissionReport {
    /// A handler ran and made `requests` requests.
    Handled {
        /// The activity's session.
        session: u64,
        /// The handler.
        handler: &'static str,
        /// Requests it made.
        requests: usize,
    },
    /// A handler failed; its instance goes on, and it made no request.
    Failed {
        /// The activity's session.
        session: u64,
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

/// One item of the stage's queue, in the order the host stage raised it.
#[derive(Debug, Clone, PartialEq)]
enum Input {
    Event(u64, MissionEvent),
    Ended(u64),
}

/// The mission stage of a [`HostCore`].
pub(crate) struct MissionStage {
    program: Box<dyn Mission>,
    /// Events raised since the stage last ran: at most what one entry point raised, since
    /// every entry point ends by running the stage.
    inputs: VecDeque<Input>,
    /// A compiled reload waits to be swapped in.
    reload_held: bool,
    /// Slots a handler changed whose first Sense report after is owed an outcome, with
    /// the handler: per activity session, at most one per slot.
    awaiting_report: BTreeMap<(u64, ClientRef), &'static str>,
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
    fn in_flight(&self) -> bool {
        !self.inputs.is_empty()
    }
}

impl HostCore {
    /// Queues `event` of `session` for the mission stage, when a mission runs and the
    /// activity is still there (an outcome of a commit refused because it ended is not).
    pub(crate) fn mission_event(&mut self, session: u64, event: MissionEvent) {
        if !self.activities.contains_key(&session) {
            return;
        }
        if let Some(stage) = self.mission.as_mut() {
            stage.inputs.push_back(Input::Event(session, event));
        }
    }

    /// `session`'s activity ended: its instance goes once the events before are handled.
    pub(crate) fn mission_ended(&mut self, session: u64) {
        if let Some(stage) = self.mission.as_mut() {
            stage.inputs.push_back(Input::Ended(session));
        }
    }

    /// A report changed the world: reported, and queued for the mission of the member's
    /// activity.
    pub(crate) fn world_event(&mut self, event: WorldEvent) {
        let link = event.link();
        let member = self
            .links
            .get(&link)
            .and_then(|l| l.binding.as_ref())
            .map(|b| b.session)
            .and_then(|s| Some((s, self.activities.get(&s)?.lane(link)?)));
        if let Some((session, member)) = member {
            self.mission_event(session, MissionEvent::World { member, event });
            let handler = event.slot().and_then(|slot| {
                let stage = self.mission.as_mut()?;
                Some((stage.awaiting_report.remove(&(session, slot))?, slot))
            });
            if let Some((handler, slot)) = handler {
                let handler = handler.to_string();
                let reported = MissionEvent::Reported {
                    handler,
                    member,
                    slot,
                };
                self.mission_event(session, reported);
            }
        }
        self.event(HostEvent::World(event));
    }

    /// Asks for `source` to replace the running mission: it compiles now, and is swapped
    /// in at the end of the stage once nothing is in flight; a newer request replaces one
    /// still held (SR "Where mission scripts plug in").
    pub fn request_reload(&mut self, now: Instant, source: &str) {
        self.now = now;
        let Some(stage) = self.mission.as_mut() else {
            return;
        };
        let report = if !stage.program.started() {
            MissionReport::ReloadRefused
        } else {
            match stage.program.prepare(source) {
                Ok(()) => {
                    stage.reload_held = true;
                    MissionReport::ReloadHeld
                }
                Err(e) => {
                    stage.reload_held = false;
                    MissionReport::ReloadFailed(e)
                }
            }
        };
        self.mission_report(report);
        self.run_mission(now);
    }

    /// What each running instance holds: its session and its variables.
    pub fn mission_status(&self) -> Vec<(u64, String)> {
        self.mission
            .as_ref()
            .map_or_else(Vec::new, |s| s.program.status())
    }

    fn mission_report(&mut self, report: MissionReport) {
        match &report {
            MissionReport::Failed { error, handler, .. } => {
                tracing::warn!(handler, %error, "mission handler failed");
            }
            MissionReport::ReloadFailed(error) => {
                tracing::warn!(%error, "reload does not compile; the running mission goes on");
            }
            MissionReport::ReloadRefused => {
                tracing::warn!("reload refused: no activity has started the mission");
            }
            other => tracing::info!(?other, "mission"),
        }
        self.event(HostEvent::Mission(report));
    }

    /// The mission stage: the events queued before it ran, in order, then every due
    /// timer, then a held reload once nothing is in flight. Outcomes of this run's commits
    /// are queued for the next run.
    pub(crate) fn run_mission(&mut self, now: Instant) {
        let Some(stage) = self.mission.as_mut() else {
            return;
        };
        let queued: Vec<Input> = stage.inputs.drain(..).collect();
        for input in queued {
            match input {
                Input::Event(session, event) => self.call_handler(now, session, &event),
                Input::Ended(session) => {
                    if let Some(stage) = self.mission.as_mut() {
                        stage.program.end(session);
                        stage.awaiting_report.retain(|(s, _), _| *s != session);
                    }
                }
            }
        }
        while let Some((session, name)) = self
            .mission
            .as_mut()
            .and_then(|s| s.program.take_due_timer(now))
        {
            self.call_handler(now, session, &MissionEvent::Timer { name });
        }
        let Some(stage) = self.mission.as_mut() else {
            return;
        };
        if stage.reload_held && !stage.in_flight() {
            stage.program.swap();
            stage.reload_held = false;
            self.mission_report(MissionReport::Reloaded);
        }
    }

    /// Calls `event`'s handler in `session`'s instance and commits what it asked for.
    fn call_handler(&mut self, now: Instant, session: u64, event: &MissionEvent) {
        let Some(stage) = self.mission.as_mut() else {
            return;
        };
        let handler = event.handler();
        let requests = match stage.program.handle(now, session, event) {
            Ok(r) => r,
            Err(error) => {
                return self.mission_report(MissionReport::Failed {
                    session,
                    handler,
                    error,
                });
            }
        };
        self.mission_report(MissionReport::Handled {
            session,
            handler,
            requests: requests.len(),
        });
        if requests.is_empty() {
            return;
        }
        let outcome = match self.request(session, &requests) {
            Ok(changed) => {
                if let Some(stage) = self.mission.as_mut() {
                    let awaited = changed.into_iter().map(|slot| ((session, slot), handler));
                    stage.awaiting_report.extend(awaited);
                }
                MissionEvent::Staged {
                    handler: handler.to_string(),
                    revision: self
                        .activities
                        .get(&session)
                        .map_or(0, |a| a.world().revision()),
                }
            }
            Err(error) => {
                tracing::warn!(handler, %error, "mission requests refused");
                self.event(HostEvent::Refused {
                    session,
                    error: error.clone(),
                });
                MissionEvent::Refused {
                    handler: handler.to_string(),
                    error: error.to_string(),
                }
            }
        };
        // an outcome's handler gets no outcome of its own: no handler loops on outcomes
        if !event.is_outcome() {
            self.mission_event(session, outcome);
        }
    }

    /// When the mission stage next has work: queued events now, else its next timer.
    pub(crate) fn mission_timeout(&self) -> Option<Instant> {
        let stage = self.mission.as_ref()?;
        if stage.inputs.is_empty() {
            stage.program.next_timer()
        } else {
            Some(self.now)
        }
    }
}
