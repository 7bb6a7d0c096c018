//! vex-host: the Vex Activity Host.
//!
//! A sans-IO core ([`HostCore`]) that owns every link and session: bytes and time in,
//! frames and events out, no IO and no clock (the tokio server and the HTTPS lobby around
//! it are the `vex-server` crate). SR (001) describes what an Activity Host does; AH (000)
//! the messages.

// untrusted bytes are read through checked views (`get`, fixed-size chunks), never by an index that can panic
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

mod activities;
pub mod activity;
pub mod commit_error;
pub mod config;
mod core;
pub mod event;
mod exchange;
pub mod fleet_regions;
pub mod hooks;
mod host_timer;
mod keepalive;
pub mod limits;
mod link;
mod link_id;
pub mod lobby;
pub mod messages;
pub mod mission;
pub mod outbound;
mod outbox;
pub mod peer;
pub mod policy;
pub mod program;
pub mod reason;
pub mod requests;
pub mod roster;
mod route;
pub mod schedule;
pub mod session_index;
mod timeline;
mod timer;
mod timer_queue;
pub mod world;
mod world_event;

pub use crate::core::HostCore;
pub use config::HostConfig;
pub use event::{HostEvent, Transmit};
pub use hooks::{ByThePages, Hooks};
pub use limits::Limits;
pub use link_id::LinkId;
