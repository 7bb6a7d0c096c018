//! Time as the sans-IO cores see it: passed in, never read from a clock.

use std::ops::{Add, Sub};

/// A monotonic instant in milliseconds since an arbitrary origin chosen by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Instant(pub u64);

impl Instant {
    /// The instant `ms` milliseconds after the origin.
    pub const fn from_millis(ms: u64) -> Self {
        Instant(ms)
    }

    /// Milliseconds since the origin.
    pub const fn millis(self) -> u64 {
        self.0
    }

    /// Milliseconds from `earlier` to `self`, zero if `earlier` is later.
    pub fn since(self, earlier: Instant) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl Add<u64> for Instant {
    type Output = Instant;
    fn add(self, ms: u64) -> Instant {
        Instant(self.0.saturating_add(ms))
    }
}

impl Sub<Instant> for Instant {
    type Output = u64;
    fn sub(self, rhs: Instant) -> u64 {
        self.since(rhs)
    }
}
