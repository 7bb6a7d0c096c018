//! `vex`: the Activity Host, the conformance check and the emulated client on the command
//! line (design "The harness and the CLI").

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

use clap::{Parser, Subcommand};
use std::net::SocketAddrV4;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;
use vex_conformance::{CheckOptions, Transport, catalog, codec, report, run_case};
use vex_fake_client::not_enforced;
use vex_fake_client::{ClientConfig, Outcome, Rule};
use vex_harness::transcript::Transcript;
use vex_host::{HostConfig, HostCore};
use vex_wire::activity::{ids, table};
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::scenario::Scenario;
use vex_wire::scenario_file;

/// Vex: a test bench for Destiny 2 (build 86657) Activity Host servers.
#[derive(Parser)]
#[command(version, about)]
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
}

fn parse_key(s: &str) -> Result<[u8; 16], String> {
    let bytes = hex::decode(s).map_err(|e| format!("not hex: {e}"))?;
    bytes
        .try_into()
        .map_err(|b: Vec<u8>| format!("a key is 16 bytes (32 hex digits), got {}", b.len()))
}

#[derive(Subcommand)]
enum Command {
    /// Serve lobby and activity links on one TCP port until Ctrl-C.
    Host {
        /// Where to listen.
        #[arg(long, default_value = "127.0.0.1:30974")]
        listen: SocketAddrV4,
        /// The address service 17 advertises (default: the listen address).
        #[arg(long)]
        advertise: Option<SocketAddrV4>,
        /// The scenario to serve, a TOML file (default: the built-in one,
        /// `scenarios/edz_patrol.toml`).
        #[arg(long)]
        scenario: Option<PathBuf>,
        #[command(flatten)]
        keys: Keys,
    },
    /// Read a scenario file and print what it places, or the line and field it gets wrong.
    Scenario {
        /// The TOML file.
        file: PathBuf,
    },
    /// Run the conformance suite: against the built-in host, or `--target` over TCP.
    Check {
        /// A host to check over TCP; without it, the built-in host runs in-process.
        #[arg(long)]
        target: Option<SocketAddrV4>,
        /// Only cases whose id contains this.
        #[arg(long)]
        filter: Option<String>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Also write a JUnit XML report here.
        #[arg(long)]
        junit: Option<PathBuf>,
        /// Write each case's transcript into this folder.
        #[arg(long)]
        transcripts: Option<PathBuf>,
        /// Fail a clean run on host duties too (ENV-10, JOIN-02, SLOTS-02, LINK-03).
        #[arg(long)]
        strict: bool,
        /// The scenario the host serves and the emulated client's packages hold, a TOML
        /// file (default: the built-in one).
        #[arg(long)]
        scenario: Option<PathBuf>,
        #[command(flatten)]
        keys: Keys,
    },
    /// Print one body field by field, with bit offsets: a message name or id, `auth:TYPE`,
    /// or another body's name (`--list` shows them).
    Decode {
        /// What the body is.
        #[arg(required_unless_present = "list")]
        name: Option<String>,
        /// The body in hex.
        #[arg(required_unless_present = "list")]
        hex: Option<String>,
        /// Print JSON (the form `vex encode` reads) instead of the field list.
        #[arg(long)]
        json: bool,
        /// List the names `decode` and `encode` take.
        #[arg(long)]
        list: bool,
    },
    /// Read a body as JSON (the form `vex decode --json` prints) and print its hex.
    Encode {
        /// What the body is.
        name: String,
        /// Read the JSON from this file instead of standard input.
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// List the client checks the emulated client enforces, with the conformance cases
    /// that prove each one fires.
    Rules,
    /// Replay a transcript's host frames to the emulated client and print its verdict:
    /// a recorded run judged again, without the host that sent it.
    Replay {
        /// A transcript, as `vex check --transcripts` writes it.
        file: PathBuf,
        #[command(flatten)]
        keys: Keys,
    },
    /// Run one emulated client against a host and print its status and violations.
    Client {
        /// The host's lobby address.
        #[arg(long)]
        target: SocketAddrV4,
        /// How long to stay, in seconds.
        #[arg(long, default_value_t = 10)]
        seconds: u64,
        /// The scenario the client's packages hold, a TOML file (default: the built-in).
        #[arg(long)]
        scenario: Option<PathBuf>,
        #[command(flatten)]
        script: Script,
        #[command(flatten)]
        keys: Keys,
    },
}

/// What the emulated client does after the join, each this many milliseconds after it.
#[derive(clap::Args)]
struct Script {
    /// Ask for the whole snapshot with message 18.
    #[arg(long, value_name = "MS")]
    refresh_after: Option<u64>,
    /// Return 32 entity slots with message 21 and ask for 8 with message 20.
    #[arg(long, value_name = "MS")]
    request_slots_after: Option<u64>,
    /// Leave with message 15.
    #[arg(long, value_name = "MS")]
    leave_after: Option<u64>,
    /// Report the member identity with message 23.
    #[arg(long, value_name = "MS")]
    identity_after: Option<u64>,
    /// Join again (service 6, then message 3) this long after leaving.
    #[arg(long, value_name = "MS", requires = "leave_after")]
    rejoin_after: Option<u64>,
    /// Move into the next bubble with message 22, then ask for its roster with message 18.
    #[arg(long, value_name = "MS")]
    move_region_after: Option<u64>,
    /// Ask to start the activity anew with message 11.
    #[arg(long, value_name = "MS")]
    start_activity_after: Option<u64>,
    /// Ask the host to purge the lowest 8 leased slots with message 27.
    #[arg(long, value_name = "MS")]
    purge_after: Option<u64>,
    /// Give up authority over the lowest 8 leased slots with message 33.
    #[arg(long, value_name = "MS")]
    abdicate_after: Option<u64>,
    /// Post an incident with message 19.
    #[arg(long, value_name = "MS")]
    incident_after: Option<u64>,
}

impl Script {
    /// Sets the client up to follow the script.
    fn apply(&self, config: &mut ClientConfig) {
        config.script = vex_fake_client::Script {
            refresh_after_ms: self.refresh_after,
            slot_request_after_ms: self.request_slots_after,
            leave_after_ms: self.leave_after,
            identity_after_ms: self.identity_after,
            rejoin_after_ms: self.rejoin_after,
            move_region_after_ms: self.move_region_after,
            start_activity_after_ms: self.start_activity_after,
            purge_after_ms: self.purge_after,
            abdicate_after_ms: self.abdicate_after,
            incident_after_ms: self.incident_after,
        };
    }
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

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Host {
            listen,
            advertise,
            scenario,
            keys,
        } => {
            init_logs("info");
            let mut config = HostConfig::builtin(advertise.unwrap_or(listen));
            config.signon = keys.keys();
            match load_scenario(scenario.as_deref()) {
                Ok(Some(s)) => config.scenario = s,
                Ok(None) => {}
                Err(code) => return code,
            }
            host(listen, config).await
        }
        Command::Scenario { file } => match load_scenario(Some(&file)) {
            Ok(Some(s)) => {
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
                ExitCode::SUCCESS
            }
            Ok(None) => ExitCode::SUCCESS,
            Err(code) => code,
        },
        Command::Check {
            target,
            filter,
            json,
            junit,
            transcripts,
            strict,
            scenario,
            keys,
        } => {
            init_logs("error");
            let transport = target.map_or(Transport::InProcess, Transport::Tcp);
            let scenario = match load_scenario(scenario.as_deref()) {
                // one scenario for the whole run, shared by every case
                Ok(s) => s.map(|s| &*Box::leak(Box::new(s))),
                Err(code) => return code,
            };
            let options = CheckOptions {
                keys: keys.keys(),
                strict,
                scenario,
            };
            check(transport, filter, json, junit, transcripts, options).await
        }
        Command::Decode {
            name,
            hex,
            json,
            list,
        } => decode(name, hex, json, list),
        Command::Encode { name, file } => encode(&name, file),
        Command::Rules => rules(),
        Command::Replay { file, keys } => {
            init_logs("error");
            // the replayed client connects nowhere: its address only names its links
            let mut config = ClientConfig::builtin(HostConfig::default_address());
            config.signon = keys.keys();
            replay(&file, config)
        }
        Command::Client {
            target,
            seconds,
            scenario,
            script,
            keys,
        } => {
            init_logs("error");
            let mut config = ClientConfig::builtin(target);
            config.signon = keys.keys();
            script.apply(&mut config);
            match load_scenario(scenario.as_deref()) {
                Ok(Some(s)) => config.scenario = s,
                Ok(None) => {}
                Err(code) => return code,
            }
            client(config, seconds).await
        }
    }
}

/// The scenario in `file`, when one is named; a file that cannot be read or is refused is
/// an error (exit 2) naming the line and the field.
fn load_scenario(file: Option<&std::path::Path>) -> Result<Option<Scenario>, ExitCode> {
    let Some(file) = file else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(file).map_err(|e| {
        eprintln!("vex: {}: {e}", file.display());
        ExitCode::from(2)
    })?;
    scenario_file::parse(&text).map(Some).map_err(|e| {
        eprintln!("vex: {}: {e}", file.display());
        ExitCode::from(2)
    })
}

async fn host(listen: SocketAddrV4, mut config: HostConfig) -> ExitCode {
    let mut seed = [0u8; 32];
    if let Err(e) = getrandom(&mut seed) {
        eprintln!("vex host: no OS randomness for key material: {e}");
        return ExitCode::FAILURE;
    }
    config.seed = seed;
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("vex host: cannot listen on {listen}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (advertise, scenario) = (config.advertised, config.scenario.name.clone());
    tracing::info!(%listen, %advertise, %scenario, "vex host serving");
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match vex_host::server::serve(listener, HostCore::new(config), shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vex host: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Fills `buf` from the OS: per-process key material for a real server.
fn getrandom(buf: &mut [u8]) -> std::io::Result<()> {
    use std::io::Read;
    std::fs::File::open("/dev/urandom")?.read_exact(buf)
}

async fn check(
    transport: Transport,
    filter: Option<String>,
    json: bool,
    junit: Option<PathBuf>,
    transcripts: Option<PathBuf>,
    options: CheckOptions,
) -> ExitCode {
    let cases: Vec<_> = catalog()
        .into_iter()
        .filter(|c| filter.as_deref().is_none_or(|f| c.id.contains(f)))
        .collect();
    let mut results = Vec::with_capacity(cases.len());
    for case in &cases {
        results.push(run_case(case, transport, options).await);
    }
    if let Some(dir) = &transcripts {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("vex check: cannot create {}: {e}", dir.display());
        }
        for r in &results {
            if let Some(run) = &r.run {
                let path = dir.join(format!("{}.txt", r.case.id));
                if let Err(e) = std::fs::write(&path, run.transcript.to_text()) {
                    eprintln!("vex check: cannot write {}: {e}", path.display());
                }
            }
        }
    }
    if json {
        out!("{}", report::json(&results));
    } else {
        out_raw!("{}", report::text(&results));
    }
    if let Some(path) = junit
        && let Err(e) = std::fs::write(&path, report::junit(&results))
    {
        eprintln!("vex check: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    if report::totals(&results).failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn rules() -> ExitCode {
    let cases = catalog();
    let enforced = vex_fake_client::ENFORCED;
    let width = enforced.iter().map(|r| r.source().len()).max().unwrap_or(0);
    out!("enforced: {} of {} rules", enforced.len(), Rule::ALL.len());
    for rule in enforced {
        let covering: Vec<&str> = cases
            .iter()
            .filter(|c| c.rules.contains(rule))
            .map(|c| c.id.as_str())
            .collect();
        out!(
            "{:<10} {:<6} {:<width$} {}",
            rule.id(),
            rule.effect().to_string(),
            rule.source(),
            rule.summary()
        );
        out!("{:<10} cases: {}", "", covering.join(", "));
    }
    let not: Vec<(Rule, &str)> = Rule::ALL
        .iter()
        .filter_map(|r| not_enforced::reason(*r).map(|why| (*r, why)))
        .collect();
    out!("");
    out!("not enforced: {} rules, each with the reason", not.len());
    for (rule, why) in not {
        out!("{:<10} {:<6} {why}", rule.id(), rule.effect().to_string());
    }
    ExitCode::SUCCESS
}

/// A body printed by its own decoder rather than a schema.
type Printer = fn(&[u8]) -> Result<String, vex_wire::bits::BitError>;

/// The messages `vex decode` prints with their own decoder, and how (AH "Message 5",
/// "Message 6", "replicate_membership").
const PRINTERS: [(u32, Printer, &str); 3] = [
    (
        ids::SENSOR_AUTH_UPDATE,
        vex_conformance::auth_update::text,
        "decode only, block by block",
    ),
    (
        ids::SENSOR_SENSE_UPDATE,
        vex_conformance::sense_update::text,
        "decode only, group by group",
    ),
    (
        ids::REPLICATE_MEMBERSHIP,
        vex_conformance::membership::text,
        "decode only",
    ),
];

/// The printer of the message `name` gives by id or by the table's name.
fn printer_for(name: &str) -> Option<Printer> {
    let id = table::find(name)?.id;
    PRINTERS.iter().find(|(i, ..)| *i == id).map(|(_, p, _)| *p)
}

fn schema_for(name: &str) -> Option<&'static vex_wire::schema::Schema> {
    let found = vex_wire::schema::catalog::lookup(name);
    if found.is_none() {
        eprintln!("vex: no body named {name:?}; `vex decode --list` shows the names");
    }
    found
}

fn decode(name: Option<String>, hex_text: Option<String>, json: bool, list: bool) -> ExitCode {
    if list {
        for (id, _, how) in PRINTERS {
            out!("{id:>2}  {} ({how})", table::label(id));
        }
        for n in vex_wire::schema::catalog::names() {
            out!("{n}");
        }
        return ExitCode::SUCCESS;
    }
    let (Some(name), Some(hex_text)) = (name, hex_text) else {
        return ExitCode::FAILURE;
    };
    if let Some(print) = printer_for(&name) {
        if json {
            eprintln!("vex decode: {name} prints as text only");
            return ExitCode::FAILURE;
        }
        let body = match codec::parse_hex(&hex_text) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("vex decode: not hex: {e}");
                return ExitCode::FAILURE;
            }
        };
        return match print(&body) {
            Ok(t) => {
                out_raw!("{t}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("vex decode: {name} does not parse: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let Some(schema) = schema_for(&name) else {
        return ExitCode::FAILURE;
    };
    let decoded = match codec::decode_hex(schema, &hex_text) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("vex decode: {e}");
            return ExitCode::FAILURE;
        }
    };
    match (&decoded.value, json) {
        (Ok(v), true) => out!("{:#}", codec::to_json(schema, v)),
        _ => out_raw!("{}", codec::text(schema, &decoded)),
    }
    if decoded.value.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn encode(name: &str, file: Option<PathBuf>) -> ExitCode {
    let Some(schema) = schema_for(name) else {
        return ExitCode::FAILURE;
    };
    let text = match file {
        Some(path) => std::fs::read_to_string(&path),
        None => std::io::read_to_string(std::io::stdin()),
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            eprintln!("vex encode: cannot read the JSON: {e}");
            return ExitCode::FAILURE;
        }
    };
    match codec::encode_json(schema, &text) {
        Ok(hex_text) => {
            out!("{hex_text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("vex encode: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn client(config: ClientConfig, seconds: u64) -> ExitCode {
    out!("vex client -> {} for {seconds} s", config.target);
    let run = vex_harness::tcp::run(config, Duration::from_secs(seconds), |v| {
        out!("VIOLATION {v}");
    })
    .await;
    verdict(&run)
}

fn replay(file: &Path, config: ClientConfig) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("vex replay: {}: {e}", file.display());
            return ExitCode::FAILURE;
        }
    };
    let transcript = match Transcript::parse(&text) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("vex replay: {}: {e}", file.display());
            return ExitCode::FAILURE;
        }
    };
    let run = vex_harness::replay::to_client(&transcript, config);
    let script = transcript.script.to_string();
    let script = if script.is_empty() {
        "none".into()
    } else {
        script
    };
    out!("vex replay {} (script: {script})", file.display());
    for v in &run.violations {
        out!("VIOLATION {v}");
    }
    verdict(&run)
}

/// Prints the status line and the outcome; success when the client is in the activity
/// with no violation.
fn verdict(run: &vex_harness::RunReport) -> ExitCode {
    out!("{}", run.status);
    match &run.outcome {
        Outcome::Running => out!("outcome: still in the activity after {} ms", run.elapsed_ms),
        Outcome::Ended { rule, reason } => out!("outcome: ended by {rule}: {reason}"),
        Outcome::Crashed { rule, reason } => out!("outcome: crashed by {rule}: {reason}"),
        Outcome::Aborted { reason } => out!("outcome: the emulated client stopped: {reason}"),
    }
    if run.violations.is_empty() && run.status.in_activity() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
