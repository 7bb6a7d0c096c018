//! Bob Jenkins's lookup3 hash, `hashlittle` (public domain, 2006), the hash at +31096 of
//! membership-update: it covers the receiver's own 28,768-byte session state after it
//! applied the update (NS "What a bad update costs"; PEER-22). The pages name the hash and
//! not its start value; the session-state hash below takes Sunrise's, whose word-wise form
//! starts at 0xDEAE2F4E, `hashlittle` with an initial value of 0xFFFFFFFF over the 28,768
//! bytes (facts, not pages: Sunrise `mw/gameplay/group/session_state`).

/// Sunrise's initial value for the session-state hash (facts, not pages).
pub const SESSION_STATE_INITVAL: u32 = 0xFFFF_FFFF;

/// The hash of `key` from `initval`, as `hashlittle` computes it on any machine: the key
/// is read as little-endian words, 12 bytes at a time, the last block zero padded.
pub fn hashlittle(key: &[u8], initval: u32) -> u32 {
    let start = 0xDEAD_BEEF_u32
        .wrapping_add(key.len() as u32)
        .wrapping_add(initval);
    let (mut a, mut b, mut c) = (start, start, start);
    if key.is_empty() {
        return c;
    }
    // every block but the last is mixed; the last, 1 to 12 bytes, goes through `final`
    let mixed = (key.len() - 1) / 12 * 12;
    let (blocks, last) = key.split_at(mixed);
    for block in blocks.chunks_exact(12) {
        let [x, y, z] = words(block);
        a = a.wrapping_add(x);
        b = b.wrapping_add(y);
        c = c.wrapping_add(z);
        (a, b, c) = mix(a, b, c);
    }
    let [x, y, z] = words(last);
    a = a.wrapping_add(x);
    b = b.wrapping_add(y);
    c = c.wrapping_add(z);
    finish(a, b, c)
}

/// Up to 12 bytes as three little-endian words, zero padded.
fn words(bytes: &[u8]) -> [u32; 3] {
    let mut block = [0u8; 12];
    for (slot, byte) in block.iter_mut().zip(bytes) {
        *slot = *byte;
    }
    let [a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3] = block;
    [
        u32::from_le_bytes([a0, a1, a2, a3]),
        u32::from_le_bytes([b0, b1, b2, b3]),
        u32::from_le_bytes([c0, c1, c2, c3]),
    ]
}

/// lookup3's `mix`: three words mixed reversibly.
fn mix(mut a: u32, mut b: u32, mut c: u32) -> (u32, u32, u32) {
    a = a.wrapping_sub(c) ^ c.rotate_left(4);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a) ^ a.rotate_left(6);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b) ^ b.rotate_left(8);
    b = b.wrapping_add(a);
    a = a.wrapping_sub(c) ^ c.rotate_left(16);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a) ^ a.rotate_left(19);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b) ^ b.rotate_left(4);
    b = b.wrapping_add(a);
    (a, b, c)
}

/// lookup3's `final`: the last mixing, whose `c` is the hash.
fn finish(mut a: u32, mut b: u32, mut c: u32) -> u32 {
    c = (c ^ b).wrapping_sub(b.rotate_left(14));
    a = (a ^ c).wrapping_sub(c.rotate_left(11));
    b = (b ^ a).wrapping_sub(a.rotate_left(25));
    c = (c ^ b).wrapping_sub(b.rotate_left(16));
    a = (a ^ c).wrapping_sub(c.rotate_left(4));
    b = (b ^ a).wrapping_sub(a.rotate_left(14));
    (c ^ b).wrapping_sub(b.rotate_left(24))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference values lookup3.c prints in its own self-test (`driver5`).
    #[test]
    fn the_published_reference_values() {
        let four_score = b"Four score and seven years ago";
        assert_eq!(hashlittle(b"", 0), 0xDEAD_BEEF);
        assert_eq!(hashlittle(b"", 0xDEAD_BEEF), 0xBD5B_7DDE);
        assert_eq!(hashlittle(four_score, 0), 0x1777_0551);
        assert_eq!(hashlittle(four_score, 1), 0xCD62_8161);
    }

    /// A key of exactly 12 bytes is one last block (`final`, no `mix`), and 13 bytes one
    /// mixed block and a last one: a change in any byte changes the hash.
    #[test]
    fn every_byte_of_every_block_counts() {
        for len in [1, 11, 12, 13, 24, 25, 28_768] {
            let key: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let hash = hashlittle(&key, SESSION_STATE_INITVAL);
            for i in [0, len / 2, len - 1] {
                let mut other = key.clone();
                other[i] ^= 0x80;
                assert_ne!(
                    hashlittle(&other, SESSION_STATE_INITVAL),
                    hash,
                    "{len} bytes, byte {i}"
                );
            }
        }
    }

    /// Sunrise's start value for the session state is 0xDEAE2F4E: lookup3's constant, plus
    /// the 28,768 bytes, plus the initial value.
    #[test]
    fn the_session_state_start_value() {
        let start = 0xDEAD_BEEF_u32
            .wrapping_add(28_768)
            .wrapping_add(SESSION_STATE_INITVAL);
        assert_eq!(start, 0xDEAE_2F4E);
    }
}
