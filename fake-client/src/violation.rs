//! A broken rule as the emulated client reports it (`rules.md`: rule id, effect, frame
//! index, bit offset where that applies, one-line reason).

use crate::rules::{Effect, Rule};
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
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", self.rule, self.effect)?;
        if let Some(frame) = self.frame {
            write!(f, " frame {frame}")?;
        }
        if let Some(bit) = self.bit {
            write!(f, " bit {bit}")?;
        }
        write!(f, ": {}", self.reason)
    }
}
