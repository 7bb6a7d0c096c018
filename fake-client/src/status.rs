//! The client's status line, `Status:IEXGM` (AH "join_result"; JOIN-09).
//!
//! E is set by an accepted message 4, G by message 1 and M by message 12. The pages do not
//! say what sets I and X, so the emulated client prints them as `?`.

use std::fmt;

/// The letters the emulated client tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StatusLine {
    /// E: an accepted join_result.
    pub e: bool,
    /// G: a message 1.
    pub g: bool,
    /// M: a message 12.
    pub m: bool,
}

impl StatusLine {
    /// True when the client is in the activity: E, G and M are all set.
    pub fn in_activity(&self) -> bool {
        self.e && self.g && self.m
    }
}

impl fmt::Display for StatusLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = |set: bool, c: char| if set { c } else { '-' };
        write!(
            f,
            "Status:??{}{}{}",
            l(self.e, 'E'),
            l(self.g, 'G'),
            l(self.m, 'M')
        )
    }
}
