//! Slots: the ClientRef that names one, and which schemas a slot has (AH "Slots",
//! "Slot types"; facts 4.7).

use crate::activity::body::Body;
use crate::bits::{BitError, BitReader, BitWriter};

/// Bits of a ClientRef on the wire (SLOT-01).
pub const CLIENT_REF_BITS: usize = 55;
/// Bias of the 7-bit slot type.
pub const SLOT_TYPE_BIAS: i64 = 1;
/// Bias of the 16-bit slot index.
pub const SLOT_INDEX_BIAS: i64 = 32768;
/// The empty registry key: the FNV-1 offset basis.
pub const EMPTY_KEY: u32 = crate::tag::FNV1_EMPTY;

/// Slot type 3, objective_sensor (AH "Type 3").
pub const TYPE_OBJECTIVE: i8 = 3;
/// Slot type 8, configuration (facts 4.8; AH's hud_sensor has the same 35-bit minimum).
pub const TYPE_CONFIGURATION: i8 = 8;
/// Slot type 13, participation (facts 4.8); carries the player key.
pub const TYPE_PARTICIPATION: i8 = 13;
/// Slot type 16, package (facts 4.8).
pub const TYPE_PACKAGE: i8 = 16;
/// Slot type 17, activity_lifetime_sensor (AH "Type 17").
pub const TYPE_LIFETIME: i8 = 17;
/// Slot type 18, activity_timer_sensor (AH "How an Auth table is encoded": the clock
/// window of types 18 and 35).
pub const TYPE_TIMER: i8 = 18;
/// Slot type 21 (facts 4.7: a roster type; sent reset-only).
pub const TYPE_21: i8 = 21;
/// Slot type 24, channel_sensor (AH "Type 24").
pub const TYPE_CHANNEL: i8 = 24;
/// Slot type 41, queues (facts 4.8).
pub const TYPE_QUEUES: i8 = 41;
/// Slot type 65, ghost_link_sensor (AH "Type 65").
pub const TYPE_GHOST_LINK: i8 = 65;
/// Slot type 67, team_side_sensor (AH "Type 67").
pub const TYPE_TEAM_SIDE: i8 = 67;
/// The twelve slot types that never have a descriptor (SLOT-02).
pub const NEVER_DESCRIBED: [i8; 12] = [12, 44, 45, 46, 47, 48, 54, 60, 61, 64, 69, 72];

/// A slot reference: registry key, slot type, slot index (AH "Slots", 55 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ClientRef {
    /// The object's registry key, 32 bits, bias 0.
    pub key: u32,
    /// The slot type, 7 bits, bias 1.
    pub slot_type: i8,
    /// The slot index, 16 bits, bias 32768.
    pub index: i16,
}

impl std::fmt::Display for ClientRef {
    /// `key/type/index`, the key in hex: `0xbbbb0001/65/4`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}/{}/{}", self.key, self.slot_type, self.index)
    }
}

impl ClientRef {
    /// The resolver refuses a type or index of -1 (SLOT-01).
    pub fn is_resolvable(&self) -> bool {
        self.slot_type != -1 && self.index != -1
    }
}

/// The 55 bits of a slot reference (AH "Slots").
impl Body for ClientRef {
    type Decoded = Self;

    /// Writes the 55 bits.
    fn write(&self, w: &mut BitWriter) {
        w.write(u64::from(self.key), 32);
        w.write_biased(i64::from(self.slot_type), SLOT_TYPE_BIAS, 7);
        w.write_biased(i64::from(self.index), SLOT_INDEX_BIAS, 16);
    }

    /// Reads the 55 bits, in one read: key (32), type (7, bias 1), index (16, bias
    /// 32768).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let bits = r.read(CLIENT_REF_BITS as u32)?;
        let biased = |stored: u64, bias: i64| stored as i64 - bias;
        Ok(Self {
            key: (bits >> 23) as u32,
            slot_type: biased(bits >> 16 & 0x7F, SLOT_TYPE_BIAS) as i8,
            index: biased(bits & 0xFFFF, SLOT_INDEX_BIAS) as i16,
        })
    }
}

/// Which state buffers a slot has; the client reads this from its own record, never from
/// the wire (AUTH-06).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotSchemas {
    /// The slot has an Auth schema: reset and root bits appear in its block.
    pub auth: bool,
    /// The slot has a Sense schema: the Sense-present bit appears in its block.
    pub sense: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::written;

    #[test]
    fn client_ref_is_55_bits_with_biases() {
        let r = ClientRef {
            key: 0xAAAA_0001,
            slot_type: 13,
            index: 0,
        };
        assert_eq!(r.measure(), Ok(CLIENT_REF_BITS));
        let bytes = r.encode().unwrap();
        let mut rd = BitReader::new(&bytes);
        assert_eq!(rd.read(32).unwrap(), 0xAAAA_0001);
        assert_eq!(rd.read(7).unwrap(), 14);
        assert_eq!(rd.read(16).unwrap(), 0x8000);
        assert_eq!(ClientRef::read(&mut BitReader::new(&bytes)).unwrap(), r);
        let zero = ClientRef::read(&mut BitReader::new(&[0; 7])).unwrap();
        assert!(!zero.is_resolvable(), "all-zero bits decode to type -1");
    }

    proptest::proptest! {
        /// Every reference the 55 bits hold reads back as written, at any bit offset.
        #[test]
        fn any_client_ref_reads_back(key: u32, slot_type in -1i8..=126, index: i16, skip in 0u32..8) {
            let r = ClientRef { key, slot_type, index };
            let bytes = written(|w| {
                if skip > 0 {
                    w.write(0, skip);
                }
                r.write(w);
            })
            .unwrap();
            let mut rd = BitReader::new(&bytes);
            rd.skip(skip as usize).unwrap();
            proptest::prop_assert_eq!(ClientRef::read(&mut rd).unwrap(), r);
            proptest::prop_assert_eq!(rd.position(), skip as usize + CLIENT_REF_BITS);
        }
    }
}
