//! What must happen under each link fault (issue "Under load and faults": for each, a
//! case states what must happen): member 1's links carry the fault, member 2's do not.
//! The host keeps member 2's session whole (it stays in, clean, and its refresh after the
//! fault is answered in full), refuses a tampered or replayed frame, and member 1 reports
//! what the real client would. Against a host over TCP only the members are seen
//! ([`judge_members`]); in-process the host's own events are judged too ([`judge`]).

use crate::in_process::HostRun;
use crate::link_fault::{Direction, LinkFault};
use crate::report::RunReport;
use std::collections::BTreeSet;
use vex_fake_client::{Outcome, Rule};
use vex_host::reason::{Closed, Dropped};
use vex_host::{HostEvent, LinkId};

/// Member 1's activity link in the in-process harness.
const FAULTED_LINK: LinkId = LinkId(2);

/// The rules member 1 reports under `fault`: none when the fault is one the link must
/// carry unharmed.
pub fn faulted_reports(fault: LinkFault) -> &'static [Rule] {
    match fault {
        LinkFault::Split | LinkFault::Delay(_) | LinkFault::Reorder(_) => &[],
        LinkFault::Replay(Direction::ToHost, _) => &[],
        // the silence ends the activity; the host keepalive was overdue before it did
        LinkFault::Stall(_) => &[Rule::Link01, Rule::Link03],
        // the host closes a link whose channel lost a frame, as a cut one closes
        LinkFault::Cut(_) | LinkFault::Flip(Direction::ToHost, _) => &[Rule::Link01],
        LinkFault::Flip(Direction::ToClient, _) => &[Rule::Bap02],
        LinkFault::Replay(Direction::ToClient, _) => &[Rule::Bap18],
    }
}

/// The findings of `r` that rest on the pages or the facts, its advisory ones aside.
fn firm(r: &RunReport) -> Vec<&vex_fake_client::Violation> {
    r.violations.iter().filter(|v| !v.advisory()).collect()
}

/// What the host must have said of member 1's activity link: the frames it refused, and
/// whether it closed the link as out of step.
fn host_signs(fault: LinkFault) -> (usize, bool) {
    match fault {
        // the replayed frame is refused, and the link goes on
        LinkFault::Replay(Direction::ToHost, _) => (1, false),
        // the tampered frame is refused; the next one proves the channel lost it
        LinkFault::Flip(Direction::ToHost, _) => (1, true),
        _ => (0, false),
    }
}

/// Whether `run` (two members, member 1's links under `fault`) went as it must: the
/// members as [`judge_members`] says, and the host's refusals and closes as it must have
/// made them.
pub fn judge(fault: LinkFault, run: &HostRun) -> Result<(), String> {
    judge_members(fault, &run.reports)?;
    judge_host(fault, run)
}

/// Whether the members' `reports` (member 1's links under `fault`) went as they must:
/// member 2 in its activity with nothing to report, member 1 reporting exactly what the
/// real client would, and in its activity when that is nothing. An advisory finding (on
/// a number Vex chose, such as how soon the first roster comes, which a delayed link
/// stretches) is left to the case's gate, as in every other case: it fails the run only
/// with `--strict`.
pub fn judge_members(fault: LinkFault, reports: &[RunReport]) -> Result<(), String> {
    let [faulted, other] = reports else {
        return Err(format!("{} members ran, not 2", reports.len()));
    };
    if !firm(other).is_empty() || !other.status.in_activity() {
        let v: Vec<String> = firm(other).iter().map(ToString::to_string).collect();
        return Err(format!(
            "member 2 noticed the fault on member 1's link: {} {}",
            other.status,
            v.join("; ")
        ));
    }
    let expected: BTreeSet<Rule> = faulted_reports(fault).iter().copied().collect();
    let reported: BTreeSet<Rule> = firm(faulted).iter().map(|v| v.rule).collect();
    if reported != expected {
        return Err(format!(
            "member 1 reported {reported:?}, where the real client reports {expected:?}"
        ));
    }
    if expected.is_empty() && (faulted.outcome != Outcome::Running || !faulted.status.in_activity())
    {
        return Err(format!(
            "member 1 is not in its activity: {}",
            faulted.status
        ));
    }
    Ok(())
}

/// Whether the host refused and closed what it must have under `fault`, by its events.
fn judge_host(fault: LinkFault, run: &HostRun) -> Result<(), String> {
    let (drops, out_of_step) = host_signs(fault);
    let dropped = run
        .events
        .iter()
        .filter(|(_, e)| {
            matches!(e, HostEvent::Dropped { link, reason: Dropped::Open(_) } if *link == FAULTED_LINK)
        })
        .count();
    if dropped != drops {
        return Err(format!(
            "the host refused {dropped} frame(s) of member 1's link, not {drops}"
        ));
    }
    let closes: Vec<&Closed> = run
        .events
        .iter()
        .filter_map(|(_, e)| match e {
            HostEvent::Close { reason, .. } => Some(reason),
            _ => None,
        })
        .collect();
    match (out_of_step, closes.as_slice()) {
        (false, []) | (true, [Closed::OutOfStep(1)]) => Ok(()),
        (_, got) => Err(format!(
            "the host closed {} link(s): {}",
            got.len(),
            got.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}
