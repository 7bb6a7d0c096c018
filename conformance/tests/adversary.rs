//! An adversarial host written apart from Vex's own fault list (issue 21): breaches and
//! legal freedoms drawn from the rule text of `rules.md` and the five pages alone, to find
//! client checks that miss a breach or fire on what the pages allow.
//!
//! `host` holds the adversary and its hooks, `mode` the catalogue of what it does, one
//! module per concept carries the modes out, and the `t_*` modules run them: a breach must
//! draw its rule, a legal mode no finding but advisory ones. A test marked
//! `#[ignore = "MISS: ..."]` is a check that misses a breach or fires on a legal host.

#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

/// Tests that each run a mode and assert the client caught `rule`.
macro_rules! breach {
    ($($(#[$m:meta])* $name:ident: $mode:expr, $script:expr => $rule:ident;)*) => {$(
        $(#[$m])*
        #[test]
        fn $name() {
            crate::run::caught($mode, $script, vex_fake_client::Rule::$rule);
        }
    )*};
}

/// Tests that each run a legal mode and assert no finding but advisory ones.
macro_rules! legal {
    ($($(#[$m:meta])* $name:ident: $mode:expr, $script:expr;)*) => {$(
        $(#[$m])*
        #[test]
        fn $name() {
            crate::run::clean($mode, $script);
        }
    )*};
}

#[path = "adversary/answer.rs"]
mod answer;
#[path = "adversary/edit.rs"]
mod edit;
#[path = "adversary/envelope.rs"]
mod envelope;
#[path = "adversary/held.rs"]
mod held;
#[path = "adversary/host.rs"]
mod host;
#[path = "adversary/incident.rs"]
mod incident;
#[path = "adversary/member.rs"]
mod member;
#[path = "adversary/mode.rs"]
mod mode;
#[path = "adversary/mode_link.rs"]
mod mode_link;
#[path = "adversary/roster.rs"]
mod roster;
#[path = "adversary/run.rs"]
mod run;
#[path = "adversary/small.rs"]
mod small;

#[path = "adversary/t_answer.rs"]
mod t_answer;
#[path = "adversary/t_envelope.rs"]
mod t_envelope;
#[path = "adversary/t_held.rs"]
mod t_held;
#[path = "adversary/t_incident.rs"]
mod t_incident;
#[path = "adversary/t_legal.rs"]
mod t_legal;
#[path = "adversary/t_lifetime.rs"]
mod t_lifetime;
#[path = "adversary/t_member.rs"]
mod t_member;
#[path = "adversary/t_roster.rs"]
mod t_roster;
#[path = "adversary/t_small.rs"]
mod t_small;

/// Prints one run frame by frame with its findings (`cargo test -p vex-conformance --test
/// adversary dump -- --ignored --nocapture`): a tool for writing a case, with the mode and
/// script edited in.
#[test]
#[ignore = "a tool for writing cases, not a check"]
fn dump() {
    let r = run::run_mode(mode::Mode::Honest, run::idle(), run::RUN_MS);
    run::dump(&r);
}
