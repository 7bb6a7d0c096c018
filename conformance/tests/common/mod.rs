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

/// A loopback port nothing listens on now, over TCP or UDP (a host serves both on it).
pub fn free_port() -> u16 {
    loop {
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = tcp.local_addr().expect("its address").port();
        if std::net::UdpSocket::bind(("127.0.0.1", port)).is_ok() {
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
