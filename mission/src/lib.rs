//! vex-mission: mission scripts for the Vex Activity Host (SR "Where mission scripts plug
//! in"). A mission is a [Rhai](https://rhai.rs) script of event handlers
//! (`fn on_ghost_scan(e) { ... }`, one per [`vex_host::mission::MissionEvent`]) that ask
//! for typed changes (`set_field(objective, "objective[0].value", 3)`); the host's mission
//! stage calls them and commits what they ask for.
//!
//! The script runs sandboxed: no file, network, process or wall-clock access (Rhai has no
//! IO, and is built without `import` and without `timestamp`), time is the host's (`now()`),
//! and every call is bounded in operations, call depth and the size of what it builds.

mod api;
mod callbacks;
mod convert;
mod engine;
mod errors;
mod program;
mod timers;
mod variables;

pub use program::{RhaiMission, check};

/// The missions shipped in `missions/`, by file name, built in so `vex check` plays them
/// from anywhere.
pub const SHIPPED: [(&str, &str); 2] = [
    (
        "ghost_chain.rhai",
        include_str!("../../missions/ghost_chain.rhai"),
    ),
    (
        "timed_phases.rhai",
        include_str!("../../missions/timed_phases.rhai"),
    ),
];
