//! What a run has come to: every violation, the outcome, and the give-up flag. Every check
//! records through [`Verdict::violate`], which then does what the real client does for the
//! rule's effect (design "The emulated client"; `rules.md`: effects).

use crate::rules::{Choice, Effect, Rule};
use crate::violation::Violation;
use std::collections::BTreeMap;
use vex_wire::bits::BitError;

/// What a run came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Still going.
    Running,
    /// The emulated client could not go on for a reason of its own (an input past its
    /// bounded buffers); no documented rule was broken.
    Aborted {
        /// What stopped it.
        reason: String,
    },
    /// SignOn let the client in nowhere: an error, whose reason picks a terminal state
    /// (NS "The other outcomes"), or an answer it could not take. It stopped there, as the
    /// real client would.
    StoppedAtSignOn {
        /// The terminal state, or what the client could not take.
        reason: String,
    },
    /// The activity ended with an error, as the real client would end it.
    Ended {
        /// The rule whose breach ended it.
        rule: Rule,
        /// The client's error, e.g. `error_host_crashed`.
        reason: String,
    },
    /// The real client would have crashed.
    Crashed {
        /// The rule whose breach crashed it.
        rule: Rule,
        /// What crashed it.
        reason: String,
    },
}

impl std::fmt::Display for Outcome {
    /// The outcome as a person reads it, the rule by its id: `ended by BAP-01: primary
    /// link: bad magic 0x02`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Running => f.write_str("still running"),
            Outcome::Aborted { reason } => write!(f, "the emulated client stopped: {reason}"),
            Outcome::StoppedAtSignOn { reason } => write!(f, "stopped at SignOn: {reason}"),
            Outcome::Ended { rule, reason } => write!(f, "ended by {rule}: {reason}"),
            Outcome::Crashed { rule, reason } => write!(f, "crashed by {rule}: {reason}"),
        }
    }
}

/// The violations of a run and what they did to it.
#[derive(Debug)]
pub(crate) struct Verdict {
    violations: Vec<Violation>,
    /// Each violation reported through [`Verdict::violate_again`], by its rule and the key
    /// of what it fired on.
    reported: BTreeMap<(Rule, u64), usize>,
    /// How many of `violations` [`Verdict::poll_violations`] has handed out.
    polled: usize,
    outcome: Outcome,
    /// The give-up flag and the rule that set it: message 5 is ignored from then on
    /// (STICKY-02).
    gave_up: Option<Rule>,
    /// What it records is logged as it happens: false for a verdict that only asks what
    /// checks would find and is thrown away.
    logged: bool,
}

impl Verdict {
    /// A run with nothing wrong yet.
    pub(crate) fn new() -> Self {
        Self {
            violations: Vec::new(),
            reported: BTreeMap::new(),
            polled: 0,
            outcome: Outcome::Running,
            gave_up: None,
            logged: true,
        }
    }

    /// A verdict that logs nothing: for asking what checks would find, with findings no
    /// run reports (a log line saying a check failed would be a finding no report has).
    pub(crate) fn unlogged() -> Self {
        Self {
            logged: false,
            ..Self::new()
        }
    }

    /// Records a violation and does what the real client does for its effect: stop on
    /// `crash`, leave on `end`, set the give-up flag on `sticky`.
    pub(crate) fn violate(
        &mut self,
        rule: Rule,
        frame: Option<u64>,
        bit: Option<usize>,
        reason: String,
    ) {
        debug_assert!(
            crate::rules::is_enforced(rule),
            "{rule} is not in rules::ENFORCED"
        );
        if self.logged {
            tracing::warn!(rule = rule.id(), frame, bit, %reason, "client check failed");
        }
        let effect = rule.effect();
        let running = self.running();
        match effect {
            Effect::End if running => {
                self.outcome = Outcome::Ended {
                    rule,
                    reason: reason.clone(),
                };
            }
            Effect::Crash if running => {
                self.outcome = Outcome::Crashed {
                    rule,
                    reason: reason.clone(),
                };
            }
            Effect::Sticky if self.gave_up.is_none() => self.gave_up = Some(rule),
            _ => {}
        }
        self.violations
            .push(Violation::new(rule, frame, bit, reason));
    }

    /// Records a breach of `rule` as [`Verdict::violate`] does, the first time the check
    /// fires on what `key` names; each time after, the violation recorded then counts one
    /// more ([`Violation::again`]) and `reason` is not built. A host that breaks a rule
    /// the same way in every message is reported once, with a count, and judging the
    /// message costs no text and no memory. The first report's effect was the effect:
    /// the run ended, crashed or gave up then.
    pub(crate) fn violate_again(
        &mut self,
        rule: Rule,
        (frame, bit): (Option<u64>, Option<usize>),
        key: u64,
        reason: impl FnOnce() -> String,
    ) {
        let recorded = self.reported.get(&(rule, key)).copied();
        if let Some(v) = recorded.and_then(|i| self.violations.get_mut(i)) {
            return v.fired_again(frame);
        }
        self.violate(rule, frame, bit, reason());
        self.reported.insert((rule, key), self.violations.len() - 1);
    }

    /// Records a breach of `rule` that rests on `choice`, a layout, number or deadline of
    /// Vex's own: an advisory finding. The client goes on as if the host were right, since
    /// no page says what the real client does.
    pub(crate) fn advise(
        &mut self,
        rule: Rule,
        choice: Choice,
        frame: Option<u64>,
        bit: Option<usize>,
        reason: String,
    ) {
        debug_assert!(
            crate::rules::is_enforced(rule),
            "{rule} is not in rules::ENFORCED"
        );
        if self.logged {
            tracing::warn!(rule = rule.id(), frame, bit, %reason, choice = choice.id(), "client check failed on a choice of Vex's");
        }
        self.violations
            .push(Violation::on_choice(rule, choice, frame, bit, reason));
    }

    /// Message `msg` of `len` bytes does not decode: the client drops it before its
    /// consumer runs (AH "Body encoding"). `rule` is the narrowest rule the failure breaks,
    /// BODY-04 where nothing narrower fits.
    pub(crate) fn undecodable(&mut self, rule: Rule, idx: u64, msg: u32, len: usize, e: &BitError) {
        let reason = format!(
            "message {msg} of {len} bytes does not decode ({e}): dropped before its consumer runs"
        );
        self.violate(rule, Some(idx), bit_of(e), reason);
    }

    /// Stops the run for a reason of the emulated client's own.
    pub(crate) fn abort(&mut self, reason: String) {
        self.outcome = Outcome::Aborted { reason };
    }

    /// True while the run goes on.
    pub(crate) fn running(&self) -> bool {
        self.outcome == Outcome::Running
    }

    /// True once the real client would have crashed.
    pub(crate) fn crashed(&self) -> bool {
        matches!(self.outcome, Outcome::Crashed { .. })
    }

    /// What the run has come to.
    pub(crate) fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// The rule that set the give-up flag, once one did (STICKY-02).
    pub(crate) fn gave_up(&self) -> Option<Rule> {
        self.gave_up
    }

    /// Every violation so far.
    pub(crate) fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Violations recorded since the last call.
    pub(crate) fn poll_violations(&mut self) -> Vec<Violation> {
        let new = self.violations[self.polled..].to_vec();
        self.polled = self.violations.len();
        new
    }

    /// The rules of every violation so far, in order.
    #[cfg(test)]
    pub(crate) fn rules(&self) -> Vec<Rule> {
        self.violations.iter().map(|v| v.rule).collect()
    }
}

/// The bit a decode failed at, where the error says.
pub(crate) fn bit_of(e: &BitError) -> Option<usize> {
    match e {
        BitError::PastEnd { at, .. } | BitError::UnknownShape { at, .. } => Some(*at),
        _ => None,
    }
}

/// The key of what a check fired on, for [`Verdict::violate_again`]: `parts` folded a
/// word at a time, each step mixed by SplitMix64's finalizer (a bijection of 64 bits).
pub(crate) fn key_of(parts: impl IntoIterator<Item = u64>) -> u64 {
    parts.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, part| {
        let mut z = h ^ part;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A verdict that only asks what the checks would find records them and logs none
    /// (`ClientCore::owes_answers`); a run's logs each finding, advisory ones too.
    #[test]
    #[tracing_test::traced_test]
    fn only_a_run_logs_its_findings() {
        let mut asked = Verdict::unlogged();
        asked.violate(Rule::Auth16, None, None, "only asked".to_string());
        let choice = Choice::FirstRosterLatency;
        asked.advise(Rule::Auth16, choice, None, None, "only asked".to_string());
        assert_eq!(asked.violations().len(), 2);
        assert!(!logs_contain("only asked"));
        let mut run = Verdict::new();
        run.violate(Rule::Auth16, None, None, "found".to_string());
        run.advise(Rule::Auth16, choice, None, None, "advised".to_string());
        assert!(logs_contain("found") && logs_contain("advised"));
    }

    /// The same check on the same thing is one violation counting its repeats, its
    /// reason built once; on another thing, or another rule, it is a violation of its own.
    #[test]
    fn a_check_firing_again_on_the_same_thing_counts() {
        let mut v = Verdict::new();
        let mut built = 0;
        for frame in 0..3 {
            v.violate_again(Rule::Auth12, (Some(frame), None), key_of([1]), || {
                built += 1;
                "bubbles [0]".into()
            });
        }
        v.violate_again(Rule::Auth12, (Some(3), None), key_of([2]), || {
            "bubbles [1]".into()
        });
        v.violate_again(Rule::Auth08, (Some(4), None), key_of([1]), || {
            "slots".into()
        });
        assert_eq!(built, 1);
        assert_eq!(v.rules(), [Rule::Auth12, Rule::Auth12, Rule::Auth08]);
        let first = &v.violations()[0];
        let again = crate::violation::Again {
            times: 2,
            last_frame: Some(2),
        };
        assert_eq!(first.again, Some(again));
        assert!(
            first
                .to_string()
                .ends_with("; again 2 times, last at frame 2")
        );
        assert_eq!(v.violations()[1].again, None);
        assert_eq!(v.poll_violations().len(), 3, "a repeat is no new violation");
    }

    /// An outcome reads as text, its rule by id: no Rust debug form in a report.
    #[test]
    fn an_outcome_reads_as_text() {
        let ended = Outcome::Ended {
            rule: Rule::Bap01,
            reason: "primary link: bad magic 0x02".into(),
        };
        assert_eq!(
            ended.to_string(),
            "ended by BAP-01: primary link: bad magic 0x02"
        );
        let crashed = Outcome::Crashed {
            rule: Rule::Env07,
            reason: "host id 0".into(),
        };
        assert_eq!(crashed.to_string(), "crashed by ENV-07: host id 0");
        assert_eq!(Outcome::Running.to_string(), "still running");
    }
}
