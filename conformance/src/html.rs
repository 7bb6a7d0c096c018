//! The HTML report (`vex check --html DIR`): one self-contained page per run. Each case
//! shows the frames between client and host as a sequence diagram, every violation marked
//! on the frame that caused it, and each frame's decode on click (design "The harness and
//! the CLI": people would rather look at a session than read a log).
//!
//! Every frame of every case decodes field by field, with its `vex decode` command; the
//! decodes of a case travel gzip-compressed in the page and open on demand (the browser's
//! `DecompressionStream`), so a page of many long runs stays a few megabytes. Cases that
//! did not pass open unfolded. Every violation links its rule's line at the page's end:
//! what it says, what the real client does, and the page and section it comes from. A
//! frame's decode opens at load when the address names it (`index.html#d3-12`).

use crate::case::Verdict;
use crate::printers;
use crate::report::{self, word};
use crate::runner::CaseResult;
use base64::Engine;
use flate2::Compression;
use flate2::write::GzEncoder;
use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::io::Write as _;
use vex_fake_client::Rule;
use vex_fake_client::Violation;
use vex_harness::transcript::{Direction, Line};
use vex_wire::activity::table;

/// The page's style.
const STYLE: &str = r#"
body { font: 14px system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } .totals { font-weight: bold; }
section.case { border: 1px solid #ccc; border-radius: 6px; margin: 0.6em 0; padding: 0.2em 0.8em; }
section.fail, section.unexpected_pass { border-color: #c00; } section.expected_fail { border-color: #c80; }
summary { cursor: pointer; } .verdict { font-weight: bold; padding: 0 0.4em; }
.fail .verdict, .unexpected_pass .verdict { color: #c00; } .pass .verdict { color: #080; }
.expected_fail .verdict { color: #c80; } .skip .verdict { color: #888; }
.seq { display: grid; grid-template-columns: 6em 9em 1fr 3em 1fr; font: 12px ui-monospace, monospace; }
.seq .head { font-weight: bold; border-bottom: 1px solid #999; }
.frame { display: contents; cursor: pointer; } .frame > div { padding: 1px 4px; border-bottom: 1px solid #eee; }
.frame:hover > div { background: #f4f7ff; }
.to-host .arrow::after { content: "\2192"; } .to-client .arrow::after { content: "\2190"; }
.event > div { color: #888; font-style: italic; }
.violating > div { background: #fee; }
.violation { grid-column: 1 / -1; color: #c00; font-weight: bold; padding: 2px 4px 2px 2em; }
.decode { grid-column: 1 / -1; background: #f8f8f8; margin: 0 0 4px 2em; padding: 4px; white-space: pre; overflow-x: auto; }
.violation a, .rules a { color: inherit; }
"#;

/// The page's script: a frame's decode opens on click, its case's decodes inflated the
/// first time one of them is asked for; the frame the address names opens at load. A
/// script error is recorded on the body, and once loaded (that frame's decode in place)
/// the body says so and how many violations are on screen, which the browser test reads.
const SCRIPT: &str = r#"
function failed(e) { document.body.dataset.scriptError = String(e && e.message || e); }
window.addEventListener("error", failed);
var inflated = {};
function decodesOf(n) {
  if (!inflated[n]) {
    var packed = atob(document.getElementById("z" + n).textContent);
    var bytes = Uint8Array.from(packed, function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    inflated[n] = new Response(stream).json();
  }
  return inflated[n];
}
function toggle(id) {
  var decode = document.getElementById(id);
  if (!decode) return Promise.resolve();
  if (decode.dataset.filled) { decode.hidden = !decode.hidden; return Promise.resolve(); }
  var at = id.slice(1).split("-");
  return decodesOf(at[0]).then(function (texts) {
    decode.textContent = texts[at[1]] || "";
    decode.dataset.filled = "yes";
    decode.hidden = false;
  });
}
document.addEventListener("click", function (e) {
  var row = e.target.closest(".frame");
  if (row) toggle(row.dataset.decode).catch(failed);
});
window.addEventListener("load", function () {
  var named = location.hash.slice(1);
  var first = /^d[0-9]+-[0-9]+$/.test(named) ? toggle(named) : Promise.resolve();
  first.then(function () {
    var shown = Array.prototype.filter.call(document.querySelectorAll(".violation"),
      function (v) { return v.offsetParent !== null; });
    document.body.dataset.visibleViolations = String(shown.length);
    document.body.dataset.ready = "yes";
  }).catch(failed);
});
"#;

/// The page of a run.
pub fn page(results: &[CaseResult]) -> String {
    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    let _ = writeln!(
        out,
        "<title>vex check</title><style>{STYLE}</style></head><body>\n<h1>vex check</h1>\n<p class=\"totals\">{}</p>",
        escape(&report::totals(results).to_string())
    );
    for (n, r) in results.iter().enumerate() {
        case(&mut out, n, r);
    }
    rules(&mut out, results);
    let _ = writeln!(out, "<script>{SCRIPT}</script>\n</body></html>");
    out
}

/// The rules the page's violations name, each once, in catalog order: its id (the anchor
/// a violation links), what the real client does, what it says and where it comes from.
fn rules(out: &mut String, results: &[CaseResult]) {
    let named: BTreeSet<Rule> = results
        .iter()
        .flat_map(|r| r.violations.iter().map(|v| v.rule))
        .collect();
    if named.is_empty() {
        return;
    }
    out.push_str("<section class=\"rules\" id=\"rules\"><h2>The rules broken on this page</h2>\n");
    for rule in named {
        let _ = writeln!(
            out,
            "<p id=\"rule-{id}\"><b>{id}</b> ({effect}): {summary} <i>Source: {source}.</i></p>",
            id = rule.id(),
            effect = rule.effect().name(),
            summary = escape(rule.summary()),
            source = escape(rule.source()),
        );
    }
    out.push_str("</section>\n");
}

/// A violation's report line with its rule id linking the rule's line at the page's end.
fn violation_html(v: &Violation, line: &str) -> String {
    let id = v.rule.id();
    let rest = line.strip_prefix(id).unwrap_or(line);
    format!("<a href=\"#rule-{id}\">{id}</a>{}", escape(rest))
}

/// The CSS class of a verdict.
fn class(v: &Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Fail { .. } => "fail",
        Verdict::Skip { .. } => "skip",
        Verdict::ExpectedFail { .. } => "expected_fail",
        Verdict::UnexpectedPass => "unexpected_pass",
    }
}

fn case(out: &mut String, n: usize, r: &CaseResult) {
    let open = !matches!(r.verdict, Verdict::Pass | Verdict::Skip { .. });
    let _ = writeln!(
        out,
        "<section class=\"case {}\" id=\"case-{n}\"><details{}><summary><span class=\"verdict\">{}</span> <b>{}</b> {}</summary>\n<p>rules: {}</p>",
        class(&r.verdict),
        if open { " open" } else { "" },
        word(&r.verdict),
        escape(&r.case.id),
        escape(&r.case.title),
        escape(&r.case.rule_ids().join(", "))
    );
    match &r.verdict {
        Verdict::Fail { expected, actual } | Verdict::ExpectedFail { expected, actual } => {
            let _ = writeln!(
                out,
                "<p>expected: {}<br>actual: {}</p>",
                escape(expected),
                escape(actual)
            );
        }
        Verdict::Skip { reason } => {
            let _ = writeln!(out, "<p>skipped: {}</p>", escape(reason));
        }
        Verdict::UnexpectedPass => {
            out.push_str("<p>listed as a known failure, but it passed</p>\n");
        }
        Verdict::Pass => {}
    }
    if let Some(run) = &r.run {
        let marks = marks(&run.transcript.lines, r);
        sequence(out, n, &run.transcript.lines, &marks);
        for v in marks.get(&None).into_iter().flatten() {
            let _ = writeln!(out, "<p class=\"violation\">{v}</p>");
        }
        let _ = writeln!(
            out,
            "<script type=\"application/gzip\" id=\"z{n}\">{}</script>",
            packed_decodes(&run.transcript.lines)
        );
    }
    out.push_str("</details></section>\n");
}

/// Each violation of `r`, as its report line in HTML, by the transcript line of the frame
/// that caused it; `None` for one no frame caused (a request never answered, a run that
/// ended short).
fn marks(lines: &[Line], r: &CaseResult) -> BTreeMap<Option<usize>, Vec<String>> {
    let mut by_line: BTreeMap<Option<usize>, Vec<String>> = BTreeMap::new();
    for v in &r.violations {
        let member = member_of(v);
        let line = v.frame.and_then(|frame| {
            lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.direction == Direction::ToClient && l.member == member)
                .nth(usize::try_from(frame).ok()?)
                .map(|(i, _)| i)
        });
        let html = violation_html(v, &r.describe(v));
        by_line.entry(line).or_default().push(html);
    }
    by_line
}

/// The member whose client reported `v`: another member's reasons start `member N: `
/// (`RunReport::with_members`).
fn member_of(v: &Violation) -> u32 {
    v.reason
        .strip_prefix("member ")
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
}

fn sequence(
    out: &mut String,
    n: usize,
    lines: &[Line],
    marks: &BTreeMap<Option<usize>, Vec<String>>,
) {
    out.push_str(
        "<div class=\"seq\"><div class=\"head\">ms</div><div class=\"head\">link</div><div class=\"head\">client</div><div class=\"head\"></div><div class=\"head\">host</div>\n",
    );
    for (i, l) in lines.iter().enumerate() {
        let link = l.link.map(|k| match l.member {
            1 => k.to_string(),
            m => format!("m{m}.{k}"),
        });
        let link = escape(&link.unwrap_or_default());
        let (dir, what) = match l.direction {
            Direction::Tick => continue,
            Direction::Opened | Direction::Closed => {
                let what = if l.direction == Direction::Opened {
                    "link opened"
                } else {
                    "link closed"
                };
                let _ = writeln!(
                    out,
                    "<div class=\"frame event\"><div>{}</div><div>{link}</div><div>{what}</div><div></div><div></div></div>",
                    l.at.millis()
                );
                continue;
            }
            Direction::ToHost => ("to-host", label(l)),
            Direction::ToClient => ("to-client", label(l)),
        };
        let violating = marks.get(&Some(i));
        let id = format!("d{n}-{i}");
        let (client, host) = if dir == "to-host" {
            (what.as_str(), "")
        } else {
            ("", what.as_str())
        };
        let _ = writeln!(
            out,
            "<div class=\"frame {dir}{}\" data-decode=\"{id}\"><div>{}</div><div>{link}</div><div>{}</div><div class=\"arrow\"></div><div>{}</div></div>",
            if violating.is_some() {
                " violating"
            } else {
                ""
            },
            l.at.millis(),
            escape(client),
            escape(host)
        );
        for v in violating.into_iter().flatten() {
            let _ = writeln!(out, "<div class=\"violation\">{v}</div>");
        }
        let _ = writeln!(out, "<div class=\"decode\" id=\"{id}\" hidden></div>");
    }
    out.push_str("</div>\n");
}

/// A frame's one-line label: its service, message and size.
fn label(l: &Line) -> String {
    match l.message {
        Some(m) => format!("{} ({} bytes)", table::label(m), l.bytes.len()),
        None => format!("service {} ({} bytes)", l.service, l.bytes.len()),
    }
}

/// What a click shows: an activity message decoded field by field and the command that
/// decodes it; any other frame's hex.
fn frame_decode(l: &Line) -> String {
    let (Some(m), Some(payload)) = (l.message, &l.payload) else {
        return format!("frame: {}\n", hex::encode_upper(&l.bytes));
    };
    let mut text = printers::describe(m, payload);
    let _ = writeln!(text, "vex decode {m} {}", hex::encode_upper(payload));
    text
}

/// Every frame's decode of a case, by its transcript line, as JSON, gzip-compressed and
/// in base64: what the page's script inflates when a frame is clicked.
fn packed_decodes(lines: &[Line]) -> String {
    let decodes: serde_json::Map<String, serde_json::Value> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| matches!(l.direction, Direction::ToHost | Direction::ToClient))
        .map(|(i, l)| (i.to_string(), frame_decode(l).into()))
        .collect();
    let json = serde_json::Value::Object(decodes).to_string();
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    // a Vec takes every write; the encoder cannot fail on one
    let packed = gz.write_all(json.as_bytes()).and_then(|()| gz.finish());
    base64::engine::general_purpose::STANDARD.encode(packed.unwrap_or_default())
}

/// Text made safe for HTML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CheckOptions, catalog, run_in_process};

    /// A caught fault's violation is marked on the frame that caused it, and opens its
    /// case; a clean case stays folded.
    #[test]
    fn a_violation_sits_on_its_frame() {
        let cases = catalog();
        let caught = cases
            .iter()
            .find(|c| c.id == "catch.JOIN-01.BurstOrder")
            .unwrap();
        let clean = cases.iter().find(|c| c.id == "route.join").unwrap();
        let results = [
            run_in_process(caught, CheckOptions::STRICT_DEVELOPMENT),
            run_in_process(clean, CheckOptions::STRICT_DEVELOPMENT),
        ];
        let v = &results[0].violations[0];
        assert!(v.frame.is_some(), "{v}");
        let html = page(&results);
        let marked = html
            .find("frame to-client violating")
            .expect("a violating frame");
        let violation = html[marked..]
            .find("<div class=\"violation\"><a href=\"#rule-JOIN-01\">JOIN-01</a>")
            .unwrap();
        let next_frame = html[marked + 1..].find("<div class=\"frame").unwrap();
        assert!(
            violation < next_frame + 1,
            "the violation follows its own frame"
        );
        assert!(
            html.contains("<details><summary><span class=\"verdict\">PASS</span> <b>route.join")
        );
        assert!(
            html.contains("join_result"),
            "frames are labelled by message"
        );
        let failed = CaseResult {
            verdict: Verdict::Fail {
                expected: "a clean join".into(),
                actual: "JOIN-01".into(),
            },
            ..results[0].clone()
        };
        let html = page(&[failed]);
        assert!(html.contains("<details open><summary><span class=\"verdict\">FAIL</span>"));
        assert!(
            html.contains("<p id=\"rule-JOIN-01\"><b>JOIN-01</b> (drop): "),
            "the rule a violation links is at the page's end, with its source"
        );
    }

    /// The decodes the page's script inflates of case `n`: frame line to text.
    fn inflated(html: &str, n: usize) -> serde_json::Map<String, serde_json::Value> {
        use std::io::Read as _;
        let open = format!("<script type=\"application/gzip\" id=\"z{n}\">");
        let at = html.find(&open).unwrap() + open.len();
        let b64 = &html[at..at + html[at..].find("</script>").unwrap()];
        let packed = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        let mut json = String::new();
        flate2::read::GzDecoder::new(packed.as_slice())
            .read_to_string(&mut json)
            .unwrap();
        serde_json::from_str(&json).unwrap()
    }

    /// Every frame of every case, passed or not, decodes field by field from the page's
    /// packed decodes, one per frame row; and the page of every in-process case (roster
    /// bodies of 296 KB among them) stays a few megabytes.
    #[test]
    fn every_frame_decodes_from_a_page_of_a_few_megabytes() {
        let cases = catalog();
        let results: Vec<CaseResult> = cases
            .iter()
            .filter(|c| c.host == crate::HostUnderTest::Any)
            .map(|c| run_in_process(c, CheckOptions::STRICT_DEVELOPMENT))
            .collect();
        let html = page(&results);
        for (n, r) in results.iter().enumerate() {
            let decodes = inflated(&html, n);
            let frames = r
                .run
                .as_ref()
                .unwrap()
                .transcript
                .lines
                .iter()
                .filter(|l| matches!(l.direction, Direction::ToHost | Direction::ToClient))
                .count();
            assert_eq!(decodes.len(), frames, "{}", r.case.id);
            for i in decodes.keys() {
                assert!(html.contains(&format!("id=\"d{n}-{i}\" hidden></div>")));
            }
        }
        let join = results
            .iter()
            .position(|r| r.case.id == "route.join")
            .unwrap();
        let texts: Vec<String> = inflated(&html, join)
            .values()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert!(
            texts.iter().any(|t| t.contains("request.nonce")),
            "a passed case's frames are decoded field by field too"
        );
        let mib = html.len() as f64 / (1024.0 * 1024.0);
        assert!(
            mib < 3.0 * results.len().div_ceil(20) as f64,
            "{mib:.1} MiB for {} cases",
            results.len()
        );
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }
}
