//! `vex rules`: the catalog of `rules.md`, what the emulated client enforces, where each
//! condition comes from, and which cases prove it; `--coverage` lists every rule with its
//! status and its cases; `--choices` the layouts, numbers and deadlines Vex chose where
//! the pages and the facts are silent, and the rules judged on them.

use std::process::ExitCode;
use vex_conformance::coverage::{self, Coverage};
use vex_fake_client::rules::{JUDGED_ON_CHOICES, choices_of};
use vex_fake_client::{Choice, Rule};

/// `vex rules`' arguments.
#[derive(clap::Args)]
pub struct RulesArgs {
    /// Every rule of the catalog with its status (enforced, or not and why), the cases
    /// against any host and the caught-fault cases that cover it, and totals.
    #[arg(long)]
    coverage: bool,
    /// With `--coverage`: print it as JSON.
    #[arg(long, requires = "coverage")]
    json: bool,
    /// Every choice of Vex's a check rests on (a layout, number or deadline neither the
    /// pages nor the facts give), and the rules whose findings on it are advisory.
    #[arg(long, conflicts_with = "coverage")]
    choices: bool,
}

/// Prints the rules.
pub fn run(args: RulesArgs) -> ExitCode {
    if args.choices {
        choices();
        return ExitCode::SUCCESS;
    }
    let coverage = coverage::of(&vex_conformance::catalog());
    match (args.coverage, args.json) {
        (true, true) => out!("{:#}", coverage.json()),
        (true, false) => out_raw!("{}", coverage.text()),
        (false, _) => list(&coverage),
    }
    ExitCode::SUCCESS
}

/// Each choice with what was chosen and the rules judged on it.
fn choices() {
    out!(
        "{} choices of Vex's: a finding on one is advisory, failing a run only with --strict or a `strict RULE` line",
        Choice::ALL.len()
    );
    for c in Choice::ALL {
        let rules: Vec<&str> = JUDGED_ON_CHOICES
            .iter()
            .filter(|(_, on)| on == c)
            .map(|(r, _)| r.id())
            .collect();
        out!("{}  ({})", c.id(), rules.join(", "));
        out!("    {}", c.what());
    }
}

/// The enforced rules with their cases, then the others with their reasons, in aligned
/// columns.
fn list(coverage: &Coverage) {
    let enforced: Vec<_> = coverage.rules.iter().filter(|r| r.enforced()).collect();
    let width = |f: fn(Rule) -> usize| coverage.rules.iter().map(|r| f(r.rule)).max();
    let id_w = width(|r| r.id().len()).unwrap_or(0);
    let effect_w = width(|r| r.effect().to_string().len()).unwrap_or(0);
    let source_w = enforced
        .iter()
        .map(|r| r.rule.source().len())
        .max()
        .unwrap_or(0);
    out!("enforced: {} of {} rules", enforced.len(), Rule::ALL.len());
    out!(
        "{:<id_w$}  {:<effect_w$}  {:<source_w$}  summary",
        "id",
        "effect",
        "source"
    );
    for r in &enforced {
        out!(
            "{:<id_w$}  {:<effect_w$}  {:<source_w$}  {}",
            r.rule.id(),
            r.rule.effect().to_string(),
            r.rule.source(),
            r.rule.summary()
        );
        let choices: Vec<&str> = choices_of(r.rule).map(|c| c.id()).collect();
        if !choices.is_empty() {
            let on = choices.join(", ");
            out!(
                "{:<id_w$}  advisory where judged on: {on} (`vex rules --choices`)",
                ""
            );
        }
        out!("{:<id_w$}  cases: {}", "", r.cases().join(", "));
    }
    let not: Vec<_> = coverage.rules.iter().filter(|r| !r.enforced()).collect();
    out!("");
    out!("not enforced: {} rules, each with the reason", not.len());
    for r in not {
        out!(
            "{:<id_w$}  {:<effect_w$}  {}",
            r.rule.id(),
            r.rule.effect().to_string(),
            r.why_not.unwrap_or_default()
        );
    }
}
