//! One side of a reliable peer connection (NS "The peer message channel"; PEER-01,
//! PEER-14), sans IO, time passed in: session messages go as fragments in queue A of
//! established datagrams, each packet numbered (10 bits) and acknowledged by the other
//! side's ACK handler, and a fragment is sent again every 250 ms until an ACK covers a
//! packet it went in.
//!
//! The pages give the order of an established datagram and the 128-ahead rule; the
//! numbers are Sunrise's (facts, not pages: `sv/gameplay/peer/peer_transport`): the first
//! packet and the first message are each sequence 1, the window starts at the sequence a
//! connect message announced (its low 10 bits clear), the resend pacing is 250 ms, the
//! whole outbound queue of at most 24 fragments goes in one packet, and head − cursor is
//! always 1.

use super::chain::{self, ChainError};
use super::established::{
    Ack, AckStatus, EstablishedError, EstablishedPacket, Fragment, NOT_MEASURED,
    PACKET_SEQUENCE_MOD, Queue, Reassembly, Receipt, SEQUENCE_MOD, fragment,
};
use super::message::{BodyError, PeerMessage};
use crate::bits::{BitWriter, Bits};
use crate::time::Instant;
use std::collections::VecDeque;
use thiserror::Error;

/// A fragment not yet acknowledged is sent again this often (facts).
pub const RESEND_MS: u64 = 250;
/// How far ahead of the window a packet may be: past it, the receiver reads the packet
/// as a whole ring behind and the connection never recovers (NS; PEER-01).
pub const AHEAD_LIMIT: u16 = 128;
/// The fragments one packet carries (facts: the outbound queue holds 24).
pub const PACKET_FRAGMENTS: usize = 24;
/// The fragments waiting for an ACK a connection holds; a send past it is refused.
pub const MAX_PENDING: usize = 1024;
/// The first packet sequence and the first message sequence (facts).
pub const FIRST_SEQUENCE: u16 = 1;
/// The packets a fragment remembers going in, the newest kept.
const SENT_IN_KEPT: usize = 8;

/// Why a packet or a send was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReliableError {
    /// A packet whose guard is not the other side's channel id mod 4.
    #[error("an established datagram's guard is {got}, not the other side's {want}")]
    Guard {
        /// The other side's channel id mod 4.
        want: u8,
        /// The guard given.
        got: u8,
    },
    /// A packet more than 128 ahead of the window (PEER-01).
    #[error(
        "packet {head} is {ahead} ahead of the window at {newest}; past 128 it reads as a whole ring behind"
    )]
    Ahead {
        /// The packet's sequence.
        head: u16,
        /// The newest packet received.
        newest: u16,
        /// How far ahead.
        ahead: u16,
    },
    /// The datagram or a fragment is not one.
    #[error(transparent)]
    Established(#[from] EstablishedError),
    /// A message that could not be written.
    #[error(transparent)]
    Body(#[from] BodyError),
    /// More fragments waiting for an ACK than [`MAX_PENDING`].
    #[error("{0} fragments wait for an ACK already")]
    Full(usize),
}

/// A message reassembled: read with its declared size, or why it is not one.
pub type Delivered = Result<(PeerMessage, u32), ChainError>;

#[derive(Debug, Clone)]
struct Pending {
    fragment: Fragment,
    sent_in: Vec<u8>,
    sent_at: Option<Instant>,
}

/// One side of a connection.
#[derive(Debug, Clone)]
pub struct Connection {
    guard: u8,
    remote_guard: u8,
    next_packet: u16,
    newest: u16,
    received_any: bool,
    /// Bit i: packet newest − (i + 1) arrived.
    history: u128,
    next_message: u16,
    pending: VecDeque<Pending>,
    inbound: Reassembly,
    ack_owed: bool,
}

impl Connection {
    /// A connection whose own channel id is `channel`, the other side's `remote_channel`,
    /// which announced `remote_sequence`, the sequence before its first packet.
    pub fn new(channel: u32, remote_channel: u32, remote_sequence: u32) -> Self {
        Self {
            guard: (channel % 4) as u8,
            remote_guard: (remote_channel % 4) as u8,
            next_packet: FIRST_SEQUENCE,
            newest: (remote_sequence % u32::from(PACKET_SEQUENCE_MOD)) as u16,
            received_any: false,
            history: 0,
            next_message: FIRST_SEQUENCE,
            pending: VecDeque::new(),
            inbound: Reassembly::new(FIRST_SEQUENCE),
            ack_owed: false,
        }
    }

    /// Queues `message` with `size` as its declared struct size.
    pub fn send(&mut self, message: &PeerMessage, size: u32) -> Result<(), ReliableError> {
        let mut bytes = Vec::new();
        let mut w = BitWriter::appending(&mut bytes);
        chain::write_message(&mut w, message, size)?;
        let bit_len = w.finish().map_err(BodyError::from)?;
        let bits = Bits { bytes, bit_len };
        let fragments = fragment(&bits, Queue::A, self.next_message);
        if self.pending.len() + fragments.len() > MAX_PENDING {
            return Err(ReliableError::Full(self.pending.len()));
        }
        self.next_message = (self.next_message + fragments.len() as u16) % SEQUENCE_MOD;
        self.pending
            .extend(fragments.into_iter().map(|fragment| Pending {
                fragment,
                sent_in: Vec::new(),
                sent_at: None,
            }));
        Ok(())
    }

    /// Whether fragments wait for an ACK.
    pub fn unacknowledged(&self) -> usize {
        self.pending.len()
    }

    /// When [`Connection::poll`] next has a packet: at once (time zero) for an ACK owed
    /// or a fragment never sent, else 250 ms after the oldest send.
    pub fn next_due(&self) -> Option<Instant> {
        let resend = |p: &Pending| p.sent_at.map_or(0, |at| at.millis() + RESEND_MS);
        let first = self.pending.iter().map(resend).min();
        let owed = self.ack_owed.then_some(0);
        first
            .into_iter()
            .chain(owed)
            .min()
            .map(Instant::from_millis)
    }

    /// The packet to send at `now`, if one is due: the fragments never sent or last sent
    /// 250 ms ago or more, or an ACK owed for fragments received.
    pub fn poll(&mut self, now: Instant) -> Option<EstablishedPacket> {
        let due = |p: &Pending| {
            p.sent_at
                .is_none_or(|at| now.millis().saturating_sub(at.millis()) >= RESEND_MS)
        };
        let packet = self.next_packet;
        let queue_a: Vec<Fragment> = self
            .pending
            .iter_mut()
            .filter(|p| due(p))
            .take(PACKET_FRAGMENTS)
            .map(|p| {
                p.sent_at = Some(now);
                p.sent_in.push((packet % 128) as u8);
                if p.sent_in.len() > SENT_IN_KEPT {
                    p.sent_in.remove(0);
                }
                p.fragment.clone()
            })
            .collect();
        let ack_owed = std::mem::take(&mut self.ack_owed);
        if queue_a.is_empty() && !ack_owed {
            return None;
        }
        self.next_packet = (packet + 1) % PACKET_SEQUENCE_MOD;
        Some(EstablishedPacket {
            fragmented: false,
            guard: self.guard,
            ack: self.ack(packet),
            queue_a,
            queue_b: Vec::new(),
        })
    }

    fn ack(&self, packet: u16) -> Ack {
        let status = if self.received_any {
            let statuses = std::array::from_fn(|i| match self.history >> i & 1 {
                1 => Receipt::Received,
                _ => Receipt::Missing,
            });
            AckStatus::Explicit {
                statuses,
                delay: NOT_MEASURED,
            }
        } else {
            AckStatus::Uninitialised
        };
        Ack {
            head: Some((packet, 1)),
            base: (self.newest % 128) as u8,
            status,
        }
    }

    /// Takes `packet` from the other side: its ACK retires what it covers, its fragments
    /// go to reassembly, and the messages they complete come back in order, each read or
    /// with why not.
    pub fn receive(&mut self, packet: &EstablishedPacket) -> Result<Vec<Delivered>, ReliableError> {
        if packet.guard != self.remote_guard {
            return Err(ReliableError::Guard {
                want: self.remote_guard,
                got: packet.guard,
            });
        }
        if let Some((head, _)) = packet.ack.head {
            self.admit(head)?;
        }
        self.pending
            .retain(|p| !p.sent_in.iter().any(|&sent| packet.ack.covers(sent)));
        let mut messages = Vec::new();
        for f in &packet.queue_a {
            self.ack_owed = true;
            self.inbound.accept(f.clone())?;
        }
        while let Some(bits) = self.inbound.pop_message()? {
            messages.push(chain::read_message(&mut bits.reader()));
        }
        Ok(messages)
    }

    /// Moves the window for packet `head`, or refuses one past 128 ahead (PEER-01).
    fn admit(&mut self, head: u16) -> Result<(), ReliableError> {
        let ahead = head.wrapping_sub(self.newest) % PACKET_SEQUENCE_MOD;
        let behind = self.newest.wrapping_sub(head) % PACKET_SEQUENCE_MOD;
        if ahead > AHEAD_LIMIT && ahead < PACKET_SEQUENCE_MOD / 2 {
            return Err(ReliableError::Ahead {
                head,
                newest: self.newest,
                ahead,
            });
        }
        if ahead > 0 && ahead <= AHEAD_LIMIT {
            let was = u128::from(self.received_any);
            self.history = self.history.checked_shl(ahead.into()).unwrap_or(0) | was << (ahead - 1);
            self.newest = head;
            self.received_any = true;
        } else if (1..=AHEAD_LIMIT).contains(&behind) {
            self.history |= 1 << (behind - 1);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn establish(remote: u32, channel: u32) -> PeerMessage {
        PeerMessage::ConnectEstablish {
            remote_channel: remote,
            channel,
        }
    }

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    /// Two sides: a message goes, is read, and the ACK retires it; nothing is due after.
    #[test]
    fn a_message_goes_and_is_acknowledged() {
        let mut host = Connection::new(2, 1, 0x400);
        let mut client = Connection::new(1, 2, 0xC00);
        host.send(&establish(1, 2), 8).unwrap();
        assert_eq!(host.next_due(), Some(at(0)));
        let packet = host.poll(at(0)).unwrap();
        assert_eq!(host.next_due(), Some(at(250)));
        assert_eq!(packet.guard, 2);
        assert_eq!(packet.ack.head, Some((1, 1)));
        assert_eq!(packet.ack.status, AckStatus::Uninitialised);
        let read = client.receive(&packet).unwrap();
        assert_eq!(read, [Ok((establish(1, 2), 8))]);
        let ack = client.poll(at(1)).unwrap();
        assert!(ack.queue_a.is_empty());
        assert_eq!(ack.ack.base, 1);
        host.receive(&ack).unwrap();
        assert_eq!(host.unacknowledged(), 0);
        assert_eq!(host.poll(at(1000)), None);
    }

    /// A lost packet's fragments go again 250 ms later, not 249, in a new packet.
    #[test]
    fn a_lost_packet_is_sent_again_after_250_ms() {
        let mut host = Connection::new(2, 1, 0);
        host.send(&establish(1, 2), 8).unwrap();
        let first = host.poll(at(0)).unwrap();
        assert_eq!(host.poll(at(249)), None);
        let again = host.poll(at(250)).unwrap();
        assert_eq!(again.queue_a, first.queue_a);
        assert_eq!(again.ack.head, Some((2, 1)));
        let mut client = Connection::new(1, 2, 0);
        assert_eq!(client.receive(&again).unwrap().len(), 1);
        host.receive(&client.poll(at(300)).unwrap()).unwrap();
        assert_eq!(host.unacknowledged(), 0);
    }

    /// Packets 128 ahead of the window are taken, 129 ahead refused (PEER-01); a guard
    /// that is not the other side's channel mod 4 is refused.
    #[test]
    fn the_window_and_the_guard() {
        let packet = |head: u16, guard: u8| EstablishedPacket {
            fragmented: false,
            guard,
            ack: Ack {
                head: Some((head, 1)),
                base: 0,
                status: AckStatus::Uninitialised,
            },
            queue_a: Vec::new(),
            queue_b: Vec::new(),
        };
        let mut c = Connection::new(1, 6, 0x400);
        assert!(c.receive(&packet(128, 2)).is_ok());
        assert_eq!(
            c.receive(&packet(128 + 129, 2)),
            Err(ReliableError::Ahead {
                head: 257,
                newest: 128,
                ahead: 129
            })
        );
        assert_eq!(
            c.receive(&packet(129, 3)),
            Err(ReliableError::Guard { want: 2, got: 3 })
        );
    }

    /// A message longer than one packet's 24 fragments goes over two packets and reads
    /// back whole.
    #[test]
    fn a_long_message_spans_packets() {
        let update = crate::peer::membership::MembershipUpdate {
            root: vec![0x5A; 800],
            ..Default::default()
        };
        let message = PeerMessage::MembershipUpdate(Box::new(update));
        let mut host = Connection::new(2, 1, 0);
        host.send(&message, 31_104).unwrap();
        let mut client = Connection::new(1, 2, 0);
        let first = client.receive(&host.poll(at(0)).unwrap()).unwrap();
        assert!(first.is_empty());
        host.receive(&client.poll(at(1)).unwrap()).unwrap();
        let second = client.receive(&host.poll(at(2)).unwrap()).unwrap();
        assert_eq!(second, [Ok((message, 31_104))]);
    }
}
