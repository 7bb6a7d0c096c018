//! `vex load --shards N`: the run's clients driven by N processes of this program, each a
//! shard of whole activities (`vex_harness::load::Shard`), all on one schedule. Each
//! writes its progress and, at its end, its samples and its own use as JSON lines
//! (`load_shard.rs`); this side reads them and merges the samples into one run's.

use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdout, Command};
use tokio::task::JoinHandle;
use vex_harness::load_figures::{ProcessUse, Samples};
use vex_harness::load_shard::{SamplesLine, ShardLine};

/// How long the shards have to start before the run's first client: every shard begins
/// its schedule at the same moment.
pub const START_MARGIN: Duration = Duration::from_secs(1);

/// The shard processes of a run.
pub struct Shards {
    children: Vec<Child>,
    readers: Vec<JoinHandle<Result<(Samples, ProcessUse), String>>>,
    progress: Arc<Mutex<Vec<(u64, u64)>>>,
}

impl Shards {
    /// Starts `count` shards of this program, shard `k` with `args_of(k)`.
    pub fn start(count: usize, args_of: impl Fn(usize) -> Vec<String>) -> Result<Self, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let progress = Arc::new(Mutex::new(vec![(0, 0); count]));
        let (mut children, mut readers) = (Vec::new(), Vec::new());
        for k in 0..count {
            let mut child = Command::new(&exe)
                .args(args_of(k))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| format!("shard {k} did not start: {e}"))?;
            let stdout = child
                .stdout
                .take()
                .ok_or_else(|| format!("shard {k} has no output"))?;
            readers.push(tokio::spawn(read_lines(k, stdout, progress.clone())));
            children.push(child);
        }
        Ok(Self {
            children,
            readers,
            progress,
        })
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.children.len()
    }

    /// Join results and violations so far, every shard summed.
    pub fn progress(&self) -> (u64, u64) {
        let shards = self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        shards
            .iter()
            .fold((0, 0), |(j, v), (sj, sv)| (j + sj, v + sv))
    }

    /// True once every shard has written all it will.
    pub fn is_finished(&self) -> bool {
        self.readers.iter().all(JoinHandle::is_finished)
    }

    /// Every shard's samples merged, and what their processes used together; or why a
    /// shard gave none.
    pub async fn finish(mut self) -> Result<(Samples, ProcessUse), String> {
        let (mut merged, mut used) = (Samples::default(), ProcessUse::default());
        for (k, reader) in self.readers.into_iter().enumerate() {
            let (samples, shard_used) = reader
                .await
                .map_err(|e| format!("shard {k}'s reader failed: {e}"))??;
            merged.merge(&samples);
            used = used.plus(shard_used);
        }
        for (k, child) in self.children.iter_mut().enumerate() {
            let status = child.wait().await.map_err(|e| e.to_string())?;
            if !status.success() {
                return Err(format!("shard {k} exited with {status}"));
            }
        }
        Ok((merged, used))
    }
}

/// Reads shard `k`'s lines until it closes its output: its progress into `progress`, and
/// its samples and use.
async fn read_lines(
    k: usize,
    stdout: ChildStdout,
    progress: Arc<Mutex<Vec<(u64, u64)>>>,
) -> Result<(Samples, ProcessUse), String> {
    let mut lines = BufReader::new(stdout).lines();
    let mut end = None;
    while let Some(line) = lines.next_line().await.map_err(|e| e.to_string())? {
        match ShardLine::from_json(&line).map_err(|e| format!("shard {k}: {e}: {line}"))? {
            ShardLine::Progress { joins, violations } => {
                let mut shards = progress.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(p) = shards.get_mut(k) {
                    *p = (joins, violations);
                }
            }
            ShardLine::End { samples, used } => {
                let samples = samples.samples().map_err(|e| format!("shard {k}: {e}"))?;
                end = Some((samples, used));
            }
        }
    }
    end.ok_or_else(|| format!("shard {k} ended without its samples"))
}

/// One shard's side: writes a progress line, or at the end the samples line.
pub fn write_line(line: &ShardLine) {
    out!("{}", line.to_json());
}

/// The last line of a shard that recorded `samples` and used `used`.
pub fn end_line(samples: &Samples, used: ProcessUse) -> ShardLine {
    let samples = Box::new(SamplesLine::of(samples));
    ShardLine::End { samples, used }
}

/// `start_at` (Unix milliseconds) on the runtime's clock: now when it has passed.
pub fn start_instant(start_at: u64) -> tokio::time::Instant {
    let at = SystemTime::UNIX_EPOCH + Duration::from_millis(start_at);
    let wait = at
        .duration_since(SystemTime::now())
        .unwrap_or(Duration::ZERO);
    tokio::time::Instant::now() + wait
}

/// The Unix milliseconds [`START_MARGIN`] from now: when the shards begin.
pub fn start_at() -> u64 {
    let at = SystemTime::now() + START_MARGIN;
    let since = at
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
