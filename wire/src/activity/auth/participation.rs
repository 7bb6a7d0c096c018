//! Type 13, participation: the body that carries the player key (facts 4.8).
//!
//! The pages name no type-13 fields; facts 4.8 gives Sunrise's 24 fields with their
//! widths and the values it writes. Vex writes the same layout, keeping the three fields
//! with a known meaning (region, player key, sync state) and Sunrise's constants for the
//! rest, which are kept as raw values in [`SUNRISE_FIXED`] order.

use crate::activity::body::Body;
use crate::bits::{BitError, BitReader, BitWriter, I32_BIAS};

/// Bits without the region: 192 (facts 4.8).
pub const PARTICIPATION_BITS: usize = 192;
/// Extra bits when the region is present.
pub const REGION_BITS: usize = 32;
/// Field 20's value while the client is syncing (`awaiting_client_sync`).
pub const AWAITING_CLIENT_SYNC: u8 = 2;

/// Fields 3 to 12a: (width, raw value written), facts 4.8.
const BEFORE_KEY: [(u32, u64); 10] = [
    (1, 0),
    (1, 1),
    (1, 1),
    (1, 1),
    (1, 0),
    (3, 1),
    (2, 1),
    (3, 0),
    (32, 0),
    (5, 1),
];
/// Fields 12b and 12c.
const KEY_PREFIX: [(u32, u64); 2] = [(1, 0), (3, 0)];
/// Fields 15 to 19.
const AFTER_KEY: [(u32, u64); 5] = [(5, 0), (6, 3), (6, 0), (6, 0), (1, 1)];
/// Fields 21 to 24.
const TAIL: [(u32, u64); 4] = [(3, 0), (1, 0), (8, 128), (32, I32_BIAS as u64)];

/// Every fixed field of the body, in wire order, for documentation and tests.
pub const SUNRISE_FIXED: usize = BEFORE_KEY.len() + KEY_PREFIX.len() + AFTER_KEY.len() + TAIL.len();

/// The type-13 Auth body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParticipationAuth {
    /// Field 1-2: the region, i32 bias 0x80000000, behind a presence bit.
    pub region: Option<i32>,
    /// Field 13-14: the player key (the character SOID), behind a presence bit.
    pub player_key: Option<u64>,
    /// Field 20, 4 bits: 2 while awaiting client sync, else 0.
    pub sync_state: u8,
}

fn write_fixed(w: &mut BitWriter, fields: &[(u32, u64)]) {
    for &(width, v) in fields {
        w.write(v, width);
    }
}

fn read_fixed(r: &mut BitReader<'_>, fields: &[(u32, u64)]) -> Result<(), BitError> {
    for &(width, _) in fields {
        r.read(width)?;
    }
    Ok(())
}

/// The type-13 Auth body in Sunrise's layout (facts 4.8).
impl Body for ParticipationAuth {
    type Decoded = Self;

    /// Writes the body.
    fn write(&self, w: &mut BitWriter) {
        w.write_bool(self.region.is_some());
        if let Some(region) = self.region {
            w.write_i32(region);
        }
        write_fixed(w, &BEFORE_KEY);
        write_fixed(w, &KEY_PREFIX);
        w.write_bool(self.player_key.is_some());
        if let Some(key) = self.player_key {
            w.write(key, 64);
        }
        write_fixed(w, &AFTER_KEY);
        w.write(u64::from(self.sync_state & 0xF), 4);
        write_fixed(w, &TAIL);
    }

    /// Reads the body in Sunrise's layout.
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let region = if r.read_bool()? {
            Some(r.read_i32()?)
        } else {
            None
        };
        read_fixed(r, &BEFORE_KEY)?;
        read_fixed(r, &KEY_PREFIX)?;
        let player_key = if r.read_bool()? {
            Some(r.read(64)?)
        } else {
            None
        };
        read_fixed(r, &AFTER_KEY)?;
        let sync_state = r.read(4)? as u8;
        read_fixed(r, &TAIL)?;
        Ok(Self {
            region,
            player_key,
            sync_state,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_facts() {
        let mut a = ParticipationAuth {
            region: None,
            player_key: Some(1),
            sync_state: 0,
        };
        let mut w = BitWriter::measuring();
        a.write(&mut w);
        assert_eq!(w.bit_len(), PARTICIPATION_BITS);
        a.region = Some(0);
        assert_eq!(a.measure(), Ok(PARTICIPATION_BITS + REGION_BITS));
        let bytes = a.encode().unwrap();
        assert_eq!(
            ParticipationAuth::read(&mut BitReader::new(&bytes)).unwrap(),
            a
        );
        assert_eq!(SUNRISE_FIXED, 21);
    }
}
