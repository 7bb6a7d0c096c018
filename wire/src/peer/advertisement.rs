//! The session advertisement a QoS reply carries and LAN peer message 3 carries too, one
//! decoder for both (NS "The session advertisement"; QOS-01, QOS-05, QOS-06): a
//! bit-packed block whose header comes first, most significant bit first, each field
//! written as value + bias (AH "The bit codec").

use crate::bits::{BitError, BitReader, BitWriter};
use std::fmt;

/// The protocol version this build's client has (NS: "must equal the client's, 0xA4F8").
pub const PROTOCOL_VERSION: u16 = 0xA4F8;
/// The only kind the client takes.
pub const KIND: u8 = 5;
/// This build.
pub const BUILD: u32 = 86_657;
/// The bias of both build bounds.
const BUILD_BIAS: i64 = -1;
/// Payload type 1: a full advertisement.
pub const FULL_ADVERTISEMENT: u8 = 1;
/// Payload type 2: the 688-byte group-session descriptor, the one matchmaking expects in
/// this build.
pub const GROUP_SESSION: u8 = 2;
/// The block's size, as the page gives it: 13,184 bytes.
pub const BLOCK_LEN: usize = 13_184;
/// Payload type 2's descriptor, in bytes (its layout is not on the pages).
pub const GROUP_SESSION_DESCRIPTOR_LEN: usize = 688;

/// The header's widths, in order: session id, protocol version, kind, the two build
/// bounds, the payload type.
const WIDTHS: [u32; 6] = [64, 16, 3, 31, 31, 2];

/// The header's bits, 147.
pub const HEADER_BITS: usize = {
    let [id, version, kind, high, low, payload] = WIDTHS;
    (id + version + kind + high + low + payload) as usize
};

/// The bytes the header takes, its last one shared with what follows: 19.
pub const HEADER_BYTES: usize = HEADER_BITS.div_ceil(8);

/// The header, 147 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdvertisementHeader {
    /// From the running session.
    pub session_id: u64,
    /// Must equal [`PROTOCOL_VERSION`].
    pub protocol_version: u16,
    /// Must be [`KIND`].
    pub kind: u8,
    /// The newest build the session takes: at least [`BUILD`].
    pub build_high: u32,
    /// The oldest build the session takes: at most [`BUILD`].
    pub build_low: u32,
    /// Must equal what the tracker expects ([`GROUP_SESSION`] from matchmaking).
    pub payload_type: u8,
}

/// Why the client marks a probed session unsuitable and never joins it (QOS-05, QOS-06).
/// The pages name two reasons (qos-payload-empty, qos-incompatible-versions) and call
/// them examples; the others are named by Vex after the check that fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsuitable {
    /// No payload (the page's qos-payload-empty).
    PayloadEmpty,
    /// A payload too short for its header.
    Undecodable(BitError),
    /// Another protocol version (the page's qos-incompatible-versions).
    IncompatibleVersions(u16),
    /// A kind other than 5.
    Kind(u8),
    /// A newest build below this one.
    BuildHighBelow(u32),
    /// An oldest build above this one.
    BuildLowAbove(u32),
    /// Another payload type than the tracker expects.
    PayloadType {
        /// The type the block names.
        got: u8,
        /// The type expected.
        want: u8,
    },
}

impl fmt::Display for Unsuitable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PayloadEmpty => f.write_str("qos-payload-empty"),
            Self::Undecodable(e) => write!(f, "the advertisement does not decode ({e})"),
            Self::IncompatibleVersions(v) => {
                write!(
                    f,
                    "qos-incompatible-versions (version {v:#06x}, not {PROTOCOL_VERSION:#06x})"
                )
            }
            Self::Kind(k) => write!(f, "kind {k}, not {KIND}"),
            Self::BuildHighBelow(b) => write!(f, "newest build {b}, below {BUILD}"),
            Self::BuildLowAbove(b) => write!(f, "oldest build {b}, above {BUILD}"),
            Self::PayloadType { got, want } => write!(f, "payload type {got}, not {want}"),
        }
    }
}

impl AdvertisementHeader {
    /// The header of `session_id`'s advertisement for this build, payload type 2.
    pub fn for_session(session_id: u64) -> Self {
        Self {
            session_id,
            protocol_version: PROTOCOL_VERSION,
            kind: KIND,
            build_high: BUILD,
            build_low: BUILD,
            payload_type: GROUP_SESSION,
        }
    }

    /// Writes the 147 bits.
    pub fn write(&self, w: &mut BitWriter) {
        let [id, version, kind, high, low, payload] = WIDTHS;
        w.write(self.session_id, id);
        w.write(self.protocol_version.into(), version);
        w.write(self.kind.into(), kind);
        w.write_biased(self.build_high.into(), BUILD_BIAS, high);
        w.write_biased(self.build_low.into(), BUILD_BIAS, low);
        w.write(self.payload_type.into(), payload);
    }

    /// Reads the 147 bits.
    pub fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let [id, version, kind, high, low, payload] = WIDTHS;
        Ok(Self {
            session_id: r.read(id)?,
            protocol_version: r.read(version)? as u16,
            kind: r.read(kind)? as u8,
            build_high: r.read_biased(BUILD_BIAS, high)? as u32,
            build_low: r.read_biased(BUILD_BIAS, low)? as u32,
            payload_type: r.read(payload)? as u8,
        })
    }

    /// The first of the header's checks this one fails, in the page's order, when the
    /// tracker expects `want` (QOS-06).
    pub fn unsuitable(&self, want: u8) -> Option<Unsuitable> {
        if self.protocol_version != PROTOCOL_VERSION {
            Some(Unsuitable::IncompatibleVersions(self.protocol_version))
        } else if self.kind != KIND {
            Some(Unsuitable::Kind(self.kind))
        } else if self.build_high < BUILD {
            Some(Unsuitable::BuildHighBelow(self.build_high))
        } else if self.build_low > BUILD {
            Some(Unsuitable::BuildLowAbove(self.build_low))
        } else if self.payload_type != want {
            Some(Unsuitable::PayloadType {
                got: self.payload_type,
                want,
            })
        } else {
            None
        }
    }
}

/// A QoS reply's payload as the client judges it before it joins (QOS-05, QOS-06): the
/// header when the session is suitable, else why not.
pub fn judge(payload: &[u8], want: u8) -> Result<AdvertisementHeader, Unsuitable> {
    if payload.is_empty() {
        return Err(Unsuitable::PayloadEmpty);
    }
    let header =
        AdvertisementHeader::read(&mut BitReader::new(payload)).map_err(Unsuitable::Undecodable)?;
    header.unsuitable(want).map_or(Ok(header), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::written;

    fn block(header: &AdvertisementHeader) -> Vec<u8> {
        let mut bytes = written(|w| header.write(w)).unwrap();
        bytes.resize(BLOCK_LEN, 0);
        bytes
    }

    /// Our header reads back, passes, and puts the session id first and the version
    /// after it; each build bound goes on the wire one below its value (bias -1).
    #[test]
    fn the_header_reads_back_and_passes() {
        let h = AdvertisementHeader::for_session(0x1100_0001_0020_0001);
        let bytes = block(&h);
        assert_eq!(bytes[..10], [0x11, 0, 0, 1, 0, 0x20, 0, 1, 0xA4, 0xF8]);
        assert_eq!(judge(&bytes, GROUP_SESSION), Ok(h));
        let mut w = BitWriter::measuring();
        h.write(&mut w);
        assert_eq!(w.finish(), Ok(147));
        assert_eq!((HEADER_BITS, HEADER_BYTES), (147, 19));
        // kind (3 bits) then the high bound: 86,656 in 31 bits
        let mut r = BitReader::new(&bytes);
        r.skip(80).unwrap();
        assert_eq!(r.read(3).unwrap(), 5);
        assert_eq!(r.read(31).unwrap(), 86_656);
        assert_eq!(r.read(31).unwrap(), 86_656);
    }

    /// Each check at its bound: the legal edge passes and one past it is named.
    #[test]
    fn each_check_at_its_bound() {
        let good = AdvertisementHeader::for_session(7);
        type Edit = fn(&mut AdvertisementHeader);
        let cases: [(Edit, Option<Unsuitable>); 10] = [
            (
                |h| h.protocol_version = 0xA4F7,
                Some(Unsuitable::IncompatibleVersions(0xA4F7)),
            ),
            (
                |h| h.protocol_version = 0xA4F9,
                Some(Unsuitable::IncompatibleVersions(0xA4F9)),
            ),
            (|h| h.kind = 4, Some(Unsuitable::Kind(4))),
            (|h| h.kind = 6, Some(Unsuitable::Kind(6))),
            (
                |h| h.build_high = BUILD - 1,
                Some(Unsuitable::BuildHighBelow(BUILD - 1)),
            ),
            (|h| h.build_high = BUILD + 1_000, None),
            (
                |h| h.build_low = BUILD + 1,
                Some(Unsuitable::BuildLowAbove(BUILD + 1)),
            ),
            (|h| h.build_low = 1, None), // wire 0, the lowest it can say
            (
                |h| h.payload_type = FULL_ADVERTISEMENT,
                Some(Unsuitable::PayloadType { got: 1, want: 2 }),
            ),
            (|h| h.session_id = u64::MAX, None),
        ];
        for (edit, want) in cases {
            let mut h = good;
            edit(&mut h);
            assert_eq!(judge(&block(&h), GROUP_SESSION).err(), want, "{h:?}");
        }
    }

    /// No payload is qos-payload-empty; 18 bytes, short of the 147-bit header, do not
    /// decode; a zero block fails the version check first.
    #[test]
    fn empty_short_and_zero_payloads() {
        assert_eq!(judge(&[], GROUP_SESSION), Err(Unsuitable::PayloadEmpty));
        assert_eq!(Unsuitable::PayloadEmpty.to_string(), "qos-payload-empty");
        let short = &block(&AdvertisementHeader::for_session(7))[..18];
        assert!(matches!(
            judge(short, GROUP_SESSION),
            Err(Unsuitable::Undecodable(_))
        ));
        assert_eq!(
            judge(&[0; BLOCK_LEN], GROUP_SESSION),
            Err(Unsuitable::IncompatibleVersions(0))
        );
    }
}
