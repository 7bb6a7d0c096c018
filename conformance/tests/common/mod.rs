//! What the command-line tests share: running `vex` as a user does, its output as text,
//! and a scratch folder per test.

#![allow(clippy::expect_used, clippy::panic, dead_code)] // test code; each test file uses part of it
use std::process::{Child, Command, Output};

/// The `vex` binary the tests run.
pub const VEX: &str = env!("CARGO_BIN_EXE_vex");

/// `vex ARGS`, run to its end.
pub fn vex(args: &[&str]) -> Output {
    Command::new(VEX)
        .args(args)
        .output()
        .expect("the vex binary runs")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A folder of the test's own under the target directory, empty.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// A process the test started (a `vex host`), killed when the test ends, passed or not.
pub struct Host(pub Child);

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback port nothing listens on now, over TCP or UDP (a host serves both on it),
/// and never one this process picked before. Tests run at once, so a port a test frees
/// and then hands to a process is open to others until that process binds it: the
/// kernel's own choice (`bind` to port 0) could hand the same port to another test, or to
/// any connection's local end (a client reached another test's host this way, and took
/// that host's faulty proxy for its own). So ports come from below Linux's ephemeral range
/// (32768 up, used for port 0 and outgoing connections) and below the fixed ports some
/// tests name (30974 up), walked from an offset this process's id picks, each once.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    const FIRST: u32 = 16_384;
    const COUNT: u32 = 14_336; // to 30720
    static PICKED: AtomicU32 = AtomicU32::new(0);
    let offset = std::process::id().wrapping_mul(2_654_435_761) % COUNT;
    loop {
        let n = PICKED.fetch_add(1, Ordering::Relaxed);
        assert!(n < COUNT, "every test port in this process was picked");
        let port = u16::try_from(FIRST + (offset + n) % COUNT).expect("below 30720");
        let tcp = std::net::TcpListener::bind(("127.0.0.1", port));
        if tcp.is_ok() && std::net::UdpSocket::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

impl Host {
    /// `vex ARGS` started in the background, its output dropped.
    pub fn vex(args: &[&str]) -> Host {
        Host(
            Command::new(VEX)
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("the vex binary starts"),
        )
    }

    /// Waits until the process listens at `addr`; when it ends first, fails the test with
    /// `log`, the file its standard error went to.
    pub fn wait_listening(&mut self, addr: &str, log: &std::path::Path) {
        while std::net::TcpStream::connect(addr).is_err() {
            if let Some(status) = self.0.try_wait().expect("the process can be asked") {
                let why = std::fs::read_to_string(log).unwrap_or_default();
                panic!("the process ended ({status}) before it listened at {addr}: {why}");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// Waits until something listens at `addr`.
pub fn wait_listening(addr: &str) {
    while std::net::TcpStream::connect(addr).is_err() {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
