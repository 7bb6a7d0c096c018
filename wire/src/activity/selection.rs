//! The activity-selection descriptor and the service-6 request that carries it
//! (AH "The route into an activity"; facts 5.1, 5.2).
//!
//! The host keeps the descriptor's exact bits and replays them in message 1 (GLOBAL-04).
//! Facts 5.2 says "every scalar bias 1"; Vex applies bias 1 to the reason, the activity
//! indices, the element index and the skull fields, and treats hashes, the fixed byte,
//! the optional byte and the reference and pair payloads as raw bits, which are replayed
//! unchanged either way.

use crate::activity::body::Body;
use crate::bits::{BitError, BitReader, BitWriter, Bits, written, written_bits};
use thiserror::Error;

/// The service-6 body is exactly this long (facts 5.1).
pub const SERVICE6_LEN: usize = 7719;
/// Discriminator of the service-6 body.
pub const SERVICE6_DISCRIMINATOR: u8 = 3;
/// The largest protobuf a service-6 body holds.
pub const SERVICE6_MAX_PROTOBUF: usize = SERVICE6_LEN - 5;
/// The web-service opcode inside protobuf field 1.
pub const SELECTION_OPCODE: u16 = 1303;
/// Characters in the package name.
pub const NAME_CHARS: usize = 40;
/// The smallest descriptor: 372 bits (facts 5.2).
pub const MIN_DESCRIPTOR_BITS: usize = 372;
/// The largest descriptor: 1,814 bits (facts 5.2).
pub const MAX_DESCRIPTOR_BITS: usize = 1814;

/// One skull entry: a 2-bit group and a 7-bit value, each bias 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skull {
    /// 2 bits, bias 1.
    pub group: i8,
    /// 7 bits, bias 1.
    pub value: i8,
}

/// The activity-selection descriptor (facts 5.2 grammar).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SelectionDescriptor {
    /// 4 bits, bias 1.
    pub reason: i8,
    /// Source activity index, 12 bits, bias 1.
    pub source_activity: i16,
    /// Destination activity index, 12 bits, bias 1.
    pub destination_activity: i16,
    /// Optional element index, 9 bits, bias 1.
    pub element_index: Option<i16>,
    /// Two optional 64-bit ids.
    pub ids: [Option<u64>; 2],
    /// Up to 31 skulls (5-bit count).
    pub skulls: Vec<Skull>,
    /// A fixed 8-bit field.
    pub fixed_byte: u8,
    /// An optional 8-bit field.
    pub optional_byte: Option<u8>,
    /// The arrival bubble hash.
    pub arrival_hash: Option<u32>,
    /// The spawn set hash.
    pub spawn_hash: Option<u32>,
    /// The package name, 40 characters with bias 128 when present.
    pub name: Option<String>,
    /// An optional 32-bit hash.
    pub optional_hash: Option<u32>,
    /// A bool.
    pub flag: bool,
    /// Optional: a 1-bit count (at most 1) of 96-bit references.
    pub refs: Option<Vec<[u8; 12]>>,
    /// Optional: a 6-bit count of 13-bit pairs.
    pub pairs: Option<Vec<u16>>,
}

fn write_opt(w: &mut BitWriter, v: Option<u64>, width: u32) {
    w.write_bool(v.is_some());
    if let Some(v) = v {
        w.write(v, width);
    }
}

fn read_opt(r: &mut BitReader<'_>, width: u32) -> Result<Option<u64>, BitError> {
    Ok(if r.read_bool()? {
        Some(r.read(width)?)
    } else {
        None
    })
}

impl SelectionDescriptor {
    /// The descriptor's exact bits.
    pub fn to_bits(&self) -> Result<DescriptorBits, BitError> {
        written_bits(|w| self.write(w))
    }

    /// Parses a descriptor kept as exact bits.
    pub fn from_bits(bits: &DescriptorBits) -> Result<Self, BitError> {
        Self::read(&mut bits.reader())
    }
}

/// The descriptor as facts 5.2 lays it out; counts are clamped to capacity (BODY-05).
impl Body for SelectionDescriptor {
    type Decoded = Self;

    /// Writes the descriptor; counts are clamped to capacity (BODY-05).
    fn write(&self, w: &mut BitWriter) {
        w.write_biased(i64::from(self.reason), 1, 4);
        w.write_biased(i64::from(self.source_activity), 1, 12);
        w.write_biased(i64::from(self.destination_activity), 1, 12);
        w.write_bool(self.element_index.is_some());
        if let Some(e) = self.element_index {
            w.write_biased(i64::from(e), 1, 9);
        }
        for id in self.ids {
            write_opt(w, id, 64);
        }
        let skulls = self.skulls.get(..31).unwrap_or(&self.skulls);
        w.write(skulls.len() as u64, 5);
        for s in skulls {
            w.write_biased(i64::from(s.group), 1, 2);
            w.write_biased(i64::from(s.value), 1, 7);
        }
        w.write(u64::from(self.fixed_byte), 8);
        write_opt(w, self.optional_byte.map(u64::from), 8);
        write_opt(w, self.arrival_hash.map(u64::from), 32);
        write_opt(w, self.spawn_hash.map(u64::from), 32);
        w.write_bool(self.name.is_some());
        if let Some(name) = &self.name {
            let bytes = name.as_bytes();
            for i in 0..NAME_CHARS {
                let c = bytes.get(i).copied().unwrap_or(0) as i8;
                w.write_biased(i64::from(c), 128, 8);
            }
        }
        write_opt(w, self.optional_hash.map(u64::from), 32);
        w.write_bool(self.flag);
        w.write_bool(self.refs.is_some());
        if let Some(refs) = &self.refs {
            let refs = refs.get(..1).unwrap_or(refs);
            w.write(refs.len() as u64, 1);
            for r in refs {
                for b in r {
                    w.write(u64::from(*b), 8);
                }
            }
        }
        w.write_bool(self.pairs.is_some());
        if let Some(pairs) = &self.pairs {
            let pairs = pairs.get(..63).unwrap_or(pairs);
            w.write(pairs.len() as u64, 6);
            for p in pairs {
                w.write(u64::from(*p), 13);
            }
        }
    }

    /// Reads a descriptor at the reader's cursor.
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let reason = r.read_biased(1, 4)? as i8;
        let source_activity = r.read_biased(1, 12)? as i16;
        let destination_activity = r.read_biased(1, 12)? as i16;
        let element_index = if r.read_bool()? {
            Some(r.read_biased(1, 9)? as i16)
        } else {
            None
        };
        let ids = [read_opt(r, 64)?, read_opt(r, 64)?];
        let count = r.read(5)?;
        let skulls = (0..count)
            .map(|_| {
                Ok(Skull {
                    group: r.read_biased(1, 2)? as i8,
                    value: r.read_biased(1, 7)? as i8,
                })
            })
            .collect::<Result<_, BitError>>()?;
        let fixed_byte = r.read(8)? as u8;
        let optional_byte = read_opt(r, 8)?.map(|v| v as u8);
        let arrival_hash = read_opt(r, 32)?.map(|v| v as u32);
        let spawn_hash = read_opt(r, 32)?.map(|v| v as u32);
        let name = if r.read_bool()? {
            let mut s = Vec::with_capacity(NAME_CHARS);
            for _ in 0..NAME_CHARS {
                s.push(r.read_biased(128, 8)? as u8);
            }
            let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
            s.truncate(end);
            Some(String::from_utf8_lossy(&s).into_owned())
        } else {
            None
        };
        let optional_hash = read_opt(r, 32)?.map(|v| v as u32);
        let flag = r.read_bool()?;
        let refs = if r.read_bool()? {
            let n = r.read(1)?;
            let mut v = Vec::new();
            for _ in 0..n {
                let mut b = [0u8; 12];
                for x in &mut b {
                    *x = r.read(8)? as u8;
                }
                v.push(b);
            }
            Some(v)
        } else {
            None
        };
        let pairs = if r.read_bool()? {
            let n = r.read(6)?;
            Some(
                (0..n)
                    .map(|_| r.read(13).map(|p| p as u16))
                    .collect::<Result<_, _>>()?,
            )
        } else {
            None
        };
        Ok(Self {
            reason,
            source_activity,
            destination_activity,
            element_index,
            ids,
            skulls,
            fixed_byte,
            optional_byte,
            arrival_hash,
            spawn_hash,
            name,
            optional_hash,
            flag,
            refs,
            pairs,
        })
    }
}

/// A descriptor kept bit for bit, for exact replay in message 1 (GLOBAL-04).
pub type DescriptorBits = Bits;

/// Why a service-6 body yields no descriptor. The host still answers (BAP-14).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SelectionError {
    /// The body is not exactly 7,719 bytes.
    #[error("service-6 body is {0} bytes, not 7719")]
    Length(usize),
    /// The discriminator is not 3.
    #[error("service-6 discriminator {0} is not 3")]
    Discriminator(u8),
    /// The protobuf length is larger than the body holds.
    #[error("protobuf length {0} exceeds 7714")]
    ProtobufLength(usize),
    /// The protobuf does not parse or lacks field 1.
    #[error("protobuf: {0}")]
    Protobuf(&'static str),
    /// Field 1 does not start with opcode 1303.
    #[error("field 1 opcode {0} is not 1303")]
    Opcode(u16),
    /// The bitstream ends inside the descriptor.
    #[error("descriptor: {0}")]
    Bits(#[from] BitError),
}

/// The selection request inside service 6, protobuf field 1 (facts 5.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectionRequest {
    /// The web-service transaction id.
    pub transaction: u32,
    /// The request kind, 2 bits, bias 1.
    pub kind: i8,
    /// The descriptor as exact bits.
    pub descriptor: DescriptorBits,
    /// The bool after the descriptor.
    pub trailing: bool,
}

fn read_varint(b: &[u8], at: &mut usize) -> Result<u64, SelectionError> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b
            .get(*at)
            .ok_or(SelectionError::Protobuf("truncated varint"))?;
        *at += 1;
        v |= u64::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(SelectionError::Protobuf("varint longer than 10 bytes"))
}

fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The first occurrence of length-delimited field `field` in a protobuf message.
fn protobuf_bytes(pb: &[u8], field: u64) -> Result<&[u8], SelectionError> {
    let mut at = 0;
    while at < pb.len() {
        let key = read_varint(pb, &mut at)?;
        let len = match key & 7 {
            0 => {
                read_varint(pb, &mut at)?;
                0
            }
            1 => 8,
            2 => read_varint(pb, &mut at)? as usize,
            5 => 4,
            _ => return Err(SelectionError::Protobuf("unsupported wire type")),
        };
        let bytes = at
            .checked_add(len)
            .and_then(|end| pb.get(at..end))
            .ok_or(SelectionError::Protobuf("field runs past the message"))?;
        if key >> 3 == field && key & 7 == 2 {
            return Ok(bytes);
        }
        at += len;
    }
    Err(SelectionError::Protobuf("field 1 is missing"))
}

impl SelectionRequest {
    /// The 7,719-byte service-6 body: discriminator 3, u32 little-endian protobuf length,
    /// the protobuf with field 1, zero padding.
    pub fn encode_service6(&self) -> Result<Vec<u8>, BitError> {
        let bits = written(|w| {
            w.write_biased(i64::from(self.kind), 1, 2);
            w.write_bits(&self.descriptor);
            w.write_bool(self.trailing);
        })?;
        let mut field = Vec::with_capacity(6 + bits.len());
        field.extend_from_slice(&SELECTION_OPCODE.to_be_bytes());
        field.extend_from_slice(&self.transaction.to_be_bytes());
        field.extend_from_slice(&bits);
        let mut pb = vec![0x0A];
        write_varint(&mut pb, field.len() as u64);
        pb.extend_from_slice(&field);
        let mut out = Vec::with_capacity(SERVICE6_LEN);
        out.push(SERVICE6_DISCRIMINATOR);
        out.extend_from_slice(&(pb.len() as u32).to_le_bytes());
        out.extend_from_slice(&pb);
        out.resize(SERVICE6_LEN, 0);
        Ok(out)
    }

    /// Parses a service-6 body down to the descriptor's exact bits.
    pub fn decode_service6(body: &[u8]) -> Result<Self, SelectionError> {
        let body: &[u8; SERVICE6_LEN] = body
            .try_into()
            .map_err(|_| SelectionError::Length(body.len()))?;
        let [discriminator, l0, l1, l2, l3, ref rest @ ..] = *body;
        if discriminator != SERVICE6_DISCRIMINATOR {
            return Err(SelectionError::Discriminator(discriminator));
        }
        let pb_len = u32::from_le_bytes([l0, l1, l2, l3]) as usize;
        let pb = rest
            .get(..pb_len)
            .ok_or(SelectionError::ProtobufLength(pb_len))?;
        let field = protobuf_bytes(pb, 1)?;
        let (&[o0, o1, t0, t1, t2, t3], bits) = field
            .split_first_chunk::<6>()
            .ok_or(SelectionError::Protobuf("field 1 is shorter than 6 bytes"))?;
        let opcode = u16::from_be_bytes([o0, o1]);
        if opcode != SELECTION_OPCODE {
            return Err(SelectionError::Opcode(opcode));
        }
        let transaction = u32::from_be_bytes([t0, t1, t2, t3]);
        let mut r = BitReader::new(bits);
        let kind = r.read_biased(1, 2)? as i8;
        let start = r.position();
        SelectionDescriptor::read(&mut r)?;
        let bit_len = r.position() - start;
        let trailing = r.read_bool()?;
        let mut copy = BitReader::new(bits);
        copy.skip(start)?;
        let descriptor = copy.read_bits(bit_len)?;
        Ok(Self {
            transaction,
            kind,
            descriptor,
            trailing,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edz() -> SelectionDescriptor {
        SelectionDescriptor {
            reason: 2,
            source_activity: 10,
            destination_activity: 42,
            fixed_byte: 0,
            arrival_hash: Some(0x1122_3344),
            spawn_hash: Some(0x5566_7788),
            name: Some("edz_patrol".into()),
            ..SelectionDescriptor::default()
        }
    }

    /// Facts 10.1 "Service 6 parse": kind 0, reason 2, src 10, dst 42, name at descriptor
    /// bit 112, descriptor length 436 bits, trailing 1; the body begins
    /// `03 3F000000 0A3D 0517 01020304 4C02C0AC0001`.
    #[test]
    fn service6_vector() {
        let req = SelectionRequest {
            transaction: 0x0102_0304,
            kind: 0,
            descriptor: edz().to_bits().unwrap(),
            trailing: true,
        };
        assert_eq!(req.descriptor.bit_len, 436);
        let body = req.encode_service6().unwrap();
        assert_eq!(body.len(), SERVICE6_LEN);
        assert_eq!(
            hex::encode_upper(&body[..19]),
            "033F0000000A3D0517010203044C02C0AC0001"
        );
        let back = SelectionRequest::decode_service6(&body).unwrap();
        assert_eq!(back, req);
        assert_eq!(
            SelectionDescriptor::from_bits(&back.descriptor).unwrap(),
            edz()
        );
    }

    #[test]
    fn descriptor_sizes() {
        let min = SelectionDescriptor {
            name: Some(String::new()),
            ..SelectionDescriptor::default()
        };
        assert_eq!(min.to_bits().unwrap().bit_len, MIN_DESCRIPTOR_BITS);
        let max = SelectionDescriptor {
            element_index: Some(1),
            ids: [Some(1), Some(2)],
            skulls: vec![Skull { group: 0, value: 0 }; 40],
            optional_byte: Some(1),
            arrival_hash: Some(1),
            spawn_hash: Some(1),
            name: Some("x".into()),
            optional_hash: Some(1),
            refs: Some(vec![[0; 12]; 3]),
            pairs: Some(vec![0; 100]),
            ..SelectionDescriptor::default()
        };
        assert_eq!(
            max.to_bits().unwrap().bit_len,
            MAX_DESCRIPTOR_BITS,
            "counts are clamped"
        );
    }

    #[test]
    fn service6_refusals_are_typed() {
        assert_eq!(
            SelectionRequest::decode_service6(&[3; 10]),
            Err(SelectionError::Length(10))
        );
        let mut body = vec![0u8; SERVICE6_LEN];
        assert_eq!(
            SelectionRequest::decode_service6(&body),
            Err(SelectionError::Discriminator(0))
        );
        body[0] = 3;
        body[1] = 0xFF;
        body[2] = 0xFF;
        assert!(matches!(
            SelectionRequest::decode_service6(&body),
            Err(SelectionError::ProtobufLength(_))
        ));
    }
}
