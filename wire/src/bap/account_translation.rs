//! Services 23 and 24, account id translation (NS "The service registry"; facts 2.2):
//! the client sends 12 bytes, `u16 BE count, u8 type A, u8 type B, u64 BE identity`; the
//! host answers `u16 BE count, u8, u8`, then per entry the identity echoed and the u64 BE
//! account id: 20 bytes for one (`00 01 0C FF`, identity, account), or Sunrise's
//! smallest, `00 00 FF FF`. A truly empty answer kills the link (BAP-11).

use thiserror::Error;

/// Service 23: the request (C->S).
pub const REQUEST: u16 = 23;
/// Service 24: the answer (S->C).
pub const RESPONSE: u16 = 24;

/// The request's 12 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TranslationRequest {
    /// How many identities (the client asks for one).
    pub count: u16,
    /// The identity's first type byte.
    pub type_a: u8,
    /// Its second.
    pub type_b: u8,
    /// The identity to translate.
    pub identity: u64,
}

/// One translated identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Translation {
    /// The identity asked for, echoed.
    pub identity: u64,
    /// Its account id.
    pub account: u64,
}

/// The answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslationResponse {
    /// The two bytes after the count: `0C FF` with entries, `FF FF` without (facts 2.2).
    pub kinds: [u8; 2],
    /// The entries.
    pub entries: Vec<Translation>,
}

/// Why a body is not what its side takes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TranslationError {
    /// An empty answer: the client overruns (BAP-11).
    #[error("an empty answer: the client reads past it and the link ends")]
    Empty,
    /// A body of the wrong length for its count.
    #[error("{got} bytes where its count of {count} needs {want}")]
    Length {
        /// The count it gives.
        count: u16,
        /// The length received.
        got: usize,
        /// The length the count needs.
        want: usize,
    },
}

impl TranslationRequest {
    /// The request's length.
    pub const LEN: usize = 12;

    /// The 12 bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::LEN);
        out.extend_from_slice(&self.count.to_be_bytes());
        out.extend_from_slice(&[self.type_a, self.type_b]);
        out.extend_from_slice(&self.identity.to_be_bytes());
        out
    }

    /// Exactly 12 bytes.
    pub fn decode(body: &[u8]) -> Result<Self, TranslationError> {
        let b: &[u8; 12] = body.try_into().map_err(|_| TranslationError::Length {
            count: 1,
            got: body.len(),
            want: Self::LEN,
        })?;
        Ok(Self {
            count: u16::from_be_bytes([b[0], b[1]]),
            type_a: b[2],
            type_b: b[3],
            identity: u64::from_be_bytes([b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11]]),
        })
    }
}

impl TranslationResponse {
    /// The answer translating `identity` to `account`: 20 bytes.
    pub fn one(identity: u64, account: u64) -> Self {
        Self {
            kinds: [0x0C, 0xFF],
            entries: vec![Translation { identity, account }],
        }
    }

    /// The bytes.
    pub fn encode(&self) -> Vec<u8> {
        let count = u16::try_from(self.entries.len()).unwrap_or(u16::MAX);
        let mut out = Vec::with_capacity(4 + 16 * self.entries.len());
        out.extend_from_slice(&count.to_be_bytes());
        out.extend_from_slice(&self.kinds);
        for e in self.entries.iter().take(usize::from(count)) {
            out.extend_from_slice(&e.identity.to_be_bytes());
            out.extend_from_slice(&e.account.to_be_bytes());
        }
        out
    }

    /// The answer as the client reads it: at least the 4-byte head, and 16 bytes per
    /// entry its count names.
    pub fn decode(body: &[u8]) -> Result<Self, TranslationError> {
        if body.is_empty() {
            return Err(TranslationError::Empty);
        }
        let short = |count| TranslationError::Length {
            count,
            got: body.len(),
            want: 4 + 16 * usize::from(count),
        };
        let (&[c0, c1, k0, k1], rest) = body.split_first_chunk::<4>().ok_or(short(0))?;
        let count = u16::from_be_bytes([c0, c1]);
        if body.len() != 4 + 16 * usize::from(count) {
            return Err(short(count));
        }
        let entries = rest
            .chunks_exact(16)
            .map(|c| {
                let (id, account) = c.split_at(8);
                Translation {
                    identity: u64::from_be_bytes(id.try_into().unwrap_or_default()),
                    account: u64::from_be_bytes(account.try_into().unwrap_or_default()),
                }
            })
            .collect();
        Ok(Self {
            kinds: [k0, k1],
            entries,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Facts 2.2: one entry is `00 01 0C FF`, the identity, the account: 20 bytes; the
    /// smallest answer is `00 00 FF FF`.
    #[test]
    fn sunrises_shapes() {
        let r = TranslationResponse::one(0x1122_3344_5566_7788, 0x9EAA_3001_0000_0001);
        let bytes = r.encode();
        assert_eq!(bytes.len(), 20);
        assert_eq!(&bytes[..4], &[0x00, 0x01, 0x0C, 0xFF]);
        assert_eq!(TranslationResponse::decode(&bytes), Ok(r));
        let none = TranslationResponse::decode(&[0, 0, 0xFF, 0xFF]).unwrap();
        assert!(none.entries.is_empty());
        assert_eq!(
            TranslationResponse::decode(&[]),
            Err(TranslationError::Empty)
        );
        for len in [1, 3, 19, 21] {
            assert!(
                TranslationResponse::decode(
                    &bytes
                        .iter()
                        .copied()
                        .chain([0; 8])
                        .take(len)
                        .collect::<Vec<_>>()
                )
                .is_err(),
                "{len}"
            );
        }
        let q = TranslationRequest {
            count: 1,
            type_a: 1,
            type_b: 2,
            identity: 7,
        };
        assert_eq!(TranslationRequest::decode(&q.encode()), Ok(q));
        assert!(TranslationRequest::decode(&[0; 11]).is_err());
    }
}
