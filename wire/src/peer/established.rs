//! The established datagram of the engine peer transport: the reliable connection's packet,
//! whose first plaintext bit is 0 (the out-of-band container's is 1, [`super::chain`]).
//!
//! NS "The peer message channel" (PEER-14: session messages ride the reliable connection)
//! gives the order: the head, the ACK handler, queue A, queue B, the external handlers, a
//! trailer. The widths are facts, not pages: Sunrise, an older host
//! (`mw/gameplay/peer/established_packet.cpp`, `reliable_assembly.cpp`; facts section 3.4).
//! One bitstream, most significant bit first, zero-padded to a byte ([`crate::bits`]).
//!
//! A reliable message (id:6, struct_size:18, body) goes out as a run of fragments with
//! consecutive 13-bit message sequences in one queue, ending in a short fragment
//! ([`fragment`]); the receiver puts the runs back together ([`Reassembly`]).

use crate::bits::{BitError, BitReader, BitWriter, Bits, written_bits};
use thiserror::Error;

/// The bits of a full fragment: 32 bytes in queue A, 6 bytes in queue B (facts).
pub const FULL_FRAGMENT_BITS: [usize; 2] = [256, 48];
/// The width of a short fragment's length − 1: 8 bits in queue A, 6 in queue B (facts).
pub const SHORT_LENGTH_BITS: [u32; 2] = [8, 6];
/// The most records one queue carries in one datagram (facts: Sunrise refuses more).
pub const MAX_RECORDS: usize = 64;
/// Message sequences are 13 bits.
pub const SEQUENCE_MOD: u16 = 8192;
/// Packet sequences (the ACK handler's outbound head) are 10 bits.
pub const PACKET_SEQUENCE_MOD: u16 = 1024;
/// The ack base is 7 bits: the receiver's ring of 128 packets.
pub const ACK_MOD: u8 = 128;
/// The delay that says "not measured" (facts: Sunrise always sends it).
pub const NOT_MEASURED: u16 = 1023;
/// The most statuses the long-span form's 7-bit count holds.
pub const MAX_SPAN: usize = 127;
/// The longest filler, in bits (facts).
pub const MAX_FILLER_BITS: u16 = 9920;
/// Receive slots per queue: a fragment this far or further ahead is refused (facts).
pub const WINDOW: u16 = 32;
/// The reassembly cap in bits: 16 KiB. Sunrise caps at 1,024 bytes (facts,
/// `st/gameplay/definition.h`), its own limit and not the client's: a membership-update of
/// 32 members is several kilobytes, its nanopb region alone up to 8,191 bytes (NS), so
/// the cap here is twice that, and bounds what one message can hold of a receiver.
pub const MAX_MESSAGE_BITS: usize = 16 * 1024 * 8;

/// Why an established datagram or a reliable run could not be written or read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EstablishedError {
    /// The bits ran out, or a field did not fit its width.
    #[error(transparent)]
    Bits(#[from] BitError),
    /// The first bit is 1: an out-of-band container, not an established datagram.
    #[error("the marker bit is 1: an out-of-band container")]
    Marker,
    /// The fragmented bit is set. The real client splits a datagram over 1,228 bytes into
    /// up to 8 pieces, but the layout of the pieces is not known (Sunrise rejects them): Vex
    /// reads no fragmented datagram and writes none.
    #[error("a fragmented datagram: the layout of its pieces is not known")]
    Fragmented,
    /// A delta (`10`) or next (`11`) selector with no earlier record in the queue.
    #[error("selector {0:#04b} has no previous record in this queue")]
    NoPrevious(u8),
    /// More than 64 records in one queue.
    #[error("more than {MAX_RECORDS} records in one queue")]
    TooManyRecords,
    /// A message sequence past 13 bits.
    #[error("message sequence {0} is past 8191")]
    Sequence(u16),
    /// A fragment whose bit count its queue cannot carry: a full one is exactly the
    /// queue's size, a short one 1 to 2^L bits.
    #[error("queue {queue:?}: a fragment of {bits} bits (short: {short})")]
    FragmentLength {
        /// The queue.
        queue: Queue,
        /// The fragment's short flag.
        short: bool,
        /// Its bits.
        bits: usize,
    },
    /// A long span of more statuses than its 7-bit count holds.
    #[error("a long span of {0} statuses; the count holds at most 127")]
    Span(usize),
    /// A filler length outside 1 to 9920 bits.
    #[error("filler length {0} is outside 1..=9920 bits")]
    FillerLength(u16),
    /// An external handler body, which Vex does not read.
    #[error("an external handler body, which Vex does not read")]
    External,
    /// What follows the trailer is not at most 7 zero bits.
    #[error("{0} bits after the trailer are not at most 7 zero bits")]
    Trailing(usize),
    /// A fragment 32 or more sequences ahead of the next expected one: the sender must
    /// send it again later.
    #[error("fragment {sequence} is {WINDOW} or more ahead of {next}")]
    TooFarAhead {
        /// The fragment's sequence.
        sequence: u16,
        /// The next sequence expected.
        next: u16,
    },
    /// A reassembled message past [`MAX_MESSAGE_BITS`]: its fragments are dropped.
    #[error("a reassembled message passes 16 KiB")]
    TooLong,
}

/// One of the two reliable queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    /// The 32-byte-fragment queue, first on the wire (the one Sunrise uses).
    A,
    /// The 6-byte-fragment queue.
    B,
}

impl Queue {
    /// The bits of its full fragment.
    pub fn full_bits(self) -> usize {
        let [a, b] = FULL_FRAGMENT_BITS;
        match self {
            Self::A => a,
            Self::B => b,
        }
    }

    /// The width of its short-fragment length field.
    pub fn length_width(self) -> u32 {
        let [a, b] = SHORT_LENGTH_BITS;
        match self {
            Self::A => a,
            Self::B => b,
        }
    }

    /// Whether a fragment of `bits` bits with this short flag fits the queue.
    fn carries(self, short: bool, bits: usize) -> bool {
        if short {
            (1..=1usize << self.length_width()).contains(&bits)
        } else {
            bits == self.full_bits()
        }
    }
}

/// One packet's receipt in the ACK handler (facts: a variable-length code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Receipt {
    /// `0`: received.
    Received,
    /// `10`: not received.
    Missing,
    /// `11`: received out of order.
    OutOfOrder,
}

impl Receipt {
    /// True when the packet arrived, in order or not.
    pub fn received(self) -> bool {
        self != Self::Missing
    }

    fn write(self, w: &mut BitWriter) {
        match self {
            Self::Received => w.write(0, 1),
            Self::Missing => w.write(0b10, 2),
            Self::OutOfOrder => w.write(0b11, 2),
        }
    }

    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        if !r.read_bool()? {
            Ok(Self::Received)
        } else if r.read_bool()? {
            Ok(Self::OutOfOrder)
        } else {
            Ok(Self::Missing)
        }
    }
}

/// The ACK handler's status form (facts: a 2-bit prefix, `11` extended by one bit). Entry
/// `i` describes packet base − (i + 1); the base itself has none. `delay` is 10 bits, half
/// the measured delay, [`NOT_MEASURED`] when not measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AckStatus {
    /// `00`: the ring is empty; its state bit, then the delay.
    Empty {
        /// The ring-state bit (meaning not known).
        ring: bool,
        /// The delay.
        delay: u16,
    },
    /// `01`: one difference: entries 0..index are received, entry `index` is received
    /// only if `out_of_order` is set (then it arrived out of order).
    Single {
        /// The out-of-order bit.
        out_of_order: bool,
        /// The 3-bit index.
        index: u8,
        /// The delay.
        delay: u16,
    },
    /// `10`: entries 0 to 7, explicitly.
    Explicit {
        /// The entries.
        statuses: [Receipt; 8],
        /// The delay.
        delay: u16,
    },
    /// `11` then 0: a 7-bit count (the count itself, so at most 127), then that many
    /// entries.
    Span {
        /// The entries.
        statuses: Vec<Receipt>,
        /// The delay.
        delay: u16,
    },
    /// `11` then 1: nothing received yet; no statuses and no delay.
    Uninitialised,
}

impl AckStatus {
    /// How many entries the form reports.
    pub fn reported(&self) -> usize {
        match self {
            Self::Empty { .. } | Self::Uninitialised => 0,
            Self::Single { index, .. } => usize::from(*index) + 1,
            Self::Explicit { statuses, .. } => statuses.len(),
            Self::Span { statuses, .. } => statuses.len(),
        }
    }

    /// Entry `n`, where the form reports it.
    pub fn entry(&self, n: usize) -> Option<Receipt> {
        match self {
            Self::Empty { .. } | Self::Uninitialised => None,
            Self::Single {
                out_of_order,
                index,
                ..
            } => match n.cmp(&usize::from(*index)) {
                std::cmp::Ordering::Less => Some(Receipt::Received),
                std::cmp::Ordering::Equal if *out_of_order => Some(Receipt::OutOfOrder),
                std::cmp::Ordering::Equal => Some(Receipt::Missing),
                std::cmp::Ordering::Greater => None,
            },
            Self::Explicit { statuses, .. } => statuses.get(n).copied(),
            Self::Span { statuses, .. } => statuses.get(n).copied(),
        }
    }
}

/// The ACK handler (facts: `read_ack`, `write_head_and_ack`).
///
/// The 10-bit head and 7-bit head − cursor are on the wire whether or not the
/// outbound-head-present bit is set: Sunrise reads and writes all 17 bits unconditionally,
/// and the facts' table lists them without a condition. Vex's reading: `head` is `None`
/// when the bit is 0; the writer then sends zeros, and the reader drops the 17 bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ack {
    /// The sender's packet sequence (mod 1024) and head − cursor (7 bits; Sunrise always
    /// sends 1: "a zero collapses that window and the peer discards every packet").
    pub head: Option<(u16, u8)>,
    /// The newest packet received from the other side, mod 128.
    pub base: u8,
    /// The status form.
    pub status: AckStatus,
}

impl Ack {
    /// Whether this ACK covers the packet the reader sent with sequence `sent` (mod 128),
    /// as Sunrise's `acknowledgement_covers` decides: with d = (base − sent) mod 128, d ≥ 64
    /// is not yet received, d = 0 received, d up to the reported count is the entry d − 1's
    /// say, and anything older has left the window and counts as delivered. An
    /// uninitialised ring covers nothing (Sunrise). Every entry of a long span counts here;
    /// Sunrise keeps only the first 8 and counts the older ones delivered.
    pub fn covers(&self, sent: u8) -> bool {
        if self.status == AckStatus::Uninitialised {
            return false;
        }
        match usize::from(self.base.wrapping_sub(sent) % ACK_MOD) {
            0 => true,
            64.. => false,
            d => self.status.entry(d - 1).is_none_or(Receipt::received),
        }
    }

    fn write(&self, w: &mut BitWriter) -> Result<(), EstablishedError> {
        let (head, cursor) = self.head.unwrap_or_default();
        w.write_bool(self.head.is_some());
        w.write(head.into(), 10);
        w.write(cursor.into(), 7);
        w.write(self.base.into(), 7);
        let delay = match &self.status {
            AckStatus::Empty { ring, delay } => {
                w.write(0b00, 2);
                w.write_bool(*ring);
                delay
            }
            AckStatus::Single {
                out_of_order,
                index,
                delay,
            } => {
                w.write(0b01, 2);
                w.write_bool(*out_of_order);
                w.write((*index).into(), 3);
                delay
            }
            AckStatus::Explicit { statuses, delay } => {
                w.write(0b10, 2);
                statuses.iter().for_each(|s| s.write(w));
                delay
            }
            AckStatus::Span { statuses, delay } => {
                if statuses.len() > MAX_SPAN {
                    return Err(EstablishedError::Span(statuses.len()));
                }
                w.write(0b110, 3);
                w.write(statuses.len() as u64, 7);
                statuses.iter().for_each(|s| s.write(w));
                delay
            }
            AckStatus::Uninitialised => {
                w.write(0b111, 3);
                return Ok(());
            }
        };
        w.write((*delay).into(), 10);
        Ok(())
    }

    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let present = r.read_bool()?;
        let head = r.read(10)? as u16;
        let cursor = r.read(7)? as u8;
        let base = r.read(7)? as u8;
        let status = match r.read(2)? {
            0b00 => AckStatus::Empty {
                ring: r.read_bool()?,
                delay: r.read(10)? as u16,
            },
            0b01 => AckStatus::Single {
                out_of_order: r.read_bool()?,
                index: r.read(3)? as u8,
                delay: r.read(10)? as u16,
            },
            0b10 => {
                let mut statuses = [Receipt::Received; 8];
                for s in &mut statuses {
                    *s = Receipt::read(r)?;
                }
                AckStatus::Explicit {
                    statuses,
                    delay: r.read(10)? as u16,
                }
            }
            _ if r.read_bool()? => AckStatus::Uninitialised,
            _ => {
                let count = r.read(7)?;
                AckStatus::Span {
                    statuses: (0..count)
                        .map(|_| Receipt::read(r))
                        .collect::<Result<_, _>>()?,
                    delay: r.read(10)? as u16,
                }
            }
        };
        Ok(Self {
            head: present.then_some((head, cursor)),
            base,
            status,
        })
    }
}

/// One queue record: a fragment of a reliable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fragment {
    /// The message sequence, 13 bits.
    pub sequence: u16,
    /// True for the short fragment that ends a message.
    pub short: bool,
    /// The payload: the queue's full size, or 1 to 2^L bits when short.
    pub bits: Bits,
}

/// An established datagram (facts section 3.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EstablishedPacket {
    /// The fragmented bit; only `false` is written or read ([`EstablishedError::Fragmented`]).
    pub fragmented: bool,
    /// The sender's own connect channel id mod 4 (facts: the first 32-bit field of its
    /// connect request or response; the pages' "connection sequence modulo 4").
    pub guard: u8,
    /// The ACK handler.
    pub ack: Ack,
    /// Queue A's records, in wire order.
    pub queue_a: Vec<Fragment>,
    /// Queue B's records, in wire order.
    pub queue_b: Vec<Fragment>,
}

impl EstablishedPacket {
    /// The datagram's plaintext. Each queue names its first record absolutely (`01`), a
    /// record one past the previous with `11`, any other absolutely. The trailer is two 0
    /// bits as Sunrise writes them ("the extended-presence bit, then the external-body
    /// present bit"): no filler, no external body.
    pub fn write(&self) -> Result<Vec<u8>, EstablishedError> {
        if self.fragmented {
            return Err(EstablishedError::Fragmented);
        }
        let mut bytes = Vec::new();
        let mut w = BitWriter::appending(&mut bytes);
        w.write(0b00, 2);
        w.write(self.guard.into(), 2);
        self.ack.write(&mut w)?;
        write_queue(&mut w, Queue::A, &self.queue_a)?;
        write_queue(&mut w, Queue::B, &self.queue_b)?;
        w.write(0b00, 2);
        w.finish()?;
        Ok(bytes)
    }

    /// The datagram `bytes` (decrypted plaintext). Every selector form is read. The
    /// trailer is read as a filler-present bit, then either the filler (14-bit length of 1
    /// to 9920 bits, skipped) or the external-body-present bit, which must be 0
    /// ([`EstablishedError::External`]); a datagram that ends right after an absent filler
    /// bit has no external body. At most 7 zero bits may follow.
    pub fn read(bytes: &[u8]) -> Result<Self, EstablishedError> {
        let mut r = BitReader::new(bytes);
        if r.read_bool()? {
            return Err(EstablishedError::Marker);
        }
        if r.read_bool()? {
            return Err(EstablishedError::Fragmented);
        }
        let guard = r.read(2)? as u8;
        let ack = Ack::read(&mut r)?;
        let queue_a = read_queue(&mut r, Queue::A)?;
        let queue_b = read_queue(&mut r, Queue::B)?;
        read_trailer(&mut r)?;
        Ok(Self {
            fragmented: false,
            guard,
            ack,
            queue_a,
            queue_b,
        })
    }
}

fn write_queue(
    w: &mut BitWriter,
    queue: Queue,
    fragments: &[Fragment],
) -> Result<(), EstablishedError> {
    if fragments.len() > MAX_RECORDS {
        return Err(EstablishedError::TooManyRecords);
    }
    w.write_bool(!fragments.is_empty());
    if fragments.is_empty() {
        return Ok(());
    }
    let mut previous = None;
    for f in fragments {
        let (sequence, short, bits) = (f.sequence, f.short, f.bits.bit_len);
        if sequence >= SEQUENCE_MOD {
            return Err(EstablishedError::Sequence(sequence));
        }
        if !queue.carries(short, bits) {
            return Err(EstablishedError::FragmentLength { queue, short, bits });
        }
        if previous.map(|p: u16| (p + 1) % SEQUENCE_MOD) == Some(sequence) {
            w.write(0b11, 2);
        } else {
            w.write(0b01, 2);
            w.write(sequence.into(), 13);
        }
        w.write_bool(short);
        if short {
            w.write(0, 1); // the secondary flag: Sunrise writes 0, its meaning is not known
            w.write(bits as u64 - 1, queue.length_width());
        }
        w.write_bits(&f.bits);
        previous = Some(sequence);
    }
    w.write(0b00, 2);
    Ok(())
}

fn read_queue(r: &mut BitReader<'_>, queue: Queue) -> Result<Vec<Fragment>, EstablishedError> {
    let mut records = Vec::new();
    if !r.read_bool()? {
        return Ok(records);
    }
    let mut previous: Option<u16> = None;
    loop {
        let selector = r.read(2)? as u8;
        if selector == 0b00 {
            return Ok(records);
        }
        if records.len() >= MAX_RECORDS {
            return Err(EstablishedError::TooManyRecords);
        }
        let sequence = match (selector, previous) {
            (0b01, _) => r.read(13)? as u16,
            (0b10, Some(p)) => (p + 1 + r.read(4)? as u16) % SEQUENCE_MOD,
            (_, Some(p)) => (p + 1) % SEQUENCE_MOD,
            (_, None) => return Err(EstablishedError::NoPrevious(selector)),
        };
        let short = r.read_bool()?;
        let len = if short {
            r.read(1)?; // the secondary flag, meaning not known
            r.read(queue.length_width())? as usize + 1
        } else {
            queue.full_bits()
        };
        records.push(Fragment {
            sequence,
            short,
            bits: r.read_bits(len)?,
        });
        previous = Some(sequence);
    }
}

fn read_trailer(r: &mut BitReader<'_>) -> Result<(), EstablishedError> {
    if r.read_bool()? {
        let len = r.read(14)? as u16;
        if !(1..=MAX_FILLER_BITS).contains(&len) {
            return Err(EstablishedError::FillerLength(len));
        }
        r.skip(len.into())?;
    } else if r.remaining_bits() > 0 && r.read_bool()? {
        return Err(EstablishedError::External);
    }
    let rest = r.remaining_bits();
    if rest > 7 || (rest > 0 && r.read(rest as u32)? != 0) {
        return Err(EstablishedError::Trailing(rest));
    }
    Ok(())
}

/// Splits one message's bits (id, size and body already written) into fragments for
/// `queue`, from sequence `first` (mod 8192) on; the last one is short. A message that is
/// an exact multiple of the full size (or empty) gets a 1-bit short terminator holding 0,
/// as Sunrise's `enqueue_message` appends one (a 0-bit short fragment cannot be written:
/// its length goes as length − 1), so it reassembles with one trailing 0 bit, which the
/// body's own widths never read.
pub fn fragment(message: &Bits, queue: Queue, first: u16) -> Vec<Fragment> {
    let full = queue.full_bits();
    let mut r = message.reader();
    let mut sequence = first % SEQUENCE_MOD;
    let mut out = Vec::with_capacity(r.remaining_bits() / full + 1);
    loop {
        let take = r.remaining_bits().min(full);
        let bits = if take == 0 {
            Bits {
                bytes: vec![0],
                bit_len: 1,
            }
        } else {
            match r.read_bits(take) {
                Ok(bits) => bits,
                Err(_) => break, // not reached: `take` bits remain
            }
        };
        let short = take < full;
        out.push(Fragment {
            sequence,
            short,
            bits,
        });
        sequence = (sequence + 1) % SEQUENCE_MOD;
        if short {
            return out;
        }
    }
    out
}

/// One queue's receive side (facts: 32 slots per queue; reassembly capped at 16 KiB,
/// Sunrise's `accept_records` and `drain_message`): fragments are kept by sequence and
/// drained in order into the message they build.
#[derive(Debug, Clone)]
pub struct Reassembly {
    next: u16,
    slots: [Option<Fragment>; WINDOW as usize],
    /// The drained fragments of the message being built, joined when its last comes.
    assembly: Vec<Bits>,
    /// Their bits in all.
    assembled_bits: usize,
    discarding: bool,
}

impl Reassembly {
    /// A reassembler whose first fragment has sequence `first_expected` (facts: 1, the
    /// first reliable message sequence of a connection).
    pub fn new(first_expected: u16) -> Self {
        Self {
            next: first_expected % SEQUENCE_MOD,
            slots: [const { None }; WINDOW as usize],
            assembly: Vec::new(),
            assembled_bits: 0,
            discarding: false,
        }
    }

    /// The next sequence to drain.
    pub fn next(&self) -> u16 {
        self.next
    }

    /// The slot of `sequence` (always there: a sequence mod 32 picks one of 32).
    fn slot(&mut self, sequence: u16) -> Option<&mut Option<Fragment>> {
        self.slots.get_mut(usize::from(sequence % WINDOW))
    }

    /// Takes `fragment`. One 32 or more ahead of the next expected sequence is refused
    /// ([`EstablishedError::TooFarAhead`]); a duplicate, or one behind the next expected
    /// sequence by up to half the sequence space (Vex's reading of "already delivered"),
    /// is ignored.
    pub fn accept(&mut self, fragment: Fragment) -> Result<(), EstablishedError> {
        let sequence = fragment.sequence;
        if sequence >= SEQUENCE_MOD {
            return Err(EstablishedError::Sequence(sequence));
        }
        if fragment.bits.bit_len > fragment.bits.bytes.len() * 8 {
            return Err(BitError::PastEnd {
                at: 0,
                width: u32::try_from(fragment.bits.bit_len).unwrap_or(u32::MAX),
                len: fragment.bits.bytes.len() * 8,
            }
            .into());
        }
        let ahead = (sequence + SEQUENCE_MOD - self.next) % SEQUENCE_MOD;
        if ahead >= SEQUENCE_MOD / 2 {
            return Ok(());
        }
        if ahead >= WINDOW {
            let next = self.next;
            return Err(EstablishedError::TooFarAhead { sequence, next });
        }
        if let Some(slot) = self.slot(sequence) {
            slot.get_or_insert(fragment);
        }
        Ok(())
    }

    /// The next complete message, in sequence order, or `None` until one is. Fragments
    /// drain as they become contiguous, so a message longer than the window still passes.
    /// A message that passes [`MAX_MESSAGE_BITS`] gives [`EstablishedError::TooLong`] once, and the
    /// rest of its fragments are dropped as they come; the reassembler goes on.
    pub fn pop_message(&mut self) -> Result<Option<Bits>, EstablishedError> {
        loop {
            let next = self.next;
            let Some(slot) = self.slot(next) else {
                return Ok(None);
            };
            let Some(fragment) = slot.take_if(|f| f.sequence == next) else {
                return Ok(None);
            };
            self.next = (next + 1) % SEQUENCE_MOD;
            if self.discarding {
                self.discarding = !fragment.short;
                continue;
            }
            if self.assembled_bits + fragment.bits.bit_len > MAX_MESSAGE_BITS {
                self.assembly.clear();
                self.assembled_bits = 0;
                self.discarding = !fragment.short;
                return Err(EstablishedError::TooLong);
            }
            self.assembled_bits += fragment.bits.bit_len;
            self.assembly.push(fragment.bits);
            if fragment.short {
                let message = written_bits(|w| self.assembly.iter().for_each(|b| w.write_bits(b)));
                self.assembly.clear();
                self.assembled_bits = 0;
                return Ok(Some(message?));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::{written, written_bits};
    use proptest::prelude::*;

    fn pattern(len: usize, seed: u64) -> Bits {
        written_bits(|w| {
            for i in 0..len {
                w.write_bool(seed.rotate_left(i as u32) & 1 == 1);
            }
        })
        .unwrap()
    }

    fn packet(ack: Ack, queue_a: Vec<Fragment>, queue_b: Vec<Fragment>) -> EstablishedPacket {
        EstablishedPacket {
            fragmented: false,
            guard: 1,
            ack,
            queue_a,
            queue_b,
        }
    }

    fn uninit() -> Ack {
        Ack {
            head: Some((1, 1)),
            base: 0,
            status: AckStatus::Uninitialised,
        }
    }

    /// A datagram's bytes: its head up to the end of both (empty) queues, uninitialised
    /// ACK, then what `rest` writes.
    fn datagram(rest: impl FnOnce(&mut BitWriter)) -> Vec<u8> {
        written(|w| {
            w.write(0b0001, 4); // marker, fragmented, guard 1
            w.write(1, 1);
            w.write(1, 10);
            w.write(1, 7);
            w.write(0, 7);
            w.write(0b111, 3);
            rest(w);
        })
        .unwrap()
    }

    #[test]
    fn every_ack_form_reads_back() {
        use Receipt::*;
        let statuses = [
            Received, Missing, OutOfOrder, Received, Received, Missing, Received, OutOfOrder,
        ];
        let forms = [
            AckStatus::Empty {
                ring: true,
                delay: 5,
            },
            AckStatus::Single {
                out_of_order: true,
                index: 7,
                delay: NOT_MEASURED,
            },
            AckStatus::Explicit { statuses, delay: 0 },
            AckStatus::Span {
                statuses: vec![OutOfOrder; MAX_SPAN],
                delay: 1,
            },
            AckStatus::Span {
                statuses: vec![],
                delay: 2,
            },
            AckStatus::Uninitialised,
        ];
        for status in forms {
            for head in [None, Some((1023, 127))] {
                let p = packet(
                    Ack {
                        head,
                        base: 127,
                        status: status.clone(),
                    },
                    vec![],
                    vec![],
                );
                assert_eq!(EstablishedPacket::read(&p.write().unwrap()).unwrap(), p);
            }
        }
        let span = AckStatus::Span {
            statuses: vec![Received; 128],
            delay: 0,
        };
        let p = packet(
            Ack {
                head: None,
                base: 0,
                status: span,
            },
            vec![],
            vec![],
        );
        assert_eq!(p.write(), Err(EstablishedError::Span(128)));
    }

    /// 0010 | 1 0000000101 0000001 | 0000011 11 1 (marker, unfragmented, guard 2; head 5,
    /// head − cursor 1; base 3, uninitialised) = 28 0A 04 1F; then queue A: 1 01
    /// 0000000000001 1 0 00000111 10100101 00 (present, absolute 1, short, secondary 0,
    /// length 8, payload A5, end), queue B: 0, trailer 00, one pad bit:
    /// 10100000 00000001 10000001 11101001 01000000 = A0 01 81 E9 40.
    #[test]
    fn golden_datagram() {
        let a5 = Bits {
            bytes: vec![0xA5],
            bit_len: 8,
        };
        let p = EstablishedPacket {
            fragmented: false,
            guard: 2,
            ack: Ack {
                head: Some((5, 1)),
                base: 3,
                status: AckStatus::Uninitialised,
            },
            queue_a: vec![Fragment {
                sequence: 1,
                short: true,
                bits: a5,
            }],
            queue_b: vec![],
        };
        let bytes = p.write().unwrap();
        assert_eq!(
            bytes,
            [0x28, 0x0A, 0x04, 0x1F, 0xA0, 0x01, 0x81, 0xE9, 0x40]
        );
        assert_eq!(EstablishedPacket::read(&bytes).unwrap(), p);
    }

    /// Queue A empty; queue B: absolute 8191, `11` (0), `10` with d = 3 (4), each a 1-bit
    /// short fragment.
    #[test]
    fn every_selector_form_reads() {
        let bytes = datagram(|w| {
            w.write(0, 1);
            w.write(1, 1);
            for (selector, extra) in [(0b01, Some((8191, 13))), (0b11, None), (0b10, Some((3, 4)))]
            {
                w.write(selector, 2);
                if let Some((v, width)) = extra {
                    w.write(v, width);
                }
                w.write(0b10, 2); // short, secondary 0
                w.write(0, 6); // length 1
                w.write(1, 1);
            }
            w.write(0b00, 2);
            w.write(0b00, 2);
        });
        let p = EstablishedPacket::read(&bytes).unwrap();
        let seqs: Vec<u16> = p.queue_b.iter().map(|f| f.sequence).collect();
        assert_eq!(seqs, [8191, 0, 4]);
        assert!(p.queue_a.is_empty());
        assert!(p.queue_b.iter().all(|f| f.short && f.bits.bit_len == 1));
    }

    #[test]
    fn a_relative_selector_needs_a_previous_record() {
        for selector in [0b10u8, 0b11] {
            let bytes = datagram(|w| {
                w.write(1, 1);
                w.write(selector.into(), 2);
                w.write(0, 16);
            });
            let r = EstablishedPacket::read(&bytes);
            assert_eq!(r, Err(EstablishedError::NoPrevious(selector)));
        }
    }

    #[test]
    fn sixty_five_records_are_refused() {
        let one = |sequence| Fragment {
            sequence,
            short: true,
            bits: pattern(1, 0),
        };
        let p = packet(uninit(), (0..64).map(one).collect(), vec![]);
        assert_eq!(EstablishedPacket::read(&p.write().unwrap()).unwrap(), p);
        let p = packet(uninit(), vec![], (0..65).map(one).collect());
        assert_eq!(p.write(), Err(EstablishedError::TooManyRecords));
        // by hand: absolute 0, then 64 times `11`, each a short 1-bit fragment
        let bytes = datagram(|w| {
            w.write(1, 1);
            w.write(0b01, 2);
            w.write(0, 13);
            for i in 0..65 {
                if i > 0 {
                    w.write(0b11, 2);
                }
                w.write(0b10, 2); // short, secondary 0
                w.write(0, 8); // length 1
                w.write(0, 1);
            }
            w.write(0, 4);
        });
        let r = EstablishedPacket::read(&bytes);
        assert_eq!(r, Err(EstablishedError::TooManyRecords));
    }

    #[test]
    fn head_and_trailer_errors() {
        assert_eq!(
            EstablishedPacket::read(&[0x80]),
            Err(EstablishedError::Marker)
        );
        assert_eq!(
            EstablishedPacket::read(&[0x40]),
            Err(EstablishedError::Fragmented)
        );
        assert!(matches!(
            EstablishedPacket::read(&[]),
            Err(EstablishedError::Bits(_))
        ));
        let mut p = packet(uninit(), vec![], vec![]);
        p.fragmented = true;
        assert_eq!(p.write(), Err(EstablishedError::Fragmented));
        // the head and ACK are 32 bits, the two empty queues 2, so the trailer is at bit 34
        for (bits, width, want) in [
            (0b01, 2, Err(EstablishedError::External)),
            (0b00, 2, Ok(())),
            (0b00_0001, 6, Err(EstablishedError::Trailing(4))),
            (0, 14, Err(EstablishedError::Trailing(12))),
        ] {
            let bytes = datagram(|w| {
                w.write(0b00, 2);
                w.write(bits, width);
            });
            let r = EstablishedPacket::read(&bytes).map(|_| ());
            assert_eq!(r, want, "{bits:b}/{width}");
        }
        // a single-difference ACK makes the absent filler bit the datagram's last bit
        let bytes = written(|w| {
            w.write(0, 4 + 1 + 10 + 7 + 7);
            w.write(0b01, 2);
            w.write(0, 1 + 3 + 10 + 2 + 1);
        })
        .unwrap();
        assert_eq!(bytes.len(), 6);
        assert!(EstablishedPacket::read(&bytes).is_ok());
    }

    #[test]
    fn filler_is_one_to_9920_bits() {
        for (len, ok) in [(9920u16, true), (1, true), (9921, false), (0, false)] {
            let bytes = datagram(|w| {
                w.write(0b00, 2);
                w.write(1, 1);
                w.write(len.into(), 14);
                w.write_zeros(len.into());
            });
            let r = EstablishedPacket::read(&bytes);
            assert_eq!(r.is_ok(), ok, "{len}");
            if !ok {
                assert_eq!(r, Err(EstablishedError::FillerLength(len)));
            }
        }
    }

    /// Fragments `message` into `queue`, and drains each into a fresh reassembler as it
    /// arrives.
    fn reassemble(message: &Bits, queue: Queue, first: u16) -> Vec<Bits> {
        let mut r = Reassembly::new(first);
        let mut out = vec![];
        for f in fragment(message, queue, first) {
            assert!(queue.carries(f.short, f.bits.bit_len));
            r.accept(f).unwrap();
            out.extend(r.pop_message().unwrap());
        }
        out
    }

    #[test]
    fn messages_fragment_and_reassemble() {
        for queue in [Queue::A, Queue::B] {
            for len in [1, 47, 48, 49, 255, 256, 257, 3000] {
                let message = pattern(len, 0x9E37_79B9_7F4A_7C15);
                let frags = fragment(&message, queue, 1);
                let full = queue.full_bits();
                assert_eq!(frags.len(), len / full + 1, "{queue:?} {len}");
                let got = reassemble(&message, queue, 1);
                let want = written_bits(|w| {
                    w.write_bits(&message);
                    if len % full == 0 {
                        w.write(0, 1); // the terminator's bit
                    }
                });
                assert_eq!(got, [want.unwrap()], "{queue:?} {len}");
            }
        }
    }

    /// Two messages through datagrams: fragmented, written, read, reassembled.
    #[test]
    fn messages_ride_datagrams() {
        let (m1, m2) = (pattern(300, 7), pattern(40, 9));
        let mut frags = fragment(&m1, Queue::A, 1);
        frags.extend(fragment(&m2, Queue::A, 3));
        let p = packet(uninit(), frags, vec![]);
        let back = EstablishedPacket::read(&p.write().unwrap()).unwrap();
        let mut r = Reassembly::new(1);
        for f in back.queue_a.into_iter().rev() {
            r.accept(f).unwrap();
        }
        assert_eq!(r.pop_message().unwrap(), Some(m1));
        assert_eq!(r.pop_message().unwrap(), Some(m2));
        assert_eq!(r.pop_message().unwrap(), None);
        assert_eq!(r.next(), 4);
    }

    #[test]
    fn reversed_delivery_yields_in_order() {
        let (m1, m2) = (pattern(1000, 1), pattern(30, 2));
        let mut frags = fragment(&m1, Queue::A, 8190);
        frags.extend(fragment(&m2, Queue::A, 2));
        assert_eq!(
            frags.iter().map(|f| f.sequence).collect::<Vec<_>>(),
            [8190, 8191, 0, 1, 2]
        );
        let mut r = Reassembly::new(8190);
        for f in frags.into_iter().rev() {
            assert_eq!(r.pop_message().unwrap(), None);
            r.accept(f).unwrap();
        }
        assert_eq!(r.pop_message().unwrap(), Some(m1));
        assert_eq!(r.pop_message().unwrap(), Some(m2));
        assert_eq!(r.next(), 3);
    }

    #[test]
    fn the_window_is_32_and_duplicates_are_ignored() {
        let one = |sequence, seed| Fragment {
            sequence,
            short: true,
            bits: pattern(8, seed),
        };
        let mut r = Reassembly::new(8180);
        assert_eq!(
            r.accept(one(20, 0)),
            Err(EstablishedError::TooFarAhead {
                sequence: 20,
                next: 8180
            })
        );
        r.accept(one(19, 0)).unwrap(); // 31 ahead, across the wrap
        r.accept(one(8180, 1)).unwrap();
        r.accept(one(8180, 2)).unwrap(); // a duplicate: the first one stays
        assert_eq!(r.pop_message().unwrap(), Some(pattern(8, 1)));
        r.accept(one(8180, 3)).unwrap(); // already delivered
        r.accept(one(8000, 3)).unwrap(); // long delivered
        assert_eq!(r.pop_message().unwrap(), None);
        assert_eq!(
            r.accept(one(SEQUENCE_MOD, 0)),
            Err(EstablishedError::Sequence(SEQUENCE_MOD))
        );
    }

    /// One bit past the cap (in queue B) passes it, and so does the cap exactly (whole
    /// fragments in queue A and the terminator); one bit below does not. The message
    /// after a refused one still comes out.
    #[test]
    fn a_message_past_the_cap_is_dropped() {
        let drain = |len, queue| {
            let mut frags = fragment(&pattern(len, 3), queue, 0);
            let n = frags.len() as u16;
            frags.extend(fragment(&pattern(20, 4), queue, n));
            let mut r = Reassembly::new(0);
            let mut results = vec![];
            for f in frags {
                r.accept(f).unwrap();
                while let Some(m) = r.pop_message().transpose() {
                    results.push(m);
                }
            }
            results
        };
        let refused = [Err(EstablishedError::TooLong), Ok(pattern(20, 4))];
        assert_eq!(drain(MAX_MESSAGE_BITS + 1, Queue::B), refused);
        // exactly the cap: the terminator's bit passes it
        assert_eq!(drain(MAX_MESSAGE_BITS, Queue::A), refused);
        let passed = drain(MAX_MESSAGE_BITS - 1, Queue::A);
        assert_eq!(
            passed,
            [Ok(pattern(MAX_MESSAGE_BITS - 1, 3)), Ok(pattern(20, 4))]
        );
    }

    #[test]
    fn what_an_ack_covers() {
        use Receipt::*;
        let statuses = [
            Received, OutOfOrder, Received, Received, Received, Received, Received, Missing,
        ];
        let ack = Ack {
            head: None,
            base: 10,
            status: AckStatus::Explicit { statuses, delay: 0 },
        };
        let covers = |d: u8| ack.covers(10u8.wrapping_sub(d) % 128);
        // d = 0, 1, 2, reported (8, entry 7 missing), reported + 1, 63, 64, 127
        let want = [
            (0, true),
            (1, true),
            (2, true),
            (8, false),
            (9, true),
            (63, true),
            (64, false),
            (127, false),
        ];
        for (d, covered) in want {
            assert_eq!(covers(d), covered, "d = {d}");
        }
        let single = |out_of_order| Ack {
            head: None,
            base: 0,
            status: AckStatus::Single {
                out_of_order,
                index: 2,
                delay: 0,
            },
        };
        // entries 0 and 1 received, entry 2 (d = 3) only if out of order
        for (d, covered) in [(1u8, true), (2, true), (3, false), (4, true)] {
            assert_eq!(
                single(false).covers(0u8.wrapping_sub(d) % 128),
                covered,
                "d = {d}"
            );
        }
        assert!(single(true).covers(125));
        let empty = Ack {
            head: None,
            base: 5,
            status: AckStatus::Empty {
                ring: false,
                delay: 0,
            },
        };
        assert!(empty.covers(5) && empty.covers(4) && !empty.covers(6));
        assert!(
            !Ack {
                base: 5,
                ..uninit()
            }
            .covers(5)
        );
    }

    fn receipt() -> impl Strategy<Value = Receipt> {
        prop_oneof![
            Just(Receipt::Received),
            Just(Receipt::Missing),
            Just(Receipt::OutOfOrder)
        ]
    }

    fn ack() -> impl Strategy<Value = Ack> {
        let delay = 0u16..PACKET_SEQUENCE_MOD;
        let status = prop_oneof![
            (any::<bool>(), delay.clone())
                .prop_map(|(ring, delay)| AckStatus::Empty { ring, delay }),
            (any::<bool>(), 0u8..8, delay.clone()).prop_map(|(out_of_order, index, delay)| {
                AckStatus::Single {
                    out_of_order,
                    index,
                    delay,
                }
            }),
            (proptest::array::uniform8(receipt()), delay.clone())
                .prop_map(|(statuses, delay)| AckStatus::Explicit { statuses, delay }),
            (proptest::collection::vec(receipt(), 0..=MAX_SPAN), delay)
                .prop_map(|(statuses, delay)| AckStatus::Span { statuses, delay }),
            Just(AckStatus::Uninitialised),
        ];
        let head = proptest::option::of((0u16..PACKET_SEQUENCE_MOD, 0u8..ACK_MOD));
        (head, 0u8..ACK_MOD, status).prop_map(|(head, base, status)| Ack { head, base, status })
    }

    fn records(queue: Queue) -> impl Strategy<Value = Vec<Fragment>> {
        let record = (
            0u16..3,
            any::<bool>(),
            1..=1usize << queue.length_width(),
            any::<u64>(),
        );
        (0..SEQUENCE_MOD, proptest::collection::vec(record, 0..=6)).prop_map(
            move |(mut seq, rs)| {
                rs.into_iter()
                    .map(|(step, short, len, seed)| {
                        seq = (seq + step) % SEQUENCE_MOD;
                        let len = if short { len } else { queue.full_bits() };
                        Fragment {
                            sequence: seq,
                            short,
                            bits: pattern(len, seed),
                        }
                    })
                    .collect()
            },
        )
    }

    proptest! {
        #[test]
        fn any_bytes_read_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            if let Ok(p) = EstablishedPacket::read(&bytes) {
                let again = p.write().unwrap();
                prop_assert_eq!(EstablishedPacket::read(&again).unwrap(), p);
            }
        }

        #[test]
        fn a_written_packet_reads_back(
            guard in 0u8..4,
            ack in ack(),
            queue_a in records(Queue::A),
            queue_b in records(Queue::B),
        ) {
            let p = EstablishedPacket { fragmented: false, guard, ack, queue_a, queue_b };
            prop_assert_eq!(EstablishedPacket::read(&p.write().unwrap()).unwrap(), p);
        }

        #[test]
        fn any_fragments_reassemble_without_panic(
            frags in proptest::collection::vec((0u16..40, any::<bool>(), 0usize..300), 0..80),
        ) {
            let mut r = Reassembly::new(0);
            for (sequence, short, len) in frags {
                let _ = r.accept(Fragment { sequence, short, bits: pattern(len, 5) });
                while let Ok(Some(m)) = r.pop_message() {
                    prop_assert!(m.bit_len <= MAX_MESSAGE_BITS);
                }
            }
        }
    }
}
