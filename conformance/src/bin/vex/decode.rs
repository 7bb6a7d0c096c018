//! `vex decode` and `vex encode`: one body between hex, its fields with bit offsets, and
//! JSON.

use crate::error;
use std::path::PathBuf;
use std::process::ExitCode;
use vex_conformance::printers::{PRINTERS, printer_for};
use vex_conformance::{codec, datagram};
use vex_wire::activity::table;
use vex_wire::schema::Schema;

/// `vex decode`'s arguments.
#[derive(clap::Args)]
pub struct DecodeArgs {
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
}

/// `vex encode`'s arguments.
#[derive(clap::Args)]
pub struct EncodeArgs {
    /// What the body is.
    name: String,
    /// Read the JSON from this file instead of standard input.
    #[arg(long)]
    file: Option<PathBuf>,
}

fn schema_for(name: &str) -> Option<&'static Schema> {
    let found = vex_wire::schema::catalog::lookup(name);
    if found.is_none() {
        eprintln!("vex: no body named {name:?}; `vex decode --list` shows the names");
    }
    found
}

/// Decodes one body; 1 when it does not parse, 2 when the name or the hex is wrong.
pub fn decode(args: DecodeArgs) -> ExitCode {
    if args.list {
        for p in &PRINTERS {
            out!("{:>2}  {} ({})", p.id, table::label(p.id), p.how);
        }
        for n in vex_wire::schema::catalog::names() {
            out!("{n}");
        }
        out!(
            "{UDP} (a datagram of the peer port: QoS, the association's packets, a record's head)"
        );
        out!(
            "{PEER} (a record's plaintext: an out-of-band container, or an established datagram and the messages it completes)"
        );
        return ExitCode::SUCCESS;
    }
    let (Some(name), Some(hex_text)) = (args.name, args.hex) else {
        return error();
    };
    if name == UDP {
        let what = "packet of the peer port";
        return decode_peer(&hex_text, args.json, what, datagram::json);
    }
    if name == PEER {
        let what = "record plaintext";
        return decode_peer(&hex_text, args.json, what, datagram::plaintext_json);
    }
    if let Some(printer) = printer_for(&name) {
        let body = match codec::parse_hex(&hex_text) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("vex decode: not hex: {e}");
                return error();
            }
        };
        let printed = if args.json {
            (printer.json)(&body).map(|j| format!("{j:#}\n"))
        } else {
            (printer.text)(&body)
        };
        return match printed {
            Ok(t) => {
                out_raw!("{t}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                if args.json {
                    out!(
                        "{:#}",
                        serde_json::json!({"message": name, "error": e.to_string()})
                    );
                }
                eprintln!("vex decode: {name} does not parse: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let Some(schema) = schema_for(&name) else {
        return error();
    };
    let decoded = match codec::decode_hex(schema, &hex_text) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("vex decode: {e}");
            return error();
        }
    };
    match (&decoded.value, args.json) {
        (Ok(v), true) => out!("{:#}", codec::to_json(schema, v)),
        (Err(e), true) => out!("{:#}", codec::failure_json(schema, &decoded, e)),
        _ => out_raw!("{}", codec::text(schema, &decoded)),
    }
    if decoded.value.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The name `vex decode` takes for a datagram of the peer port.
const UDP: &str = "udp";
/// The name `vex decode` takes for a record's plaintext.
const PEER: &str = "peer";

/// Prints `hex_text` as `read` reads it, `what` naming what it must be; 1 when it is not
/// that, 2 when not hex.
fn decode_peer<E: std::fmt::Display>(
    hex_text: &str,
    as_json: bool,
    what: &str,
    read: fn(&[u8]) -> Result<serde_json::Value, E>,
) -> ExitCode {
    let bytes = match codec::parse_hex(hex_text) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("vex decode: not hex: {e}");
            return error();
        }
    };
    match read(&bytes) {
        Ok(j) if as_json => out!("{j:#}"),
        Ok(j) => out_raw!("{}", datagram::text(&j)),
        Err(e) => {
            eprintln!("vex decode: the bytes are no {what}: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Encodes one body from JSON; 2 when the name, the file or the JSON is wrong.
pub fn encode(args: EncodeArgs) -> ExitCode {
    let Some(schema) = schema_for(&args.name) else {
        return error();
    };
    let text = match args.file {
        Some(path) => std::fs::read_to_string(&path),
        None => std::io::read_to_string(std::io::stdin()),
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            eprintln!("vex encode: cannot read the JSON: {e}");
            return error();
        }
    };
    match codec::encode_json(schema, &text) {
        Ok(hex_text) => {
            out!("{hex_text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("vex encode: {e}");
            error()
        }
    }
}
