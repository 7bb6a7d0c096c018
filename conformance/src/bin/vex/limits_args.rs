//! `vex host`'s bounds on every link (`vex_host::Limits`): each flag's default is the safe
//! one, and a link over a bound is closed with its reason in the log.

use vex_host::Limits;

/// The link limits' flags.
#[derive(clap::Args)]
pub struct LimitsArgs {
    /// The longest frame a link may announce, in bytes after the 6-byte header.
    #[arg(long, default_value_t = Limits::default().max_frame_len)]
    max_frame: usize,
    /// Links open at once; a connection past it is closed as it opens.
    #[arg(long, default_value_t = Limits::default().max_links)]
    max_links: usize,
    /// A link with no hello (service 25) this long after it opened is closed (ms).
    #[arg(long, default_value_t = Limits::default().hello_within_ms)]
    hello_within: u64,
    /// A frame begun must be whole within this long of its first byte (ms).
    #[arg(long, default_value_t = Limits::default().frame_within_ms)]
    frame_within: u64,
    /// Frames one link may send in one second.
    #[arg(long, default_value_t = Limits::default().frames_per_second)]
    frames_per_second: u32,
    /// Bytes waiting to be written to one link before it is closed as not reading.
    #[arg(long, default_value_t = Limits::default().output_queue_bytes)]
    output_queue: usize,
    /// bdNet associations open at once on the UDP port.
    #[arg(long, default_value_t = Limits::default().max_associations)]
    max_associations: usize,
    /// Turn off the bounds on a link's frames, hello, frame rate and count (the flags
    /// above but the output queue's and the associations'): a host with none, to see what
    /// `vex check --target`'s hostile.* cases say of one. Never on a host anyone relies on.
    #[arg(long, conflicts_with_all = ["max_frame", "max_links", "hello_within", "frame_within", "frames_per_second"])]
    no_limits: bool,
}

impl LimitsArgs {
    /// The limits the flags give.
    pub fn limits(&self) -> Limits {
        if self.no_limits {
            return Limits {
                output_queue_bytes: self.output_queue,
                max_associations: self.max_associations,
                ..Limits::unbounded()
            };
        }
        Limits {
            max_frame_len: self.max_frame,
            max_links: self.max_links,
            hello_within_ms: self.hello_within,
            frame_within_ms: self.frame_within,
            frames_per_second: self.frames_per_second,
            output_queue_bytes: self.output_queue,
            max_associations: self.max_associations,
        }
    }
}
