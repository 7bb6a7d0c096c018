//! `vex load`: many emulated clients against a host over TCP, in real time (issue "Under
//! load and faults": load). Clients start spread over a ramp; every `group` of them share
//! one activity (the first makes it with a private join, the others join it with public
//! joins, SR "The join burst"), and each lives life after life ([`crate::load_client`]).
//! Each group asks service 16 for an activity host id of its own (the scenario's plus the
//! group's index), so a host of several processes can place the activities apart; the
//! clients' lobby links go to the plan's targets in turn.

use crate::load_client::{Member, Session};
use crate::load_figures::Tally;
use std::net::SocketAddrV4;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use vex_fake_client::ClientConfig;
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::scenario::Scenario;

/// How long before the run's end no new life begins: time for the route and a few
/// keepalives, so the last lives are judged whole.
const DRAIN: Duration = Duration::from_secs(10);

/// What a load run does.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    /// Where the clients' lobby links go, in turn: one host, or several processes of one.
    pub targets: Vec<SocketAddrV4>,
    /// Clients at once.
    pub clients: usize,
    /// How long the run lasts.
    pub duration: Duration,
    /// The clients start spread evenly over this.
    pub ramp: Duration,
    /// Clients per activity (1 to 32): the first of each group makes it, the others join.
    pub group: usize,
    /// The content the clients' packages hold.
    pub scenario: Scenario,
    /// The keys of the host's hello.
    pub signon: SignOnKeys,
    /// Each life also associates with its group host and joins the group session.
    pub peer: bool,
}

/// Runs `plan`, every client adding what it records to `tally` as it goes.
pub async fn run(plan: LoadPlan, tally: Arc<Tally>) {
    let start = tokio::time::Instant::now();
    let end = start + plan.duration;
    let last_start = end.checked_sub(DRAIN).unwrap_or(start).max(start);
    let group = plan.group.clamp(1, 32);
    let mut made = None;
    let mut tasks = Vec::with_capacity(plan.clients);
    for index in 0..plan.clients {
        let session = if index % group == 0 {
            let (tell, read) = watch::channel(None);
            made = Some(read);
            Session::Makes(tell)
        } else {
            match &made {
                Some(read) => Session::Joins(read.clone()),
                None => continue,
            }
        };
        let Some(&target) = plan.targets.get(index % plan.targets.len().max(1)) else {
            return;
        };
        let mut scenario = plan.scenario.clone();
        scenario.activity_host_id = scenario
            .activity_host_id
            .wrapping_add((index / group) as u64);
        let mut config = ClientConfig::member_of(target, scenario, index as u64 + 1);
        config.signon = plan.signon;
        config.record_frames = false; // a load run keeps no transcript
        let offset = plan.ramp.mul_f64(index as f64 / plan.clients.max(1) as f64);
        let member = Member {
            index,
            config,
            session,
            first_at: start + offset,
            peer: plan.peer,
            last_start,
            end,
            start,
        };
        tasks.push(tokio::spawn(member.live(tally.clone())));
    }
    for task in tasks {
        if let Err(e) = task.await {
            let line = format!("a client's task failed: {e}");
            tally.add(|s| s.failures.push(line));
        }
    }
}
