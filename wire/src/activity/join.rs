//! Messages 3 join_request and 4 join_result (AH "join_result, message 4"; facts 4.1, 4.2).

use super::body::Body;
use crate::bits::{BitError, BitReader, BitWriter, written};

/// Bits in the join_request record; join_result echoes all of them as its field 0.
pub const JOIN_REQUEST_BITS: usize = 570;
/// Bit offset of the character id inside the join_request record (facts 4.1).
pub const CHARACTER_ID_BIT: usize = 330;
/// The minimum join_result body: 6,053 bits (JOIN-03).
pub const JOIN_RESULT_BITS: usize = 6053;
/// The minimum join_result body in bytes: 757 (JOIN-03).
pub const JOIN_RESULT_LEN: usize = 757;
/// Bias of the join_result result field; only logical 0 accepts (JOIN-04).
pub const RESULT_BIAS: i64 = 1;
/// Bias of each character of the two strings (AH: element bias 128).
pub const CHAR_BIAS: i64 = 128;
/// Bits of join_result fields 10 to 16, between the keepalive and the workspace name.
/// Their meaning is an open question of AH; Vex writes zeros as Sunrise does.
pub const UNNAMED_FIELDS_BITS: usize = 4005 - 1797;
/// The replication epoch Vex's join_result starts the client at; each message 44 then
/// carries the one after (EPOCH-01).
pub const INITIAL_REPLICATION_EPOCH: u8 = 0;
/// Bit offset of join_result field 9, the keepalive interval (JOIN-07).
pub const KEEPALIVE_INTERVAL_BIT: usize = 1781;
/// Clock base ticks per second (JOIN-08).
pub const CLOCK_TICKS_PER_SECOND: u64 = 673_200;

/// Message 3: the fields the pages and facts name. The rest of the 570-bit record is kept
/// raw so the host can echo it bit for bit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinRequest {
    /// Bits 0-31: the correlation nonce.
    pub nonce: u32,
    /// Bits 32-95: the activity host id, which is the session id from service 7.
    pub host_id: u64,
    /// Bits 96-159: the member key, an 8-byte little-endian field (facts 4.1).
    pub member_key: u64,
    /// Bits 330-393: the signed-in character id (facts 4.1).
    pub character_id: u64,
    /// The whole record as received, zero-padded to 570 bits.
    pub record: Vec<u8>,
}

impl JoinRequest {
    /// A request whose undocumented bits are zero.
    pub fn new(nonce: u32, host_id: u64, member_key: u64, character_id: u64) -> Self {
        let record = written(|w| {
            w.write(u64::from(nonce), 32);
            w.write(host_id, 64);
            for b in member_key.to_le_bytes() {
                w.write(u64::from(b), 8);
            }
            w.write_zeros(CHARACTER_ID_BIT - 160);
            w.write(character_id, 64);
            w.write_zeros(JOIN_REQUEST_BITS - CHARACTER_ID_BIT - 64);
        })
        .unwrap_or_default();
        Self {
            nonce,
            host_id,
            member_key,
            character_id,
            record,
        }
    }
}

/// The body on the wire: the 570-bit record (72 bytes).
impl Body for JoinRequest {
    type Decoded = Self;

    /// The record as kept; a shorter one is zero-extended to 570 bits.
    fn write(&self, w: &mut BitWriter) {
        let kept = JOIN_REQUEST_BITS.min(self.record.len() * 8);
        w.write_stream(&self.record, kept);
        w.write_zeros(JOIN_REQUEST_BITS - kept);
    }

    /// Reads a join_request. Like Sunrise it needs the first 20 bytes; a shorter record is
    /// zero-extended, and the character id is zero when the body stops before it.
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let bits = JOIN_REQUEST_BITS.min(r.remaining_bits());
        let mut record = r.read_stream(bits)?;
        record.resize(JOIN_REQUEST_BITS.div_ceil(8), 0);
        let mut f = BitReader::with_bit_len(&record, bits);
        let nonce = f.read(32)? as u32;
        let host_id = f.read(64)?;
        let mut key = [0u8; 8];
        for b in &mut key {
            *b = f.read(8)? as u8;
        }
        let character_id = if f.skip(CHARACTER_ID_BIT - 160).is_ok() {
            f.read(64).unwrap_or(0)
        } else {
            0
        };
        Ok(Self {
            nonce,
            host_id,
            member_key: u64::from_le_bytes(key),
            character_id,
            record,
        })
    }
}

/// Message 4: the level-0 record of 18 fields, no presence bits (AH table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinResult {
    /// Field 0: the whole join_request record (570 bits); nonce and host id correlate.
    pub request: Vec<u8>,
    /// Field 1 @570: the result, 3 bits, bias 1; only logical 0 accepts (JOIN-04).
    pub result: i8,
    /// Field 2 @573: host session id as 128 characters, bias 128.
    pub session_name: Vec<i8>,
    /// Field 3 @1597: host process id, printed only.
    pub process_id: u32,
    /// Field 4 @1629: host return code, bias 0x80000000, printed only.
    pub return_code: i32,
    /// Field 5 @1661: host handoff nonce, telemetry only.
    pub handoff_nonce: u32,
    /// Field 6 @1693: activity clock base in ticks of 1/673,200 s (JOIN-08).
    pub clock_base: u64,
    /// Field 7 @1757: the initial replication epoch.
    pub initial_epoch: u8,
    /// Field 8 @1765: the peer-heard window in ms.
    pub peer_heard_window_ms: u16,
    /// Field 9 @1781: the keepalive interval in ms (JOIN-07).
    pub keepalive_interval_ms: u16,
    /// Field 17 @4005: the active workspace name, 256 characters, bias 128.
    pub workspace_name: Vec<i8>,
}

/// Characters in field 2.
pub const SESSION_NAME_CHARS: usize = 128;
/// Characters in field 17.
pub const WORKSPACE_NAME_CHARS: usize = 256;

/// A string field as logical characters: the text, then logical zeros.
pub fn text_field(text: &str, chars: usize) -> Vec<i8> {
    let mut v: Vec<i8> = text.bytes().take(chars).map(|b| b as i8).collect();
    v.resize(chars, 0);
    v
}

/// Writes `count` characters with bias 128, four to a 32-bit write (every i8 plus 128
/// fits a byte); missing characters are logical zeros.
fn write_chars(w: &mut BitWriter, chars: &[i8], count: usize) {
    let stored = |i: usize| u64::from((chars.get(i).copied().unwrap_or(0) as u8) ^ 0x80);
    let mut i = 0;
    while i < count {
        let n = (count - i).min(4);
        let word = (i..i + n).fold(0u64, |acc, j| (acc << 8) | stored(j));
        w.write(word, 8 * n as u32);
        i += n;
    }
}

fn read_chars(r: &mut BitReader<'_>, count: usize) -> Result<Vec<i8>, BitError> {
    (0..count)
        .map(|_| r.read_biased(CHAR_BIAS, 8).map(|c| c as i8))
        .collect()
}

impl JoinResult {
    /// An accepting join_result for `request` with Vex's defaults: keepalive 2,000 ms and
    /// peer-heard window 5,000 ms (SR "The join burst").
    pub fn accept(request: &JoinRequest, session_id: u64) -> Self {
        Self {
            request: request.record.clone(),
            result: 0,
            session_name: text_field(&format!("{session_id:016x}"), SESSION_NAME_CHARS),
            process_id: 0,
            return_code: 0,
            handoff_nonce: 0,
            clock_base: 0,
            initial_epoch: INITIAL_REPLICATION_EPOCH,
            peer_heard_window_ms: 5000,
            keepalive_interval_ms: 2000,
            workspace_name: text_field("", WORKSPACE_NAME_CHARS),
        }
    }

    /// Bits 0-31 of the echoed request: the nonce (JOIN-05).
    pub fn echoed_nonce(&self) -> u32 {
        BitReader::new(&self.request).read(32).unwrap_or(0) as u32
    }

    /// Bits 32-95 of the echoed request: the host id every later push carries (JOIN-06).
    pub fn echoed_host_id(&self) -> u64 {
        let mut r = BitReader::new(&self.request);
        r.skip(32).and_then(|()| r.read(64)).unwrap_or(0)
    }
}

/// The 757-byte body: 6,053 bits with no presence bits (AH "join_result, message 4").
impl Body for JoinResult {
    type Decoded = Self;

    fn capacity_bits(&self) -> usize {
        JOIN_RESULT_BITS
    }

    fn write(&self, w: &mut BitWriter) {
        let echoed = JOIN_REQUEST_BITS.min(self.request.len() * 8);
        w.write_stream(&self.request, echoed);
        w.write_zeros(JOIN_REQUEST_BITS - echoed);
        w.write_biased(i64::from(self.result), RESULT_BIAS, 3);
        write_chars(w, &self.session_name, SESSION_NAME_CHARS);
        w.write(u64::from(self.process_id), 32);
        w.write_i32(self.return_code);
        w.write(u64::from(self.handoff_nonce), 32);
        w.write(self.clock_base, 64);
        w.write(u64::from(self.initial_epoch), 8);
        w.write(u64::from(self.peer_heard_window_ms), 16);
        w.write(u64::from(self.keepalive_interval_ms), 16);
        w.write_zeros(UNNAMED_FIELDS_BITS);
        write_chars(w, &self.workspace_name, WORKSPACE_NAME_CHARS);
    }

    /// Reads a join_result; fails only when the body is shorter than 6,053 bits (JOIN-03).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let request = r.read_stream(JOIN_REQUEST_BITS)?;
        let result = r.read_biased(RESULT_BIAS, 3)? as i8;
        let session_name = read_chars(r, SESSION_NAME_CHARS)?;
        let process_id = r.read(32)? as u32;
        let return_code = r.read_i32()?;
        let handoff_nonce = r.read(32)? as u32;
        let clock_base = r.read(64)?;
        let initial_epoch = r.read(8)? as u8;
        let peer_heard_window_ms = r.read(16)? as u16;
        let keepalive_interval_ms = r.read(16)? as u16;
        r.skip(UNNAMED_FIELDS_BITS)?;
        let workspace_name = read_chars(r, WORKSPACE_NAME_CHARS)?;
        Ok(Self {
            request,
            result,
            session_name,
            process_id,
            return_code,
            handoff_nonce,
            clock_base,
            initial_epoch,
            peer_heard_window_ms,
            keepalive_interval_ms,
            workspace_name,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Facts 10.1: Sunrise's zero-filled msg 4 with corr 0x11223344, session
    /// 0x9EAA300100200001 and keepalive 5000.
    #[test]
    fn join_result_vector() {
        let mut record = vec![0u8; 72];
        record[..12].copy_from_slice(&[
            0x11, 0x22, 0x33, 0x44, 0x9E, 0xAA, 0x30, 0x01, 0x00, 0x20, 0x00, 0x01,
        ]);
        let m = JoinResult {
            request: record,
            result: 0,
            session_name: vec![-128; SESSION_NAME_CHARS],
            process_id: 0,
            return_code: i32::MIN,
            handoff_nonce: 0,
            clock_base: 0,
            initial_epoch: 0,
            peer_heard_window_ms: 0,
            keepalive_interval_ms: 5000,
            workspace_name: vec![-128; WORKSPACE_NAME_CHARS],
        };
        let body = m.encode().unwrap();
        assert_eq!(m.measure(), Ok(JOIN_RESULT_BITS));
        assert_eq!(body.len(), JOIN_RESULT_LEN);
        let mut want = vec![0u8; JOIN_RESULT_LEN];
        want[..12].copy_from_slice(&m.request[..12]);
        want[71] = 0x08;
        want[223] = 0x9C;
        want[224] = 0x40;
        assert_eq!(hex::encode(&body), hex::encode(&want));
        let back = JoinResult::decode(&body).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.echoed_nonce(), 0x1122_3344);
        assert_eq!(back.echoed_host_id(), 0x9EAA_3001_0020_0001);
    }

    #[test]
    fn join_result_shorter_than_6053_bits_fails() {
        let req = JoinRequest::new(1, 2, 3, 4);
        let body = JoinResult::accept(&req, 2).encode().unwrap();
        assert!(JoinResult::decode(&body[..756]).is_err());
        let mut longer = body.clone();
        longer.push(0xFF);
        assert!(
            JoinResult::decode(&longer).is_ok(),
            "trailing bytes are fine"
        );
    }

    #[test]
    fn join_request_round_trip() {
        let req = JoinRequest::new(
            0xDEAD_BEEF,
            0x9EAA_3001_0020_0001,
            0x0102_0304_0506_0708,
            42,
        );
        assert_eq!(req.record.len(), 72);
        assert_eq!(&req.record[12..20], &[8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(req.measure(), Ok(JOIN_REQUEST_BITS));
        assert_eq!(req.encode().unwrap(), req.record);
        assert_eq!(JoinRequest::decode(&req.encode().unwrap()).unwrap(), req);
        let short = JoinRequest::decode(&req.record[..20]).unwrap();
        assert_eq!(short.character_id, 0);
        assert!(JoinRequest::decode(&req.record[..19]).is_err());
    }
}
