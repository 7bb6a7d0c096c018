//! Reports of a catalog run: text, JSON and JUnit XML.

use crate::case::Verdict;
use crate::gate::Standing;
use crate::runner::CaseResult;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use std::fmt::Write;
use vex_fake_client::Provenance;

/// Counts of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed, and listed known failures that passed.
    pub failed: usize,
    /// Cases skipped on this transport.
    pub skipped: usize,
    /// Listed known failures that failed (`vex check --expect`).
    pub expected_failures: usize,
}

/// Counts the verdicts.
pub fn totals(results: &[CaseResult]) -> Totals {
    let mut t = Totals::default();
    for r in results {
        match r.verdict {
            Verdict::Pass => t.passed += 1,
            Verdict::Fail { .. } | Verdict::UnexpectedPass => t.failed += 1,
            Verdict::Skip { .. } => t.skipped += 1,
            Verdict::ExpectedFail { .. } => t.expected_failures += 1,
        }
    }
    t
}

impl std::fmt::Display for Totals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)?;
        if self.expected_failures > 0 {
            write!(f, ", {} failed as expected", self.expected_failures)?;
        }
        write!(f, ", {} skipped", self.skipped)
    }
}

/// The word a verdict prints as.
pub fn word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Pass => "PASS",
        Verdict::Fail { .. } => "FAIL",
        Verdict::Skip { .. } => "SKIP",
        Verdict::ExpectedFail { .. } => "XFAIL",
        Verdict::UnexpectedPass => "XPASS",
    }
}

/// The skipped cases grouped by their reason, in the order the reasons first appear.
fn skips(results: &[CaseResult]) -> Vec<(&str, Vec<&str>)> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in results {
        let Verdict::Skip { reason } = &r.verdict else {
            continue;
        };
        match groups.iter_mut().find(|(why, _)| why == reason) {
            Some((_, ids)) => ids.push(&r.case.id),
            None => groups.push((reason, vec![&r.case.id])),
        }
    }
    groups
}

/// Human-readable: one line per case that ran, details under a failure, the skipped
/// cases one line per reason, totals last.
pub fn text(results: &[CaseResult]) -> String {
    let mut out = String::new();
    for r in results {
        if matches!(r.verdict, Verdict::Skip { .. }) {
            continue;
        }
        let _ = writeln!(
            out,
            "{:<5} {:<40} {}",
            word(&r.verdict),
            r.case.id,
            r.case.title
        );
        if let Some(measured) = &r.measured {
            let _ = writeln!(out, "      measured: {measured}");
        }
        match &r.verdict {
            Verdict::Fail { expected, actual } | Verdict::ExpectedFail { expected, actual } => {
                let _ = writeln!(out, "      broken:   {}", r.violated().join(", "));
                let _ = writeln!(out, "      expected: {expected}");
                let _ = writeln!(out, "      actual:   {actual}");
                for v in &r.violations {
                    let _ = writeln!(out, "      - {}", r.describe(v));
                }
            }
            Verdict::UnexpectedPass => {
                let _ = writeln!(
                    out,
                    "      listed as a known failure, but it passed: take it off the list"
                );
            }
            Verdict::Pass | Verdict::Skip { .. } => {}
        }
    }
    for (reason, ids) in skips(results) {
        let _ = writeln!(out, "SKIP  {} cases: {reason}", ids.len());
    }
    let _ = writeln!(out, "{}", totals(results));
    out
}

/// Machine-readable JSON.
pub fn json(results: &[CaseResult]) -> String {
    let cases: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            let (verdict, detail) = match &r.verdict {
                Verdict::Pass => ("pass", serde_json::Value::Null),
                Verdict::Fail { expected, actual } => (
                    "fail",
                    serde_json::json!({ "expected": expected, "actual": actual }),
                ),
                Verdict::Skip { reason } => ("skip", serde_json::json!({ "reason": reason })),
                Verdict::ExpectedFail { expected, actual } => (
                    "expected_fail",
                    serde_json::json!({ "expected": expected, "actual": actual }),
                ),
                Verdict::UnexpectedPass => ("unexpected_pass", serde_json::Value::Null),
            };
            serde_json::json!({
                "id": r.case.id,
                "title": r.case.title,
                "rules": r.case.rule_ids(),
                "verdict": verdict,
                "detail": detail,
                "duration_ms": r.duration.as_millis() as u64,
                "measured": r.measured,
                "violations": r.violations.iter().map(|v| serde_json::json!({
                    "rule": v.rule.id(),
                    "effect": v.effect,
                    "frame": v.frame,
                    "bit": v.bit,
                    "reason": v.reason,
                    "again": v.again.map(|a| serde_json::json!({
                        "times": a.times,
                        "last_frame": a.last_frame,
                    })),
                    "provenance": provenance_json(v.provenance),
                    "standing": standing_json(r.standing(v)),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let t = totals(results);
    let doc = serde_json::json!({
        "passed": t.passed, "failed": t.failed, "skipped": t.skipped,
        "expected_failures": t.expected_failures, "cases": cases,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// Where a condition comes from, as JSON: `{"kind": "pages"|"facts"|"vex", "section": ...}`,
/// a choice of Vex's with its `choice` id.
pub fn provenance_json(p: Provenance) -> serde_json::Value {
    match p {
        Provenance::Vex(choice) => serde_json::json!({
            "kind": p.kind(), "choice": choice.id(), "section": p.section(),
        }),
        _ => serde_json::json!({ "kind": p.kind(), "section": p.section() }),
    }
}

/// What a finding did to its case, as JSON: `fails`, `duty`, `advisory` or `waived` with
/// the user's reason.
fn standing_json(s: Standing<'_>) -> serde_json::Value {
    match s {
        Standing::Fails => "fails".into(),
        Standing::Duty => "duty".into(),
        Standing::Advisory => "advisory".into(),
        Standing::Waived(why) => serde_json::json!({ "waived": why }),
    }
}

/// A failure's text: what was expected, what happened, then every violation with its
/// rule, effect, frame, bit and reason.
fn failure_body(r: &CaseResult, expected: &str, actual: &str) -> String {
    let mut body = format!("expected: {expected}\nactual: {actual}\n");
    for v in &r.violations {
        let _ = writeln!(body, "{}", r.describe(v));
    }
    body
}

/// JUnit XML (written by `quick-junit`), one testcase per case in one `vex-check` suite:
/// a failure carries its violations; a skip, and a failure the expected results list,
/// are skipped with the reason; what a case measured is its standard output. Text the XML
/// cannot hold (a control byte in a reason)
/// is dropped by the writer, never a broken file.
pub fn junit(results: &[CaseResult]) -> String {
    let mut suite = TestSuite::new("vex-check");
    for r in results {
        let status = match &r.verdict {
            Verdict::Pass => TestCaseStatus::success(),
            Verdict::Fail { expected, actual } => {
                let mut failed = TestCaseStatus::non_success(NonSuccessKind::Failure);
                failed
                    .set_message(r.violated().join(", "))
                    .set_description(failure_body(r, expected, actual));
                failed
            }
            Verdict::UnexpectedPass => {
                let mut failed = TestCaseStatus::non_success(NonSuccessKind::Failure);
                failed.set_message("unexpected pass").set_description(
                    "listed as a known failure, but it passed: take it off the list",
                );
                failed
            }
            Verdict::Skip { reason } => {
                let mut skipped = TestCaseStatus::skipped();
                skipped.set_message(reason.as_str());
                skipped
            }
            Verdict::ExpectedFail { expected, actual } => {
                let mut skipped = TestCaseStatus::skipped();
                skipped
                    .set_message("expected failure")
                    .set_description(failure_body(r, expected, actual));
                skipped
            }
        };
        let mut case = TestCase::new(r.case.id.as_str(), status);
        case.set_classname("vex").set_time(r.duration);
        if let Some(measured) = &r.measured {
            case.set_system_out(measured.as_str());
        }
        suite.add_test_case(case);
    }
    let mut report = Report::new("vex-check");
    report.add_test_suite(suite);
    report
        .to_string()
        .unwrap_or_else(|e| format!("<!-- the JUnit report did not serialize: {e} -->\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CheckOptions, catalog, run_in_process};
    use quick_junit::Report;

    /// The JUnit report reads back with a JUnit parser, whatever a reason holds: a
    /// control byte and markup in a failure's reason and in a skip's.
    #[test]
    fn the_junit_report_reads_back_with_control_bytes_and_markup_in_reasons() {
        let case = catalog()
            .into_iter()
            .find(|c| c.id == "route.join")
            .unwrap();
        let passed = run_in_process(&case, CheckOptions::STRICT_DEVELOPMENT);
        let failed = CaseResult {
            verdict: Verdict::Fail {
                expected: "a clean join".into(),
                actual: "bad magic \u{1}\u{7} <0x02> & \"quoted\"".into(),
            },
            ..passed.clone()
        };
        let skipped = CaseResult {
            verdict: Verdict::Skip {
                reason: "needs --signon \u{1b}[1m<URL>".into(),
            },
            ..passed.clone()
        };
        let xml = junit(&[passed, failed, skipped]);
        let report = Report::deserialize_from_str(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
        let cases = &report.test_suites[0].test_cases;
        assert_eq!(cases.len(), 3);
        assert!(matches!(cases[0].status, TestCaseStatus::Success { .. }));
        let TestCaseStatus::NonSuccess { description, .. } = &cases[1].status else {
            panic!("a failure: {xml}");
        };
        let body = description.as_ref().unwrap().as_str();
        assert!(
            body.contains("<0x02> & \"quoted\""),
            "markup comes back whole: {body}"
        );
        assert!(
            !body.contains('\u{1}'),
            "the control byte is dropped: {body}"
        );
        let TestCaseStatus::Skipped { message, .. } = &cases[2].status else {
            panic!("a skip: {xml}");
        };
        assert!(message.as_ref().unwrap().as_str().contains("<URL>"));
    }
}
