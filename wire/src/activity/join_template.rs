//! Message 4 from a template: the host encodes its join_result once and patches in what
//! each join changes (AH "join_result, message 4"; facts 4.2).
//!
//! A join_result is 6,053 bits, almost all of them the host's own: its return code, its
//! windows, the unnamed fields 10 to 16 and its workspace name. Only the request echo
//! (field 0) and the session name (field 2) differ from one join to the next. Writing
//! every field costs about 550 ns; copying the template and patching two fields costs a
//! few tens of nanoseconds.

use super::body::Body;
use super::join::{JOIN_REQUEST_BITS, JoinResult};
use crate::bits::BitError;

/// Bit offset of field 2, the session name (facts 4.2).
const SESSION_NAME_BIT: usize = 573;
/// The session name's characters that carry the session id: 16 lowercase hex digits.
pub const SESSION_ID_CHARS: usize = 16;
/// The byte where the echo ends, the 3-bit result sits and the session name begins.
const SHARED_BYTE: usize = JOIN_REQUEST_BITS / 8;
const _: () = assert!(SESSION_NAME_BIT / 8 == SHARED_BYTE);
/// The bits of the shared byte that belong to the echo.
const ECHO_TAIL_MASK: u8 = 0xFF << (8 - JOIN_REQUEST_BITS % 8);
/// Bits of the session id's characters in the shared byte.
const SESSION_HEAD_BITS: u32 = 8 - (SESSION_NAME_BIT % 8) as u32;
/// The bits of the shared byte that belong to the session name.
const SESSION_HEAD_MASK: u8 = (1 << SESSION_HEAD_BITS) - 1;
/// The byte where the session id's characters end; its low bits start character 16.
const SESSION_LAST_BYTE: usize = SHARED_BYTE + SESSION_ID_CHARS;

/// A join_result encoded once, for every join of one host.
#[derive(Debug, Clone)]
pub struct JoinResultTemplate {
    body: Vec<u8>,
}

impl JoinResultTemplate {
    /// Encodes `base` once. Its echo and the first 16 characters of its session name are
    /// replaced at each join; every other field goes out as `base` has it.
    pub fn new(base: &JoinResult) -> Result<Self, BitError> {
        Ok(Self {
            body: base.encode()?,
        })
    }

    /// The body for one join: `request` (the join_request record, zero-extended to 570
    /// bits) echoed as field 0, and `session_id` as the session name's first 16
    /// characters, in lowercase hex as [`JoinResult::accept`] writes it. The body is
    /// written front to back (the echo, the byte the echo shares with the result, the 16
    /// characters, then the template's remainder), so no byte is written twice and no
    /// byte just written is read back.
    pub fn encode(&self, request: &[u8], session_id: u64) -> Vec<u8> {
        let mut body = Vec::with_capacity(self.body.len());
        self.encode_into(&mut body, request, session_id);
        body
    }

    /// [`JoinResultTemplate::encode`], appended to `body`: a caller that keeps its buffer
    /// saves the allocation.
    #[inline]
    pub fn encode_into(&self, body: &mut Vec<u8>, request: &[u8], session_id: u64) {
        let template = |i: usize| self.body.get(i).copied().unwrap_or(0);
        let start = body.len();
        body.extend_from_slice(request.get(..SHARED_BYTE).unwrap_or(request));
        body.resize(start + SHARED_BYTE, 0);
        let echo_tail = request.get(SHARED_BYTE).copied().unwrap_or(0) & ECHO_TAIL_MASK;
        let digits = stored_hex(session_id);
        let result_bits = template(SHARED_BYTE) & !ECHO_TAIL_MASK & !SESSION_HEAD_MASK;
        body.push(echo_tail | result_bits | (digits >> (128 - SESSION_HEAD_BITS)) as u8);
        let rest = (digits << SESSION_HEAD_BITS).to_be_bytes();
        body.extend_from_slice(&rest[..15]);
        // 16 characters end as far into their last byte as they started into the first.
        body.push(rest[15] | (template(SESSION_LAST_BYTE) & SESSION_HEAD_MASK));
        body.extend_from_slice(self.body.get(SESSION_LAST_BYTE + 1..).unwrap_or(&[]));
    }
}

/// The 16 lowercase hex digits of `id` as stored characters (each plus the bias 128),
/// first digit in the high byte: the nibbles are spread one to a byte, then each becomes
/// its ASCII digit without a branch.
fn stored_hex(id: u64) -> u128 {
    const fn every_byte(b: u8) -> u128 {
        u128::from_ne_bytes([b; 16])
    }
    let mut x = u128::from(id);
    x = (x | (x << 32)) & 0x0000_0000_FFFF_FFFF_0000_0000_FFFF_FFFF;
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF_0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF_00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & every_byte(0x0F);
    let letters = ((x + every_byte(6)) >> 4) & every_byte(1);
    (x + every_byte(b'0') + letters * u128::from(b'a' - b'0' - 10)) ^ every_byte(0x80)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activity::join::JoinRequest;
    use proptest::prelude::*;

    proptest! {
        /// The template gives the same bytes as writing every field.
        #[test]
        fn matches_the_field_by_field_encoder(
            record in proptest::collection::vec(any::<u8>(), 0..80),
            session in any::<u64>(),
            keepalive in any::<u16>(),
            rejected in any::<bool>(),
        ) {
            let mut base = JoinResult::accept(&JoinRequest::new(7, 8, 9, 10), 0xFFFF_FFFF_FFFF_FFFF);
            base.keepalive_interval_ms = keepalive;
            base.result = if rejected { -1 } else { 0 };
            let template = JoinResultTemplate::new(&base).unwrap();
            let mut want = base.clone();
            want.request = record.clone();
            want.request.truncate(JOIN_REQUEST_BITS.div_ceil(8));
            if let Some(last) = want.request.get_mut(SHARED_BYTE) {
                *last &= ECHO_TAIL_MASK;
            }
            want.session_name = JoinResult::accept(&JoinRequest::new(0, 0, 0, 0), session).session_name;
            let want = want.encode().unwrap();
            prop_assert_eq!(hex::encode(template.encode(&record, session)), hex::encode(&want));
            let mut appended = vec![0xEE];
            template.encode_into(&mut appended, &record, session);
            prop_assert_eq!(&appended[1..], &want[..], "appended after what the buffer held");
        }
    }

    #[test]
    fn session_digits_are_lowercase_hex() {
        let text: Vec<u8> = stored_hex(0x0123_4567_89AB_CDEF)
            .to_be_bytes()
            .iter()
            .map(|b| b ^ 0x80)
            .collect();
        assert_eq!(text, b"0123456789abcdef");
    }
}
