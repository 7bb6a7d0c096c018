//! The activity envelopes: service 8 (client to host) and service 9 (host to client).
//!
//! AH "The activity envelope"; facts 4.0 and 2.1.

use thiserror::Error;

/// Size of the service-9 header before the payload.
pub const PUSH_HEADER_LEN: usize = 17;
/// Size of the service-8 body before the payload (8-byte handle plus 13-byte header).
pub const NOTIFICATION_HEADER_LEN: usize = 21;
/// The only service-9 discriminator the client accepts (ENV-01).
pub const PUSH_DISCRIMINATOR: u8 = 1;
/// payload_len at or above this crashes the client (ENV-03).
pub const CRASHING_PAYLOAD_LEN: u32 = 0xFFFF_FF70;
/// The largest payload Sunrise accepts in either envelope (facts 4.0).
pub const MAX_PAYLOAD_LEN: usize = 0x7D800;

/// Why an envelope could not be read at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum EnvelopeError {
    /// Shorter than its fixed header.
    #[error("activity envelope of {got} bytes is shorter than its {need}-byte header")]
    Short {
        /// Bytes needed.
        need: usize,
        /// Bytes present.
        got: usize,
    },
    /// A service-8 discriminator other than 1 or 2.
    #[error("service-8 discriminator {0} is neither 1 nor 2")]
    Discriminator(u8),
}

/// The 17-byte header of a service-9 body (AH "The activity envelope"): what a sender
/// writes in front of a payload that is already in its frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushHeader {
    /// Must be 1 (ENV-01).
    pub discriminator: u8,
    /// Routes to one of the client's activity clients (ENV-05).
    pub session_id: u64,
    /// Activity message id, 0 to 58 (ENV-04).
    pub msg_type: u32,
    /// Declared payload length; must equal the bytes that follow (ENV-02).
    pub payload_len: u32,
}

impl PushHeader {
    /// A well-formed header: discriminator 1 and the true payload length.
    pub fn new(session_id: u64, msg_type: u32, payload_len: usize) -> Self {
        Self {
            discriminator: PUSH_DISCRIMINATOR,
            session_id,
            msg_type,
            payload_len: payload_len as u32,
        }
    }

    /// Reads the header of service-9 `body`, every field as sent so a checker can judge
    /// it, and gives the bytes that follow it, in place.
    pub fn read(body: &[u8]) -> Result<(Self, &[u8]), EnvelopeError> {
        let short = EnvelopeError::Short {
            need: PUSH_HEADER_LEN,
            got: body.len(),
        };
        let (head, payload) = body.split_first_chunk::<PUSH_HEADER_LEN>().ok_or(short)?;
        let [discriminator, session @ .., m0, m1, m2, m3, l0, l1, l2, l3] = *head;
        let header = Self {
            discriminator,
            session_id: u64::from_be_bytes(session),
            msg_type: u32::from_be_bytes([m0, m1, m2, m3]),
            payload_len: u32::from_be_bytes([l0, l1, l2, l3]),
        };
        Ok((header, payload))
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; PUSH_HEADER_LEN] {
        let mut out = [0u8; PUSH_HEADER_LEN];
        out[0] = self.discriminator;
        out[1..9].copy_from_slice(&self.session_id.to_be_bytes());
        out[9..13].copy_from_slice(&self.msg_type.to_be_bytes());
        out[13..].copy_from_slice(&self.payload_len.to_be_bytes());
        out
    }
}

/// Service 9 body: `ActivityPush` of AH, 17 bytes then the payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivityPush {
    /// Must be 1 (ENV-01).
    pub discriminator: u8,
    /// Routes to one of the client's activity clients (ENV-05).
    pub session_id: u64,
    /// Activity message id, 0 to 58 (ENV-04).
    pub msg_type: u32,
    /// Declared payload length; must equal the bytes that follow (ENV-02).
    pub payload_len: u32,
    /// The bytes that actually follow the header.
    pub payload: Vec<u8>,
}

impl ActivityPush {
    /// A well-formed push: discriminator 1 and the true payload length.
    pub fn new(session_id: u64, msg_type: u32, payload: Vec<u8>) -> Self {
        Self {
            discriminator: PUSH_DISCRIMINATOR,
            session_id,
            msg_type,
            payload_len: payload.len() as u32,
            payload,
        }
    }

    /// The header of this push.
    pub fn header(&self) -> PushHeader {
        PushHeader {
            discriminator: self.discriminator,
            session_id: self.session_id,
            msg_type: self.msg_type,
            payload_len: self.payload_len,
        }
    }

    /// The service-9 body.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(PUSH_HEADER_LEN + self.payload.len());
        out.extend_from_slice(&self.header().to_bytes());
        out.extend_from_slice(&self.payload);
        out
    }

    /// Reads the header; every field is returned as sent so a checker can judge it.
    pub fn decode(body: &[u8]) -> Result<Self, EnvelopeError> {
        let (h, payload) = PushHeader::read(body)?;
        Ok(Self {
            discriminator: h.discriminator,
            session_id: h.session_id,
            msg_type: h.msg_type,
            payload_len: h.payload_len,
            payload: payload.to_vec(),
        })
    }
}

/// Service 8 body: the 8-byte account handle, then `ActivityNotification` of AH.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivityNotification {
    /// The 8-byte handle after the task id; Sunrise and Vex treat it as the session id.
    pub handle: u64,
    /// 1, or 2 for the arm without a peer mask.
    pub discriminator: u8,
    /// Activity message id.
    pub msg_type: u32,
    /// Declared payload length.
    pub payload_len: u32,
    /// One bit per peer heard within the window (absent with discriminator 2).
    pub peer_heard_mask: Option<u32>,
    /// The bytes that follow the header.
    pub payload: Vec<u8>,
}

impl ActivityNotification {
    /// A well-formed notification with discriminator 1.
    pub fn new(handle: u64, msg_type: u32, peer_heard_mask: u32, payload: Vec<u8>) -> Self {
        Self {
            handle,
            discriminator: 1,
            msg_type,
            payload_len: payload.len() as u32,
            peer_heard_mask: Some(peer_heard_mask),
            payload,
        }
    }

    /// The service-8 body (after the 6-byte inner header).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(NOTIFICATION_HEADER_LEN + self.payload.len());
        out.extend_from_slice(&self.handle.to_be_bytes());
        out.push(self.discriminator);
        out.extend_from_slice(&self.msg_type.to_be_bytes());
        out.extend_from_slice(&self.payload_len.to_be_bytes());
        if let Some(mask) = self.peer_heard_mask {
            out.extend_from_slice(&mask.to_be_bytes());
        }
        out.extend_from_slice(&self.payload);
        out
    }

    /// Reads the body. Discriminator 2 has no peer mask (AH; Sunrise refuses it, the
    /// pages call it legal, so Vex accepts it).
    pub fn decode(body: &[u8]) -> Result<Self, EnvelopeError> {
        let short = |need| EnvelopeError::Short {
            need,
            got: body.len(),
        };
        let (head, rest) = body
            .split_first_chunk::<{ NOTIFICATION_HEADER_LEN - 4 }>()
            .ok_or(short(NOTIFICATION_HEADER_LEN - 4))?;
        let [handle @ .., discriminator, m0, m1, m2, m3, l0, l1, l2, l3] = *head;
        let (peer_heard_mask, payload) = match discriminator {
            1 => {
                let (mask, payload) = rest
                    .split_first_chunk::<4>()
                    .ok_or(short(NOTIFICATION_HEADER_LEN))?;
                (Some(u32::from_be_bytes(*mask)), payload)
            }
            2 => (None, rest),
            d => return Err(EnvelopeError::Discriminator(d)),
        };
        Ok(Self {
            handle: u64::from_be_bytes(handle),
            discriminator,
            msg_type: u32::from_be_bytes([m0, m1, m2, m3]),
            payload_len: u32::from_be_bytes([l0, l1, l2, l3]),
            peer_heard_mask,
            payload: payload.to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Facts 10.1: service-9 body for msg 54, session 0x9EAA300100200001.
    #[test]
    fn push_vector() {
        let p = ActivityPush::new(0x9EAA_3001_0020_0001, 54, vec![0]);
        assert_eq!(
            hex::encode_upper(p.encode()),
            "019EAA300100200001000000360000000100"
        );
        assert_eq!(ActivityPush::decode(&p.encode()).unwrap(), p);
        assert!(ActivityPush::decode(&[1; 16]).is_err());
    }

    #[test]
    fn notification_round_trip_both_arms() {
        let n = ActivityNotification::new(7, 52, 0, vec![1; 16]);
        let bytes = n.encode();
        assert_eq!(bytes.len(), 21 + 16);
        assert_eq!(ActivityNotification::decode(&bytes).unwrap(), n);
        let mut two = n.clone();
        two.discriminator = 2;
        two.peer_heard_mask = None;
        assert_eq!(ActivityNotification::decode(&two.encode()).unwrap(), two);
        let mut bad = bytes.clone();
        bad[8] = 3;
        assert_eq!(
            ActivityNotification::decode(&bad),
            Err(EnvelopeError::Discriminator(3))
        );
    }
}
