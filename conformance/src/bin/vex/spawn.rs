//! `vex check --spawn CMD`: the host under test as a child of the run. It runs in a
//! process group of its own, so a `CMD` that starts more processes (`cargo run`, a shell
//! script) is stopped whole; its last lines of output are kept to explain a failure.

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::collections::VecDeque;
use std::io::Write;
use std::net::SocketAddrV4;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};

/// How long the host may take to listen.
const READY_WITHIN: Duration = Duration::from_secs(10);
/// How many of the host's last output lines a failure shows.
const TAIL_LINES: usize = 20;

/// The last lines the host wrote, on either stream.
type Tail = Arc<Mutex<VecDeque<String>>>;

/// The file every line the host writes goes to, when one is kept (`--spawn-log`).
type Log = Option<Arc<Mutex<std::fs::File>>>;

/// A host started for the run; dropping it stops its whole process group.
pub struct Spawned {
    child: Child,
    group: Pid,
    tail: Tail,
}

impl Spawned {
    /// Starts `cmd` with `sh -c` and waits until it listens at `target`, every line it
    /// writes (either stream) going to `log` too when given. Something that already
    /// listens there is refused: the run would check it instead of `cmd`.
    pub async fn start(
        cmd: &str,
        target: SocketAddrV4,
        log: Option<&Path>,
    ) -> Result<Self, String> {
        if vex_harness::tcp::reachable(target).await.is_ok() {
            return Err(format!(
                "something already listens at {target}; stop it or pick another --target"
            ));
        }
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start it: {e}"))?;
        let group = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw)
            .ok_or("it exited as it started")?;
        let tail = Tail::default();
        let log: Log = match log {
            Some(path) => Some(Arc::new(Mutex::new(std::fs::File::create(path).map_err(
                |e| format!("cannot write its log to {}: {e}", path.display()),
            )?))),
            None => None,
        };
        if let Some(out) = child.stdout.take() {
            tokio::spawn(keep_tail(out, tail.clone(), log.clone()));
        }
        if let Some(err) = child.stderr.take() {
            tokio::spawn(keep_tail(err, tail.clone(), log));
        }
        let mut spawned = Self { child, group, tail };
        spawned.wait_until_listening(target).await?;
        Ok(spawned)
    }

    async fn wait_until_listening(&mut self, target: SocketAddrV4) -> Result<(), String> {
        let listening = || async move {
            vex_harness::tcp::reachable(target)
                .await
                .map_err(|e| e.to_string())
        };
        self.wait_until(&format!("listening at {target}"), listening)
            .await
    }

    /// Waits until the host's SignOn at `url` takes connections too: a host may open its
    /// SignOn a little after its lobby port, within the time it has to come up.
    pub async fn wait_until_signon(&mut self, url: &str) -> Result<(), String> {
        let answering = || vex_harness::signon::reachable(url);
        self.wait_until(&format!("its SignOn answering at {url}"), answering)
            .await
    }

    /// Asks `ready` every 100 ms until it holds, the host exits, or the time it has to
    /// come up runs out; the last two say so, with the host's last output.
    async fn wait_until<F: Future<Output = Result<(), String>>>(
        &mut self,
        what: &str,
        ready: impl Fn() -> F,
    ) -> Result<(), String> {
        let deadline = tokio::time::Instant::now() + READY_WITHIN;
        loop {
            if let Some(status) = self.exited() {
                // let the readers take in its last words
                tokio::time::sleep(Duration::from_millis(100)).await;
                return Err(format!("it exited ({status}) before {what}{}", self.tail()));
            }
            let not_yet = match ready().await {
                Ok(()) => return Ok(()),
                Err(e) => e,
            };
            if tokio::time::Instant::now() >= deadline {
                return Err(format!(
                    "{what}: not within {} s ({not_yet}){}",
                    READY_WITHIN.as_secs(),
                    self.tail()
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The process id of the command (`exec` in `cmd` makes it the host's own).
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// The host's exit status, if it has stopped.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// The host's last lines of output, as a block to append to a message; empty when it
    /// wrote nothing.
    pub fn tail(&self) -> String {
        let lines = self.tail.lock().map(|t| t.clone()).unwrap_or_default();
        if lines.is_empty() {
            return String::new();
        }
        let shown: Vec<String> = lines.iter().map(|l| format!("  | {l}")).collect();
        format!("; its last output:\n{}", shown.join("\n"))
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        // the group may be gone already; nothing is left to stop then
        let _ = killpg(self.group, Signal::SIGTERM);
    }
}

/// Reads `stream` to its end, keeping the last lines in `tail` and every line in `log`.
async fn keep_tail(stream: impl AsyncRead + Unpin, tail: Tail, log: Log) {
    let mut lines = BufReader::new(stream).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(Ok(mut file)) = log.as_ref().map(|l| l.lock()) {
            // a log that cannot be written loses its lines, not the run
            let _ = writeln!(file, "{line}");
        }
        if let Ok(mut t) = tail.lock() {
            if t.len() == TAIL_LINES {
                t.pop_front();
            }
            t.push_back(line);
        }
    }
}
