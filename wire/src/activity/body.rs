//! The one trait every typed activity body implements (AH "Body encoding").
//!
//! A body writes into a writer the caller owns and reads from a reader with a typed error;
//! it measures its exact bits on demand (the measuring writer runs the same `write`, so
//! measure and write cannot disagree), and encodes in one pass, into a fresh buffer or
//! appended to one the caller keeps.

use crate::bits::{BitError, BitReader, BitWriter};

/// A typed body: one message's, or a part several messages share (AH "Body encoding").
pub trait Body {
    /// What [`Body::read`] gives: the body itself, or for a body whose content a reader
    /// cannot size without the slot's schemas (messages 5 and 6), its decoded form.
    type Decoded;

    /// Writes the body at the writer's cursor. A value the client cannot take fails the
    /// writer (BODY-05).
    fn write(&self, w: &mut BitWriter);

    /// Reads a body at the reader's cursor; fails only where the reader runs out of bits
    /// or meets a shape the pages do not describe (BODY-04: trailing bits are fine).
    fn read(r: &mut BitReader<'_>) -> Result<Self::Decoded, BitError>;

    /// A cheap estimate of the body's bits, for the buffer's capacity; 0 when the body
    /// does not know one.
    fn capacity_bits(&self) -> usize {
        0
    }

    /// The body's exact bits, or the error writing it would give.
    fn measure(&self) -> Result<usize, BitError> {
        let mut w = BitWriter::measuring();
        self.write(&mut w);
        w.finish()
    }

    /// Reads a whole body from its bytes.
    fn decode(body: &[u8]) -> Result<Self::Decoded, BitError> {
        Self::read(&mut BitReader::new(body))
    }

    /// The body's bytes, zero-padded to a whole byte (BODY-01).
    fn encode(&self) -> Result<Vec<u8>, BitError> {
        let mut out = Vec::new();
        self.encode_into(&mut out)?;
        Ok(out)
    }

    /// Appends the body's bytes to `out`, zero-padded to a whole byte. On an error `out`
    /// is left as it was.
    fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), BitError> {
        out.reserve(self.capacity_bits().div_ceil(8));
        let mut w = BitWriter::appending(out);
        self.write(&mut w);
        w.finish().map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Byte(u8);

    impl Body for Byte {
        type Decoded = u8;
        fn write(&self, w: &mut BitWriter) {
            if self.0 == 0xFF {
                w.fail(BitError::Unsafe {
                    what: "a byte the test refuses",
                    value: 0xFF,
                });
            }
            w.write(u64::from(self.0), 8);
        }
        fn read(r: &mut BitReader<'_>) -> Result<u8, BitError> {
            Ok(r.read(8)? as u8)
        }
    }

    #[test]
    fn encode_into_appends_and_leaves_the_buffer_on_an_error() {
        let mut out = vec![1];
        Byte(2).encode_into(&mut out).unwrap();
        assert_eq!(out, [1, 2]);
        assert_eq!(Byte::decode(&out[1..]), Ok(2));
        assert_eq!(Byte(2).measure(), Ok(8));
        assert!(Byte(0xFF).encode_into(&mut out).is_err());
        assert_eq!(out, [1, 2], "a failed encode leaves the buffer");
    }
}
