//! The mission stage: typed events in, typed requests out (SR "Where mission scripts plug
//! in"). A slice runs four stages in a fixed order: transport, host, mission, gameplay.
//! Every entry point of [`HostCore`] ends with this stage: it takes the events the host
//! stage queued, in the order the reports came (SR "Client reports come in": order is
//! kept), calls the program's handler for each, then its due timers, and commits each
//! handler's requests together (one commit, one push: SR "Auth state goes out"). The
//! outcome of each commit is an event of its own, for the next slice. A reload is swapped
//! in only when nothing is in flight.

use super::stage::Input;
use super::{MissionEvent, MissionReport};
use crate::activities::Activities;
use crate::event::{HostEvent, WorldEvent};
use crate::link::Links;
use vex_wire::activity::session::SessionId;
use vex_wire::time::Instant;

impl Activities {
    /// Queues `event` of `session` for the mission stage, when a mission runs and the
    /// activity is still there (an outcome of a commit refused because it ended is not).
    pub(crate) fn mission_event(&mut self, session: SessionId, event: MissionEvent) {
        if !self.map.contains_key(&session) {
            return;
        }
        if let Some(stage) = self.mission.as_mut() {
            stage.inputs.push_back(Input::Event(session, event));
        }
    }

    /// `session`'s activity ended: its instance goes once the events before are handled.
    pub(crate) fn mission_ended(&mut self, session: SessionId) {
        if let Some(stage) = self.mission.as_mut() {
            stage.inputs.push_back(Input::Ended(session));
        }
    }

    /// A report changed the world: reported, and queued for the mission of the member's
    /// activity.
    pub(crate) fn world_event(&mut self, links: &mut Links, event: WorldEvent) {
        let link = event.link();
        let member = links
            .binding(link)
            .map(|b| b.session())
            .and_then(|s| Some((s, self.map.get(&s)?.lane(link)?)));
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
        links.event(HostEvent::World(event));
    }

    /// Asks for `source` to replace the running mission: it compiles now, and is swapped
    /// in at the end of the stage once nothing is in flight; a newer request replaces one
    /// still held (SR "Where mission scripts plug in").
    pub(crate) fn request_reload(&mut self, links: &mut Links, now: Instant, source: &str) {
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
        self.mission_report(links, report);
        self.run_mission(links, now);
    }

    /// What each running instance holds: its session and its variables.
    pub(crate) fn mission_status(&self) -> Vec<(SessionId, String)> {
        self.mission
            .as_ref()
            .map_or_else(Vec::new, |s| s.program.status())
    }

    fn mission_report(&mut self, links: &mut Links, report: MissionReport) {
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
        links.event(HostEvent::Mission(report));
    }

    /// The mission stage: the events queued before it ran, in order, then every due
    /// timer, then a held reload once nothing is in flight. Outcomes of this run's commits
    /// are queued for the next run.
    pub(crate) fn run_mission(&mut self, links: &mut Links, now: Instant) {
        let Some(stage) = self.mission.as_mut() else {
            return;
        };
        let queued: Vec<Input> = stage.inputs.drain(..).collect();
        for input in queued {
            match input {
                Input::Event(session, event) => self.call_handler(links, now, session, &event),
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
            self.call_handler(links, now, session, &MissionEvent::Timer { name });
        }
        let Some(stage) = self.mission.as_mut() else {
            return;
        };
        if stage.reload_held && !stage.in_flight() {
            stage.program.swap();
            stage.reload_held = false;
            self.mission_report(links, MissionReport::Reloaded);
        }
    }

    /// Calls `event`'s handler in `session`'s instance and commits what it asked for.
    fn call_handler(
        &mut self,
        links: &mut Links,
        now: Instant,
        session: SessionId,
        event: &MissionEvent,
    ) {
        let Some(stage) = self.mission.as_mut() else {
            return;
        };
        let handler = event.handler();
        let requests = match stage.program.handle(now, session, event) {
            Ok(r) => r,
            Err(error) => {
                return self.mission_report(
                    links,
                    MissionReport::Failed {
                        session,
                        handler,
                        error,
                    },
                );
            }
        };
        self.mission_report(
            links,
            MissionReport::Handled {
                session,
                handler,
                requests: requests.len(),
            },
        );
        if requests.is_empty() {
            return;
        }
        let outcome = match self.request(links, session, &requests) {
            Ok(changed) => {
                if let Some(stage) = self.mission.as_mut() {
                    let awaited = changed.into_iter().map(|slot| ((session, slot), handler));
                    stage.awaiting_report.extend(awaited);
                }
                MissionEvent::Staged {
                    handler: handler.to_string(),
                    revision: self.map.get(&session).map_or(0, |a| a.world().revision()),
                }
            }
            Err(error) => {
                tracing::warn!(handler, %error, "mission requests refused");
                links.event(HostEvent::Refused {
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
