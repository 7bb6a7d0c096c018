//! vex-fake-client: the emulated client.
//!
//! A sans-IO model of the game client (build 86657) that performs the route into an
//! activity, keeps its status line and link clock, and checks everything a host sends
//! against the rules of `rules.md`, reporting what the real client would have done.

pub mod activity;
mod activity_client;
pub mod config;
mod core;
pub mod link;
mod links;
mod lobby_calls;
pub mod not_enforced;
pub mod probe;
mod push;
mod queuez;
mod receive;
mod route;
pub mod rules;
pub mod script;
pub mod signon;
pub mod status;
mod timer;
mod verdict;
mod version_barrier;
pub mod violation;

/// A request the client made in a run's last second is not judged unanswered at its end:
/// its answer may still be on the wire. The verdict is on what the host did, not on when
/// the run happened to stop.
const ANSWER_GRACE_MS: u64 = 1000;

/// True when the host had [`ANSWER_GRACE_MS`] from `asked` to the run's end `now`: only
/// then is an answer still missing judged at the end.
fn had_time_to_answer(asked: vex_wire::time::Instant, now: vex_wire::time::Instant) -> bool {
    now.since(asked) >= ANSWER_GRACE_MS
}

pub use crate::core::ClientCore;
pub use config::ClientConfig;
pub use link::LinkKind;
pub use links::ClientTransmit;
pub use probe::Probe;
pub use receive::Received;
pub use rules::{Choice, ENFORCED, Effect, Provenance, Rule};
pub use script::Script;
pub use status::StatusLine;
pub use verdict::Outcome;
pub use violation::{Again, Violation};
