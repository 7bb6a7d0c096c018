//! Expected results (`vex check --expect FILE`, `--write-expect FILE`): the cases a host
//! is known to fail, so a team can gate its CI on Vex before its host is perfect. A listed
//! case that fails is an expected failure and does not fail the run; a listed case that
//! passes fails it, so the list only ever shrinks.
//!
//! The file is text, one entry a line, anything after `#` a comment:
//! - a case id: the case is expected to fail;
//! - `waive RULE reason…`: findings on the rule fail nothing, and the report prints the
//!   reason (a reason is required);
//! - `strict RULE`: the rule's duties and advisory findings fail the run, as `--strict`
//!   makes every rule's do.

use crate::case::Verdict;
use crate::gate::Gate;
use crate::runner::CaseResult;
use std::collections::BTreeSet;
use std::fmt::Write;
use thiserror::Error;
use vex_fake_client::Rule;

/// Why an expected-results file was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ExpectError {
    /// A line names no case of the catalog (a typo, or a case that was renamed).
    #[error("line {line}: {id:?} is not a case of the catalog (`vex check --list` shows them)")]
    UnknownCase {
        /// 1-based line number.
        line: usize,
        /// The id as written.
        id: String,
    },
    /// A `waive` or `strict` line names no rule of the catalog.
    #[error("line {line}: {id:?} is not a rule id (`vex rules` shows them)")]
    UnknownRule {
        /// 1-based line number.
        line: usize,
        /// The id as written.
        id: String,
    },
    /// A `waive` line gives no reason.
    #[error("line {line}: `waive {id}` needs a reason after the rule id, which the report prints")]
    WaiverWithoutReason {
        /// 1-based line number.
        line: usize,
        /// The rule id.
        id: String,
    },
    /// A line holds more than one word before its comment.
    #[error(
        "line {line}: one case id a line, `waive RULE reason` or `strict RULE`, then an optional `# comment`"
    )]
    Malformed {
        /// 1-based line number.
        line: usize,
    },
}

/// The cases a host is expected to fail, and the rules the user set apart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expected {
    failing: BTreeSet<String>,
    gate: Gate,
}

impl Expected {
    /// Reads a file's text; every case id must be one of `known`, every rule id a rule.
    pub fn parse<'a>(
        text: &str,
        known: impl IntoIterator<Item = &'a str> + Clone,
    ) -> Result<Self, ExpectError> {
        let mut expected = Self::default();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.split('#').next().unwrap_or_default().trim();
            let mut words = content.splitn(2, char::is_whitespace);
            let Some(first) = words.next().filter(|w| !w.is_empty()) else {
                continue;
            };
            let rest = words.next().unwrap_or_default().trim();
            match first {
                "waive" | "strict" => expected.rule_line(line, first == "waive", rest)?,
                id if rest.is_empty() => {
                    if !known.clone().into_iter().any(|k| k == id) {
                        return Err(ExpectError::UnknownCase {
                            line,
                            id: id.to_string(),
                        });
                    }
                    expected.failing.insert(id.to_string());
                }
                _ => return Err(ExpectError::Malformed { line }),
            }
        }
        Ok(expected)
    }

    /// A `waive RULE reason` or `strict RULE` line's `rest`, after its keyword.
    fn rule_line(&mut self, line: usize, waive: bool, rest: &str) -> Result<(), ExpectError> {
        let (id, reason) = rest
            .split_once(char::is_whitespace)
            .map_or((rest, ""), |(a, b)| (a, b.trim()));
        let rule = Rule::from_id(id).ok_or_else(|| ExpectError::UnknownRule {
            line,
            id: id.to_string(),
        })?;
        match (waive, reason.is_empty()) {
            (true, true) => Err(ExpectError::WaiverWithoutReason {
                line,
                id: id.to_string(),
            }),
            (true, false) => {
                self.gate.waived.insert(rule, reason.to_string());
                Ok(())
            }
            (false, true) => {
                self.gate.strict_rules.insert(rule);
                Ok(())
            }
            (false, false) => Err(ExpectError::Malformed { line }),
        }
    }

    /// How many cases are listed.
    pub fn len(&self) -> usize {
        self.failing.len()
    }

    /// Whether no case is listed.
    pub fn is_empty(&self) -> bool {
        self.failing.is_empty()
    }

    /// The gate of a run under these expected results: `strict` for `vex check --strict`,
    /// and the file's waivers and strict rules.
    pub fn gate(&self, strict: bool) -> Gate {
        Gate {
            strict,
            ..self.gate.clone()
        }
    }

    /// Turns the listed cases' failures into expected failures and their passes into
    /// unexpected passes. Skipped cases stay skipped.
    pub fn apply(&self, results: &mut [CaseResult]) {
        for r in results {
            if !self.failing.contains(&r.case.id) {
                continue;
            }
            r.verdict = match std::mem::replace(&mut r.verdict, Verdict::Pass) {
                Verdict::Fail { expected, actual } => Verdict::ExpectedFail { expected, actual },
                Verdict::Pass => Verdict::UnexpectedPass,
                other => other,
            };
        }
    }
}

/// The expected-results file of a run: every case that failed (or failed as expected),
/// each with the rules it names and what happened as a comment.
pub fn write(results: &[CaseResult]) -> String {
    let mut out = String::from(
        "# vex expected results: the cases this host is known to fail.\n\
         # `vex check --expect FILE` reports them as expected failures; take a line off\n\
         # once the host passes it (an unexpected pass fails the run).\n",
    );
    for r in results {
        if let Verdict::Fail { actual, .. } | Verdict::ExpectedFail { actual, .. } = &r.verdict {
            let _ = writeln!(
                out,
                "{}  # {}: {actual}",
                r.case.id,
                r.violated().join(", ")
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: [&str; 3] = ["route.join", "route.leave", "link.keepalive"];

    #[test]
    fn ids_comments_and_blank_lines() {
        let e = Expected::parse(
            "# header\n\nroute.join  # JOIN-09: stalls\n  route.leave\n",
            KNOWN,
        );
        assert_eq!(e.map(|e| e.len()), Ok(2));
    }

    #[test]
    fn an_unknown_id_names_its_line() {
        assert_eq!(
            Expected::parse("route.join\nroute.jion\n", KNOWN),
            Err(ExpectError::UnknownCase {
                line: 2,
                id: "route.jion".into()
            })
        );
    }

    #[test]
    fn waivers_and_strict_rules_set_the_gate() {
        let e = Expected::parse(
            "waive AUTH-16 our host resends on purpose  # ticket 12\nstrict WS-01\nroute.join\n",
            KNOWN,
        )
        .unwrap();
        assert_eq!(e.len(), 1);
        let gate = e.gate(false);
        assert_eq!(
            gate.waiver(Rule::Auth16),
            Some("our host resends on purpose")
        );
        assert!(gate.strict_rules.contains(&Rule::Ws01));
        assert!(!gate.strict);
        assert!(e.gate(true).strict);
    }

    #[test]
    fn a_rule_line_names_a_rule_and_a_waiver_its_reason() {
        assert_eq!(
            Expected::parse("waive AUTH-99 why\n", KNOWN),
            Err(ExpectError::UnknownRule {
                line: 1,
                id: "AUTH-99".into()
            })
        );
        assert_eq!(
            Expected::parse("\nwaive AUTH-16\n", KNOWN),
            Err(ExpectError::WaiverWithoutReason {
                line: 2,
                id: "AUTH-16".into()
            })
        );
        assert_eq!(
            Expected::parse("strict AUTH-16 because\n", KNOWN),
            Err(ExpectError::Malformed { line: 1 })
        );
    }

    #[test]
    fn two_words_on_a_line_are_refused() {
        assert_eq!(
            Expected::parse("route.join route.leave\n", KNOWN),
            Err(ExpectError::Malformed { line: 1 })
        );
    }
}
