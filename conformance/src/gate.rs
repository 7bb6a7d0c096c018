//! Which findings fail a run (design "Verdicts: provenance and legal variations"). A
//! finding on the pages or the facts fails it, except a host duty, which fails only a case
//! that names it or a strict run; a finding that rests on a choice of Vex's is advisory and
//! fails only a strict run; a rule the user waived fails nothing, and the report says why.

use std::collections::{BTreeMap, BTreeSet};
use vex_fake_client::{Effect, Rule, Violation};

/// What fails a run: `vex check --strict`, and the expected results' per-rule lines
/// (`waive RULE reason`, `strict RULE`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gate {
    /// Every duty and every advisory finding fails a run (`vex check --strict`).
    pub strict: bool,
    /// Rules whose findings fail nothing, each with the user's reason.
    pub waived: BTreeMap<Rule, String>,
    /// Rules whose duties and advisory findings fail a run as if it were strict.
    pub strict_rules: BTreeSet<Rule>,
}

/// The gate of `vex check` without options.
pub static DEFAULT: Gate = Gate {
    strict: false,
    waived: BTreeMap::new(),
    strict_rules: BTreeSet::new(),
};

/// The gate of `vex check --strict`.
pub static STRICT: Gate = Gate {
    strict: true,
    waived: BTreeMap::new(),
    strict_rules: BTreeSet::new(),
};

/// What a finding does to the case it was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing<'a> {
    /// It fails the case.
    Fails,
    /// A host duty the case does not name, in a run that is not strict: reported only.
    Duty,
    /// It rests on a choice of Vex's, in a run that is not strict: reported only.
    Advisory,
    /// The user waived the rule, for this reason.
    Waived(&'a str),
}

impl Standing<'_> {
    /// The word a report prints beside the finding, none for one that fails.
    pub fn label(self) -> Option<String> {
        match self {
            Standing::Fails => None,
            Standing::Duty => Some("duty, reported only (--strict fails it)".into()),
            Standing::Advisory => Some("advisory, reported only (--strict fails it)".into()),
            Standing::Waived(why) => Some(format!("waived: {why}")),
        }
    }
}

impl Gate {
    /// What `v` does to a case that names `named`.
    pub fn standing(&self, v: &Violation, named: &[Rule]) -> Standing<'_> {
        if let Some(why) = self.waived.get(&v.rule) {
            return Standing::Waived(why);
        }
        let strict = self.strict || self.strict_rules.contains(&v.rule);
        if strict {
            Standing::Fails
        } else if v.advisory() {
            Standing::Advisory
        } else if v.effect == Effect::Duty && !named.contains(&v.rule) {
            Standing::Duty
        } else {
            Standing::Fails
        }
    }

    /// Whether `v` fails a case that names `named`.
    pub fn fails(&self, v: &Violation, named: &[Rule]) -> bool {
        self.standing(v, named) == Standing::Fails
    }

    /// The reason the user gave for waiving `rule`, when they did.
    pub fn waiver(&self, rule: Rule) -> Option<&str> {
        self.waived.get(&rule).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_fake_client::Choice;

    fn finding(rule: Rule) -> Violation {
        Violation::new(rule, Some(1), None, "x".into())
    }

    fn advisory(rule: Rule) -> Violation {
        Violation::on_choice(rule, Choice::SignOnLayout, None, None, "x".into())
    }

    #[test]
    fn a_finding_on_the_pages_fails_a_duty_only_when_named_or_strict() {
        assert!(DEFAULT.fails(&finding(Rule::Env01), &[]));
        assert!(!DEFAULT.fails(&finding(Rule::Env10), &[]));
        assert!(DEFAULT.fails(&finding(Rule::Env10), &[Rule::Env10]));
        assert!(STRICT.fails(&finding(Rule::Env10), &[]));
    }

    #[test]
    fn an_advisory_finding_fails_only_a_strict_run_or_rule() {
        assert!(!DEFAULT.fails(&advisory(Rule::Signon06), &[Rule::Signon06]));
        assert!(STRICT.fails(&advisory(Rule::Signon06), &[]));
        let gate = Gate {
            strict_rules: [Rule::Signon06].into(),
            ..Gate::default()
        };
        assert!(gate.fails(&advisory(Rule::Signon06), &[]));
        assert!(!gate.fails(&advisory(Rule::Signon08), &[]));
        assert!(gate.fails(&finding(Rule::Signon06), &[]));
    }

    #[test]
    fn a_waived_rule_fails_nothing_even_when_strict() {
        let gate = Gate {
            strict: true,
            waived: [(Rule::Env01, "known".to_string())].into(),
            ..Gate::default()
        };
        assert!(!gate.fails(&finding(Rule::Env01), &[Rule::Env01]));
        assert_eq!(gate.waiver(Rule::Env01), Some("known"));
        assert!(gate.fails(&finding(Rule::Env02), &[]));
    }
}
