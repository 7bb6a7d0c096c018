//! `vex load`: many emulated clients against a host over TCP, in real time (issue "Under
//! load and faults": load). Clients start spread over a ramp; every `group` of them share
//! one activity (the first makes it with a private join, the others join it with public
//! joins, SR "The join burst"), and each lives life after life ([`crate::load_client`]).
//! Each group asks service 16 for an activity host id of its own (the scenario's plus the
//! group's index), so a host of several processes can place the activities apart; the
//! clients' lobby links go to the plan's targets in turn. A run can be split over
//! processes ([`Shard`]): each drives whole groups of the clients, on one schedule.

use crate::load_client::{Member, Session};
use crate::load_figures::Tally;
use std::net::SocketAddrV4;
use std::ops::Range;
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
    /// The part of the run this process drives.
    pub shard: Shard,
}

/// One part of a run split over processes (`vex load --shards`): shard `index` of
/// `count`, the whole run when `count` is 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which part, from 0.
    pub index: usize,
    /// How many parts.
    pub count: usize,
}

impl Shard {
    /// The whole run in one process.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// The client indices this shard drives, of `clients` in activities of `group`:
    /// whole groups, as a group's members learn its session from its maker in-process,
    /// and as many groups as any other shard give or take one.
    pub fn clients(self, clients: usize, group: usize) -> Range<usize> {
        let group = group.max(1);
        let groups = clients.div_ceil(group);
        let count = self.count.max(1);
        let first = groups * self.index / count;
        let end = groups * (self.index + 1) / count;
        (first * group).min(clients)..(end * group).min(clients)
    }
}

/// Runs `plan` from `start`, every client adding what it records to `tally` as it goes.
/// Each client starts at its place on the ramp among all the run's clients, whichever
/// shard drives it.
pub async fn run(plan: LoadPlan, start: tokio::time::Instant, tally: Arc<Tally>) {
    let end = start + plan.duration;
    let last_start = end.checked_sub(DRAIN).unwrap_or(start).max(start);
    let group = plan.group.clamp(1, 32);
    let mut made = None;
    let indices = plan.shard.clients(plan.clients, group);
    let mut tasks = Vec::with_capacity(indices.len());
    for index in indices {
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
        config.keep_for_report = false; // a load run keeps no transcript, judges each alone
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Shards split a run into contiguous whole groups that cover it once, differing by
    /// one group at most, whatever the clients, the group and the shards.
    #[test]
    fn shards_take_whole_groups_and_cover_the_run() {
        for clients in [0, 1, 3, 4, 5, 99, 100, 10_000, 10_001] {
            for group in [1, 3, 4, 32] {
                for count in 1..=5 {
                    let parts: Vec<Range<usize>> = (0..count)
                        .map(|index| Shard { index, count }.clients(clients, group))
                        .collect();
                    let case = format!("{clients} clients, group {group}, {count} shards");
                    assert_eq!(parts[0].start, 0, "{case}");
                    assert_eq!(parts[count - 1].end, clients, "{case}");
                    for pair in parts.windows(2) {
                        assert_eq!(pair[0].end, pair[1].start, "{case}");
                        assert_eq!(pair[0].end % group, 0, "{case}: a whole group");
                    }
                    let sizes = parts.iter().map(|p| p.len().div_ceil(group));
                    let (least, most) = (sizes.clone().min(), sizes.max());
                    assert!(most.unwrap() - least.unwrap() <= 1, "{case}: {parts:?}");
                }
            }
        }
        assert_eq!(Shard::WHOLE.clients(10, 4), 0..10);
        assert_eq!(Shard { index: 1, count: 2 }.clients(10, 4), 4..10);
    }
}
