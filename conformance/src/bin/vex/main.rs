//! `vex`: the Activity Host, the conformance check and the emulated client on the command
//! line (design "The harness and the CLI").
//!
//! Exit codes, the same for every command: 0 success, 1 a finding (a conformance failure,
//! a violation, a body that does not parse), 2 an error of the command itself (usage, a
//! file that cannot be read, a host that cannot be reached).

/// Prints a line to standard output; a closed pipe (`vex rules | head`) is not an error.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Prints to standard output without a newline, ignoring a closed pipe.
macro_rules! out_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

mod check;
mod client;
mod decode;
mod limits_args;
mod load;
mod load_shards;
mod lobby;
mod mission;
mod mission_link;
mod mission_watch;
mod progress;
mod proxy;
mod proxy_udp;
mod rules;
mod serve;
mod signon_args;
mod spawn;

/// Every `vex` process allocates with jemalloc: under `vex load` at 10,000 clients glibc's
/// malloc kept growing the load generator (824 to 857 MiB in 150 s) where jemalloc
/// returned what was freed (770 to 749 MiB); docs/performance.md, 2026-12-04.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::scenario::Scenario;
use vex_wire::scenario_file;

/// Exit status of an error of the command itself: usage, IO, a host that cannot be reached.
const ERROR: u8 = 2;

/// The exit code of an error of the command itself.
fn error() -> ExitCode {
    ExitCode::from(ERROR)
}

/// Vex: a test bench for Destiny 2 (build 86657) Activity Host servers.
///
/// Exit status: 0 success, 1 a finding (a failed case, a violation, a body that does not
/// parse), 2 an error of the command (usage, IO, a host that cannot be reached).
#[derive(Parser)]
#[command(name = "vex", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// SignOn key material shared by every subcommand.
#[derive(clap::Args, Clone)]
struct Keys {
    /// SignOn success field 2, the AES-128 key of the secure hello (32 hex digits).
    /// Default: the development key 000102...0F.
    #[arg(long, value_parser = parse_key)]
    signon_aes_key: Option<[u8; 16]>,
    /// SignOn success field 3, the HMAC-SHA256 key of the secure hello (32 hex digits).
    /// Default: the development key 101112...1F.
    #[arg(long, value_parser = parse_key)]
    signon_hmac_key: Option<[u8; 16]>,
}

impl Keys {
    fn keys(&self) -> SignOnKeys {
        SignOnKeys {
            aes: self.signon_aes_key.unwrap_or(SignOnKeys::DEVELOPMENT.aes),
            hmac: self.signon_hmac_key.unwrap_or(SignOnKeys::DEVELOPMENT.hmac),
        }
    }

    /// The options that give these keys to another process of this program.
    fn args(&self) -> Vec<String> {
        let keys = [
            ("--signon-aes-key", self.signon_aes_key),
            ("--signon-hmac-key", self.signon_hmac_key),
        ];
        keys.into_iter()
            .filter_map(|(option, key)| Some([option.to_string(), hex::encode(key?)]))
            .flatten()
            .collect()
    }
}

fn parse_key(s: &str) -> Result<[u8; 16], String> {
    let bytes = hex::decode(s).map_err(|e| format!("not hex: {e}"))?;
    bytes
        .try_into()
        .map_err(|b: Vec<u8>| format!("a key is 16 bytes (32 hex digits), got {}", b.len()))
}

#[derive(Subcommand)]
enum Command {
    /// Serve lobby and activity links on one TCP port, and QoS probes and bdNet associations
    /// on the UDP port of the same number, until Ctrl-C.
    Host(serve::HostArgs),
    /// Read a scenario file and print what it places, or the line and field it gets wrong.
    Scenario {
        /// The TOML file.
        file: PathBuf,
    },
    /// Run the conformance suite: against the built-in host, or `--target` over TCP.
    Check(check::CheckArgs),
    /// Print one body field by field, with bit offsets: a message name or id, `auth:TYPE`,
    /// or another body's name (`--list` shows them).
    Decode(decode::DecodeArgs),
    /// Read a body as JSON (the form `vex decode --json` prints) and print its hex.
    Encode(decode::EncodeArgs),
    /// List the client checks the emulated client enforces, with the conformance cases
    /// that prove each one fires, then the rules it does not enforce and why.
    Rules(rules::RulesArgs),
    /// Replay a transcript's host frames to the emulated client and print its verdict:
    /// a recorded run judged again, without the host that sent it.
    Replay(client::ReplayArgs),
    /// Run one emulated client against a host and print its status and violations.
    Client(client::ClientArgs),
    /// Run many emulated clients against a host (the built-in one unless `--target`) and
    /// print joins per second, latency percentiles per message, keepalive jitter,
    /// violations by rule, and what the host and the load generator used.
    Load(load::LoadArgs),
    /// Carry links between clients and a host, faulting them frame by frame: split,
    /// delay, stall, cut, flip, replay, reorder.
    Proxy(proxy::ProxyArgs),
    /// Check a mission script, or reload, inspect and follow the mission of a running
    /// `vex host --mission`.
    #[command(subcommand)]
    Mission(mission::MissionCommand),
}

fn init_logs(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn main() -> ExitCode {
    let command = Cli::parse().command;
    let mut runtime = if matches!(&command, Command::Load(args) if args.is_shard()) {
        // a shard is one of several processes, one a core at most: one thread, so its
        // clients' tasks wake each other without crossing threads
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    match runtime.enable_all().build() {
        Ok(runtime) => runtime.block_on(run(command)),
        Err(e) => {
            eprintln!("vex: the async runtime could not start: {e}");
            error()
        }
    }
}

async fn run(command: Command) -> ExitCode {
    match command {
        Command::Host(args) => serve::run(args).await,
        Command::Scenario { file } => print_scenario(&file),
        Command::Check(args) => check::run(args).await,
        Command::Decode(args) => decode::decode(args),
        Command::Encode(args) => decode::encode(args),
        Command::Rules(args) => rules::run(args),
        Command::Replay(args) => client::replay(args),
        Command::Client(args) => client::run(args).await,
        Command::Load(args) => load::load(args).await,
        Command::Proxy(args) => proxy::run(args).await,
        Command::Mission(command) => mission::run(command).await,
    }
}

/// The scenario in `file`, when one is named; a file that cannot be read or is refused is
/// an error (exit 2) naming the line and the field.
fn load_scenario(file: Option<&Path>) -> Result<Option<Scenario>, ExitCode> {
    let Some(file) = file else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(file).map_err(|e| {
        eprintln!("vex: {}: {e}", file.display());
        error()
    })?;
    scenario_file::parse(&text).map(Some).map_err(|e| {
        eprintln!("vex: {}: {e}", file.display());
        error()
    })
}

fn print_scenario(file: &Path) -> ExitCode {
    let s = match load_scenario(Some(file)) {
        Ok(Some(s)) => s,
        Ok(None) => return ExitCode::SUCCESS,
        Err(code) => return code,
    };
    out!(
        "{}: {} bubbles, arrival slice set {}",
        s.name,
        s.bubble_count,
        s.arrival_slice_set
    );
    for o in &s.objects {
        let place = o
            .bubble
            .map_or("top level".to_string(), |b| format!("bubble {b}"));
        let types: Vec<String> = o
            .slots
            .iter()
            .map(|d| format!("{}@{}", d.slot_type, d.index))
            .collect();
        out!("  {:#010x}  {place:<10}  slots {}", o.key, types.join(" "));
    }
    for (name, slot) in &s.slot_names {
        out!(
            "  slot {name:?} = {:#010x} type {} index {}",
            slot.key,
            slot.slot_type,
            slot.index
        );
    }
    ExitCode::SUCCESS
}
