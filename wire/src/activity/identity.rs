//! Message 23, client_identity_update (C->H): the member identity record, 46 bytes
//! (facts 4.12; SR "What each client message gets": 23 commits the identity).
//!
//! The fields are those of a message-12 member lane (facts 4.10), so the record converts
//! to and from [`Member`].

use crate::activity::body::Body;
use crate::activity::membership::{Member, read_identity, write_identity};
use crate::bits::{BitError, BitReader, BitWriter};

/// The body's length: 362 meaningful bits and 6 of padding (facts 4.12).
pub const CLIENT_IDENTITY_LEN: usize = 46;
/// The padding after field 6.
pub const PADDING_BITS: usize = 6;

/// Message 23's record: a member lane's fields without the leave reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIdentity(pub Member);

/// The 46-byte body: the key low byte first, then the biased and plain fields.
impl Body for ClientIdentity {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        write_identity(w, &self.0);
        w.write_zeros(PADDING_BITS);
    }

    /// Reads the record; fails only when the body ends first (BODY-04). The leave reason,
    /// which message 23 does not carry, is 0 (present).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        read_identity(r).map(Self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Value, decode, messages::CLIENT_IDENTITY_UPDATE};

    fn sample() -> ClientIdentity {
        let mut m = Member::seed(0x0102_0304_0506_0708, 0x9EAA_3001_0000_0042, 0x77);
        m.field6 = 0xDEAD_BEEF;
        ClientIdentity(m)
    }

    #[test]
    fn is_46_bytes_and_round_trips() {
        let body = sample().encode().unwrap();
        assert_eq!(body.len(), CLIENT_IDENTITY_LEN);
        assert_eq!(ClientIdentity::decode(&body).unwrap(), sample());
        assert!(ClientIdentity::decode(&body[..45]).is_err());
    }

    /// The typed codec and the schema walker read the same bits (design "Independence").
    #[test]
    fn agrees_with_the_schema() {
        let m = sample().0;
        let body = sample().encode().unwrap();
        let value = decode(&CLIENT_IDENTITY_UPDATE, &mut BitReader::new(&body)).unwrap();
        let Value::Record(fields) = value else {
            panic!("not a record: {value:?}");
        };
        let key: Vec<Value> = m
            .member_key
            .to_le_bytes()
            .iter()
            .map(|&b| Value::Int(i128::from(b)))
            .collect();
        assert_eq!(fields[0], Value::Array(key), "key low byte first");
        assert_eq!(fields[1], Value::Int(i128::from(m.field1)));
        assert_eq!(fields[2], Value::Int(i128::from(m.field2)));
        assert_eq!(fields[3], Value::Int(i128::from(m.join_identity)));
        assert_eq!(fields[6], Value::Int(i128::from(m.field6)));
    }
}
