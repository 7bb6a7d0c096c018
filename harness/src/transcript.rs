//! Transcripts: one text line per frame with time, direction, link, service, message and
//! hex (design "Transcripts and the corpus").

use std::fmt::Write;
use vex_wire::activity::ids;
use vex_wire::time::Instant;

/// Which way a frame went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Client to host.
    ToHost,
    /// Host to client.
    ToClient,
}

/// One frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// When it was sent, in run milliseconds.
    pub at: Instant,
    /// Which way.
    pub direction: Direction,
    /// `primary` or `activity`.
    pub link: String,
    /// The BAP service.
    pub service: u16,
    /// The activity message id, for services 8 and 9.
    pub message: Option<u32>,
    /// The whole frame as sent on the wire.
    pub bytes: Vec<u8>,
    /// The activity message body, for services 8 and 9: what `vex decode` reads.
    pub payload: Option<Vec<u8>>,
}

/// Every frame of a run, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    /// The frames.
    pub lines: Vec<Line>,
}

impl Transcript {
    /// Adds a frame.
    pub fn push(&mut self, line: Line) {
        self.lines.push(line);
    }

    /// The text form: `# comment` lines, then
    /// `TIME_MS DIR LINK svc=N [msg=N:name] WIRE_HEX [payload=HEX]` per frame.
    pub fn to_text(&self) -> String {
        let mut out = String::from(
            "# vex transcript v1: ms direction link service [message] wire-hex [payload=hex]\n",
        );
        for l in &self.lines {
            let dir = match l.direction {
                Direction::ToHost => "C>H",
                Direction::ToClient => "H>C",
            };
            let _ = write!(
                out,
                "{:>8} {dir} {:<8} svc={:<3}",
                l.at.millis(),
                l.link,
                l.service
            );
            if let Some(m) = l.message {
                let _ = write!(out, " msg={m}:{}", ids::label(m));
            }
            let _ = write!(out, " {}", hex::encode(&l.bytes));
            if let Some(p) = &l.payload {
                let _ = write!(out, " payload={}", hex::encode(p));
            }
            out.push('\n');
        }
        out
    }
}
