//! A broken rule as the emulated client reports it (`rules.md`: rule id, effect, frame
//! index, bit offset where that applies, one-line reason), with where the condition that
//! fired comes from (design "Verdicts: provenance and legal variations").

use crate::rules::{Choice, Effect, Provenance, Rule};
use std::fmt;

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule.
    pub rule: Rule,
    /// What the real client would do.
    pub effect: Effect,
    /// Index of the received frame that broke it (0-based, both links), if a frame did.
    pub frame: Option<u64>,
    /// Bit offset inside the body, where that applies.
    pub bit: Option<usize>,
    /// One line on what was wrong.
    pub reason: String,
    /// Where the condition that fired comes from: the rule's own source, or a choice of
    /// Vex's, which makes the finding advisory.
    pub provenance: Provenance,
    /// How many times the same check fired again on the same thing after this report,
    /// and the frame of the last (`Verdict::violate_again`).
    pub again: Option<Again>,
}

/// A violation that fired again on later frames: how many times, and the last frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Again {
    /// How many times after the first.
    pub times: u64,
    /// The frame of the last, if a frame broke it.
    pub last_frame: Option<u64>,
}

impl Violation {
    /// A breach of `rule` as its own source states it.
    pub fn new(rule: Rule, frame: Option<u64>, bit: Option<usize>, reason: String) -> Self {
        Self {
            rule,
            effect: rule.effect(),
            frame,
            bit,
            reason,
            provenance: rule.provenance(),
            again: None,
        }
    }

    /// The same check fired again on the same thing, at `frame`.
    pub(crate) fn fired_again(&mut self, frame: Option<u64>) {
        let times = self.again.map_or(0, |a| a.times) + 1;
        self.again = Some(Again {
            times,
            last_frame: frame,
        });
    }

    /// A breach of `rule` that rests on `choice`, a layout, number or deadline of Vex's
    /// own: advisory.
    pub fn on_choice(
        rule: Rule,
        choice: Choice,
        frame: Option<u64>,
        bit: Option<usize>,
        reason: String,
    ) -> Self {
        debug_assert!(
            crate::rules::choices_of(rule).any(|c| c == choice),
            "{rule} on {choice:?} is not in rules::JUDGED_ON_CHOICES"
        );
        Self {
            provenance: Provenance::Vex(choice),
            ..Self::new(rule, frame, bit, reason)
        }
    }

    /// Whether the finding rests on a choice of Vex's: printed and counted, failing a run
    /// only when the user asks.
    pub fn advisory(&self) -> bool {
        self.provenance.advisory()
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}", self.rule, self.effect)?;
        if self.advisory() {
            f.write_str(", advisory")?;
        }
        f.write_str("]")?;
        if let Some(frame) = self.frame {
            write!(f, " frame {frame}")?;
        }
        if let Some(bit) = self.bit {
            write!(f, " bit {bit}")?;
        }
        write!(f, ": {} ({})", self.reason, self.provenance)?;
        if let Some(Again { times, last_frame }) = self.again {
            write!(f, "; again {times} times")?;
            if let Some(last) = last_frame {
                write!(f, ", last at frame {last}")?;
            }
        }
        Ok(())
    }
}
