//! vex-fake-client: the emulated client.
//!
//! A sans-IO model of the game client (build 86657) that performs the route into an
//! activity, keeps its status line and link clock, and checks everything a host sends
//! against the rules of `rules.md`, reporting what the real client would have done.

pub mod activity;
pub mod config;
mod core;
mod duties;
mod entity_slots;
mod epoch;
mod identity;
mod incident;
mod leave;
pub mod link;
mod push;
mod refresh;
mod roster;
mod route;
pub mod rules;
pub mod script;
mod session;
mod state;
pub mod status;
#[cfg(test)]
mod test_client;
pub mod violation;

pub use crate::core::{ClientCore, ClientTransmit, Outcome, Received};
pub use config::ClientConfig;
pub use link::LinkKind;
pub use rules::{ENFORCED, Effect, Rule};
pub use script::Script;
pub use status::StatusLine;
pub use violation::Violation;
