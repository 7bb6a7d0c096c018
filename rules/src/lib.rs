//! The client-check catalog as a type: every row of `rules.md` (`../shared/rules.md`, "The
//! client-check catalog") is one [`Rule`], with its stable id, its [`Family`], its
//! [`Effect`], the page section it comes from and a one-line summary; and where a check's
//! condition comes from, its [`Provenance`], with the [`Choice`]s Vex made where the pages
//! and the facts are silent.
//!
//! The catalog is declared once, in `catalog.rs`; a test reads `rules.md` when it sits
//! beside the checkout and checks the two agree row for row. This crate sits below every
//! other Vex crate, so a rule is named by a variant (`Rule::Bap01`) and never by a string:
//! a typo does not compile. Which rules the emulated client enforces is the fake client's
//! own list, not this one.

#[macro_use]
mod define;
mod catalog;
mod effect;
mod provenance;

pub use catalog::{Family, Rule};
pub use effect::Effect;
pub use provenance::{Choice, Provenance};
