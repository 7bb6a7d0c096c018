//! Transcripts: one text line per event of a client's run, with time, direction, link,
//! service, message and hex; the client's timer ticks and the links that closed under it
//! too, so a replay can run the client exactly as it ran (design "Transcripts and the
//! corpus").

use std::fmt::Write;
use vex_fake_client::{ClientTransmit, Script};
use vex_wire::activity::table;
use vex_wire::time::Instant;

/// What a line records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// A frame from the client to the host.
    ToHost,
    /// A frame from the host to the client.
    ToClient,
    /// The client's link opened: no frame.
    Opened,
    /// The link closed under the client: no frame.
    Closed,
    /// The client's timers ran (its `handle_timeout`): no link, no frame.
    Tick,
}

/// One event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// When, in run milliseconds.
    pub at: Instant,
    /// What happened.
    pub direction: Direction,
    /// `primary` or `activity` (`m2.activity` and so on for other members of the
    /// activity); for a tick, empty (or `m2` and so on).
    pub link: String,
    /// The BAP service of a frame.
    pub service: u16,
    /// The activity message id, for services 8 and 9.
    pub message: Option<u32>,
    /// The whole frame as sent on the wire.
    pub bytes: Vec<u8>,
    /// The activity message body, for services 8 and 9: what `vex decode` reads.
    pub payload: Option<Vec<u8>>,
}

impl Line {
    /// A frame the client sent at `at`.
    pub fn sent(at: Instant, t: &ClientTransmit) -> Self {
        Self {
            at,
            direction: Direction::ToHost,
            link: t.link.to_string(),
            service: t.service,
            message: t.message,
            bytes: t.bytes.clone(),
            payload: t.payload.clone(),
        }
    }

    /// An event with no frame.
    fn event(at: Instant, direction: Direction, link: String) -> Self {
        Self {
            at,
            direction,
            link,
            service: 0,
            message: None,
            bytes: Vec::new(),
            payload: None,
        }
    }
}

/// Every event of one client's run, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    /// The events.
    pub lines: Vec<Line>,
    /// When the run ended, if it has.
    pub ended_at: Option<Instant>,
    /// The client's scripted actions, which a replay needs too.
    pub script: Script,
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

/// The first line of a transcript. Version 2 records links opened and closed and the
/// client's timer ticks, which a replay needs.
const HEADER: &str = "# vex transcript v2: ms direction link service [message] wire-hex [payload=hex]; +++ opened, --- closed, clk tick";
/// The comment line that gives a run's end.
const ENDED_AT: &str = "# ended at ";
/// The comment line that gives the client's script.
const SCRIPT: &str = "# script: ";
/// The links a line may name, before a member prefix.
const LINKS: [&str; 2] = ["primary", "activity"];

impl Transcript {
    /// A transcript of a client following `script`.
    pub fn new(script: Script) -> Self {
        Self {
            script,
            ..Self::default()
        }
    }

    /// Adds a frame.
    pub fn push(&mut self, line: Line) {
        self.lines.push(line);
    }

    /// Records that the client's `link` opened at `at`.
    pub fn opened(&mut self, at: Instant, link: String) {
        self.lines.push(Line::event(at, Direction::Opened, link));
    }

    /// Records that `link` closed under the client at `at`.
    pub fn closed(&mut self, at: Instant, link: String) {
        self.lines.push(Line::event(at, Direction::Closed, link));
    }

    /// Records that the client's timers ran at `at`.
    pub fn tick(&mut self, at: Instant) {
        self.lines
            .push(Line::event(at, Direction::Tick, String::new()));
    }

    /// When member 1's run ended, or else its last event.
    pub fn end(&self) -> Instant {
        let own = self.lines.iter().filter(|l| member_of(&l.link) <= 1);
        let last = own.map(|l| l.at).max().unwrap_or_default();
        self.ended_at.unwrap_or(last)
    }

    /// The text form: `# comment` lines (the run's end and the script among them), then
    /// `TIME_MS DIR LINK svc=N [msg=N:name] WIRE_HEX [payload=HEX]` per frame,
    /// `TIME_MS +++ LINK opened` and `TIME_MS --- LINK closed` where a link of the client
    /// opened or closed, and `TIME_MS clk tick` where its timers ran.
    pub fn to_text(&self) -> String {
        let mut out = format!("{HEADER}\n");
        if let Some(end) = self.ended_at {
            let _ = writeln!(out, "{ENDED_AT}{} ms", end.millis());
        }
        if self.script != Script::default() {
            let _ = writeln!(out, "{SCRIPT}{}", self.script);
        }
        for l in &self.lines {
            let at = l.at.millis();
            let dir = match l.direction {
                Direction::ToHost => "C>H",
                Direction::ToClient => "H>C",
                Direction::Opened => {
                    let _ = writeln!(out, "{at:>8} +++ {} opened", l.link);
                    continue;
                }
                Direction::Closed => {
                    let _ = writeln!(out, "{at:>8} --- {} closed", l.link);
                    continue;
                }
                Direction::Tick if l.link.is_empty() => {
                    let _ = writeln!(out, "{at:>8} clk tick");
                    continue;
                }
                Direction::Tick => {
                    let _ = writeln!(out, "{at:>8} clk {} tick", l.link);
                    continue;
                }
            };
            let _ = write!(out, "{at:>8} {dir} {:<8} svc={:<3}", l.link, l.service);
            if let Some(m) = l.message {
                let _ = write!(out, " msg={m}:{}", table::label(m));
            }
            let _ = write!(out, " {}", hex::encode(&l.bytes));
            if let Some(p) = &l.payload {
                let _ = write!(out, " payload={}", hex::encode(p));
            }
            out.push('\n');
        }
        out
    }

    /// Reads the text form back; its first line is this version's header. Other comment
    /// lines are skipped.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut t = Transcript::default();
        if text.lines().next() != Some(HEADER) {
            return Err(ParseError {
                line: 1,
                reason: format!("not a transcript of this version: the first line is {HEADER:?}"),
            });
        }
        for (n, raw) in text.lines().enumerate().skip(1) {
            let err = |reason: &str| ParseError {
                line: n + 1,
                reason: reason.to_string(),
            };
            if let Some(end) = raw.strip_prefix(ENDED_AT)
                && let Some(ms) = end.strip_suffix(" ms")
            {
                let ms = ms.parse().map_err(|_| err("a bad end"))?;
                t.ended_at = Some(Instant::from_millis(ms));
            } else if let Some(script) = raw.strip_prefix(SCRIPT) {
                t.script = Script::parse(script).map_err(|e| err(&e))?;
            } else if !raw.starts_with('#') && !raw.trim().is_empty() {
                t.lines.push(Line::parse(raw).map_err(err)?);
            }
        }
        Ok(t)
    }
}

/// The member a line belongs to: 1 for `primary`, `activity` and a bare tick; N for
/// `mN.primary`, `mN.activity` and a tick's `mN` (N at least 2); 0 for any other name.
pub fn member_of(name: &str) -> u32 {
    if name.is_empty() || LINKS.contains(&name) {
        return 1;
    }
    let member = match name.split_once('.') {
        Some((member, link)) if LINKS.contains(&link) => member,
        Some(_) => return 0,
        None => name, // a tick's mN
    };
    let digits = member.strip_prefix('m').unwrap_or_default();
    let canonical = !digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit());
    match digits.parse::<u32>() {
        Ok(n) if canonical && n >= 2 => n,
        _ => 0,
    }
}

/// A link name a frame, open or close line may carry.
fn is_link(name: &str) -> bool {
    member_of(name) != 0 && (LINKS.contains(&name) || name.contains('.'))
}

impl Line {
    /// One line: a frame `TIME_MS DIR LINK svc=N [msg=N:name] WIRE_HEX [payload=HEX]`,
    /// `TIME_MS --- LINK closed` or `TIME_MS clk tick`.
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
            Some("+++") => Direction::Opened,
            Some("---") => Direction::Closed,
            Some("clk") => Direction::Tick,
            _ => return Err("no direction (C>H, H>C, +++, --- or clk)"),
        };
        if direction == Direction::Tick {
            return match (words.next(), words.next(), words.next()) {
                (Some("tick"), None, None) => Ok(Line::event(at, direction, String::new())),
                (Some(m), Some("tick"), None) if !m.contains('.') && member_of(m) >= 2 => {
                    Ok(Line::event(at, direction, m.to_string()))
                }
                _ => Err("a tick line is TIME clk tick, or TIME clk mN tick"),
            };
        }
        let link = words.next().ok_or("no link")?.to_string();
        if !is_link(&link) {
            return Err("an unknown link (primary, activity, or mN. before either)");
        }
        let event = match direction {
            Direction::Opened => Some("opened"),
            Direction::Closed => Some("closed"),
            _ => None,
        };
        if let Some(word) = event {
            return match (words.next(), words.next()) {
                (Some(w), None) if w == word => Ok(Line::event(at, direction, link)),
                _ => Err("an event line is TIME +++ LINK opened or TIME --- LINK closed"),
            };
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
            } else if bytes.is_none() {
                bytes = Some(hex::decode(w).map_err(|_| "a bad wire hex")?);
            } else {
                return Err("more than one wire hex");
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
        let mut t = Transcript::new(Script {
            leave_after_ms: Some(3000),
            ..Script::default()
        });
        t.push(Line {
            at: Instant::from_millis(7),
            direction: Direction::ToClient,
            link: "m2.activity".into(),
            service: 9,
            message: Some(44),
            bytes: vec![1, 2, 3],
            payload: Some(vec![0x01, 0x80]),
        });
        t.opened(Instant::from_millis(6), "primary".into());
        t.tick(Instant::from_millis(8));
        t.lines.push(Line::event(
            Instant::from_millis(8),
            Direction::Tick,
            "m2".into(),
        ));
        t.closed(Instant::from_millis(9), "activity".into());
        t.ended_at = Some(Instant::from_millis(10));
        assert_eq!(Transcript::parse(&t.to_text()).unwrap(), t);
        assert_eq!(t.end(), Instant::from_millis(10));
        for (text, line) in [
            ("x C>H primary svc=1 00", 2),
            ("# fine\n1 C>X primary svc=1 00", 3),
            ("1 C>H primary svc=1", 2),
            ("1 C>H primary svc=1 zz", 2),
            ("1 C>H primary 00", 2),
            ("1 C>H primray svc=1 00", 2),
            ("1 C>H m1.primary svc=1 00", 2),
            ("1 C>H m2 svc=1 00", 2),
            ("1 C>H primary svc=1 00 01", 2),
            ("1 --- activity closed now", 2),
            ("1 clk tock", 2),
            ("1 clk m2.activity tick", 2),
            ("# script: stay=1", 2),
        ] {
            let text = format!("{HEADER}\n{text}");
            assert_eq!(Transcript::parse(&text).unwrap_err().line, line, "{text}");
        }
        let free = format!("{HEADER}\n# ended at the start");
        assert!(Transcript::parse(&free).is_ok(), "a free comment");
        assert!(
            Transcript::parse("# vex transcript v1: ...").is_err(),
            "an older version"
        );
        assert_eq!(member_of("m2.activity"), 2);
        assert_eq!(member_of("m2"), 2);
        assert_eq!(member_of("activity"), 1);
        assert_eq!(member_of("m0.activity"), 0);
        for bad in ["m2.", "m+2", "m02.activity", "m1.primary", "x2.activity"] {
            assert_eq!(member_of(bad), 0, "{bad}");
        }
    }
}
