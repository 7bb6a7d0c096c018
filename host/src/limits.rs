//! What one link may cost the host (issue "Under load and faults": hostile input). AH
//! "Hazards for a host" and facts 7 bound a real host (Sunrise: 4 link slots, 256 KiB
//! buffers per link); Vex serves many more links, so each bound is a setting with a safe
//! default, and a link over one is closed with a [`crate::Closed::Limit`] naming it.

use std::fmt;
use vex_wire::bap::deframer::DEFAULT_MAX_FRAME_LEN;

/// The bounds on every link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest frame, in bytes after the outer header: refused from the header alone,
    /// before any byte of it is buffered.
    pub max_frame_len: usize,
    /// Links open at once; a connection past it is closed as it opens.
    pub max_links: usize,
    /// A link must finish its hello (service 25) this long after it opened: a connection
    /// that sends nothing, or never a whole hello, is closed.
    pub hello_within_ms: u64,
    /// A frame begun must be whole this long after its first byte arrived: a slow sender
    /// holds a buffer no longer than this.
    pub frame_within_ms: u64,
    /// Frames one link may send in one second.
    pub frames_per_second: u32,
    /// Bytes of frames waiting to be written on one link (the IO layer's bound): a peer
    /// that does not read is closed once its backlog passes it.
    pub output_queue_bytes: usize,
    /// bdNet associations open at once on the UDP port; a cookie echo past it opens none
    /// (a half handshake holds nothing, see `peer::responder`).
    pub max_associations: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
            max_links: 8192,
            hello_within_ms: 10_000,
            frame_within_ms: 10_000,
            frames_per_second: 1000,
            output_queue_bytes: 4 * 1024 * 1024,
            max_associations: 1024,
        }
    }
}

impl Limits {
    /// The bounds a hostile case judges turned off, as far as each one's type allows (the
    /// waits a day long, so no deadline overflows): a host with none, for `vex host
    /// --no-limits` to show what `vex check`'s `hostile.*` cases say of one. The output
    /// queue and the associations keep their bounds.
    pub fn unbounded() -> Self {
        const DAY_MS: u64 = 24 * 60 * 60 * 1000;
        Self {
            max_frame_len: u32::MAX as usize,
            max_links: usize::MAX,
            hello_within_ms: DAY_MS,
            frame_within_ms: DAY_MS,
            frames_per_second: u32::MAX,
            ..Self::default()
        }
    }
}

/// Which limit a link went over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::max_links`].
    Links(usize),
    /// [`Limits::hello_within_ms`].
    Hello(u64),
    /// [`Limits::frame_within_ms`], with the bytes of the frame held.
    SlowFrame {
        /// The limit in milliseconds.
        within_ms: u64,
        /// Bytes held.
        held: usize,
    },
    /// [`Limits::frames_per_second`].
    Rate(u32),
    /// [`Limits::output_queue_bytes`].
    OutputQueue(usize),
    /// More answers held behind one that waits for the lobby's store than the link may
    /// have (`MAX_HELD_ANSWERS`).
    HeldAnswers(usize),
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Links(max) => write!(f, "{max} links are open already"),
            Limit::Hello(ms) => write!(f, "no hello within {ms} ms of opening"),
            Limit::SlowFrame { within_ms, held } => write!(
                f,
                "a frame not whole within {within_ms} ms of its first byte ({held} bytes held)"
            ),
            Limit::Rate(max) => write!(f, "more than {max} frames in one second"),
            Limit::HeldAnswers(max) => write!(
                f,
                "{max} answers are held already behind one the lobby's store has not kept"
            ),
            Limit::OutputQueue(max) => write!(
                f,
                "the peer does not read: more than {max} bytes wait to be written"
            ),
        }
    }
}

/// A link's count of frames in its current one-second window.
#[derive(Debug, Clone, Copy, Default)]
pub struct RateWindow {
    start_ms: u64,
    frames: u32,
}

impl RateWindow {
    /// Counts one frame at `now_ms`; false once the window holds more than `max`.
    pub fn admit(&mut self, now_ms: u64, max: u32) -> bool {
        if now_ms >= self.start_ms + 1000 {
            *self = Self {
                start_ms: now_ms,
                frames: 0,
            };
        }
        self.frames = self.frames.saturating_add(1);
        self.frames <= max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_admits_max_frames_a_second_and_opens_again_after_it() {
        let mut w = RateWindow::default();
        for _ in 0..5 {
            assert!(w.admit(10, 5));
        }
        assert!(!w.admit(999, 5), "the sixth in the same second");
        assert!(w.admit(1000, 5), "a new second");
    }
}
