//! The activity layer: every activity, what its members' messages do to it, its timeline
//! and the mission stage above it (SR "What the host does", "Where mission scripts plug
//! in"). The transport below ([`crate::link::Links`]) carries what it sends; the core
//! routes each activity message here once its frame is open.
//!
//! Each message family's handling is a file of `messages/`; the keepalive is
//! `keepalive.rs`, the world's one door `requests.rs`, the mission stage `mission/run.rs`
//! and the timeline `timeline.rs`.

use crate::activity::Activity;
use crate::config::HostConfig;
use crate::fleet_regions::RegionAsks;
use crate::mission::MissionStage;
use crate::outbound::Outbound;
use crate::policy::Policy;
use crate::timer_queue::TimerQueue;
use std::collections::BTreeMap;
use vex_wire::activity::join_template::JoinResultTemplate;
use vex_wire::activity::session::SessionId;
use vex_wire::time::Instant;

/// Every activity by session id, with what the layer keeps across them.
#[derive(Debug)]
pub(crate) struct Activities {
    /// The host's configuration (the core's own, as it was built).
    pub(crate) config: HostConfig,
    /// Every activity, by session id.
    pub(crate) map: BTreeMap<SessionId, Activity>,
    /// Message 4, encoded at the first join and patched for each one after.
    pub(crate) join_template: Option<JoinResultTemplate>,
    /// Every activity's next timeline commit, earliest first.
    pub(crate) commits: TimerQueue<SessionId>,
    /// Every activity whose table is held back for a missing host record, at its retry.
    pub(crate) membership_retries: TimerQueue<SessionId>,
    /// In a shared fleet, the questions about regions for the store.
    pub(crate) region_asks: RegionAsks,
    /// The mission stage, when a mission runs.
    pub(crate) mission: Option<MissionStage>,
    /// The time of the call in progress: every entry point of the core is given it.
    pub(crate) now: Instant,
}

impl Activities {
    /// No activity yet, under `config`.
    pub(crate) fn new(config: HostConfig) -> Self {
        Self {
            config,
            map: BTreeMap::new(),
            join_template: None,
            commits: TimerQueue::default(),
            membership_retries: TimerQueue::default(),
            region_asks: RegionAsks::default(),
            mission: None,
            now: Instant::default(),
        }
    }

    /// The host's decisions (design "The emulated client": a policy trait whose defaults
    /// are the correct behaviour).
    pub(crate) fn policy(&self) -> &dyn Policy {
        self.config.hooks.policy()
    }

    /// The one outbound hook every frame passes.
    pub(crate) fn outbound(&self) -> &dyn Outbound {
        self.config.hooks.outbound()
    }

    /// The activity of `session`.
    pub(crate) fn get(&self, session: SessionId) -> Option<&Activity> {
        self.map.get(&session)
    }
}
