//! The engine peer transport (NS "The engine peer transport"): the layouts both ends of a
//! bdNet peer connection write, pure and with no IO. An association opens with four
//! packets and then carries encrypted records; above it, a session found by matchmaking is
//! first probed over QoS.
//!
//! The fixed layouts are `#[repr(C)]` structs of byte arrays and little-endian integers
//! (`zerocopy`), field for field the pages' own structs, so each one's size is checked at
//! compile time against the page and reading one is a length check and a copy.

pub mod advertisement;
pub mod association;
pub mod chain;
pub mod established;
pub mod join_descriptor;
pub mod keys;
pub mod lookup3;
pub mod membership;
pub mod message;
pub mod net_addr;
pub mod qos;
pub mod record;
pub mod reliable;
pub mod session_state;

use thiserror::Error;

/// The largest datagram a socket of the peer port reads whole: a UDP payload's size
/// field's most. A receive buffer of this size never cuts one.
pub const MAX_DATAGRAM: usize = 65_535;

/// Why bytes are not the peer packet they were read as.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PeerError {
    /// A fixed layout of another length (the pages give each one's size exactly).
    #[error("{what} is {want} bytes; got {got}")]
    Length {
        /// The layout.
        what: &'static str,
        /// Its size.
        want: usize,
        /// The bytes given.
        got: usize,
    },
    /// A packet whose type byte names another packet.
    #[error("{what} has type {want}; got {got}")]
    Type {
        /// The layout.
        what: &'static str,
        /// Its type.
        want: u8,
        /// The type byte given.
        got: u8,
    },
    /// A bit field that could not be written or read.
    #[error(transparent)]
    Bits(#[from] crate::bits::BitError),
    /// A length field that disagrees with the bytes that follow it.
    #[error("{what} says {said} bytes follow; {follow} do")]
    Declared {
        /// The field.
        what: &'static str,
        /// Its value.
        said: usize,
        /// The bytes that follow.
        follow: usize,
    },
}

/// Reads a fixed layout `T` from exactly `bytes`, or says why not.
fn read_exact<T: zerocopy::FromBytes + zerocopy::KnownLayout + zerocopy::Immutable>(
    what: &'static str,
    bytes: &[u8],
) -> Result<T, PeerError> {
    T::read_from_bytes(bytes).map_err(|_| PeerError::Length {
        what,
        want: size_of::<T>(),
        got: bytes.len(),
    })
}

/// Reads a fixed layout `T` from the front of `bytes`, and the bytes after it; or says why
/// not (fewer bytes than `T`).
fn read_prefix<'a, T: zerocopy::FromBytes + zerocopy::KnownLayout + zerocopy::Immutable>(
    what: &'static str,
    bytes: &'a [u8],
) -> Result<(T, &'a [u8]), PeerError> {
    T::read_from_prefix(bytes).map_err(|_| PeerError::Length {
        what,
        want: size_of::<T>(),
        got: bytes.len(),
    })
}

/// Writes `value` as Sunrise's "raw u64" (facts 0): its 8 bytes low first, each byte's
/// bits most significant first, as the bitstream carries bytes.
fn write_raw_u64(w: &mut crate::bits::BitWriter, value: u64) {
    w.write(u64::from_be_bytes(value.to_le_bytes()), 64);
}

/// Reads a raw u64 written by [`write_raw_u64`].
fn read_raw_u64(r: &mut crate::bits::BitReader<'_>) -> Result<u64, crate::bits::BitError> {
    Ok(u64::from_le_bytes(r.read(64)?.to_be_bytes()))
}
