//! Tag hashes, schema handles and name hashes (TD "Tag hashes", "Schema handles",
//! "Name hashes").

/// The base of every tag hash and schema handle.
pub const TAG_BASE: u32 = 0x8080_0000;
/// Entries per package (and per schema table): the index is 13 bits.
pub const ENTRIES_PER_TABLE: u32 = 8192;
/// FNV-1 offset basis; in a hash field it means "no string".
pub const FNV1_EMPTY: u32 = 0x811C_9DC5;
/// FNV-1 prime.
pub const FNV1_PRIME: u32 = 0x0100_0193;
/// "No handle" in a definition's handle field.
pub const NO_HANDLE: u32 = 0xFFFF_FFFF;

/// A tag hash from a package id and an entry index, by addition: for package ids of 1024
/// and above an OR gives a different value (TD).
pub fn tag_hash(package_id: u32, entry_index: u32) -> u32 {
    TAG_BASE
        .wrapping_add(package_id.wrapping_shl(13))
        .wrapping_add(entry_index)
}

/// The package id and entry index of a tag hash, by subtraction.
pub fn tag_parts(tag: u32) -> (u32, u32) {
    let rel = tag.wrapping_sub(TAG_BASE);
    (rel >> 13, rel & (ENTRIES_PER_TABLE - 1))
}

/// A schema handle: table 0 to 4, index 0 to 8191 (TD "Schema handles").
pub fn schema_handle(table: u32, index: u32) -> u32 {
    tag_hash(table, index)
}

/// 32-bit FNV-1: multiply, then XOR (TD "Name hashes"). FNV-1a gives other values.
pub fn fnv1(bytes: &[u8]) -> u32 {
    bytes.iter().fold(FNV1_EMPTY, |h, &b| {
        h.wrapping_mul(FNV1_PRIME) ^ u32::from(b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn investment_globals_tag() {
        assert_eq!(tag_parts(0x81A2_926E), (0x914, 4718));
        assert_eq!(tag_hash(0x914, 4718), 0x81A2_926E);
    }

    /// TD: for a package id of 1024 or more, `id << 13` overlaps the base's 0x00800000 bit,
    /// so OR and addition differ.
    #[test]
    fn addition_not_or() {
        let (package, entry) = (1024, 5);
        let by_or = TAG_BASE | (package << 13) | entry;
        assert_ne!(tag_hash(package, entry), by_or);
        assert_eq!(tag_parts(tag_hash(package, entry)), (package, entry));
    }

    #[test]
    fn investment_root_handle() {
        assert_eq!(schema_handle(4, 1689), 0x8080_8699);
    }

    #[test]
    fn fnv1_not_fnv1a() {
        assert_eq!(fnv1(b""), FNV1_EMPTY);
        let fnv1a = b"zavala_start".iter().fold(FNV1_EMPTY, |h, &b| {
            (h ^ u32::from(b)).wrapping_mul(FNV1_PRIME)
        });
        assert_ne!(fnv1(b"zavala_start"), fnv1a);
        // Reference value of 32-bit FNV-1 for "a".
        assert_eq!(fnv1(b"a"), 0x050C_5D7E);
    }
}
