//! The sans-IO emulated client: its links, its one activity client, its status line and
//! its verdict, behind the API the IO layer drives (design "Sans-IO cores", "The emulated
//! client"). Frames come in through `receive`, time through `timer`; the route into an
//! activity is `route`, service 9 is `push`, and what an activity client does is
//! [`crate::activity_client`].

use crate::activity::MemberView;
use crate::activity_client::ActivityClient;
use crate::config::ClientConfig;
use crate::link::LinkKind;
use crate::links::{ClientTransmit, Links};
use crate::probe::Probe;
use crate::receive::Received;
use crate::rules::Rule;
use crate::status::StatusLine;
use crate::verdict::{Outcome, Verdict};
use crate::violation::Violation;
use std::collections::VecDeque;
use std::net::SocketAddrV4;
use vex_wire::bap::services::HOST_REQUEST;
use vex_wire::time::Instant;

/// The emulated client.
#[derive(Debug)]
pub struct ClientCore {
    pub(crate) config: ClientConfig,
    pub(crate) links: Links,
    /// The activity client service 7 made, once it did.
    pub(crate) activity: Option<ActivityClient>,
    pub(crate) status: StatusLine,
    pub(crate) verdict: Verdict,
    /// Frames received so far, both links.
    pub(crate) frames_in: u64,
    pub(crate) received: VecDeque<Received>,
    /// The replicated object store service 123 fills.
    pub(crate) store: crate::queuez::Store,
    /// The matchmaking requests not answered yet.
    pub(crate) matchmaking: crate::lobby_calls::Asked<vex_wire::bap::matchmaking::Kind>,
    /// The web-service calls not answered yet.
    pub(crate) web_service: crate::lobby_calls::Asked<(u16, u32)>,
}

impl ClientCore {
    /// A client that will first open its primary link to `config.target`.
    pub fn new(config: ClientConfig) -> Self {
        let links = Links::new(config.target);
        Self {
            config,
            links,
            activity: None,
            status: StatusLine::default(),
            verdict: Verdict::new(),
            frames_in: 0,
            received: VecDeque::new(),
            store: crate::queuez::Store::default(),
            matchmaking: crate::lobby_calls::Asked::default(),
            web_service: crate::lobby_calls::Asked::default(),
        }
    }

    /// The status line.
    pub fn status(&self) -> StatusLine {
        self.status
    }

    /// What the run has come to.
    pub fn outcome(&self) -> &Outcome {
        self.verdict.outcome()
    }

    /// Message-5 bodies applied so far.
    pub fn rosters_applied(&self) -> u32 {
        self.activity.as_ref().map_or(0, |a| a.roster.applied())
    }

    /// The session every push carries, once a join_result was accepted: what another
    /// member names to join the same activity (SR "The join burst": a public join).
    pub fn session(&self) -> Option<u64> {
        self.activity.as_ref().and_then(|a| a.join.session())
    }

    /// What the client knows of its activity's members, for the checks between members.
    pub fn member_view(&self) -> MemberView {
        let activity = self.activity.as_ref().filter(|a| a.join.established());
        MemberView {
            member_key: self.config.scenario.player.member_key,
            lease: activity.map(|a| a.slots.lease().clone()),
            tables: activity
                .map(|a| a.membership.tables().to_vec())
                .unwrap_or_default(),
            left: activity.is_some_and(|a| a.leave.left()),
            present: activity.is_some_and(|a| !a.leave.left()) && self.verdict.running(),
            session: self.session(),
        }
    }

    /// Every violation so far.
    pub fn violations(&self) -> &[Violation] {
        self.verdict.violations()
    }

    /// Violations recorded since the last call.
    pub fn poll_violations(&mut self) -> Vec<Violation> {
        self.verdict.poll_violations()
    }

    /// A link the IO layer should open.
    pub fn poll_connect(&mut self) -> Option<(LinkKind, SocketAddrV4)> {
        self.links.poll_connect()
    }

    /// The next frame to send.
    pub fn poll_transmit(&mut self) -> Option<ClientTransmit> {
        self.links.poll_transmit()
    }

    /// The next received frame report.
    pub fn poll_received(&mut self) -> Option<Received> {
        self.received.pop_front()
    }

    /// Sends activity message `msg` with `body` on the activity link at `now`, as it is: no
    /// check of the body, for experiments and fuzzing. Nothing is sent before a session
    /// exists.
    pub fn send_raw(&mut self, now: Instant, msg: u32, body: Vec<u8>) {
        let Some(session) = self.session() else {
            return;
        };
        let out = crate::links::Outgoing { message: msg, body };
        self.links.send_activity(now, session, out);
    }

    /// The IO layer opened `link`: start channel setup and the hello (facts 1.5).
    pub fn handle_connected(&mut self, now: Instant, link: LinkKind) {
        self.links.open(now, link, &self.config.token);
    }

    /// The link closed under the client. Losing the Activity Host link of a joined activity
    /// ends it as the link timeout does (LINK-01, `error_host_crashed`); closed just after a
    /// probe, it breaks the probe's rule first.
    pub fn handle_closed(&mut self, now: Instant, link: LinkKind) {
        let was_open = self.links.close(link);
        let joined = self.activity.as_ref().filter(|a| a.join.established());
        if was_open
            && link == LinkKind::Activity
            && self.verdict.running()
            && let Some(a) = joined
        {
            if let Some((rule, reason)) = a.probe.blame_close(now) {
                self.verdict.violate(rule, None, None, reason);
            }
            let reason = "error_host_crashed: the host closed the Activity Host link".to_string();
            self.verdict.violate(Rule::Link01, None, None, reason);
        }
    }

    /// The run's deadline passed: every check whose effect is a hang is judged now.
    pub fn finish(&mut self, now: Instant) {
        if !self.verdict.running() {
            return;
        }
        let malformed = self.config.script.probe.map(|(p, _)| p) == Some(Probe::MalformedSelection);
        for (link, task, service) in self.links.unanswered() {
            let (rule, what) = if malformed && service == HOST_REQUEST {
                (
                    Rule::Bap14,
                    "malformed service 6 (the host falls back to a default selection)",
                )
            } else {
                (Rule::Bap06, "")
            };
            let reason = format!(
                "{link} link: service {service} request{what} (task {task}) was never answered"
            );
            self.verdict.violate(rule, None, None, reason);
        }
        if let Some(activity) = &self.activity {
            activity.finish(&mut self.verdict, now);
        }
        if !self.status.in_activity() {
            let reason = format!("the run ended at {} without E, G and M", self.status);
            self.verdict.violate(Rule::Join09, None, None, reason);
        }
    }
}
