//! The QoS probe a client sends before it joins a session matchmaking found (NS "QoS
//! probe and the session advertisement"; QOS-02 to QOS-05): Demonware's bdQoSProbe, both
//! packets little-endian and unframed. The reply carries the session advertisement.

use super::{PeerError, read_exact, read_prefix};
use zerocopy::little_endian::{F32, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The request's type byte.
pub const REQUEST: u8 = 40;
/// The reply's type byte.
pub const REPLY: u8 = 41;

/// The probe, 18 bytes (QOS-02).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct QosRequest {
    /// +0x00: 40.
    pub kind: u8,
    /// +0x01: echoed back.
    pub send_time: U64,
    /// +0x09: routes the reply.
    pub probe_id: U32,
    /// +0x0D: echoed back.
    pub security_id: U32,
    /// +0x11: 1 puts the payload in the reply.
    pub last_probe: u8,
}

/// The reply's 27 bytes in front of its payload (QOS-03).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct QosReplyHead {
    /// +0x00: 41.
    pub kind: u8,
    /// +0x01: from the request's +0x09.
    pub probe_id: U32,
    /// +0x05: from the request's +0x01.
    pub send_time: U64,
    /// +0x0D: 0 is an explicit refusal (QOS-04).
    pub accepted: u8,
    /// +0x0E: must equal the bytes after +0x1B.
    pub payload_len: U32,
    /// +0x12: from the request's +0x0D.
    pub security_id: U32,
    /// +0x16: seconds, subtracted from the round trip.
    pub hold_time: F32,
    /// +0x1A.
    pub has_data: u8,
}

const _: () = assert!(size_of::<QosRequest>() == 18);
const _: () = assert!(size_of::<QosReplyHead>() == 27);

/// A reply: its head and the payload after it.
#[derive(Debug, Clone, PartialEq)]
pub struct QosReply<'a> {
    /// The 27 bytes in front.
    pub head: QosReplyHead,
    /// The session advertisement.
    pub payload: &'a [u8],
}

impl QosRequest {
    /// The probe `probe_id` sent at `send_time` for `security_id`; `last_probe` asks for
    /// the payload.
    pub fn new(send_time: u64, probe_id: u32, security_id: u32, last_probe: bool) -> Self {
        Self {
            kind: REQUEST,
            send_time: send_time.into(),
            probe_id: probe_id.into(),
            security_id: security_id.into(),
            last_probe: last_probe.into(),
        }
    }

    /// Exactly 18 bytes of type 40.
    pub fn read(bytes: &[u8]) -> Result<Self, PeerError> {
        let request: Self = read_exact("a QoS request", bytes)?;
        if request.kind != REQUEST {
            return Err(PeerError::Type {
                what: "a QoS request",
                want: REQUEST,
                got: request.kind,
            });
        }
        Ok(request)
    }
}

impl QosReplyHead {
    /// The head of the answer to `request`, accepted or not, for a payload of
    /// `payload_len` bytes: the probe id, send time and security id echoed (QOS-03).
    pub fn answering(
        request: &QosRequest,
        accepted: bool,
        hold_time: f32,
        payload_len: usize,
    ) -> Self {
        Self {
            kind: REPLY,
            probe_id: request.probe_id,
            send_time: request.send_time,
            accepted: accepted.into(),
            payload_len: U32::new(payload_len.try_into().unwrap_or(u32::MAX)),
            security_id: request.security_id,
            hold_time: hold_time.into(),
            has_data: u8::from(payload_len > 0),
        }
    }
}

impl<'a> QosReply<'a> {
    /// The reply `bytes` hold: type 41, and a payload length that equals the bytes after
    /// the head (QOS-03).
    pub fn read(bytes: &'a [u8]) -> Result<Self, PeerError> {
        let (head, payload): (QosReplyHead, _) = read_prefix("a QoS reply's head", bytes)?;
        if head.kind != REPLY {
            return Err(PeerError::Type {
                what: "a QoS reply",
                want: REPLY,
                got: head.kind,
            });
        }
        let said = head.payload_len.get() as usize;
        if said != payload.len() {
            return Err(PeerError::Declared {
                what: "a QoS reply's payload_len",
                said,
                follow: payload.len(),
            });
        }
        Ok(Self { head, payload })
    }

    /// The whole reply.
    pub fn encode(&self) -> Vec<u8> {
        [self.head.as_bytes(), self.payload].concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request at the page's offsets, low byte first.
    #[test]
    fn the_request_at_the_pages_offsets() {
        let r = QosRequest::new(0x0102_0304_0506_0708, 0xAABB_CCDD, 0x1122_3344, true);
        let bytes = r.as_bytes();
        assert_eq!(bytes.len(), 18);
        assert_eq!(bytes[0], 40);
        assert_eq!(bytes[1..9], [8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(bytes[9..13], [0xDD, 0xCC, 0xBB, 0xAA]);
        assert_eq!(bytes[13..17], [0x44, 0x33, 0x22, 0x11]);
        assert_eq!(bytes[17], 1);
        assert_eq!(QosRequest::read(bytes), Ok(r));
        assert!(QosRequest::read(&bytes[..17]).is_err());
        let mut other = bytes.to_vec();
        other[0] = 41;
        assert!(matches!(
            QosRequest::read(&other),
            Err(PeerError::Type { got: 41, .. })
        ));
    }

    /// The reply echoes the probe id, send time and security id at the page's offsets,
    /// and its payload length is the bytes that follow; one more or fewer is refused.
    #[test]
    fn the_reply_at_the_pages_offsets() {
        let request = QosRequest::new(0x0102_0304_0506_0708, 0xAABB_CCDD, 0x1122_3344, true);
        let payload = [0x5A; 5];
        let reply = QosReply {
            head: QosReplyHead::answering(&request, true, 0.5, payload.len()),
            payload: &payload,
        };
        let bytes = reply.encode();
        assert_eq!(bytes.len(), 27 + 5);
        assert_eq!(bytes[0], 41);
        assert_eq!(bytes[1..5], [0xDD, 0xCC, 0xBB, 0xAA]);
        assert_eq!(bytes[5..13], [8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(bytes[0x0D], 1);
        assert_eq!(bytes[0x0E..0x12], [5, 0, 0, 0]);
        assert_eq!(bytes[0x12..0x16], [0x44, 0x33, 0x22, 0x11]);
        assert_eq!(bytes[0x16..0x1A], 0.5f32.to_le_bytes());
        assert_eq!(bytes[0x1A], 1);
        assert_eq!(QosReply::read(&bytes), Ok(reply));
        assert!(matches!(
            QosReply::read(&bytes[..31]),
            Err(PeerError::Declared {
                said: 5,
                follow: 4,
                ..
            })
        ));
        let longer = [bytes.as_slice(), &[0]].concat();
        assert!(matches!(
            QosReply::read(&longer),
            Err(PeerError::Declared {
                said: 5,
                follow: 6,
                ..
            })
        ));
        assert!(QosReply::read(&bytes[..26]).is_err());
    }
}
