//! A streaming BAP deframer (NS "The frame"; facts 2.1).
//!
//! It accepts the byte stream in any split, yields whole frames, and refuses a frame longer
//! than its limit as soon as the outer header is read, without allocating for it.

use super::header::{FrameType, MAGIC, OUTER_HEADER_LEN};
use thiserror::Error;

/// The default frame limit: a service-9 payload of 0x7D800 bytes (facts 4.0) plus the
/// service-9 and inner headers and a GCM tag, rounded up to 528 KiB.
pub const DEFAULT_MAX_FRAME_LEN: usize = 528 * 1024;

/// Why the stream cannot be framed. The stream cannot resync after any of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum DeframeError {
    /// The magic byte is not 1 (BAP-01).
    #[error("bad magic 0x{0:02X}")]
    BadMagic(u8),
    /// A frame type other than 0, 1 or 2 (BAP-01).
    #[error("bad frame type {0}")]
    BadFrameType(u8),
    /// The length field exceeds the limit.
    #[error("frame of {len} bytes exceeds the {max}-byte limit")]
    TooLong {
        /// The length in the header.
        len: usize,
        /// The limit.
        max: usize,
    },
}

/// One whole frame: its type and the bytes after the outer header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The frame type.
    pub frame_type: FrameType,
    /// Inner message (plaintext) or tag and ciphertext (encrypted).
    pub payload: Vec<u8>,
}

/// Reassembles frames from a byte stream split anywhere. Whole frames are read from a
/// cursor, and the consumed bytes are dropped once per [`Deframer::push`], so many small
/// frames in one read cost linear time.
#[derive(Debug)]
pub struct Deframer {
    buf: Vec<u8>,
    start: usize,
    max_frame_len: usize,
    error: Option<DeframeError>,
    rejected: Option<[u8; OUTER_HEADER_LEN]>,
}

impl Default for Deframer {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_FRAME_LEN)
    }
}

impl Deframer {
    /// A deframer that refuses frames longer than `max_frame_len` bytes after the header.
    pub fn new(max_frame_len: usize) -> Self {
        Self {
            buf: Vec::new(),
            start: 0,
            max_frame_len,
            error: None,
            rejected: None,
        }
    }

    /// Appends received bytes. Bytes after an error are ignored.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            self.buf.drain(..self.start);
            self.start = 0;
            self.buf.extend_from_slice(bytes);
        }
    }

    /// The outer header that stopped the stream, once one has: a transcript that keeps it
    /// lets a replay stop at the same place.
    pub fn rejected_header(&self) -> Option<&[u8]> {
        self.rejected.as_ref().map(|h| h.as_slice())
    }

    /// Bytes held that do not yet make a whole frame.
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    /// The next whole frame, `Ok(None)` when more bytes are needed, or the sticky error.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, DeframeError> {
        let mut payload = Vec::new();
        let frame_type = self.next_frame_into(&mut payload)?;
        Ok(frame_type.map(|frame_type| Frame {
            frame_type,
            payload,
        }))
    }

    /// [`Deframer::next_frame`] with the payload copied into `payload` (its capacity
    /// reused): the frame's type, `Ok(None)` when more bytes are needed, or the sticky
    /// error.
    pub fn next_frame_into(
        &mut self,
        payload: &mut Vec<u8>,
    ) -> Result<Option<FrameType>, DeframeError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let rest = self.buf.get(self.start..).unwrap_or_default();
        let Some((head, after)) = rest.split_first_chunk::<OUTER_HEADER_LEN>() else {
            return Ok(None);
        };
        let [magic, type_byte, l0, l1, l2, l3] = *head;
        let len = u32::from_be_bytes([l0, l1, l2, l3]) as usize;
        let checked = if magic != MAGIC {
            Err(DeframeError::BadMagic(magic))
        } else if len > self.max_frame_len {
            Err(DeframeError::TooLong {
                len,
                max: self.max_frame_len,
            })
        } else {
            FrameType::from_byte(type_byte).ok_or(DeframeError::BadFrameType(type_byte))
        };
        let frame_type = match checked {
            Ok(t) => t,
            Err(e) => {
                self.error = Some(e);
                self.rejected = Some(*head);
                self.buf = Vec::new();
                self.start = 0;
                return Err(e);
            }
        };
        let Some(bytes) = after.get(..len) else {
            return Ok(None);
        };
        payload.clear();
        payload.extend_from_slice(bytes);
        self.start += OUTER_HEADER_LEN + len;
        Ok(Some(frame_type))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bap::header::{InnerHeader, plain_frame};
    use proptest::prelude::*;

    fn three_frames() -> Vec<u8> {
        let mut s = plain_frame(FrameType::Plain, InnerHeader::request(16, 1), &[1; 8]);
        s.extend(plain_frame(
            FrameType::Bootstrap,
            InnerHeader::request(30, 2),
            &[2; 128],
        ));
        s.extend(plain_frame(
            FrameType::Plain,
            InnerHeader::request(250, 3),
            &[],
        ));
        s
    }

    #[test]
    fn refuses_oversized_frame_from_the_header_alone() {
        let mut d = Deframer::new(1000);
        d.push(&[1, 0, 0, 0, 0x03, 0xE9]);
        assert_eq!(
            d.next_frame(),
            Err(DeframeError::TooLong {
                len: 1001,
                max: 1000
            })
        );
        assert_eq!(d.buffered(), 0);
        d.push(&[0; 10]);
        assert!(d.next_frame().is_err(), "the error is sticky");
    }

    #[test]
    fn refuses_bad_magic_and_type() {
        let mut d = Deframer::default();
        d.push(&[2, 0, 0, 0, 0, 0]);
        assert_eq!(d.next_frame(), Err(DeframeError::BadMagic(2)));
        let mut d = Deframer::default();
        d.push(&[1, 3, 0, 0, 0, 0]);
        assert_eq!(d.next_frame(), Err(DeframeError::BadFrameType(3)));
    }

    #[test]
    fn many_frames_in_one_read_all_come_out() {
        let mut d = Deframer::default();
        let stream: Vec<u8> = (0..10_000).flat_map(|_| [1u8, 0, 0, 0, 0, 0]).collect();
        d.push(&stream);
        let mut n = 0;
        while let Some(f) = d.next_frame().unwrap() {
            assert!(f.payload.is_empty());
            n += 1;
        }
        assert_eq!(n, 10_000);
        assert_eq!(d.buffered(), 0);
    }

    proptest! {
        #[test]
        fn any_split_gives_the_same_frames(cuts in proptest::collection::vec(0usize..200, 0..20)) {
            let stream = three_frames();
            let mut whole = Deframer::default();
            whole.push(&stream);
            let mut expected = Vec::new();
            while let Some(f) = whole.next_frame().unwrap() {
                expected.push(f);
            }
            prop_assert_eq!(expected.len(), 3);

            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % stream.len()).collect();
            cuts.sort_unstable();
            let mut d = Deframer::default();
            let mut got = Vec::new();
            let mut at = 0;
            for c in cuts.into_iter().chain([stream.len()]) {
                d.push(&stream[at..c.max(at)]);
                at = c.max(at);
                while let Some(f) = d.next_frame().unwrap() {
                    got.push(f);
                }
            }
            prop_assert_eq!(got, expected);
        }
    }
}
