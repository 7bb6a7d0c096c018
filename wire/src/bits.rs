//! The Bungie bitstream: MSB-first bit writer and reader.
//!
//! TD "The bit-packed codec" and AH "Body encoding": bits are written most significant
//! first, wire bit 0 is the top bit of byte 0, nothing is byte-aligned and the last byte is
//! padded with zero bits (BODY-01). Bias is never hidden in the codec: every call site names
//! it (`write_biased(v, bias, width)`, or `write_i32`, an i32 with its one bias, BODY-02).
//! Facts section 3: errors are sticky, and a read past the end fails without moving the
//! cursor (BODY-04).

use std::ops::Range;
use thiserror::Error;

/// The bias of every i32 field on the wire, 0x80000000: all-zero bits read as i32::MIN,
/// and 0 goes out as 0x80000000 (AH "Body encoding"; e.g. AH's host return code and bubble
/// count, "bias 0x80000000").
pub const I32_BIAS: i64 = 0x8000_0000;

/// Why a bit write or read failed. Once a writer or reader fails it stays failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum BitError {
    /// A width outside 1 to 64 bits.
    #[error("width {width} is outside 1..=64")]
    BadWidth {
        /// The width asked for.
        width: u32,
    },
    /// A value, after its bias, does not fit its width.
    #[error("value {stored} does not fit in {width} bits")]
    ValueTooWide {
        /// The stored (biased) value, widened.
        stored: i128,
        /// The field width.
        width: u32,
    },
    /// A read needs more bits than the body has (BODY-04: the way the client's decoder
    /// fails).
    #[error("read of {width} bits at bit {at} passes the end ({len} bits)")]
    PastEnd {
        /// Bit offset of the read.
        at: usize,
        /// Bits asked for.
        width: u32,
        /// Length of the body in bits.
        len: usize,
    },
    /// A value the client cannot take safely: the encoder refuses it rather than crash
    /// the client (BODY-05 and the crash table of AH "Values that crash the client").
    #[error("{what} is {value}, outside what the client takes safely")]
    Unsafe {
        /// The field.
        what: &'static str,
        /// The value refused.
        value: i64,
    },
    /// A value whose wire shape the pages do not document, so it cannot be sized.
    #[error("at bit {at}: {what} has no documented wire shape")]
    UnknownShape {
        /// Bit offset of the value.
        at: usize,
        /// What it is.
        what: &'static str,
    },
}

fn check_width(width: u32) -> Result<(), BitError> {
    if (1..=64).contains(&width) {
        Ok(())
    } else {
        Err(BitError::BadWidth { width })
    }
}

/// Why `value` does not fit `width` bits ([`BitWriter::write`]'s refusal).
#[cold]
fn unfit(value: u64, width: u32) -> BitError {
    match check_width(width) {
        Err(e) => e,
        Ok(()) => BitError::ValueTooWide {
            stored: i128::from(value),
            width,
        },
    }
}

/// `e` on the heap, out of line: a failing write is rare, and the writer's own code stays
/// small enough to inline.
#[cold]
fn boxed(e: BitError) -> Box<BitError> {
    Box::new(e)
}

fn low_mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// A run of bits kept exactly: the bytes, zero-padded, and how many bits count.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bits {
    /// The bits, MSB first, zero-padded to a byte.
    pub bytes: Vec<u8>,
    /// How many bits are meaningful.
    pub bit_len: usize,
}

impl Bits {
    /// A reader over exactly these bits.
    pub fn reader(&self) -> BitReader<'_> {
        BitReader::with_bit_len(&self.bytes, self.bit_len)
    }

    /// These bits become a copy of `other`, in the buffer they had (its capacity reused).
    pub fn copy_from(&mut self, other: &Bits) {
        self.bytes.clear();
        self.bytes.extend_from_slice(&other.bytes);
        self.bit_len = other.bit_len;
    }

    /// No bits, the buffer kept.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.bit_len = 0;
    }

    /// These bits become bits `range` of `bytes`, in the buffer they had (its capacity
    /// reused); none when `bytes` holds fewer.
    pub fn copy_range(&mut self, bytes: &[u8], range: Range<usize>) {
        let mut r = BitReader::new(bytes);
        let copied = r
            .skip(range.start)
            .and_then(|()| self.read_from(&mut r, range.len()));
        if copied.is_err() {
            self.clear();
        }
    }

    /// These bits become the next `n` bits of `r`, in the buffer they had (its capacity
    /// reused). On an error they are empty.
    pub fn read_from(&mut self, r: &mut BitReader<'_>, n: usize) -> Result<(), BitError> {
        self.clear();
        r.read_stream_into(n, &mut self.bytes)?;
        self.bit_len = n;
        Ok(())
    }
}

/// An MSB-first bit writer into a buffer its caller owns, with sticky errors and a
/// measuring mode (facts section 3).
///
/// Bits gather in a 64-bit accumulator and leave it 64 at a time, so a field of up to 64
/// bits costs a shift and an OR rather than a loop over bytes. The writer borrows its
/// buffer rather than owning it: no call then takes the writer's own address, so a writer
/// that is a local of an encoder lives in registers (message 19 encodes in 10 ns where a
/// writer holding its buffer took 12; docs/performance.md, 2026-12-05).
#[derive(Debug)]
pub struct BitWriter<'a> {
    /// Where whole bytes go; none for a writer that only measures.
    bytes: Option<&'a mut Vec<u8>>,
    /// The buffer's length when the writer began: a failed writer leaves it so.
    start: usize,
    /// Pending bits, left-aligned: the top `pending` bits count, the rest are zero.
    acc: u64,
    /// Bits held in `acc`, 0 to 63.
    pending: u32,
    bits: usize,
    /// The first error, boxed: a failed write is rare, and a small writer is cheap to make.
    error: Option<Box<BitError>>,
}

impl<'a> BitWriter<'a> {
    /// A writer whose bits go after what `bytes` holds, starting at a byte boundary;
    /// [`bit_len`] counts only the bits written here, and [`finish`] pads the last byte.
    ///
    /// [`bit_len`]: BitWriter::bit_len
    /// [`finish`]: BitWriter::finish
    #[inline]
    pub fn appending(bytes: &'a mut Vec<u8>) -> Self {
        Self {
            start: bytes.len(),
            bytes: Some(bytes),
            acc: 0,
            pending: 0,
            bits: 0,
            error: None,
        }
    }

    /// A writer that only counts bits: encoders measure first, then write.
    pub fn measuring() -> Self {
        Self {
            bytes: None,
            start: 0,
            acc: 0,
            pending: 0,
            bits: 0,
            error: None,
        }
    }

    /// Bits written so far.
    pub fn bit_len(&self) -> usize {
        self.bits
    }

    /// The first error, if any write failed.
    pub fn error(&self) -> Option<BitError> {
        self.error.as_deref().copied()
    }

    /// Fails the writer with `e` (an encoder refusing a value); the first error sticks.
    #[inline]
    pub fn fail(&mut self, e: BitError) {
        if self.error.is_none() {
            self.error = Some(boxed(e));
        }
    }

    /// Writes the low `width` bits of `value`, MSB first. The value must fit the width.
    /// A value that fits is written even after an error (the error stays, and the bytes
    /// are no body then), so the common write tests only its own arguments.
    #[inline]
    pub fn write(&mut self, value: u64, width: u32) {
        let fits = (1..=64).contains(&width) && value.checked_shr(width).unwrap_or(0) == 0;
        if fits {
            self.push_bits(value, width);
        } else {
            self.fail(unfit(value, width));
        }
    }

    /// Writes one bit.
    #[inline]
    pub fn write_bool(&mut self, bit: bool) {
        self.write(u64::from(bit), 1);
    }

    /// Writes an i32 as every i32 goes on the wire: 32 bits with [`I32_BIAS`] (every i32
    /// plus the bias fits 32 bits, so nothing is checked).
    #[inline]
    pub fn write_i32(&mut self, value: i32) {
        self.push_bits((i64::from(value) + I32_BIAS) as u64, 32);
    }

    /// Writes `value + bias` in `width` bits (BODY-02). The sum must be in `0..2^width`.
    pub fn write_biased(&mut self, value: i64, bias: i64, width: u32) {
        let stored = i128::from(value) + i128::from(bias);
        if self.error.is_some() {
            return;
        }
        if let Err(e) = check_width(width) {
            return self.fail(e);
        }
        if stored < 0 || stored > i128::from(low_mask(width)) {
            return self.fail(BitError::ValueTooWide { stored, width });
        }
        self.push_bits(stored as u64, width);
    }

    /// Writes a signed value the way the client's codec narrows it: two's complement,
    /// plus the bias, truncated to the width (facts section 3). Used for fields such as an
    /// i32 with bias -2^31, where only the wrapped value is meaningful.
    pub fn write_wrapping(&mut self, value: i64, bias: i64, width: u32) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = check_width(width) {
            return self.fail(e);
        }
        let stored = (value as u64).wrapping_add(bias as u64) & low_mask(width);
        self.push_bits(stored, width);
    }

    /// Writes `n` zero bits.
    pub fn write_zeros(&mut self, n: usize) {
        let mut left = n;
        while left > 0 {
            let take = left.min(64) as u32;
            self.write(0, take);
            left -= take as usize;
        }
    }

    /// Appends every bit of `bits`.
    pub fn write_bits(&mut self, bits: &Bits) {
        self.write_stream(&bits.bytes, bits.bit_len);
    }

    /// Appends the first `bit_len` bits of `bytes` in order; fails when `bytes` holds fewer.
    #[inline]
    pub fn write_stream(&mut self, bytes: &[u8], bit_len: usize) {
        if bit_len > bytes.len() * 8 {
            return self.fail(BitError::PastEnd {
                at: 0,
                width: bit_len.min(u32::MAX as usize) as u32,
                len: bytes.len() * 8,
            });
        }
        let words = bit_len / 64;
        let whole = bytes.chunks_exact(8).take(words).map(|word| {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            u64::from_be_bytes(w)
        });
        match self.bytes.as_deref_mut() {
            // each whole word joins the pending bits and goes out at once, the buffer held
            // in a local for the run
            Some(out) if words > 1 => {
                let held = self.pending;
                for word in whole {
                    out.extend_from_slice(&(self.acc | word >> held).to_be_bytes());
                    self.acc = word.checked_shl(64 - held).unwrap_or(0);
                }
                self.bits += words * 64;
            }
            _ => whole.for_each(|word| self.push_bits(word, 64)),
        }
        let rest = (bit_len % 64) as u32;
        if rest > 0 {
            let tail = bytes
                .iter()
                .skip(words * 8)
                .take(rest.div_ceil(8) as usize)
                .fold(0u64, |v, b| v << 8 | u64::from(*b));
            self.write(tail >> ((8 - rest % 8) % 8), rest);
        }
    }

    /// Appends the low `width` (1 to 64) bits of `value`, which fit: into the accumulator,
    /// which goes out as 8 bytes each time it fills.
    #[inline]
    fn push_bits(&mut self, value: u64, width: u32) {
        self.bits += width as usize;
        let free = 64 - self.pending;
        if width < free {
            self.acc |= value << (free - width);
            self.pending += width;
        } else {
            let rest = width - free;
            let word = self.acc | value.checked_shr(rest).unwrap_or(0);
            if let Some(bytes) = &mut self.bytes {
                bytes.extend_from_slice(&word.to_be_bytes());
            }
            self.pending = rest;
            self.acc = value.checked_shl(64 - rest).unwrap_or(0);
        }
    }

    /// Pads the last byte into the buffer and gives the bits written, or the first error;
    /// a failed writer leaves the buffer as it found it (its bits would be no body).
    #[inline]
    pub fn finish(self) -> Result<usize, BitError> {
        let Self {
            bytes,
            start,
            acc,
            pending,
            bits,
            error,
        } = self;
        match (bytes, &error) {
            (Some(bytes), Some(_)) => bytes.truncate(start),
            (Some(bytes), None) if pending > 0 => {
                let last = acc.to_be_bytes();
                bytes.extend_from_slice(last.get(..pending.div_ceil(8) as usize).unwrap_or(&last));
            }
            _ => {}
        }
        error.map_or(Ok(bits), |e| Err(*e))
    }
}

/// The bytes `write` writes into a buffer of their own, zero-padded to a whole byte
/// (BODY-01), or its first error.
pub fn written(write: impl FnOnce(&mut BitWriter<'_>)) -> Result<Vec<u8>, BitError> {
    written_bits(write).map(|bits| bits.bytes)
}

/// [`written`] with the exact bit length.
pub fn written_bits(write: impl FnOnce(&mut BitWriter<'_>)) -> Result<Bits, BitError> {
    let mut bytes = Vec::new();
    let mut w = BitWriter::appending(&mut bytes);
    write(&mut w);
    let bit_len = w.finish()?;
    Ok(Bits { bytes, bit_len })
}

/// An MSB-first bit reader. A read past the end fails, stickily, and leaves the cursor.
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    bytes: &'a [u8],
    len: usize,
    pos: usize,
    failed: bool,
}

impl<'a> BitReader<'a> {
    /// A reader over every bit of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self::with_bit_len(bytes, bytes.len() * 8)
    }

    /// A reader over the first `bit_len` bits of `bytes` (at most all of them).
    pub fn with_bit_len(bytes: &'a [u8], bit_len: usize) -> Self {
        Self {
            bytes,
            len: bit_len.min(bytes.len() * 8),
            pos: 0,
            failed: false,
        }
    }

    /// The cursor, in bits from the start.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bits left to read.
    pub fn remaining_bits(&self) -> usize {
        self.len - self.pos
    }

    /// True once a read has failed.
    pub fn failed(&self) -> bool {
        self.failed
    }

    fn past_end(&mut self, width: u32) -> BitError {
        self.failed = true;
        BitError::PastEnd {
            at: self.pos,
            width,
            len: self.len,
        }
    }

    /// Reads `width` bits (1 to 64) as a zero-extended unsigned value.
    #[inline(always)]
    pub fn read(&mut self, width: u32) -> Result<u64, BitError> {
        if !(1..=56).contains(&width) {
            return self.read_wide(width);
        }
        if self.failed || self.remaining_bits() < width as usize {
            return Err(self.past_end(width));
        }
        Ok(self.read_window(width))
    }

    /// A read of 57 to 64 bits in two windows, or a width error: out of line, so that
    /// [`BitReader::read`] stays small enough to inline everywhere.
    #[inline(never)]
    fn read_wide(&mut self, width: u32) -> Result<u64, BitError> {
        if let Err(e) = check_width(width) {
            self.failed = true;
            return Err(e);
        }
        if self.failed || self.remaining_bits() < width as usize {
            return Err(self.past_end(width));
        }
        let high = self.read_window(width - 32);
        let low = self.read_window(32);
        Ok((high << 32) | low)
    }

    /// Reads `width` (1 to 56) bits known to be there: one big-endian load of the 8 bytes
    /// at the cursor (zero past the end) and two shifts.
    #[inline(always)]
    fn read_window(&mut self, width: u32) -> u64 {
        let at = self.pos / 8;
        let word = match self
            .bytes
            .get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            Some(w) => w,
            None => self.last_bytes(at),
        };
        let shift = (self.pos % 8) as u32;
        self.pos += width as usize;
        (u64::from_be_bytes(word) << shift) >> (64 - width)
    }

    /// The bytes from `at` to the end, zero-padded to 8: the window near the end.
    #[cold]
    fn last_bytes(&self, at: usize) -> [u8; 8] {
        let mut w = [0u8; 8];
        for (d, s) in w.iter_mut().zip(self.bytes.get(at..).unwrap_or_default()) {
            *d = *s;
        }
        w
    }

    /// The 64 bits from bit `bit` of the buffer on, MSB first, zero past its last byte:
    /// one big-endian load and the top bits of the byte after it.
    #[inline]
    fn word_at(&self, bit: usize) -> u64 {
        let (at, shift) = (bit / 8, (bit % 8) as u32);
        let eight = self.bytes.get(at..at + 8).map(<[u8; 8]>::try_from);
        let (word, next) = match (eight, self.bytes.get(at + 8)) {
            (Some(Ok(w)), Some(&next)) => (u64::from_be_bytes(w), next),
            _ => self.last_word(at),
        };
        (word << shift) | (u64::from(next) << shift >> 8)
    }

    /// [`BitReader::word_at`]'s nine bytes from `at` near the end, zero-padded.
    #[cold]
    fn last_word(&self, at: usize) -> (u64, u8) {
        let next = self.bytes.get(at + 8).copied().unwrap_or(0);
        (u64::from_be_bytes(self.last_bytes(at)), next)
    }

    /// True when the bits at the cursor are `bits`, every one of them; the cursor stays.
    /// Compared 64 bits at a time, or as bytes at a byte boundary.
    pub fn starts_with(&self, bits: &Bits) -> bool {
        if self.failed || self.remaining_bits() < bits.bit_len {
            return false;
        }
        if self.pos.is_multiple_of(8) {
            return self.bytes_start_with(bits);
        }
        let there = bits.reader();
        let mut at = 0;
        while at + 64 <= bits.bit_len {
            if self.word_at(self.pos + at) != there.word_at(at) {
                return false;
            }
            at += 64;
        }
        let left = bits.bit_len - at;
        left == 0 || (self.word_at(self.pos + at) ^ there.word_at(at)) >> (64 - left) == 0
    }

    /// [`BitReader::starts_with`] at a byte boundary, with the bits there: the whole bytes
    /// compared as bytes, then the bits of the last.
    fn bytes_start_with(&self, bits: &Bits) -> bool {
        let (at, whole, left) = (self.pos / 8, bits.bit_len / 8, bits.bit_len % 8);
        let mine = self.bytes.get(at..at + whole);
        let same_bytes = mine.is_some_and(|mine| bits.bytes.get(..whole) == Some(mine));
        let same_last = || match (self.bytes.get(at + whole), bits.bytes.get(whole)) {
            (Some(a), Some(b)) => (a ^ b) >> (8 - left) == 0,
            _ => false,
        };
        same_bytes && (left == 0 || same_last())
    }

    /// Reads one bit.
    #[inline(always)]
    pub fn read_bool(&mut self) -> Result<bool, BitError> {
        match self.bytes.get(self.pos / 8) {
            Some(byte) if !self.failed && self.pos < self.len => {
                let bit = byte >> (7 - self.pos % 8) & 1;
                self.pos += 1;
                Ok(bit == 1)
            }
            _ => self.read_bool_at_end(),
        }
    }

    /// [`BitReader::read_bool`] past the end or after a failed read: the error.
    #[cold]
    fn read_bool_at_end(&mut self) -> Result<bool, BitError> {
        Ok(self.read(1)? == 1)
    }

    /// Reads an i32 as every i32 comes on the wire: 32 bits with [`I32_BIAS`].
    #[inline]
    pub fn read_i32(&mut self) -> Result<i32, BitError> {
        Ok(self.read_biased(I32_BIAS, 32)? as i32)
    }

    /// Reads `width` bits and subtracts the bias (BODY-02): all-zero bits give `-bias`.
    #[inline]
    pub fn read_biased(&mut self, bias: i64, width: u32) -> Result<i64, BitError> {
        let stored = self.read(width)?;
        Ok((i128::from(stored) - i128::from(bias)) as i64)
    }

    /// Skips `n` bits.
    #[inline]
    pub fn skip(&mut self, n: usize) -> Result<(), BitError> {
        if self.failed || self.remaining_bits() < n {
            return Err(self.past_end(n.min(u32::MAX as usize) as u32));
        }
        self.pos += n;
        Ok(())
    }

    /// Copies the next `n` bits out exactly.
    pub fn read_bits(&mut self, n: usize) -> Result<Bits, BitError> {
        Ok(Bits {
            bytes: self.read_stream(n)?,
            bit_len: n,
        })
    }

    /// Copies the next `n` bits out as a zero-padded byte vector.
    pub fn read_stream(&mut self, n: usize) -> Result<Vec<u8>, BitError> {
        if self.failed || self.remaining_bits() < n {
            return Err(self.past_end(n.min(u32::MAX as usize) as u32));
        }
        let mut out = Vec::with_capacity(n.div_ceil(8));
        self.read_stream_into(n, &mut out)?;
        Ok(out)
    }

    /// [`BitReader::read_stream`] appended to `out`, whose capacity is reused: whole bytes
    /// where they lie when the cursor is on a byte, else 64 bits at a time.
    pub fn read_stream_into(&mut self, n: usize, out: &mut Vec<u8>) -> Result<(), BitError> {
        if self.failed || self.remaining_bits() < n {
            return Err(self.past_end(n.min(u32::MAX as usize) as u32));
        }
        let start = out.len();
        let len = n.div_ceil(8);
        if self.pos.is_multiple_of(8) {
            let at = self.pos / 8;
            match self.bytes.get(at..at + len) {
                Some(bytes) => out.extend_from_slice(bytes),
                None => out.resize(start + len, 0),
            }
        } else {
            // whole words, the last running past the stream into bytes cut off after
            out.reserve(len.next_multiple_of(8));
            for at in (self.pos..self.pos + n).step_by(64) {
                out.extend_from_slice(&self.word_at(at).to_be_bytes());
            }
            out.truncate(start + len);
        }
        // the bits past the stream's end in its last byte are zero
        if let Some(last) = out.get_mut(start..).and_then(<[u8]>::last_mut) {
            *last &= 0xFF << ((8 - n % 8) % 8);
        }
        self.pos += n;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// TD "Worked example": field 0 = 3 (bias 1, 4 bits), field 1 present = -5 (bias 0x80,
    /// 8 bits), field 2 = true.
    #[test]
    fn td_worked_example_present() {
        let mut bytes = Vec::new();
        let mut w = BitWriter::appending(&mut bytes);
        w.write_biased(3, 1, 4);
        w.write_bool(true);
        w.write_biased(-5, 0x80, 8);
        w.write_bool(true);
        assert_eq!(w.bit_len(), 14);
        assert_eq!(w.finish(), Ok(14));
        assert_eq!(bytes, [0x4B, 0xDC]);
    }

    #[test]
    fn td_worked_example_absent_and_zero_means_minus_bias() {
        let bytes = written(|w| {
            w.write_biased(3, 1, 4);
            w.write_bool(false);
            w.write_bool(true);
        });
        assert_eq!(bytes.unwrap(), [0x44]);
        let mut r = BitReader::new(&[0x00]);
        assert_eq!(r.read_biased(1, 4).unwrap(), -1);
    }

    /// Facts 10.1: `[3b=5][1b=1][16b=0xABCD][1b=0][7b=0][4b=4]` gives `BABCD004`.
    #[test]
    fn facts_bit_writer_vector() {
        let bytes = written(|w| {
            for (v, width) in [(5, 3), (1, 1), (0xABCD, 16), (0, 1), (0, 7), (4, 4)] {
                w.write(v, width);
            }
        })
        .unwrap();
        assert_eq!(bytes, [0xBA, 0xBC, 0xD0, 0x04]);
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.read(3).unwrap(), 5);
        assert_eq!(r.read(1).unwrap(), 1);
        assert_eq!(r.read(16).unwrap(), 0xABCD);
        assert_eq!(r.remaining_bits(), 12);
        let at = r.position();
        assert!(matches!(r.read(64), Err(BitError::PastEnd { .. })));
        assert_eq!(r.position(), at, "a failed read leaves the cursor");
        assert!(r.read(1).is_err(), "errors are sticky");
    }

    #[test]
    fn writer_errors_are_sticky_and_typed() {
        let mut bytes = vec![0xAA];
        let mut w = BitWriter::appending(&mut bytes);
        w.write(0xFF, 8);
        w.write(4, 2);
        w.write(1, 1);
        let too_wide = BitError::ValueTooWide {
            stored: 4,
            width: 2,
        };
        assert_eq!(w.error(), Some(too_wide));
        w.write(0, 65);
        assert_eq!(w.error(), Some(too_wide), "the first error sticks");
        assert_eq!(w.finish(), Err(too_wide));
        assert_eq!(
            bytes,
            [0xAA],
            "a failed writer leaves the buffer as it found it"
        );
        let mut w = BitWriter::measuring();
        w.write(0, 65);
        assert_eq!(w.error(), Some(BitError::BadWidth { width: 65 }));
        let mut w = BitWriter::measuring();
        w.write(0, 0);
        assert_eq!(w.error(), Some(BitError::BadWidth { width: 0 }));
        let mut w = BitWriter::measuring();
        w.write_biased(-2, 1, 4);
        assert!(w.error().is_some(), "-2 + 1 is negative");
    }

    /// AH: an int32 with bias -2^31 holds logical 0 as raw 0x80000000.
    #[test]
    fn wrapping_i32_with_negative_bias() {
        let bytes = written(|w| w.write_wrapping(0, -(1 << 31), 32));
        assert_eq!(bytes.unwrap(), [0x80, 0, 0, 0]);
    }

    /// Every i32 goes out plus 0x80000000 in 32 bits, at both ends and across zero, and
    /// reads back.
    #[test]
    fn an_i32_is_stored_with_its_bias() {
        for (value, stored) in [
            (i32::MIN, 0u32),
            (-1, 0x7FFF_FFFF),
            (0, 0x8000_0000),
            (1, 0x8000_0001),
            (i32::MAX, u32::MAX),
        ] {
            let bytes = written(|w| w.write_i32(value)).unwrap();
            assert_eq!(bytes, stored.to_be_bytes(), "{value}");
            assert_eq!(BitReader::new(&bytes).read_i32(), Ok(value));
        }
    }

    #[test]
    fn measuring_counts_without_storing() {
        let mut w = BitWriter::measuring();
        w.write(0xFFFF, 16);
        w.write_bool(true);
        w.write(u64::MAX, 64);
        assert_eq!(w.bit_len(), 81);
        assert_eq!(w.finish(), Ok(81));
    }

    #[test]
    fn appending_keeps_the_callers_bytes() {
        let mut bytes = vec![0xAA];
        let mut w = BitWriter::appending(&mut bytes);
        w.write(0b101, 3);
        assert_eq!(w.bit_len(), 3);
        assert_eq!(w.finish(), Ok(3));
        assert_eq!(bytes, [0xAA, 0xA0]);
    }

    /// A run whose buffer holds more than its bits is compared by its bits alone, at a
    /// byte boundary and off one: a whole-byte run with a stray byte after it, a run whose
    /// last byte has stray bits past its end.
    #[test]
    fn a_run_is_compared_by_its_bits_alone() {
        let bytes = [0xAB, 0xCD, 0xEF, 0x12];
        let whole = Bits {
            bytes: vec![0xAB, 0xCD, 0x00],
            bit_len: 16,
        };
        assert!(BitReader::new(&bytes).starts_with(&whole));
        let stray_bits = Bits {
            bytes: vec![0xAB, 0xCF],
            bit_len: 14,
        };
        assert!(BitReader::new(&bytes).starts_with(&stray_bits));
        let mut off = BitReader::new(&bytes);
        off.skip(4).unwrap();
        let stray_byte = Bits {
            bytes: vec![0xBC, 0xDE, 0xFF],
            bit_len: 16,
        };
        assert!(off.starts_with(&stray_byte));
    }

    proptest! {
        #[test]
        fn round_trip(fields in proptest::collection::vec((1u32..=64, any::<u64>()), 0..64)) {
            let fields: Vec<(u32, u64)> =
                fields.into_iter().map(|(width, v)| (width, v & low_mask(width))).collect();
            let bits = written_bits(|w| {
                for &(width, v) in &fields {
                    w.write(v, width);
                }
            })
            .unwrap();
            let total: usize = fields.iter().map(|f| f.0 as usize).sum();
            prop_assert_eq!(bits.bit_len, total);
            let bytes = bits.bytes;
            prop_assert_eq!(bytes.len(), total.div_ceil(8));
            let mut r = BitReader::new(&bytes);
            for &(width, v) in &fields {
                prop_assert_eq!(r.read(width).unwrap(), v);
            }
            prop_assert!(r.remaining_bits() < 8);
            while r.remaining_bits() > 0 {
                prop_assert_eq!(r.read(1).unwrap(), 0, "padding is zero");
            }
        }

        /// A stream copied out is the bits read one at a time, zero-padded, from any
        /// offset and of any length; a stream past the end is refused. The offset is at
        /// most the end (a skip past it stops there), where an empty stream fits.
        #[test]
        fn a_stream_is_its_bits(bytes in proptest::collection::vec(any::<u8>(), 0..40), skip in 0usize..64, n in 0usize..320) {
            let mut r = BitReader::new(&bytes);
            let skip = skip.min(bytes.len() * 8);
            let fits = skip + n <= bytes.len() * 8;
            prop_assume!(r.skip(skip).is_ok());
            let mut one_by_one = r.clone();
            let got = r.read_stream(n);
            if !fits {
                prop_assert!(got.is_err());
                return Ok(());
            }
            let want = written(|w| {
                for _ in 0..n {
                    w.write_bool(one_by_one.read_bool().unwrap());
                }
            });
            prop_assert_eq!(got.unwrap(), want.unwrap());
            prop_assert_eq!(r.position(), skip + n);
        }

        /// A range copied out, into bits that held others, is the bits read there; one
        /// past the end leaves none.
        #[test]
        fn a_range_copied_is_its_bits(bytes in proptest::collection::vec(any::<u8>(), 0..40), start in 0usize..320, n in 0usize..320) {
            let mut bits = Bits { bytes: vec![0xA5; 9], bit_len: 70 };
            bits.copy_range(&bytes, start..start + n);
            let mut r = BitReader::new(&bytes);
            match r.skip(start).and_then(|()| r.read_bits(n)) {
                Ok(want) => prop_assert_eq!(bits, want),
                Err(_) => prop_assert_eq!(bits, Bits::default()),
            }
        }

        /// The bits at the cursor start with a run exactly when reading that many bits
        /// there gives the run: at any offset, for runs of any length, one bit off or one
        /// bit too long.
        #[test]
        fn starts_with_is_reading_the_same_bits(bytes in proptest::collection::vec(any::<u8>(), 1..40), skip in 0usize..64, n in 0usize..320, flip in any::<usize>()) {
            let mut r = BitReader::new(&bytes);
            prop_assume!(r.skip(skip).is_ok());
            let Ok(run) = r.clone().read_bits(n) else {
                let past = Bits { bytes: vec![0; n.div_ceil(8)], bit_len: n };
                prop_assert!(!r.starts_with(&past), "a run past the end");
                return Ok(());
            };
            prop_assert!(r.starts_with(&run));
            if n > 0 {
                let mut other = run.clone();
                let bit = flip % n;
                other.bytes[bit / 8] ^= 0x80 >> (bit % 8);
                prop_assert!(!r.starts_with(&other), "bit {} flipped", bit);
            }
        }

        #[test]
        fn biased_round_trip(v in -1000i64..1000, bias in 1000i64..5000) {
            let bytes = written(|w| w.write_biased(v, bias, 16)).unwrap();
            prop_assert_eq!(BitReader::new(&bytes).read_biased(bias, 16).unwrap(), v);
        }
    }
}
