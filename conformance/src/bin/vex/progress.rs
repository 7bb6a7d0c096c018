//! Progress of `vex check` on standard error: a bar on a terminal (cases done, passed,
//! failed, the cases running); elsewhere, as in a CI log, a line per finished case of a
//! run in real time; nothing with `--quiet`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeSet;
use std::io::IsTerminal;
use vex_conformance::{CaseResult, Verdict, report};

/// How progress is shown.
pub struct Progress {
    bar: Option<ProgressBar>,
    lines: bool,
    total: usize,
    done: usize,
    passed: usize,
    failed: usize,
    running: BTreeSet<String>,
}

impl Progress {
    /// Progress of `total` cases, which take real time when `real_time`; `quiet` shows
    /// none.
    pub fn new(total: usize, quiet: bool, real_time: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (!quiet && terminal).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("{pos:>3}/{len} [{bar:30}] {elapsed} {msg}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        Self {
            bar,
            lines: !quiet && !terminal && real_time,
            total,
            done: 0,
            passed: 0,
            failed: 0,
            running: BTreeSet::new(),
        }
    }

    /// A case started.
    pub fn started(&mut self, id: &str) {
        self.running.insert(id.to_string());
        self.redraw();
    }

    /// A case ended.
    pub fn finished(&mut self, r: &CaseResult) {
        self.running.remove(&r.case.id);
        self.done += 1;
        match r.verdict {
            Verdict::Pass | Verdict::ExpectedFail { .. } => self.passed += 1,
            Verdict::Fail { .. } | Verdict::UnexpectedPass => self.failed += 1,
            Verdict::Skip { .. } => {}
        }
        if self.lines && !matches!(r.verdict, Verdict::Skip { .. }) {
            eprintln!(
                "[{:>3}/{}] {:<5} {} ({:.1} s)",
                self.done,
                self.total,
                report::word(&r.verdict),
                r.case.id,
                r.duration.as_secs_f64()
            );
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        self.redraw();
    }

    /// The run is over: the bar goes away.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    fn redraw(&self) {
        let Some(bar) = &self.bar else { return };
        let running: Vec<&str> = self.running.iter().map(String::as_str).collect();
        bar.set_message(format!(
            "{} passed, {} failed; running {}",
            self.passed,
            self.failed,
            running.join(", ")
        ));
    }
}
