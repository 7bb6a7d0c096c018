//! Auth bodies by slot type (AH "Key slot types"; facts 4.8).
//!
//! A body is written after its block's reset and root bits in message 5. Types with no
//! documented body are published reset-only (reset 1, root 0), which installs the schema
//! defaults (AUTH-09).

pub mod lifetime;
pub mod participation;

use crate::activity::body::Body;
use crate::activity::slot::{TYPE_LIFETIME, TYPE_PARTICIPATION};
use crate::bits::{BitError, BitReader, BitWriter, Bits, written_bits};
use lifetime::LifetimeAuth;
use participation::ParticipationAuth;

/// Bits of the type-8 configuration body: three clear presence bits, then 32 zero bits.
pub const CONFIGURATION_BITS: usize = 35;
/// Bits of the type-16 package body: seven clear presence bits.
pub const PACKAGE_BITS: usize = 7;
/// Bits of the type-41 queues body.
pub const QUEUES_BITS: usize = 12;

/// A typed Auth body Vex knows how to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthBody {
    /// Type 17.
    Lifetime(LifetimeAuth),
    /// Type 13.
    Participation(ParticipationAuth),
    /// Type 8, the neutral body Sunrise sends (facts 4.8).
    ConfigurationNeutral,
    /// Type 16, seven clear presence bits: absent fields keep package config.
    PackageNeutral,
    /// Type 41, a 7-bit and a 5-bit zero.
    QueuesNeutral,
}

impl AuthBody {
    /// Writes the body.
    pub fn write(&self, w: &mut BitWriter) {
        match self {
            AuthBody::Lifetime(a) => a.write(w),
            AuthBody::Participation(a) => a.write(w),
            AuthBody::ConfigurationNeutral => w.write_zeros(CONFIGURATION_BITS),
            AuthBody::PackageNeutral => w.write_zeros(PACKAGE_BITS),
            AuthBody::QueuesNeutral => w.write_zeros(QUEUES_BITS),
        }
    }

    /// The body's exact bits.
    pub fn to_bits(&self) -> Result<Bits, BitError> {
        written_bits(|w| self.write(w))
    }

    /// Reads a body of slot type `slot_type` at the cursor, for the types whose body Vex
    /// can size; `None` (reading nothing) for the others.
    pub fn read(slot_type: i8, r: &mut BitReader<'_>) -> Result<Option<Self>, BitError> {
        Ok(match slot_type {
            TYPE_LIFETIME => Some(AuthBody::Lifetime(LifetimeAuth::read(r)?)),
            TYPE_PARTICIPATION => Some(AuthBody::Participation(ParticipationAuth::read(r)?)),
            _ => None,
        })
    }
}
