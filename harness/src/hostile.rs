//! Hostile input against the host, in-process on the virtual clock (issue "Under load and
//! faults": hostile input). Each attack is a list of [`HostAction`]s on links no emulated
//! client owns, run beside a member that must notice nothing; [`Hostile::judge`] says
//! whether the host bounded the attack: every hostile link closed with the limit the
//! attack goes over, or answered at a bounded cost, and none left open past its bound.

use crate::in_process::{HostAction, HostRun};
use std::net::SocketAddrV4;
use vex_host::limits::Limit;
use vex_host::peer::responder::PeerDrop;
use vex_host::reason::Closed;
use vex_host::{HostCore, HostEvent, LinkId};
use vex_wire::bap::header::{FrameType, InnerHeader, plain_frame};
use vex_wire::bap::services::HELLO;
use vex_wire::peer::association::{
    AssocCookieEcho, AssocDataHead, AssocHeader, AssocInit, AssocInitAck, DATA,
};
use vex_wire::time::Instant;
use zerocopy::IntoBytes;

/// The first link id an attack uses: far above any member's (`in_process`'s 2i + 1, 2i + 2).
const FIRST_HOSTILE_LINK: u64 = 1_000_000;
/// When the attack starts: the member is in its activity by then.
pub(crate) const ATTACK_AT_MS: u64 = 2_000;
/// The header of a frame announcing 4 GiB - 1 bytes (NS "The frame": `length` is a u32).
pub(crate) const HUGE_FRAME_HEADER: [u8; 6] = [1, 0, 0xFF, 0xFF, 0xFF, 0xFF];

/// One kind of hostile input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hostile {
    /// A frame header announcing 4 GiB - 1 bytes: refused from the header, nothing
    /// buffered (NS "The frame": `length` is a u32).
    HugeFrame,
    /// A hello, then one byte a second of a second hello: closed when that frame is not
    /// whole within the limit.
    SlowSender,
    /// This many connections that never send a byte: each closed at the hello limit.
    HalfOpen(u32),
    /// A link that sends a hello every second and nothing else: each answered (a hello is
    /// cheap and bounded), the link open, the member untouched.
    HelloOnly,
    /// A link that sends hellos as fast as it can: closed at the rate limit.
    HelloFlood,
    /// This many association inits from as many spoofed addresses: each answered with its
    /// init ack, none holding anything (the cookie is stateless), the member's own
    /// association opened after them.
    InitFlood(u32),
    /// This many cookie echoes from spoofed addresses with cookies the host did not make:
    /// each dropped, none opening an association (PEER-09).
    ForgedEchoes(u32),
    /// This many records from spoofed addresses to tags: each dropped, no association of
    /// theirs, the member's untouched.
    RecordSpray(u32),
}

impl Hostile {
    /// Every attack, with its case name.
    pub const ALL: [(Hostile, &'static str); 8] = [
        (Hostile::HugeFrame, "huge-frame"),
        (Hostile::SlowSender, "slow-sender"),
        (Hostile::HalfOpen(2000), "half-open"),
        (Hostile::HelloOnly, "hello-only"),
        (Hostile::HelloFlood, "hello-flood"),
        (Hostile::InitFlood(UDP_ATTACKS), "udp-init-flood"),
        (Hostile::ForgedEchoes(UDP_ATTACKS), "udp-forged-echoes"),
        (Hostile::RecordSpray(UDP_ATTACKS), "udp-record-spray"),
    ];

    /// True for an attack on the UDP port: its member opens an association of its own.
    pub fn on_udp(self) -> bool {
        matches!(
            self,
            Hostile::InitFlood(_) | Hostile::ForgedEchoes(_) | Hostile::RecordSpray(_)
        )
    }

    /// What the attack does, in a few words.
    pub fn what(self) -> &'static str {
        match self {
            Hostile::HugeFrame => "a frame header announcing 4 GiB",
            Hostile::SlowSender => "a sender of one byte a second",
            Hostile::HalfOpen(_) => "2,000 connections that never send a byte",
            Hostile::HelloOnly => "a link that sends only hellos, one a second",
            Hostile::HelloFlood => "a link that floods hellos",
            Hostile::InitFlood(_) => "10,000 association inits from spoofed addresses",
            Hostile::ForgedEchoes(_) => "10,000 cookie echoes with forged cookies",
            Hostile::RecordSpray(_) => "10,000 records from spoofed addresses to guessed tags",
        }
    }

    /// How long the attack's case runs: past the hello and slow-frame bounds of 10 s with
    /// room for a host whose bound is twice as long, for the attacks those bounds answer;
    /// past the member's association at 3 s and the attack's answers for the others.
    pub fn run_ms(self) -> u64 {
        match self {
            Hostile::SlowSender | Hostile::HalfOpen(_) => 25_000,
            _ => 8_000,
        }
    }

    /// The attack's case name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(h, _)| *h == self)
            .map_or("hostile", |(_, n)| n)
    }

    /// The host actions that make the attack, for a run of `run_for_ms`.
    pub fn actions(self, run_for_ms: u64) -> Vec<HostAction> {
        let first = LinkId(FIRST_HOSTILE_LINK);
        match self {
            Hostile::HugeFrame => vec![at(ATTACK_AT_MS, move |now, host| {
                host.handle_connect(now, first);
                host.handle_bytes(now, first, &HUGE_FRAME_HEADER);
            })],
            Hostile::SlowSender => {
                let frame = hello_frame(1);
                let mut actions = vec![at(ATTACK_AT_MS, move |now, host| {
                    host.handle_connect(now, first);
                    host.handle_bytes(now, first, &hello_frame(0));
                })];
                let seconds = (run_for_ms - ATTACK_AT_MS) / 1000;
                for (i, byte) in frame.into_iter().enumerate().take(seconds as usize) {
                    let when = ATTACK_AT_MS + 1 + 1000 * i as u64;
                    actions.push(at(when, move |now, host| {
                        host.handle_bytes(now, first, &[byte]);
                    }));
                }
                actions
            }
            Hostile::HalfOpen(n) => vec![at(ATTACK_AT_MS, move |now, host| {
                for i in 0..u64::from(n) {
                    host.handle_connect(now, LinkId(FIRST_HOSTILE_LINK + i));
                }
            })],
            Hostile::HelloOnly => {
                let mut actions = vec![at(ATTACK_AT_MS, move |now, host| {
                    host.handle_connect(now, first);
                })];
                for (i, when) in (ATTACK_AT_MS + 1..run_for_ms).step_by(1000).enumerate() {
                    let frame = hello_frame(i as u32);
                    actions.push(at(when, move |now, host| {
                        host.handle_bytes(now, first, &frame);
                    }));
                }
                actions
            }
            Hostile::HelloFlood => vec![at(ATTACK_AT_MS, move |now, host| {
                host.handle_connect(now, first);
                let flood: Vec<u8> = (0..5000).flat_map(hello_frame).collect();
                host.handle_bytes(now, first, &flood);
            })],
            Hostile::InitFlood(n) | Hostile::ForgedEchoes(n) | Hostile::RecordSpray(n) => {
                udp(n, move |i| self.datagram(i))
            }
        }
    }

    /// The `i`th datagram of an attack on the UDP port: an init, a cookie echo with a
    /// cookie the host never made, or a record to a guessed tag; empty for the others.
    pub(crate) fn datagram(self, i: u32) -> Vec<u8> {
        match self {
            Hostile::InitFlood(_) => AssocInit::new(i as u16 | 1, [i as u8; 8])
                .as_bytes()
                .to_vec(),
            Hostile::ForgedEchoes(_) => {
                let init = AssocInit::new(i as u16 | 1, [i as u8; 8]);
                let ack = AssocInitAck::answering(&init, i, [i as u8; 16], i as u16 | 1, [0; 6]);
                AssocCookieEcho::answering(&ack, [0; 41], [0; 100])
                    .as_bytes()
                    .to_vec()
            }
            Hostile::RecordSpray(_) => {
                let head = AssocDataHead {
                    header: AssocHeader::handshake(DATA, i as u16),
                    mac: [0; 8],
                    plain_len: 16.into(),
                };
                [head.as_bytes(), &[0; 16]].concat()
            }
            _ => Vec::new(),
        }
    }

    /// Whether the host bounded the attack in `run`: `Err` says how it did not.
    pub fn judge(self, run: &HostRun) -> Result<(), String> {
        let hostile = |l: &LinkId| l.0 >= FIRST_HOSTILE_LINK;
        let closes: Vec<(u64, &Closed)> = run
            .events
            .iter()
            .filter_map(|(at, e)| match e {
                HostEvent::Close { link, reason } if hostile(link) => Some((at.millis(), reason)),
                _ => None,
            })
            .collect();
        let limits = run.host.config().limits;
        let expected = match self {
            Hostile::HugeFrame => (1, "a frame over the limit (framing: too long)"),
            Hostile::SlowSender => (1, "the slow-frame limit"),
            Hostile::HalfOpen(n) => (n as usize, "the hello limit"),
            Hostile::HelloOnly
            | Hostile::InitFlood(_)
            | Hostile::ForgedEchoes(_)
            | Hostile::RecordSpray(_) => (0, "no close"),
            Hostile::HelloFlood => (1, "the rate limit"),
        };
        let right = |r: &Closed| {
            matches!(
                (self, r),
                (Hostile::HugeFrame, Closed::Framing(_))
                    | (Hostile::SlowSender, Closed::Limit(Limit::SlowFrame { .. }))
                    | (Hostile::HalfOpen(_), Closed::Limit(Limit::Hello(_)))
                    | (Hostile::HelloFlood, Closed::Limit(Limit::Rate(_)))
            )
        };
        let due = match self {
            Hostile::SlowSender => ATTACK_AT_MS + 1 + limits.frame_within_ms,
            Hostile::HalfOpen(_) => ATTACK_AT_MS + limits.hello_within_ms,
            _ => ATTACK_AT_MS,
        };
        if closes.len() != expected.0 || closes.iter().any(|(_, r)| !right(r)) {
            let got: Vec<String> = closes
                .iter()
                .map(|(t, r)| format!("{r} at {t} ms"))
                .collect();
            return Err(format!(
                "expected {} hostile link(s) closed for {}, got {}: {}",
                expected.0,
                expected.1,
                closes.len(),
                got.first().map_or("none", String::as_str)
            ));
        }
        if let Some((t, r)) = closes.iter().find(|(t, _)| *t > due) {
            return Err(format!(
                "closed at {t} ms, after its bound of {due} ms: {r}"
            ));
        }
        let open = run.host.link_ids().filter(hostile).count();
        let still_open = if self == Hostile::HelloOnly { 1 } else { 0 };
        if open != still_open {
            return Err(format!("{open} hostile link(s) still held at the end"));
        }
        if self.on_udp() {
            return self.judge_udp(run);
        }
        Ok(())
    }
}

impl Hostile {
    /// An attack on the UDP port: no spoofed address opened an association, the member
    /// opened its own after the attack and it is the one held at the end, and every forged
    /// echo and sprayed record was dropped with its reason.
    fn judge_udp(self, run: &HostRun) -> Result<(), String> {
        let spoofed = |from: &SocketAddrV4| from.ip().octets()[..2] == SPOOFED_NET[..];
        let opened = run
            .events
            .iter()
            .filter(|(_, e)| matches!(e, HostEvent::Associated { from, .. } if spoofed(from)))
            .count();
        if opened > 0 {
            return Err(format!(
                "{opened} spoofed address(es) opened an association"
            ));
        }
        let held = run.host.associations();
        if held > 1 {
            return Err(format!(
                "{held} associations held at the end; the member's is one"
            ));
        }
        let dropped = |want: fn(&PeerDrop) -> bool| {
            run.events
                .iter()
                .filter(|(_, e)| matches!(e, HostEvent::PeerDropped { from, reason } if spoofed(from) && want(reason)))
                .count()
        };
        let (count, what) = match self {
            Hostile::ForgedEchoes(n) => (n, dropped(|r| *r == PeerDrop::ForeignCookie)),
            Hostile::RecordSpray(n) => {
                (n, dropped(|r| matches!(r, PeerDrop::NoAssociation { .. })))
            }
            _ => return Ok(()),
        };
        if what != count as usize {
            return Err(format!(
                "{what} of the {count} datagrams dropped with their reason"
            ));
        }
        Ok(())
    }
}

/// The network the spoofed addresses come from (RFC 2544's benchmarking range).
const SPOOFED_NET: [u8; 2] = [198, 18];
/// Datagrams each UDP attack sends.
const UDP_ATTACKS: u32 = 10_000;

/// `n` datagrams `make(i)` from as many spoofed addresses, at the attack's time.
fn udp(n: u32, make: impl Fn(u32) -> Vec<u8> + 'static) -> Vec<HostAction> {
    vec![at(ATTACK_AT_MS, move |now, host| {
        for i in 0..n {
            let [_, _, c, d] = i.to_be_bytes();
            let from = SocketAddrV4::new([SPOOFED_NET[0], SPOOFED_NET[1], c, d].into(), 3074);
            host.handle_datagram(now, from, &make(i));
            while host.poll_datagram().is_some() {}
        }
    })]
}

/// A plaintext hello (service 25) with task `task`, as a client's bootstrap frame.
pub(crate) fn hello_frame(task: u32) -> Vec<u8> {
    plain_frame(
        FrameType::Bootstrap,
        InnerHeader::request(HELLO, task),
        &[0; 58],
    )
}

fn at(at_ms: u64, act: impl FnOnce(Instant, &mut HostCore) + 'static) -> HostAction {
    HostAction {
        at_ms,
        act: Box::new(act),
    }
}
