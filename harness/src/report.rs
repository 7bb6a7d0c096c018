//! What one run of the emulated client against a host came to.

use crate::transcript::Transcript;
use std::net::SocketAddrV4;
use vex_fake_client::activity::{MemberView, check_activity};
use vex_fake_client::{ClientCore, Outcome, Rule, StatusLine, Violation};
use vex_wire::time::Instant;

/// The result of one run.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// How the client's run ended.
    pub outcome: Outcome,
    /// The status line at the end.
    pub status: StatusLine,
    /// Every violation, in order.
    pub violations: Vec<Violation>,
    /// Message-5 bodies the client applied.
    pub rosters_applied: u32,
    /// Every frame.
    pub transcript: Transcript,
    /// How long the run lasted, in (virtual or real) milliseconds.
    pub elapsed_ms: u64,
    /// What the client knew of its activity's members at the end.
    pub member: MemberView,
    /// The activity session each member joined, member 1's first.
    pub sessions: Vec<Option<u64>>,
    /// The group session's membership as the client held it at the end: the updates it
    /// applied and validated (hash included), and the revision it held.
    pub group_membership: Option<(u32, u32)>,
    /// Where service 17 sent the Activity Host link, once it did.
    pub activity_host: Option<SocketAddrV4>,
    /// The group host the client's association went to last, once it opened one.
    pub group_host: Option<SocketAddrV4>,
}

impl RunReport {
    /// The report of a client whose run ended at `end`, with the frames it exchanged.
    pub fn of(client: &ClientCore, mut transcript: Transcript, end: Instant) -> Self {
        transcript.ended_at = Some(end);
        Self {
            outcome: client.outcome().clone(),
            status: client.status(),
            violations: client.violations().to_vec(),
            rosters_applied: client.rosters_applied(),
            transcript,
            elapsed_ms: end.millis(),
            member: client.member_view(),
            sessions: vec![client.session()],
            group_membership: client.group_membership(),
            activity_host: client.activity_address(),
            group_host: client.group_host(),
        }
    }

    /// The report of a run that could not run to its end, at `end`: aborted with `reason`.
    pub fn aborted(reason: String, end: Instant) -> Self {
        Self::stopped(Outcome::Aborted { reason }, end)
    }

    /// The report of a run that stopped before any link was opened, at `end`, with
    /// `outcome`.
    pub fn stopped(outcome: Outcome, end: Instant) -> Self {
        Self {
            outcome,
            status: StatusLine::default(),
            violations: Vec::new(),
            rosters_applied: 0,
            transcript: Transcript::default(),
            elapsed_ms: end.millis(),
            member: MemberView::default(),
            sessions: Vec::new(),
            group_membership: None,
            activity_host: None,
            group_host: None,
        }
    }

    /// One report for the members of one activity, this one first: every member's
    /// violations (another member's reasons name it) and the ones between members
    /// (`vex_fake_client::activity`), the first status and outcome that fall short, and
    /// the fewest rosters applied. The transcript holds every member's lines in time order
    /// (in member order within a millisecond, whatever caused them), another member's on
    /// links named `m2.activity` and so on, and its ticks named `m2`. SLOTS-04 and
    /// MEMBER-01 are judged on what the members held at the end of the run.
    pub fn with_members(mut self, others: Vec<RunReport>) -> Self {
        let views: Vec<MemberView> = std::iter::once(self.member.clone())
            .chain(others.iter().map(|r| r.member.clone()))
            .collect();
        let shared = check_activity(&views);
        for (m, other) in others.into_iter().enumerate() {
            let member = m + 2;
            for mut v in other.violations {
                v.reason = format!("member {member}: {}", v.reason);
                self.violations.push(v);
            }
            if self.status.in_activity() && !other.status.in_activity() {
                self.status = other.status;
            }
            if self.outcome == Outcome::Running {
                self.outcome = other.outcome;
            }
            self.rosters_applied = self.rosters_applied.min(other.rosters_applied);
            self.sessions.extend(other.sessions);
            for mut line in other.transcript.lines {
                line.member = member as u32;
                self.transcript.push(line);
            }
        }
        self.transcript.lines.sort_by_key(|l| l.at); // stable: each member's order holds
        self.violations.extend(shared);
        self
    }

    /// True when some violation breaks `rule`.
    pub fn has_violation(&self, rule: Rule) -> bool {
        self.violations.iter().any(|v| v.rule == rule)
    }
}
