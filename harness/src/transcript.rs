//! Transcripts: one text line per event of a client's run, with time, direction, link,
//! service, message and hex; the client's timer ticks and the links that closed under it
//! too, so a replay can run the client exactly as it ran (design "Transcripts and the
//! corpus").

use crate::signon_record::{Answer, SignOnRecord};
use std::fmt::Write;
use vex_fake_client::{ClientCore, ClientTransmit, LinkKind, Received, Script};
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
    /// The member of the activity whose event it is: 1 for the client of a one-client
    /// run, 2 and up for the others of an activity (written `m2.`).
    pub member: u32,
    /// The link, for every line but a tick and a datagram (written `udp`).
    pub link: Option<LinkKind>,
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
            member: 1,
            link: Some(t.link),
            service: t.service,
            message: t.message,
            bytes: t.bytes.clone(),
            payload: t.payload.clone(),
        }
    }

    /// A frame the client read at `at`, as it read it: a frame whose inner header it could
    /// not read has service 0.
    pub fn received(at: Instant, r: Received) -> Self {
        Self {
            at,
            direction: Direction::ToClient,
            member: 1,
            link: Some(r.link),
            service: r.service.unwrap_or(0),
            message: r.message,
            bytes: r.bytes,
            payload: r.payload,
        }
    }

    /// A datagram between the client's UDP socket and the host's UDP port at `at`,
    /// `direction` [`Direction::ToHost`] or [`Direction::ToClient`].
    pub fn datagram(at: Instant, direction: Direction, bytes: &[u8]) -> Self {
        Self {
            bytes: bytes.to_vec(),
            ..Self::event(at, direction, None)
        }
    }

    /// An event with no frame.
    fn event(at: Instant, direction: Direction, link: Option<LinkKind>) -> Self {
        Self {
            at,
            direction,
            member: 1,
            link,
            service: 0,
            message: None,
            bytes: Vec::new(),
            payload: None,
        }
    }

    /// The link as the text form writes it: `activity`, or `m2.activity` for member 2;
    /// `udp` for a datagram.
    fn link_name(&self) -> String {
        let link = self.link.map_or_else(|| UDP.to_string(), |l| l.to_string());
        match self.member {
            1 => link,
            m => format!("m{m}.{link}"),
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
    /// SignOn's answers, when the client signed on before the route: a replay signs on
    /// with them and sends the same hellos.
    pub signon: Option<SignOnRecord>,
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
/// The comment line that says who signed on and with which manifest key (SPKI DER hex,
/// or `-`).
const SIGNON: &str = "# signon: steam=";
/// The comment lines that give SignOn's and the manifest's answers: status, then hex.
const SIGNON_ANSWER: &str = "# signon-answer: ";
const MANIFEST_ANSWER: &str = "# manifest-answer: ";
/// The links a line may name, before a member prefix.
const LINKS: [LinkKind; 2] = [LinkKind::Primary, LinkKind::Activity];
/// The name a datagram line gives in a link's place.
const UDP: &str = "udp";

impl Transcript {
    /// A transcript of a run of a client following `script`.
    pub fn of(script: Script) -> Self {
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
    pub fn opened(&mut self, at: Instant, link: LinkKind) {
        self.lines
            .push(Line::event(at, Direction::Opened, Some(link)));
    }

    /// Records that `link` closed under the client at `at`.
    pub fn closed(&mut self, at: Instant, link: LinkKind) {
        self.lines
            .push(Line::event(at, Direction::Closed, Some(link)));
    }

    /// Records that the client's timers ran at `at`.
    pub fn tick(&mut self, at: Instant) {
        self.lines.push(Line::event(at, Direction::Tick, None));
    }

    /// Records every frame `client` has read, at `at`: the one place the host's frames
    /// enter a transcript, in every transport and in a replay.
    pub fn received(&mut self, at: Instant, client: &mut ClientCore) {
        while let Some(r) = client.poll_received() {
            self.lines.push(Line::received(at, r));
        }
    }

    /// When member 1's run ended, or else its last event.
    pub fn end(&self) -> Instant {
        let own = self.lines.iter().filter(|l| l.member == 1);
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
        if let Some(r) = &self.signon {
            let key = r.manifest_key.as_ref().map_or("-".into(), hex::encode);
            let _ = writeln!(out, "{SIGNON}{} key={key}", r.steam_id);
            for a in &r.answers {
                let what = if a.manifest {
                    MANIFEST_ANSWER
                } else {
                    SIGNON_ANSWER
                };
                let _ = writeln!(out, "{what}{} {}", a.status, hex::encode(&a.body));
            }
        }
        for l in &self.lines {
            let at = l.at.millis();
            let dir = match l.direction {
                Direction::ToHost => "C>H",
                Direction::ToClient => "H>C",
                Direction::Opened => {
                    let _ = writeln!(out, "{at:>8} +++ {} opened", l.link_name());
                    continue;
                }
                Direction::Closed => {
                    let _ = writeln!(out, "{at:>8} --- {} closed", l.link_name());
                    continue;
                }
                Direction::Tick if l.member == 1 => {
                    let _ = writeln!(out, "{at:>8} clk tick");
                    continue;
                }
                Direction::Tick => {
                    let _ = writeln!(out, "{at:>8} clk m{} tick", l.member);
                    continue;
                }
            };
            let _ = write!(
                out,
                "{at:>8} {dir} {:<8} svc={:<3}",
                l.link_name(),
                l.service
            );
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
            } else if let Some(who) = raw.strip_prefix(SIGNON) {
                let (steam, key) = who
                    .split_once(" key=")
                    .ok_or_else(|| err("a bad signon line"))?;
                t.signon = Some(SignOnRecord {
                    steam_id: steam.parse().map_err(|_| err("a bad Steam id"))?,
                    manifest_key: match key {
                        "-" => None,
                        hex => Some(hex::decode(hex).map_err(|_| err("a key that is not hex"))?),
                    },
                    answers: Vec::new(),
                });
            } else if let Some((manifest, answer)) = raw
                .strip_prefix(SIGNON_ANSWER)
                .map(|a| (false, a))
                .or_else(|| raw.strip_prefix(MANIFEST_ANSWER).map(|a| (true, a)))
            {
                let (status, body) = answer.split_once(' ').unwrap_or((answer, ""));
                let record = t
                    .signon
                    .as_mut()
                    .ok_or_else(|| err("an answer before the signon line"))?;
                record.answers.push(Answer {
                    manifest,
                    status: status.parse().map_err(|_| err("a bad HTTP status"))?,
                    body: hex::decode(body).map_err(|_| err("an answer that is not hex"))?,
                });
            } else if !raw.starts_with('#') && !raw.trim().is_empty() {
                t.lines.push(Line::parse(raw).map_err(err)?);
            }
        }
        Ok(t)
    }
}

/// A link name of the text form: `primary`, `activity` or `udp` (no link: a datagram)
/// for member 1, `mN.` before one of them for member N (at least 2, no leading zero).
fn parse_link(name: &str) -> Option<(u32, Option<LinkKind>)> {
    let (member, link) = match name.split_once('.') {
        Some((member, link)) => (parse_member(member)?, link),
        None => (1, name),
    };
    if link == UDP {
        return Some((member, None));
    }
    let link = LINKS.into_iter().find(|l| l.to_string() == link)?;
    Some((member, Some(link)))
}

/// A member prefix `mN` (N at least 2, no leading zero).
fn parse_member(word: &str) -> Option<u32> {
    let digits = word.strip_prefix('m')?;
    let canonical = !digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit());
    digits.parse().ok().filter(|&n| canonical && n >= 2)
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
            let member = match (words.next(), words.next(), words.next()) {
                (Some("tick"), None, None) => Some(1),
                (Some(m), Some("tick"), None) => parse_member(m),
                _ => None,
            };
            let member = member.ok_or("a tick line is TIME clk tick, or TIME clk mN tick")?;
            return Ok(Line {
                member,
                ..Line::event(at, direction, None)
            });
        }
        let (member, link) = words
            .next()
            .and_then(parse_link)
            .ok_or("no known link (primary, activity, udp, or mN. before one)")?;
        let event = match direction {
            Direction::Opened => Some("opened"),
            Direction::Closed => Some("closed"),
            _ => None,
        };
        if let Some(word) = event {
            return match (words.next(), words.next(), link) {
                (Some(w), None, Some(link)) if w == word => Ok(Line {
                    member,
                    ..Line::event(at, direction, Some(link))
                }),
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
            member,
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
        let mut t = Transcript {
            script: Script {
                leave_after_ms: Some(3000),
                ..Script::default()
            },
            signon: Some(SignOnRecord {
                steam_id: 7,
                manifest_key: Some(vec![0x30, 0x82]),
                answers: vec![
                    Answer {
                        manifest: false,
                        status: 200,
                        body: vec![8, 1],
                    },
                    Answer {
                        manifest: true,
                        status: 404,
                        body: Vec::new(),
                    },
                ],
            }),
            ..Transcript::default()
        };
        t.push(Line {
            at: Instant::from_millis(7),
            direction: Direction::ToClient,
            member: 2,
            link: Some(LinkKind::Activity),
            service: 9,
            message: Some(44),
            bytes: vec![1, 2, 3],
            payload: Some(vec![0x01, 0x80]),
        });
        t.opened(Instant::from_millis(6), LinkKind::Primary);
        t.tick(Instant::from_millis(8));
        t.lines.push(Line {
            member: 2,
            ..Line::event(Instant::from_millis(8), Direction::Tick, None)
        });
        t.push(Line::datagram(
            Instant::from_millis(8),
            Direction::ToHost,
            &[40, 1],
        ));
        t.push(Line::datagram(
            Instant::from_millis(9),
            Direction::ToClient,
            &[41],
        ));
        t.closed(Instant::from_millis(9), LinkKind::Activity);
        t.ended_at = Some(Instant::from_millis(10));
        assert!(t.to_text().contains("       8 C>H udp      svc=0   2801\n"));
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
            ("1 +++ udp opened", 2),
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
        assert_eq!(
            parse_link("m2.activity"),
            Some((2, Some(LinkKind::Activity)))
        );
        assert_eq!(parse_link("activity"), Some((1, Some(LinkKind::Activity))));
        assert_eq!(parse_link("m2.udp"), Some((2, None)));
        assert_eq!(parse_member("m2"), Some(2));
        for bad in [
            "m2.",
            "m+2.activity",
            "m02.activity",
            "m1.primary",
            "x2.activity",
            "m0.activity",
        ] {
            assert_eq!(parse_link(bad), None, "{bad}");
        }
    }
}
