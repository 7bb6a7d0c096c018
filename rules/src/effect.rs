//! What the real client does when a rule is broken.

use std::fmt;

/// What the real client does when a rule is broken (`rules.md` "effect").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// The process crashes or corrupts memory.
    Crash,
    /// The activity ends with a named error.
    End,
    /// The client waits forever; reported when the run's deadline passes.
    Hang,
    /// The message is dropped silently.
    Drop,
    /// Message 5 is ignored for the rest of the session.
    Sticky,
    /// Accepted, but the client's state becomes wrong.
    Wrong,
    /// A host duty with no immediate client effect; fails a run only in strict mode.
    Duty,
}

impl Effect {
    /// The word of `rules.md`'s effect column, e.g. `"crash"`.
    pub const fn name(self) -> &'static str {
        match self {
            Effect::Crash => "crash",
            Effect::End => "end",
            Effect::Hang => "hang",
            Effect::Drop => "drop",
            Effect::Sticky => "sticky",
            Effect::Wrong => "wrong",
            Effect::Duty => "duty",
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
