//! Rule coverage (`vex rules --coverage`): every rule of `rules.md` with its status, where
//! its condition comes from (its provenance, and the choices of Vex's its advisory checks
//! rest on) and the cases that cover it: those that run against any host (and so judge a
//! third-party host over TCP), those where our host breaks the rule on purpose and the
//! emulated client must catch it, and those where our host takes a freedom near it and the
//! client must stay silent.

use crate::boundary::{Edge, edge_of, why_no_legal_case};
use crate::case::{Case, HostUnderTest};
use crate::report::provenance_json;
use serde_json::{Value as Json, json};
use std::fmt::Write;
use vex_fake_client::rules::choices_of;
use vex_fake_client::{ENFORCED, Provenance, Rule, not_enforced};

/// One rule's coverage.
#[derive(Debug, Clone)]
pub struct RuleCoverage {
    /// The rule.
    pub rule: Rule,
    /// Why the emulated client does not enforce it; `None` when it does.
    pub why_not: Option<&'static str>,
    /// Cases that run against any host and name it.
    pub any_host: Vec<String>,
    /// Cases where our host breaks it on purpose and the client must report it.
    pub caught: Vec<String>,
    /// Cases where our host takes a freedom near its boundary and the client must stay
    /// silent.
    pub legal: Vec<String>,
    /// The clean case that sends its one legal value, or the legal end of its range.
    pub edge: Option<&'static Edge>,
    /// Why no legal case can be built near it, for an enforced rule that has none.
    pub no_legal_case: Option<&'static str>,
}

impl RuleCoverage {
    /// Whether the emulated client enforces it.
    pub fn enforced(&self) -> bool {
        ENFORCED.contains(&self.rule)
    }

    /// Whether a case sits near its boundary and must stay silent: a legal variation, or
    /// the clean case that sends its one legal value or the legal end of its range.
    pub fn has_legal_case(&self) -> bool {
        !self.legal.is_empty() || self.edge.is_some()
    }

    /// Every case that covers it: the any-host ones, the caught faults, the legal cases.
    pub fn cases(&self) -> Vec<&str> {
        self.any_host
            .iter()
            .chain(&self.caught)
            .chain(&self.legal)
            .map(String::as_str)
            .collect()
    }
}

/// The whole catalog's coverage, in `rules.md` order.
#[derive(Debug, Clone)]
pub struct Coverage {
    /// One entry per rule.
    pub rules: Vec<RuleCoverage>,
}

/// Counts of a coverage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoverageTotals {
    /// Rules in the catalog.
    pub rules: usize,
    /// Rules the emulated client enforces.
    pub enforced: usize,
    /// Enforced rules with a case that makes them fire.
    pub caught: usize,
    /// Enforced rules with a legal case near their boundary.
    pub legal: usize,
    /// Rules a case judges against any host, over TCP too.
    pub any_host: usize,
}

/// The coverage `cases` give.
pub fn of(cases: &[Case]) -> Coverage {
    let rules = Rule::ALL
        .iter()
        .map(|&rule| {
            let ids = |pick: fn(&Case) -> bool| {
                cases
                    .iter()
                    .filter(|c| pick(c) && c.rules.contains(&rule))
                    .map(|c| c.id.clone())
                    .collect()
            };
            RuleCoverage {
                rule,
                why_not: not_enforced::reason(rule),
                any_host: ids(|c| c.host.runs_against_any_host()),
                caught: ids(|c| matches!(c.host, HostUnderTest::Faulty(_))),
                legal: ids(|c| matches!(c.host, HostUnderTest::Legal(_))),
                edge: edge_of(rule),
                no_legal_case: why_no_legal_case(rule),
            }
        })
        .collect();
    Coverage { rules }
}

impl Coverage {
    /// The counts.
    pub fn totals(&self) -> CoverageTotals {
        let count = |f: fn(&RuleCoverage) -> bool| self.rules.iter().filter(|r| f(r)).count();
        CoverageTotals {
            rules: self.rules.len(),
            enforced: count(RuleCoverage::enforced),
            caught: count(|r| r.enforced() && !r.caught.is_empty()),
            legal: count(|r| r.enforced() && r.has_legal_case()),
            any_host: count(|r| r.enforced() && !r.any_host.is_empty()),
        }
    }

    /// One line per rule, then the totals.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for r in &self.rules {
            let _ = write!(out, "{:<10} ", r.rule.id());
            match r.why_not {
                None if r.enforced() => {
                    let _ = writeln!(out, "enforced ({})", provenance_text(r.rule));
                    let _ = writeln!(out, "{:<10}   any host: {}", "", list(&r.any_host));
                    let _ = writeln!(out, "{:<10}   caught:   {}", "", list(&r.caught));
                    let _ = writeln!(out, "{:<10}   legal:    {}", "", list(&r.legal));
                    if let Some(b) = r.edge {
                        let _ = writeln!(out, "{:<10}   edge:     {} ({})", "", b.case, b.value);
                    }
                    if let Some(why) = r.no_legal_case {
                        let _ = writeln!(out, "{:<10}   no legal case: {why}", "");
                    }
                }
                None => {
                    let _ = writeln!(out, "not enforced");
                }
                Some(why) => {
                    let _ = writeln!(out, "not enforced: {why}");
                }
            }
        }
        let t = self.totals();
        let _ = writeln!(
            out,
            "{} rules: {} enforced ({} made to fire by a case, {} judged against any host, {} with a legal case near them, a variation or a clean case at their edge; with --strict every clean case judges every duty too), {} not enforced",
            t.rules,
            t.enforced,
            t.caught,
            t.any_host,
            t.legal,
            t.rules - t.enforced
        );
        out
    }

    /// The JSON form: the totals, then every rule.
    pub fn json(&self) -> Json {
        let t = self.totals();
        let rules: Vec<Json> = self
            .rules
            .iter()
            .map(|r| {
                let advisory: Vec<Json> = choices_of(r.rule)
                    .map(|c| provenance_json(Provenance::Vex(c)))
                    .collect();
                json!({
                    "id": r.rule.id(),
                    "effect": r.rule.effect().to_string(),
                    "source": r.rule.source(),
                    "provenance": provenance_json(r.rule.provenance()),
                    "advisory_on": advisory,
                    "enforced": r.enforced(),
                    "why_not": r.why_not,
                    "any_host": r.any_host,
                    "caught": r.caught,
                    "legal": r.legal,
                    "edge": r.edge.map(|b| json!({"case": b.case, "value": b.value})),
                    "no_legal_case": r.no_legal_case,
                })
            })
            .collect();
        json!({
            "rules": t.rules, "enforced": t.enforced, "caught": t.caught,
            "any_host": t.any_host, "legal": t.legal, "coverage": rules,
        })
    }
}

/// A rule's provenance in a line: its kind and section, then the choices its advisory
/// checks rest on.
pub fn provenance_text(rule: Rule) -> String {
    let p = rule.provenance();
    let choices: Vec<&str> = choices_of(rule).map(|c| c.id()).collect();
    if choices.is_empty() {
        format!("{}: {}", p.kind(), p.section())
    } else {
        format!(
            "{}: {}; advisory on {}",
            p.kind(),
            p.section(),
            choices.join(", ")
        )
    }
}

fn list(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundary::NO_LEGAL_CASE;

    /// Every enforced rule has a case that makes it fire, every enforced rule but a duty a
    /// case that judges it against any host without `--strict`, and every rule the client
    /// does not enforce says why (CI fails otherwise).
    #[test]
    fn every_enforced_rule_is_made_to_fire_and_every_other_says_why() {
        let c = of(&crate::catalog());
        for r in &c.rules {
            if r.enforced() {
                assert!(!r.caught.is_empty(), "{} fires in no case", r.rule);
            } else {
                assert!(r.why_not.is_some(), "{} has no reason", r.rule);
            }
        }
        let t = c.totals();
        assert_eq!(t.caught, t.enforced);
        for r in c.rules.iter().filter(|r| r.enforced()) {
            assert!(
                r.rule.effect() == vex_fake_client::Effect::Duty || !r.any_host.is_empty(),
                "{} is judged against no third-party host",
                r.rule
            );
        }
    }

    /// Every enforced rule has a legal case near its boundary (a variation, or a clean
    /// case at its edge) or is named without one; a rule that gets one leaves the list.
    /// Every edge names an enforced rule once, and a clean case of the catalog.
    #[test]
    fn every_enforced_rule_has_a_legal_case_or_says_why_not() {
        let catalog = crate::catalog();
        let c = of(&catalog);
        let without: Vec<Rule> = (c.rules.iter())
            .filter(|r| r.enforced() && !r.has_legal_case())
            .map(|r| r.rule)
            .collect();
        let unbuildable: Vec<Rule> = NO_LEGAL_CASE.iter().map(|(r, _)| *r).collect();
        assert_eq!(without, unbuildable, "the rules without a legal case");
        for (rule, why) in NO_LEGAL_CASE {
            assert!(why.starts_with("none can be built: "), "{rule}: {why}");
        }
        let mut seen = std::collections::BTreeSet::new();
        for e in crate::boundary::EDGES {
            assert!(seen.insert(e.rule), "{} has two edges", e.rule);
            assert!(ENFORCED.contains(&e.rule), "{} is not enforced", e.rule);
            let case = catalog.iter().find(|k| k.id == e.case);
            let clean = case.is_some_and(|k| k.host == HostUnderTest::Any);
            assert!(clean, "{}: {} is no clean case", e.rule, e.case);
        }
    }
}
