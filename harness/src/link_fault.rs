//! Faults of the network between a client and the host, frame by frame, sans-IO: the
//! in-process transport ([`crate::wire`]) and `vex proxy` run the same machine (issue
//! "Under load and faults": faults on the link). It reads each direction's byte stream
//! into frames (NS "The frame") and says, for each, what reaches the other side and when.

use std::fmt;
use std::str::FromStr;
use vex_fake_client::LinkKind;
use vex_wire::bap::deframer::Deframer;
use vex_wire::bap::header::{FrameType, OUTER_HEADER_LEN};

/// The link silence that ends the activity (AH "Hazards for a host": 20,000 + 500 ms); a
/// stall lasts a second longer.
pub const STALL_MS: u64 = 21_500;
/// The longest frame the machine reassembles: past the host's own limit, so the host, not
/// the fault, refuses a long one.
const MAX_FRAME: usize = 64 * 1024 * 1024;

/// Which way a frame goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Direction {
    /// From the client to the host.
    ToHost,
    /// From the host to the client.
    ToClient,
}

/// One fault of the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkFault {
    /// Every frame, both ways, split at every byte boundary: each byte goes alone.
    Split,
    /// Every frame, both ways, held this many milliseconds.
    Delay(u64),
    /// From this many milliseconds after the link opened, nothing from the host passes
    /// for [`STALL_MS`].
    Stall(u64),
    /// The link cut in the middle of the host's frame after this many whole ones.
    Cut(u32),
    /// One bit of the ciphertext flipped in this encrypted frame (1-based) going this way.
    Flip(Direction, u32),
    /// This encrypted frame (1-based) going this way delivered a second time, right after.
    Replay(Direction, u32),
    /// This link's frames held this many milliseconds while the client's other link's
    /// pass at once: a frame sent on this link before one on the other arrives after it.
    Reorder(u64),
}

impl LinkFault {
    /// Every fault with the arguments its cases use. A fault on one frame or from one time
    /// is put at several positions over the run: early (the join's answers, encrypted frame
    /// 3, or 100 ms after the link opened), in the join's burst (frame 8), and after the
    /// join (frame 20, or 5 s). A fault that makes the host close member 1's link (a cut, a
    /// bit flipped on the way to the host) comes only after member 2 has joined (frames 8
    /// and later): one before would end member 1's session before member 2's join names
    /// it, and a join naming no session is dropped unanswered (AH "A destination load"), so
    /// member 2 would wait out the link timeout through no fault of the host.
    pub const CASES: [LinkFault; 18] = [
        LinkFault::Split,
        LinkFault::Delay(300),
        LinkFault::Stall(100),
        LinkFault::Stall(5_000),
        LinkFault::Cut(12),
        LinkFault::Cut(20),
        LinkFault::Flip(Direction::ToClient, 3),
        LinkFault::Flip(Direction::ToClient, 8),
        LinkFault::Flip(Direction::ToClient, 20),
        LinkFault::Flip(Direction::ToHost, 8),
        LinkFault::Flip(Direction::ToHost, 20),
        LinkFault::Replay(Direction::ToClient, 3),
        LinkFault::Replay(Direction::ToClient, 8),
        LinkFault::Replay(Direction::ToClient, 20),
        LinkFault::Replay(Direction::ToHost, 3),
        LinkFault::Replay(Direction::ToHost, 8),
        LinkFault::Replay(Direction::ToHost, 20),
        LinkFault::Reorder(150),
    ];

    /// How long a run under the fault lasts: a stall's past the link timeout after it
    /// began, the others' past member 2's refresh and the frame the fault is on.
    pub fn run_ms(self) -> u64 {
        match self {
            LinkFault::Stall(from) => from + STALL_MS + 3_500,
            _ => 12_000,
        }
    }

    /// The link of member 1 the fault is on: its activity link, or its lobby link for
    /// [`LinkFault::Reorder`], so its two links' frames cross.
    pub fn link(self) -> LinkKind {
        match self {
            LinkFault::Reorder(_) => LinkKind::Primary,
            _ => LinkKind::Activity,
        }
    }

    /// The fault's name, as `vex proxy --fault` takes it and the case ids use it.
    pub fn name(self) -> String {
        let dir = |d: Direction| match d {
            Direction::ToHost => "to-host",
            Direction::ToClient => "to-client",
        };
        match self {
            LinkFault::Split => "split".into(),
            LinkFault::Delay(ms) => format!("delay={ms}"),
            LinkFault::Stall(ms) => format!("stall={ms}"),
            LinkFault::Cut(n) => format!("cut={n}"),
            LinkFault::Flip(d, n) => format!("flip-{}={n}", dir(d)),
            LinkFault::Replay(d, n) => format!("replay-{}={n}", dir(d)),
            LinkFault::Reorder(ms) => format!("reorder={ms}"),
        }
    }
}

impl fmt::Display for LinkFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for LinkFault {
    type Err = String;

    /// `split`, `delay=MS`, `stall=MS`, `cut=FRAMES`, `flip-to-host=N`, `flip-to-client=N`,
    /// `replay-to-host=N`, `replay-to-client=N`, `reorder=MS`.
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "split" {
            return Ok(LinkFault::Split);
        }
        let (name, n) = s
            .split_once('=')
            .ok_or_else(|| format!("{s:?}: a fault is split or NAME=NUMBER"))?;
        let n: u64 = n
            .parse()
            .map_err(|_| format!("{s:?}: {n:?} is not a number"))?;
        let count = || u32::try_from(n).map_err(|_| format!("{s:?}: {n} is too large"));
        Ok(match name {
            "delay" => LinkFault::Delay(n),
            "stall" => LinkFault::Stall(n),
            "cut" => LinkFault::Cut(count()?),
            "flip-to-host" => LinkFault::Flip(Direction::ToHost, count()?),
            "flip-to-client" => LinkFault::Flip(Direction::ToClient, count()?),
            "replay-to-host" => LinkFault::Replay(Direction::ToHost, count()?),
            "replay-to-client" => LinkFault::Replay(Direction::ToClient, count()?),
            "reorder" => LinkFault::Reorder(n),
            _ => return Err(format!("{name:?} is not a link fault")),
        })
    }
}

/// What reaches the other side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Passed {
    /// These bytes, this many milliseconds after they came.
    Bytes {
        /// The delay.
        after_ms: u64,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// These bytes, then the link is cut both ways.
    CutAfter(Vec<u8>),
}

/// One link's fault, both directions.
#[derive(Debug)]
pub struct FaultyLink {
    fault: LinkFault,
    /// When the link opened.
    opened_ms: u64,
    to_host: Stream,
    to_client: Stream,
    cut: bool,
    /// The fault has changed what passed: its frame came, or its time.
    fired: bool,
}

#[derive(Debug)]
struct Stream {
    deframer: Deframer,
    /// The stream could not be framed: the rest passes as it comes.
    broken: bool,
    /// Whole frames seen.
    frames: u32,
    /// Encrypted frames seen.
    encrypted: u32,
}

impl Default for Stream {
    fn default() -> Self {
        Self {
            deframer: Deframer::new(MAX_FRAME),
            broken: false,
            frames: 0,
            encrypted: 0,
        }
    }
}

impl FaultyLink {
    /// `fault` on a link opened at `opened_ms`.
    pub fn new(fault: LinkFault, opened_ms: u64) -> Self {
        Self {
            fault,
            opened_ms,
            to_host: Stream::default(),
            to_client: Stream::default(),
            cut: false,
            fired: false,
        }
    }

    /// The fault.
    pub fn fault(&self) -> LinkFault {
        self.fault
    }

    /// Whether the fault has changed anything yet: a run whose fault never fired proves
    /// nothing of the host.
    pub fn fired(&self) -> bool {
        self.fired
    }

    /// `bytes` came at `now_ms` going `dir`: what passes. Bytes that do not make a whole
    /// frame yet wait for the rest; a stream that cannot be framed passes as it is, for
    /// the receiver to refuse. Nothing passes once the link is cut.
    pub fn pass(&mut self, now_ms: u64, dir: Direction, bytes: &[u8]) -> Vec<Passed> {
        if self.cut {
            return Vec::new();
        }
        let fault = self.fault;
        let stalled_until = match fault {
            LinkFault::Stall(at) if dir == Direction::ToClient => {
                let from = self.opened_ms + at;
                (now_ms >= from).then_some(from + STALL_MS)
            }
            _ => None,
        };
        let stream = match dir {
            Direction::ToHost => &mut self.to_host,
            Direction::ToClient => &mut self.to_client,
        };
        if stream.broken {
            let bytes = bytes.to_vec();
            return vec![Passed::Bytes { after_ms: 0, bytes }];
        }
        stream.deframer.push(bytes);
        let mut out = Vec::new();
        loop {
            let frame = match stream.deframer.next_frame() {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(_) => {
                    // the receiver refuses the stream at this header, as it would unfaulted
                    stream.broken = true;
                    let bytes = stream
                        .deframer
                        .rejected_header()
                        .unwrap_or_default()
                        .to_vec();
                    out.push(Passed::Bytes { after_ms: 0, bytes });
                    break;
                }
            };
            stream.frames += 1;
            let encrypted = frame.frame_type == FrameType::Encrypted;
            stream.encrypted += u32::from(encrypted);
            let mut whole = vex_wire::bap::header::outer_frame(frame.frame_type, &frame.payload);
            let nth_encrypted =
                |d: Direction, n: u32| d == dir && encrypted && stream.encrypted == n;
            self.fired |= match fault {
                LinkFault::Split | LinkFault::Delay(_) | LinkFault::Reorder(_) => true,
                LinkFault::Stall(_) => stalled_until.is_some(),
                LinkFault::Cut(n) => dir == Direction::ToClient && stream.frames > n,
                LinkFault::Flip(d, n) | LinkFault::Replay(d, n) => nth_encrypted(d, n),
            };
            match fault {
                LinkFault::Split => out.extend(whole.into_iter().map(|b| Passed::Bytes {
                    after_ms: 0,
                    bytes: vec![b],
                })),
                LinkFault::Delay(ms) | LinkFault::Reorder(ms) => out.push(Passed::Bytes {
                    after_ms: ms,
                    bytes: whole,
                }),
                LinkFault::Stall(_) => out.push(Passed::Bytes {
                    after_ms: stalled_until.map_or(0, |until| until.saturating_sub(now_ms)),
                    bytes: whole,
                }),
                LinkFault::Cut(n) if dir == Direction::ToClient && stream.frames > n => {
                    whole.truncate(OUTER_HEADER_LEN + frame.payload.len() / 2);
                    out.push(Passed::CutAfter(whole));
                    self.cut = true;
                    break;
                }
                LinkFault::Flip(d, n) if nth_encrypted(d, n) => {
                    // the last byte: ciphertext under any tag
                    if let Some(last) = whole.last_mut() {
                        *last ^= 0x01;
                    }
                    out.push(Passed::Bytes {
                        after_ms: 0,
                        bytes: whole,
                    });
                }
                LinkFault::Replay(d, n) if nth_encrypted(d, n) => {
                    out.push(Passed::Bytes {
                        after_ms: 0,
                        bytes: whole.clone(),
                    });
                    out.push(Passed::Bytes {
                        after_ms: 0,
                        bytes: whole,
                    });
                }
                _ => out.push(Passed::Bytes {
                    after_ms: 0,
                    bytes: whole,
                }),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::bap::header::outer_frame;

    fn frames(types: &[FrameType]) -> Vec<Vec<u8>> {
        types
            .iter()
            .enumerate()
            .map(|(i, t)| outer_frame(*t, &[i as u8; 20]))
            .collect()
    }

    fn bytes_of(passed: &[Passed]) -> Vec<u8> {
        passed
            .iter()
            .flat_map(|p| match p {
                Passed::Bytes { bytes, .. } | Passed::CutAfter(bytes) => bytes.clone(),
            })
            .collect()
    }

    #[test]
    fn split_passes_every_byte_alone_and_whatever_the_reads() {
        let stream: Vec<u8> = frames(&[FrameType::Plain, FrameType::Encrypted]).concat();
        let mut link = FaultyLink::new(LinkFault::Split, 0);
        let (head, tail) = stream.split_at(9);
        let mut passed = link.pass(0, Direction::ToHost, head);
        passed.extend(link.pass(0, Direction::ToHost, tail));
        assert_eq!(passed.len(), stream.len());
        assert_eq!(bytes_of(&passed), stream);
    }

    #[test]
    fn a_cut_passes_the_frames_before_it_and_half_of_the_next() {
        let f = frames(&[FrameType::Plain; 4]);
        let mut link = FaultyLink::new(LinkFault::Cut(2), 0);
        let passed = link.pass(0, Direction::ToClient, &f.concat());
        let Some(Passed::CutAfter(half)) = passed.last() else {
            panic!("{passed:?}");
        };
        assert_eq!(half.len(), OUTER_HEADER_LEN + 10);
        assert_eq!(bytes_of(&passed[..2]), f[..2].concat());
        assert!(
            link.pass(0, Direction::ToHost, &f[3]).is_empty(),
            "cut both ways"
        );
        let mut to_host = FaultyLink::new(LinkFault::Cut(0), 0);
        assert_eq!(
            bytes_of(&to_host.pass(0, Direction::ToHost, &f[0])),
            f[0],
            "only the host's frames are cut"
        );
    }

    #[test]
    fn flip_and_replay_touch_only_the_nth_encrypted_frame_going_their_way() {
        use FrameType::{Encrypted, Plain};
        let f = frames(&[Plain, Encrypted, Plain, Encrypted, Encrypted]);
        let mut flip = FaultyLink::new(LinkFault::Flip(Direction::ToClient, 2), 0);
        assert_eq!(
            bytes_of(&flip.pass(0, Direction::ToHost, &f.concat())),
            f.concat()
        );
        assert!(!flip.fired(), "not the way it goes");
        assert!(flip.pass(0, Direction::ToClient, &f[..2].concat()).len() == 2);
        assert!(!flip.fired(), "one encrypted frame of two");
        let mut flip = FaultyLink::new(LinkFault::Flip(Direction::ToClient, 2), 0);
        let got = bytes_of(&flip.pass(0, Direction::ToClient, &f.concat()));
        assert!(flip.fired());
        let mut want = f.clone();
        if let Some(b) = want[3].last_mut() {
            *b ^= 1;
        }
        assert_eq!(got, want.concat());
        let mut replay = FaultyLink::new(LinkFault::Replay(Direction::ToHost, 1), 0);
        let got = bytes_of(&replay.pass(0, Direction::ToHost, &f.concat()));
        assert_eq!(got, [&f[..2], &f[1..]].concat().concat());
    }

    #[test]
    fn a_stall_holds_the_hosts_frames_until_past_the_silence_window() {
        let f = outer_frame(FrameType::Plain, &[0; 4]);
        let mut link = FaultyLink::new(LinkFault::Stall(5_000), 1_000);
        let at = |p: Vec<Passed>| match p.as_slice() {
            [Passed::Bytes { after_ms, .. }] => *after_ms,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            at(link.pass(5_999, Direction::ToClient, &f)),
            0,
            "before the stall"
        );
        assert!(!link.fired());
        assert_eq!(at(link.pass(6_000, Direction::ToClient, &f)), STALL_MS);
        assert!(link.fired());
        assert_eq!(
            at(link.pass(6_000, Direction::ToHost, &f)),
            0,
            "the client's pass"
        );
        assert_eq!(at(link.pass(6_000 + STALL_MS, Direction::ToClient, &f)), 0);
    }

    #[test]
    fn a_stream_that_cannot_be_framed_passes_for_the_receiver_to_refuse() {
        let mut link = FaultyLink::new(LinkFault::Split, 0);
        let bad = [9u8, 0, 0, 0, 0, 1, 7];
        assert_eq!(bytes_of(&link.pass(0, Direction::ToHost, &bad)), bad[..6]);
        assert_eq!(bytes_of(&link.pass(0, Direction::ToHost, &[1, 2])), [1, 2]);
    }
}
