//! Reports of a catalog run: text, JSON and JUnit XML.

use crate::case::Verdict;
use crate::runner::CaseResult;
use std::fmt::Write;

/// Counts of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Cases skipped on this transport.
    pub skipped: usize,
}

/// Counts the verdicts.
pub fn totals(results: &[CaseResult]) -> Totals {
    let mut t = Totals::default();
    for r in results {
        match r.verdict {
            Verdict::Pass => t.passed += 1,
            Verdict::Fail { .. } => t.failed += 1,
            Verdict::Skip { .. } => t.skipped += 1,
        }
    }
    t
}

/// Human-readable: one line per case, details under a failure, totals last.
pub fn text(results: &[CaseResult]) -> String {
    let mut out = String::new();
    for r in results {
        let word = match &r.verdict {
            Verdict::Pass => "PASS",
            Verdict::Fail { .. } => "FAIL",
            Verdict::Skip { .. } => "SKIP",
        };
        let _ = writeln!(out, "{word} {:<40} {}", r.case.id, r.case.title);
        match &r.verdict {
            Verdict::Fail { expected, actual } => {
                let _ = writeln!(out, "     rules:    {}", r.case.rule_ids().join(", "));
                let _ = writeln!(out, "     expected: {expected}");
                let _ = writeln!(out, "     actual:   {actual}");
                for v in &r.violations {
                    let _ = writeln!(out, "     - {v}");
                }
            }
            Verdict::Skip { reason } => {
                let _ = writeln!(out, "     skipped:  {reason}");
            }
            Verdict::Pass => {}
        }
    }
    let t = totals(results);
    let _ = writeln!(
        out,
        "{} passed, {} failed, {} skipped",
        t.passed, t.failed, t.skipped
    );
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
            };
            serde_json::json!({
                "id": r.case.id,
                "title": r.case.title,
                "rules": r.case.rule_ids(),
                "verdict": verdict,
                "detail": detail,
                "duration_ms": r.duration.as_millis() as u64,
                "violations": r.violations.iter().map(|v| serde_json::json!({
                    "rule": v.rule.id(),
                    "effect": v.effect,
                    "frame": v.frame,
                    "bit": v.bit,
                    "reason": v.reason,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let t = totals(results);
    let doc = serde_json::json!({
        "passed": t.passed, "failed": t.failed, "skipped": t.skipped, "cases": cases,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JUnit XML, one testcase per case.
pub fn junit(results: &[CaseResult]) -> String {
    let t = totals(results);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuite name=\"vex-check\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
        results.len(),
        t.failed,
        t.skipped
    );
    for r in results {
        let _ = write!(
            out,
            "  <testcase classname=\"vex\" name=\"{}\" time=\"{:.3}\">",
            xml_escape(&r.case.id),
            r.duration.as_secs_f64()
        );
        match &r.verdict {
            Verdict::Pass => {}
            Verdict::Fail { expected, actual } => {
                let _ = write!(
                    out,
                    "<failure message=\"{}\">expected: {}\nactual: {}</failure>",
                    xml_escape(&r.case.rule_ids().join(", ")),
                    xml_escape(expected),
                    xml_escape(actual)
                );
            }
            Verdict::Skip { reason } => {
                let _ = write!(out, "<skipped message=\"{}\"/>", xml_escape(reason));
            }
        }
        out.push_str("</testcase>\n");
    }
    out.push_str("</testsuite>\n");
    out
}
