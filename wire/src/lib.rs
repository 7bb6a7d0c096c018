//! vex-wire: every byte and bit format of the Activity Host link.
//!
//! Pure functions and plain data: no IO, no clock, no state beyond a codec's cursor.
//! The five protocol pages are cited as AH (000), SR (001), NS (002), AI (003) and TD (004);
//! "facts" means `shared/facts/sunrise.md`.

// untrusted bytes are read through checked views (`get`, fixed-size chunks), never by an index that can panic
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

pub mod activity;
pub mod bap;
pub mod bits;
pub mod lobby;
pub mod peer;
pub mod scenario;
pub mod scenario_file;
pub mod scenario_lobby;
pub mod schema;
pub mod tag;
pub mod time;
pub mod vectors;
