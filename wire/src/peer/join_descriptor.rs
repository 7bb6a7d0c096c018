//! The 128-byte join descriptor a session is joined through (NS "The join descriptor";
//! PEER-03, PEER-04): exactly full, four fields and no padding.

use super::net_addr::NetAddr;
use super::{PeerError, read_exact};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// A join descriptor. On the wire it is length-prefixed, and the length must read 128
/// (the prefix's width is not on the pages; the reaction to another length is not
/// documented either: PEER-04).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct JoinDescriptor {
    /// +0: the machine id (the debug overlay's "ID:").
    pub machine_id: [u8; 8],
    /// +8: the host's address; its last byte, +93, is the transport method (PEER-03).
    pub host: NetAddr,
    /// +94: the join key (the debug overlay's "KEY:").
    pub join_key: [u8; 16],
    /// +110: the online session id; its low 8 bytes are the Steam lobby id.
    pub online_session_id: [u8; 18],
}

const _: () = assert!(size_of::<JoinDescriptor>() == JoinDescriptor::LEN);

impl JoinDescriptor {
    /// Its size, and the length its prefix must read (PEER-04).
    pub const LEN: usize = 128;

    /// Where the transport method sits (PEER-03).
    pub const TRANSPORT_METHOD_AT: usize = 93;

    /// Exactly 128 bytes.
    pub fn read(bytes: &[u8]) -> Result<Self, PeerError> {
        read_exact("a join descriptor", bytes)
    }

    /// The Steam lobby id the Steam arm joins: the online session id's low 8 bytes.
    pub fn steam_lobby_id(&self) -> [u8; 8] {
        let [a, b, c, d, e, f, g, h, ..] = self.online_session_id;
        [a, b, c, d, e, f, g, h]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host address's last byte is +93, the join key starts at +94 and the online
    /// session id at +110: 128 bytes exactly full.
    #[test]
    fn the_descriptor_is_exactly_full() {
        let mut host = NetAddr::direct([192, 168, 1, 2], 3074, 9);
        host.transport_method = 7;
        let d = JoinDescriptor {
            machine_id: [1; 8],
            host,
            join_key: [2; 16],
            online_session_id: core::array::from_fn(|i| i as u8),
        };
        let bytes = d.as_bytes();
        assert_eq!(bytes.len(), 128);
        assert_eq!(bytes[JoinDescriptor::TRANSPORT_METHOD_AT], 7);
        assert_eq!(bytes[93..95], [7, 2]);
        assert_eq!(bytes[109..111], [2, 0]);
        assert_eq!(d.steam_lobby_id(), [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(JoinDescriptor::read(bytes), Ok(d));
        assert!(JoinDescriptor::read(&bytes[..127]).is_err());
        assert!(JoinDescriptor::read(&[bytes, &[0]].concat()).is_err());
    }
}
