//! Web-service RPC, services 10 and 11 (110 and 112 the same codec) (NS "Web-service RPC,
//! services 10 and 11", "The reply's version barrier"): a u16 BE opcode and u32 BE
//! transaction id, then the opcode's definition bit-packed MSB first, then two optional
//! blobs (a presence bit each, then u16 length and bytes). The reply's shape per opcode
//! is a fact from Sunrise (`server/web_service/opcode_routes.cpp`): a 5-bit status with
//! bias 1 alone; the 37-bit pair, that status then a 32-bit value with bias INT32_MIN;
//! the pair and a required bool; or, for an opcode with no known definition, nothing.

use crate::bits::{BitError, BitReader, BitWriter, written};
use thiserror::Error;

/// Service 10: a web-service request (C->S).
pub const REQUEST: u16 = 10;
/// Service 11: its reply (S->C).
pub const REPLY: u16 = 11;
/// Service 110: the server-role request, the same codec.
pub const SERVER_REQUEST: u16 = 110;
/// Service 112: the server-role reply.
pub const SERVER_REPLY: u16 = 112;
/// The header: opcode and transaction id.
pub const HEADER_LEN: usize = 6;
/// Opcode 503: the Investment sign-in request.
pub const SIGN_IN: u16 = 503;
/// Opcode 206: subscribe to a replicated object family.
pub const SUBSCRIBE: u16 = 206;
/// Opcode 403: equip an item instance.
pub const EQUIP: u16 = 403;
/// The pair's value when there is nothing to wait for (WS-01).
pub const NO_REVISION: i32 = -1;

/// Opcodes whose reply is the 5-bit status alone.
const STATUS_ONLY: [u16; 23] = [
    206, 304, 305, 1101, 1102, 1214, 1218, 1225, 1226, 1231, 1232, 1233, 1234, 1235, 1237, 1239,
    1241, 1242, 1244, 1245, 1301, 1822, 2100,
];
/// Opcodes whose reply is the 37-bit pair.
const STATUS_PAIR: [u16; 70] = [
    105, 106, 303, 402, 403, 404, 405, 406, 502, 504, 506, 701, 702, 801, 802, 803, 804, 902, 903,
    904, 905, 1103, 1201, 1202, 1203, 1205, 1206, 1207, 1208, 1209, 1210, 1211, 1212, 1213, 1215,
    1216, 1219, 1220, 1221, 1222, 1223, 1224, 1227, 1228, 1229, 1230, 1236, 1238, 1240, 1243, 1307,
    1309, 1310, 1401, 1615, 1616, 1617, 1618, 1701, 1702, 1801, 1802, 1803, 1820, 1821, 1901, 2002,
    2200, 2300, 2400,
];
/// Opcodes whose reply is the pair and a required bool.
const STATUS_PAIR_BOOL: [u16; 2] = [104, 901];

/// A reply's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The 5-bit status.
    StatusOnly,
    /// The status and the 32-bit value.
    StatusPair,
    /// The pair and a bool.
    StatusPairBool,
    /// No field: an opcode whose definition is not known.
    Generic,
}

impl Shape {
    /// The shape of `opcode`'s reply.
    pub fn of(opcode: u16) -> Self {
        if STATUS_ONLY.contains(&opcode) {
            Shape::StatusOnly
        } else if STATUS_PAIR.contains(&opcode) {
            Shape::StatusPair
        } else if STATUS_PAIR_BOOL.contains(&opcode) {
            Shape::StatusPairBool
        } else {
            Shape::Generic
        }
    }
}

/// A request: the header and the opcode's bit-packed payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WsRequest {
    /// The wire opcode.
    pub opcode: u16,
    /// The transaction id a reply echoes.
    pub transaction: u32,
    /// The rest.
    pub payload: Vec<u8>,
}

/// A reply's fields, logical (the biases taken off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    /// The status: 0 or 7 completes, 16 is a soft rejection, anything else an error (WS-05).
    pub code: i32,
    /// The value: a family-4 revision to wait for, or [`NO_REVISION`] (WS-01).
    pub value: i32,
    /// The bool of [`Shape::StatusPairBool`].
    pub flag: bool,
}

impl Status {
    /// Completed, nothing to wait for.
    pub const DONE: Status = Status {
        code: 0,
        value: NO_REVISION,
        flag: false,
    };
}

/// A reply: the header echoed and the status its shape carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WsReply {
    /// The opcode.
    pub opcode: u16,
    /// The transaction id.
    pub transaction: u32,
    /// The status, when the shape has one.
    pub status: Option<Status>,
}

/// A body that is not a web-service message of its shape.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WsError {
    /// Shorter than the 6-byte header.
    #[error("{0} bytes: shorter than the 6-byte opcode and transaction header")]
    Header(usize),
    /// The bit-packed part does not read.
    #[error("the {shape:?} reply does not read: {error}")]
    Bits {
        /// The shape read.
        shape: Shape,
        /// Why.
        error: BitError,
    },
}

impl WsRequest {
    /// The header and payload of `body`.
    pub fn decode(body: &[u8]) -> Result<Self, WsError> {
        let (&[o0, o1, t0, t1, t2, t3], payload) = body
            .split_first_chunk::<HEADER_LEN>()
            .ok_or(WsError::Header(body.len()))?;
        Ok(Self {
            opcode: u16::from_be_bytes([o0, o1]),
            transaction: u32::from_be_bytes([t0, t1, t2, t3]),
            payload: payload.to_vec(),
        })
    }

    /// The bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = header(self.opcode, self.transaction);
        out.extend_from_slice(&self.payload);
        out
    }
}

fn header(opcode: u16, transaction: u32) -> Vec<u8> {
    let mut out = opcode.to_be_bytes().to_vec();
    out.extend_from_slice(&transaction.to_be_bytes());
    out
}

/// The status field's width and bias.
const CODE: (u32, i64) = (5, 1);
/// The value field's width and bias.
const VALUE: (u32, i64) = (32, -(i32::MIN as i64));

impl WsReply {
    /// The bytes: the header, `shape`'s fields, and the two blobs absent.
    pub fn encode(&self, shape: Shape) -> Vec<u8> {
        let mut out = header(self.opcode, self.transaction);
        let mut w = BitWriter::appending(&mut out);
        if let (Some(s), false) = (self.status, shape == Shape::Generic) {
            w.write_wrapping(i64::from(s.code), CODE.1, CODE.0);
            if shape != Shape::StatusOnly {
                w.write_wrapping(i64::from(s.value), VALUE.1, VALUE.0);
            }
            if shape == Shape::StatusPairBool {
                w.write_bool(s.flag);
            }
        }
        w.write(0, 2);
        // every field wraps to its width, so the writer cannot fail
        w.finish().map(|_| out).unwrap_or_default()
    }

    /// Reads a reply of `shape` (the shape of the opcode the client asked with).
    pub fn decode(body: &[u8], shape: Shape) -> Result<Self, WsError> {
        let request = WsRequest::decode(body)?;
        let mut r = BitReader::new(&request.payload);
        let bits = |error| WsError::Bits { shape, error };
        let status = match shape {
            Shape::Generic => None,
            _ => {
                let code = r.read_biased(CODE.1, CODE.0).map_err(bits)? as i32;
                let value = if shape == Shape::StatusOnly {
                    NO_REVISION
                } else {
                    r.read_biased(VALUE.1, VALUE.0).map_err(bits)? as i32
                };
                let flag = shape == Shape::StatusPairBool && r.read_bool().map_err(bits)?;
                Some(Status { code, value, flag })
            }
        };
        for _ in 0..2 {
            if r.read_bool().map_err(bits)? {
                let len = r.read(16).map_err(bits)?;
                r.skip(len as usize * 8).map_err(bits)?;
            }
        }
        Ok(Self {
            opcode: request.opcode,
            transaction: request.transaction,
            status,
        })
    }
}

/// Opcode 206's payload (facts: Sunrise's `opcode206_codec.cpp`): the family in 4 bits
/// with bias 1, then the 64-bit root id; empty for a family past 14, which 4 bits cannot
/// hold.
pub fn subscribe_payload(family: u8, root: u64) -> Vec<u8> {
    written(|w| {
        w.write(u64::from(family) + 1, 4);
        w.write(root, 64);
    })
    .unwrap_or_default()
}

/// Opcode 206's family and root.
pub fn read_subscribe(payload: &[u8]) -> Option<(u8, u64)> {
    let mut r = BitReader::new(payload);
    let family = r.read(4).ok()?.checked_sub(1)?;
    let root = r.read(64).ok()?;
    Some((u8::try_from(family).ok()?, root))
}

/// Opcode 403's payload (facts: Sunrise's `opcode403_codec.cpp`): the item instance id, u64
/// BE, and an alignment byte of 0.
pub fn equip_payload(instance: u64) -> Vec<u8> {
    let mut out = instance.to_be_bytes().to_vec();
    out.push(0);
    out
}

/// Opcode 403's item instance id.
pub fn read_equip(payload: &[u8]) -> Option<u64> {
    let id = payload.get(..8)?.try_into().ok()?;
    Some(u64::from_be_bytes(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_round_trip_with_their_biases() {
        for (opcode, shape) in [
            (206, Shape::StatusOnly),
            (403, Shape::StatusPair),
            (901, Shape::StatusPairBool),
            (503, Shape::Generic),
        ] {
            assert_eq!(Shape::of(opcode), shape);
            let reply = WsReply {
                opcode,
                transaction: 9,
                status: (shape != Shape::Generic).then_some(Status {
                    code: 7,
                    value: if shape == Shape::StatusOnly {
                        NO_REVISION
                    } else {
                        12
                    },
                    flag: shape == Shape::StatusPairBool,
                }),
            };
            let bytes = reply.encode(shape);
            assert_eq!(WsReply::decode(&bytes, shape), Ok(reply), "{opcode}");
        }
        // NS: a zero on the wire is INT32_MIN, a revision request, not -1
        let zero = WsReply {
            opcode: 403,
            transaction: 1,
            status: Some(Status {
                code: 0,
                value: i32::MIN,
                flag: false,
            }),
        };
        let bytes = zero.encode(Shape::StatusPair);
        assert_eq!(
            &bytes[6..],
            &[0x08, 0, 0, 0, 0],
            "status 1 (0 + bias), value 0, two 0 bits"
        );
        assert!(WsReply::decode(&bytes[..7], Shape::StatusPair).is_err());
        assert!(WsRequest::decode(&[0; 5]).is_err());
        assert_eq!(read_subscribe(&subscribe_payload(4, 77)), Some((4, 77)));
        assert_eq!(read_subscribe(&subscribe_payload(14, 77)), Some((14, 77)));
        assert!(
            subscribe_payload(15, 77).is_empty(),
            "16 does not fit 4 bits"
        );
    }
}
