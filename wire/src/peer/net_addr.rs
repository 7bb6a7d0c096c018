//! The peer address, a serialized bdCommonAddr of 86 bytes (NS "The peer address";
//! PEER-03, PEER-05, PEER-06).

use super::{PeerError, read_exact};
use std::net::SocketAddrV4;
use zerocopy::little_endian::{U16, U32};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The transport methods that select Steam Datagram Relay; every other value selects
/// Demonware bdNet (NS "The engine peer transport"; PEER-03).
pub const STEAM_RELAY_METHODS: [u8; 2] = [6, 7];

/// The bytes of an address the bdNet path reads: the first 41 (NS "The peer address";
/// PEER-06).
pub const BDNET_READ_LEN: usize = 41;

/// A peer address: 86 bytes, ports low byte first. All 86 bytes take part in equality,
/// padding included (PEER-05): the derived equality compares every field, and the fields
/// are every byte.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NetAddr {
    /// +0x00: the first local endpoint, dotted order.
    pub local_ipv4_0: [u8; 4],
    /// +0x04.
    pub local_port_0: U16,
    /// +0x06: four more optional 6-byte endpoints.
    pub local_more: [u8; 24],
    /// +0x1E: the observed public endpoint.
    pub public_ipv4: [u8; 4],
    /// +0x22.
    pub public_port: U16,
    /// +0x24: the identity hash of the endpoint.
    pub address_id: U32,
    /// +0x28: 1 open, 2 moderate, 3 strict.
    pub nat_type: u8,
    /// +0x29: zero.
    pub reserved: [u8; 44],
    /// +0x55: 0 to 5 bdNet, 6 and 7 Steam relay.
    pub transport_method: u8,
}

const _: () = assert!(size_of::<NetAddr>() == NetAddr::LEN);

/// The path a peer takes (PEER-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportPath {
    /// Demonware bdNet: the association handshake, then records.
    BdNet,
    /// Steam Datagram Relay.
    SteamRelay,
}

impl NetAddr {
    /// Its size on the wire.
    pub const LEN: usize = 86;

    /// An address whose one local and public endpoint is `ipv4`:`port`, open NAT, on the
    /// bdNet path; every other byte zero.
    pub fn direct(ipv4: [u8; 4], port: u16, address_id: u32) -> Self {
        let mut addr = Self::new_zeroed();
        addr.local_ipv4_0 = ipv4;
        addr.local_port_0 = port.into();
        addr.public_ipv4 = ipv4;
        addr.public_port = port.into();
        addr.address_id = address_id.into();
        addr.nat_type = 1;
        addr
    }

    /// Exactly 86 bytes.
    pub fn read(bytes: &[u8]) -> Result<Self, PeerError> {
        read_exact("a peer address", bytes)
    }

    /// The path its transport method selects (PEER-03).
    pub fn path(&self) -> TransportPath {
        if STEAM_RELAY_METHODS.contains(&self.transport_method) {
            TransportPath::SteamRelay
        } else {
            TransportPath::BdNet
        }
    }

    /// False when it names no public endpoint: bdNet sends it to NAT traversal instead of
    /// dialing it (PEER-06).
    pub fn has_public_endpoint(&self) -> bool {
        self.public_ipv4 != [0; 4]
    }

    /// The endpoint the bdNet path dials: the public one, when the address takes that path
    /// (PEER-03) and names one (PEER-06); `None` for Steam Datagram Relay or NAT traversal.
    pub fn dialed(&self) -> Option<SocketAddrV4> {
        (self.path() == TransportPath::BdNet && self.has_public_endpoint())
            .then(|| SocketAddrV4::new(self.public_ipv4.into(), self.public_port.get()))
    }

    /// True when the reserved bytes are zero, as the page has them (PEER-05).
    pub fn reserved_zero(&self) -> bool {
        self.reserved == [0; 44]
    }

    /// The first 41 bytes, what the bdNet path reads (PEER-06).
    pub fn bdnet_prefix(&self) -> &[u8] {
        self.as_bytes().get(..BDNET_READ_LEN).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bdnet_path_dials_the_public_endpoint() {
        let mut a = NetAddr::direct([10, 0, 0, 9], 3074, 1);
        a.public_ipv4 = [203, 0, 113, 5];
        a.public_port = 30000.into();
        assert_eq!(
            a.dialed(),
            Some(SocketAddrV4::new([203, 0, 113, 5].into(), 30000))
        );
        a.transport_method = 6;
        assert_eq!(a.dialed(), None, "Steam Datagram Relay");
        a.transport_method = 5;
        a.public_ipv4 = [0; 4];
        assert_eq!(a.dialed(), None, "NAT traversal");
    }

    /// The page's offsets: the public endpoint at +0x1E, the address id at +0x24, the NAT
    /// type at +0x28 and the transport method last, at +0x55; ports low byte first.
    #[test]
    fn the_fields_sit_at_the_pages_offsets() {
        let mut addr = NetAddr::direct([10, 0, 0, 7], 0x0C02, 0x1122_3344);
        addr.transport_method = 6;
        let bytes = addr.as_bytes();
        assert_eq!(bytes.len(), 86);
        assert_eq!(bytes[..6], [10, 0, 0, 7, 0x02, 0x0C]);
        assert_eq!(bytes[0x1E..0x24], [10, 0, 0, 7, 0x02, 0x0C]);
        assert_eq!(bytes[0x24..0x28], [0x44, 0x33, 0x22, 0x11]);
        assert_eq!(bytes[0x28], 1);
        assert_eq!(bytes[0x55], 6);
        assert_eq!(NetAddr::read(bytes), Ok(addr));
        assert_eq!(addr.bdnet_prefix(), &bytes[..41]);
    }

    /// Equality takes in every byte: two addresses that differ in one reserved byte are
    /// not the same address (PEER-05).
    #[test]
    fn every_byte_counts_in_equality() {
        let a = NetAddr::direct([10, 0, 0, 7], 3074, 1);
        for i in 0..NetAddr::LEN {
            let mut bytes = a.as_bytes().to_vec();
            bytes[i] ^= 1;
            let b = NetAddr::read(&bytes).unwrap();
            assert_ne!(a, b, "byte {i}");
        }
        let mut padded = a;
        padded.reserved[43] = 1;
        assert!(!padded.reserved_zero() && a.reserved_zero());
    }

    /// Methods 6 and 7 take Steam Datagram Relay; 5 and 8, either side, take bdNet
    /// (PEER-03); an address with no public endpoint has none (PEER-06).
    #[test]
    fn the_transport_method_picks_the_path() {
        let mut addr = NetAddr::direct([10, 0, 0, 7], 3074, 1);
        for (method, path) in [
            (0, TransportPath::BdNet),
            (5, TransportPath::BdNet),
            (6, TransportPath::SteamRelay),
            (7, TransportPath::SteamRelay),
            (8, TransportPath::BdNet),
            (255, TransportPath::BdNet),
        ] {
            addr.transport_method = method;
            assert_eq!(addr.path(), path, "method {method}");
        }
        assert!(addr.has_public_endpoint());
        addr.public_ipv4 = [0; 4];
        assert!(!addr.has_public_endpoint());
    }

    /// 85 and 87 bytes are not an address.
    #[test]
    fn another_length_is_refused() {
        for len in [0, 41, 85, 87] {
            assert_eq!(
                NetAddr::read(&vec![0; len]),
                Err(PeerError::Length {
                    what: "a peer address",
                    want: 86,
                    got: len
                })
            );
        }
    }
}
