//! vex-conformance: the case catalog, its runner and its reports. `cargo test` runs every
//! case against our host in-process; `vex check --target` runs the same catalog over TCP.

pub mod auth_update;
pub mod boundary;
pub mod case;
pub mod codec;
pub mod coverage;
pub mod datagram;
pub mod expect;
pub mod gate;
pub mod html;
pub mod membership;
pub mod network;
pub mod printers;
pub mod report;
pub mod runner;
pub mod sense_update;
mod signon_step;

pub use case::{Case, Expectation, HostUnderTest, Verdict, catalog};
pub use runner::{
    CaseResult, CheckOptions, Transport, run_case, run_in_process, run_in_process_against, run_like,
};
