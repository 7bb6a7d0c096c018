//! The id of an activity session (AH "The activity envelope": "the account half in the
//! high 32 bits, class 0x0020 next, then an index"; ENV-09). Every push names it, service 7
//! gives it, and a join names the one it joins.

use std::fmt;

/// An activity session id.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SessionId(pub u64);

impl SessionId {
    /// The class every session id carries in bits 16 to 31.
    pub const CLASS: u16 = 0x0020;

    /// The id of the session with `index` for the account whose id is `account`: its
    /// high 32 bits, then [`SessionId::CLASS`], then the index.
    pub fn shaped(account: u64, index: u16) -> Self {
        Self::from_parts((account >> 32) as u32, Self::CLASS, index)
    }

    /// The id made of `account_half` (the high 32 bits), `class` (bits 16 to 31) and
    /// `index` (the low 16 bits), whatever they are.
    pub fn from_parts(account_half: u32, class: u16, index: u16) -> Self {
        Self(u64::from(account_half) << 32 | u64::from(class) << 16 | u64::from(index))
    }

    /// The account half, the high 32 bits.
    pub fn account_half(self) -> u32 {
        (self.0 >> 32) as u32
    }

    /// The class, bits 16 to 31.
    pub fn class(self) -> u16 {
        (self.0 >> 16) as u16
    }

    /// The index, the low 16 bits.
    pub fn index(self) -> u16 {
        self.0 as u16
    }
}

impl fmt::LowerHex for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0, f)
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#018x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three parts land where AH puts them, and read back.
    #[test]
    fn a_shaped_id_has_the_account_half_the_class_and_the_index() {
        let id = SessionId::shaped(0x1100_0001_2345_6789, 0xFFFF);
        assert_eq!(id, SessionId(0x1100_0001_0020_FFFF));
        assert_eq!(id.account_half(), 0x1100_0001);
        assert_eq!(id.class(), SessionId::CLASS);
        assert_eq!(id.index(), 0xFFFF);
        assert_eq!(id.to_string(), "0x110000010020ffff");
        assert_eq!(
            SessionId::from_parts(0x1100_0001, 0x0021, 7).0,
            0x1100_0001_0021_0007
        );
    }
}
