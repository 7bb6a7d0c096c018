//! Transcripts: one text line per frame with time, direction, link, service, message and
//! hex (design "Transcripts and the corpus").

use std::fmt::Write;
use vex_wire::activity::ids;
use vex_wire::time::Instant;

/// Which way a frame went, or that the link closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Client to host.
    ToHost,
    /// Host to client.
    ToClient,
    /// The link closed under the client: no frame, no bytes.
    Closed,
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
    /// When the run ended, if it has.
    pub ended_at: Option<Instant>,
}

/// Why a transcript line does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ParseError {
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// The comment line that gives a run's end.
const ENDED_AT: &str = "# ended at ";

impl Transcript {
    /// Adds a frame.
    pub fn push(&mut self, line: Line) {
        self.lines.push(line);
    }

    /// Records that `link` closed under the client at `at`.
    pub fn closed(&mut self, at: Instant, link: String) {
        self.lines.push(Line {
            at,
            direction: Direction::Closed,
            link,
            service: 0,
            message: None,
            bytes: Vec::new(),
            payload: None,
        });
    }

    /// The text form: `# comment` lines, then
    /// `TIME_MS DIR LINK svc=N [msg=N:name] WIRE_HEX [payload=HEX]` per frame, and
    /// `TIME_MS --- LINK closed` where a link closed under the client.
    pub fn to_text(&self) -> String {
        let mut out = String::from(
            "# vex transcript v1: ms direction link service [message] wire-hex [payload=hex]\n",
        );
        if let Some(end) = self.ended_at {
            let _ = writeln!(out, "{ENDED_AT}{} ms", end.millis());
        }
        for l in &self.lines {
            let dir = match l.direction {
                Direction::ToHost => "C>H",
                Direction::ToClient => "H>C",
                Direction::Closed => {
                    let _ = writeln!(out, "{:>8} --- {} closed", l.at.millis(), l.link);
                    continue;
                }
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

    /// Reads the text form back. Comment lines are skipped, but the run's end.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut t = Transcript::default();
        for (n, raw) in text.lines().enumerate() {
            let err = |reason: &str| ParseError {
                line: n + 1,
                reason: reason.to_string(),
            };
            if let Some(end) = raw.strip_prefix(ENDED_AT) {
                let ms = end
                    .trim_end_matches(" ms")
                    .parse()
                    .map_err(|_| err("a bad end"))?;
                t.ended_at = Some(Instant::from_millis(ms));
                continue;
            }
            if raw.starts_with('#') || raw.trim().is_empty() {
                continue;
            }
            t.lines.push(Line::parse(raw).map_err(err)?);
        }
        Ok(t)
    }
}

impl Line {
    /// One frame line: `TIME_MS DIR LINK svc=N [msg=N:name] WIRE_HEX [payload=HEX]`.
    fn parse(raw: &str) -> Result<Self, &'static str> {
        let mut words = raw.split_whitespace();
        let at = words
            .next()
            .and_then(|w| w.parse().ok())
            .map(Instant::from_millis)
            .ok_or("no time in milliseconds")?;
        let direction = match words.next() {
            Some("C>H") => Direction::ToHost,
            Some("H>C") => Direction::ToClient,
            Some("---") => Direction::Closed,
            _ => return Err("no direction (C>H, H>C or ---)"),
        };
        let link = words.next().ok_or("no link")?.to_string();
        if direction == Direction::Closed {
            let mut t = Transcript::default();
            t.closed(at, link);
            return t.lines.pop().ok_or("no close");
        }
        let service = words
            .next()
            .and_then(|w| w.strip_prefix("svc="))
            .and_then(|s| s.parse().ok())
            .ok_or("no svc=N")?;
        let mut message = None;
        let mut bytes = None;
        let mut payload = None;
        for w in words {
            if let Some(m) = w.strip_prefix("msg=") {
                let id = m.split(':').next().and_then(|id| id.parse().ok());
                message = Some(id.ok_or("a bad msg=N")?);
            } else if let Some(p) = w.strip_prefix("payload=") {
                payload = Some(hex::decode(p).map_err(|_| "a bad payload hex")?);
            } else {
                bytes = Some(hex::decode(w).map_err(|_| "a bad wire hex")?);
            }
        }
        Ok(Self {
            at,
            direction,
            link,
            service,
            message,
            bytes: bytes.ok_or("no wire hex")?,
            payload,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_bad_lines_say_where() {
        let mut t = Transcript::default();
        t.push(Line {
            at: Instant::from_millis(7),
            direction: Direction::ToClient,
            link: "activity".into(),
            service: 9,
            message: Some(44),
            bytes: vec![1, 2, 3],
            payload: Some(vec![0x01, 0x80]),
        });
        t.closed(Instant::from_millis(9), "activity".into());
        t.ended_at = Some(Instant::from_millis(10));
        assert_eq!(Transcript::parse(&t.to_text()).unwrap(), t);
        for (text, line) in [
            ("x C>H primary svc=1 00", 1),
            ("# fine\n1 C>X primary svc=1 00", 2),
            ("1 C>H primary svc=1", 1),
            ("1 C>H primary svc=1 zz", 1),
            ("1 C>H primary 00", 1),
        ] {
            assert_eq!(Transcript::parse(text).unwrap_err().line, line, "{text}");
        }
    }
}
