//! `vex rules`: the catalog of `rules.md`, what the emulated client enforces and which
//! cases prove it; `--coverage` lists every rule with its status and its cases.

use std::process::ExitCode;
use vex_conformance::coverage::{self, Coverage};
use vex_fake_client::Rule;

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
}

/// Prints the rules.
pub fn run(args: RulesArgs) -> ExitCode {
    let coverage = coverage::of(&vex_conformance::catalog());
    match (args.coverage, args.json) {
        (true, true) => out!("{:#}", coverage.json()),
        (true, false) => out_raw!("{}", coverage.text()),
        (false, _) => list(&coverage),
    }
    ExitCode::SUCCESS
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
