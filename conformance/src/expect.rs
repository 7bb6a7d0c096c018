//! Expected results (`vex check --expect FILE`, `--write-expect FILE`): the cases a host
//! is known to fail, so a team can gate its CI on Vex before its host is perfect. A listed
//! case that fails is an expected failure and does not fail the run; a listed case that
//! passes fails it, so the list only ever shrinks.
//!
//! The file is text: one case id a line, anything after `#` a comment.

use crate::case::Verdict;
use crate::runner::CaseResult;
use std::collections::BTreeSet;
use std::fmt::Write;
use thiserror::Error;

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
    /// A line holds more than one word before its comment.
    #[error("line {line}: one case id a line, then an optional `# comment`")]
    Malformed {
        /// 1-based line number.
        line: usize,
    },
}

/// The cases a host is expected to fail.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expected {
    failing: BTreeSet<String>,
}

impl Expected {
    /// Reads a file's text; every id must be one of `known`.
    pub fn parse<'a>(
        text: &str,
        known: impl IntoIterator<Item = &'a str> + Clone,
    ) -> Result<Self, ExpectError> {
        let mut failing = BTreeSet::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.split('#').next().unwrap_or_default();
            let mut words = content.split_whitespace();
            let Some(id) = words.next() else { continue };
            if words.next().is_some() {
                return Err(ExpectError::Malformed { line });
            }
            if !known.clone().into_iter().any(|k| k == id) {
                return Err(ExpectError::UnknownCase {
                    line,
                    id: id.to_string(),
                });
            }
            failing.insert(id.to_string());
        }
        Ok(Self { failing })
    }

    /// How many cases are listed.
    pub fn len(&self) -> usize {
        self.failing.len()
    }

    /// Whether no case is listed.
    pub fn is_empty(&self) -> bool {
        self.failing.is_empty()
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
    fn two_words_on_a_line_are_refused() {
        assert_eq!(
            Expected::parse("route.join route.leave\n", KNOWN),
            Err(ExpectError::Malformed { line: 1 })
        );
    }
}
