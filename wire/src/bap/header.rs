//! The BAP outer and inner headers (NS "bdLobby BAP", "The frame"; facts 2.1).

use thiserror::Error;

/// Size of the outer header: magic, frame type, u32 big-endian length.
pub const OUTER_HEADER_LEN: usize = 6;
/// The only magic the client accepts (BAP-01).
pub const MAGIC: u8 = 1;
/// Size of a request or push inner header: u16 service, u32 task.
pub const REQUEST_HEADER_LEN: usize = 6;
/// Size of a response inner header: a request header plus u16 status.
pub const RESPONSE_HEADER_LEN: usize = 8;
/// The only status a response carries (BAP-05).
pub const STATUS_OK: u16 = 200;
/// Service ids at or above this are dropped at the header (BAP-04).
pub const SERVICE_ID_LIMIT: u16 = 308;

/// The frame type byte of the outer header (NS "The frame").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameType {
    /// Type 0: plaintext used by client requests.
    Plain,
    /// Type 1: AES-128-GCM, a 16-byte tag then the ciphertext.
    Encrypted,
    /// Type 2: plaintext used by bootstrap requests and responses.
    Bootstrap,
}

impl FrameType {
    /// The byte on the wire.
    pub fn byte(self) -> u8 {
        match self {
            FrameType::Plain => 0,
            FrameType::Encrypted => 1,
            FrameType::Bootstrap => 2,
        }
    }

    /// The frame type for a byte, or `None` for a byte the client refuses (BAP-01).
    pub fn from_byte(b: u8) -> Option<Self> {
        match b {
            0 => Some(FrameType::Plain),
            1 => Some(FrameType::Encrypted),
            2 => Some(FrameType::Bootstrap),
            _ => None,
        }
    }
}

/// Why an inner header could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum HeaderError {
    /// Fewer bytes than the header needs.
    #[error("inner header needs {need} bytes, frame has {have}")]
    Short {
        /// Bytes the header needs.
        need: usize,
        /// Bytes present.
        have: usize,
    },
}

/// An inner header: service id, task id, and for a response its status (BAP-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InnerHeader {
    /// Service id, big-endian u16.
    pub service: u16,
    /// Task id; a response echoes its request's value.
    pub task: u32,
    /// Present on responses only.
    pub status: Option<u16>,
}

impl InnerHeader {
    /// A request or push header.
    pub fn request(service: u16, task: u32) -> Self {
        Self {
            service,
            task,
            status: None,
        }
    }

    /// A response header with status 200.
    pub fn response(service: u16, task: u32) -> Self {
        Self {
            service,
            task,
            status: Some(STATUS_OK),
        }
    }

    /// Length on the wire.
    pub fn wire_len(&self) -> usize {
        if self.status.is_some() {
            RESPONSE_HEADER_LEN
        } else {
            REQUEST_HEADER_LEN
        }
    }

    /// Appends the header to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.service.to_be_bytes());
        out.extend_from_slice(&self.task.to_be_bytes());
        if let Some(s) = self.status {
            out.extend_from_slice(&s.to_be_bytes());
        }
    }

    /// Reads a header from the start of `msg`; `with_status` for a response.
    pub fn read(msg: &[u8], with_status: bool) -> Result<(Self, &[u8]), HeaderError> {
        let need = if with_status {
            RESPONSE_HEADER_LEN
        } else {
            REQUEST_HEADER_LEN
        };
        let short = HeaderError::Short {
            need,
            have: msg.len(),
        };
        let (service, rest) = msg.split_first_chunk::<2>().ok_or(short)?;
        let (task, rest) = rest.split_first_chunk::<4>().ok_or(short)?;
        let (status, body) = if with_status {
            let (status, body) = rest.split_first_chunk::<2>().ok_or(short)?;
            (Some(u16::from_be_bytes(*status)), body)
        } else {
            (None, rest)
        };
        Ok((
            Self {
                service: u16::from_be_bytes(*service),
                task: u32::from_be_bytes(*task),
                status,
            },
            body,
        ))
    }

    /// The service id of a message without reading the rest.
    pub fn peek_service(msg: &[u8]) -> Option<u16> {
        Some(u16::from_be_bytes([*msg.first()?, *msg.get(1)?]))
    }
}

/// Builds one outer frame around `payload` (an inner message, or tag and ciphertext).
pub fn outer_frame(frame_type: FrameType, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(OUTER_HEADER_LEN + payload.len());
    out.push(MAGIC);
    out.push(frame_type.byte());
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// Builds a plaintext frame: outer header, inner header, body.
pub fn plain_frame(frame_type: FrameType, header: InnerHeader, body: &[u8]) -> Vec<u8> {
    let mut inner = Vec::with_capacity(header.wire_len() + body.len());
    header.write(&mut inner);
    inner.extend_from_slice(body);
    outer_frame(frame_type, &inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Facts 10.1: service 31, task 0x01020304, type 2, body DEADBEEF.
    #[test]
    fn plaintext_frame_vector() {
        let frame = plain_frame(
            FrameType::Bootstrap,
            InnerHeader::response(31, 0x0102_0304),
            &[0xDE, 0xAD, 0xBE, 0xEF],
        );
        assert_eq!(
            hex::encode_upper(frame),
            "01020000000C001F0102030400C8DEADBEEF"
        );
    }

    #[test]
    fn inner_header_round_trip_and_short() {
        let mut out = Vec::new();
        InnerHeader::response(26, 5).write(&mut out);
        let (h, rest) = InnerHeader::read(&out, true).unwrap();
        assert_eq!(h, InnerHeader::response(26, 5));
        assert!(rest.is_empty());
        assert_eq!(
            InnerHeader::read(&out[..5], false),
            Err(HeaderError::Short { need: 6, have: 5 })
        );
    }
}
