//! vex-faults: what our host is told to do other than what the pages ask, for Vex's own
//! self-tests (design "The emulated client": a check no test can make fire is a defect).
//!
//! A [`HostPlan`] holds [`Fault`]s, each breaking one rule on purpose (the `catch.*`
//! cases), and [`Variation`]s, each taking a freedom the pages leave (the `legal.*`
//! cases); [`like`] builds the plan of a host that departs from the pages as Sunrise is
//! documented to. The plan implements the host core's two hooks (`hooks/`), outside the
//! handlers: the core ([`vex_host::HostCore`]) carries none of this, and a host built
//! without a plan keeps every default.

pub mod fault;
mod hooks;
pub mod like;
pub mod plan;
pub mod variation;

pub use fault::{ClientAction, Fault};
pub use plan::HostPlan;
pub use variation::Variation;
