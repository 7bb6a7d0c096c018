//! `vex mission`: check a mission script without a host, and drive the mission of a
//! running `vex host --mission` over its command link.

use crate::error;
use std::net::SocketAddrV4;
use std::path::PathBuf;
use std::process::ExitCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Where `vex host --mission` listens for mission commands unless told otherwise.
pub const COMMAND_ADDRESS: &str = "127.0.0.1:30975";

/// `vex mission`'s subcommands.
#[derive(clap::Subcommand)]
pub enum MissionCommand {
    /// Compile a mission script and report its first error (file:line:column), or the
    /// handlers it defines; no host needed.
    Check {
        /// The script.
        file: PathBuf,
    },
    /// Ask the running host to read its mission file again and swap it in once nothing is
    /// in flight, keeping every activity's variables and timers.
    Reload(Link),
    /// Print each running activity's mission variables.
    Status(Link),
    /// Print the mission stage's last reports: handlers run, failures, reloads.
    Events(Link),
}

/// The host's command link.
#[derive(clap::Args)]
pub struct Link {
    /// The address `vex host --command` listens on (this machine only).
    #[arg(long, default_value = COMMAND_ADDRESS)]
    command: SocketAddrV4,
}

/// Runs a `vex mission` subcommand.
pub async fn run(command: MissionCommand) -> ExitCode {
    match command {
        MissionCommand::Check { file } => check(&file),
        MissionCommand::Reload(link) => ask(link, "reload").await,
        MissionCommand::Status(link) => ask(link, "status").await,
        MissionCommand::Events(link) => ask(link, "events").await,
    }
}

/// 0 when the script compiles, 1 when it does not (a finding), 2 when it cannot be read.
fn check(file: &std::path::Path) -> ExitCode {
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("vex mission: {}: {e}", file.display());
            return error();
        }
    };
    match vex_mission::check(&file.display().to_string(), &source) {
        Ok(handlers) => {
            out!(
                "{}: compiles; handlers: {}",
                file.display(),
                handlers.join(", ")
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            out!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Sends `command` over the link and prints the answer; a reload that did not swap in is
/// a finding (1), a host that cannot be reached an error (2).
async fn ask(link: Link, command: &str) -> ExitCode {
    let mut stream = match tokio::net::TcpStream::connect(link.command).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "vex mission: cannot reach a host's command link at {}: {e}",
                link.command
            );
            return error();
        }
    };
    let mut answer = String::new();
    let sent = stream.write_all(format!("{command}\n").as_bytes()).await;
    if let Err(e) = sent.and(stream.read_to_string(&mut answer).await.map(drop)) {
        eprintln!("vex mission: the command link failed: {e}");
        return error();
    }
    out_raw!("{answer}");
    if command == "reload" && answer.trim() != "reloaded" {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
