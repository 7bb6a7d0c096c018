//! Type-6 data records, what an association carries once its handshake is done (NS "The
//! association handshake"; PEER-11, PEER-12): the 8-byte header with the record's
//! sequence, an 8-byte truncated MAC over the header and everything from the length on, a
//! u16 plain length, then AES-128-CBC ciphertext rounded up to the block, each record an
//! independent CBC run; a 32-slot sliding window rejects replays.
//!
//! What the pages leave open comes from Sunrise (`mw/gameplay/dtls/record`), facts and not
//! pages: each record's IV is the first 16 bytes of Tiger/192 over its sequence (4 bytes,
//! low first) and its header's tag (2 bytes, low first); the pad bytes are 0x01 and the
//! length field, not the pad, says where the plaintext ends; the MAC covers the
//! ciphertext (encrypt, then MAC). Which hash the MAC uses is known to neither the pages
//! nor Sunrise (it tries three on the first record): Vex seals with HMAC-SHA256, Sunrise's
//! default, and no verdict rests on the choice.

use super::PeerError;
use super::association::{AssocDataHead, AssocHeader, AssocPacket, DATA};
use super::keys::RecordKeys;
use aes::Aes128;
use cbc::cipher::block_padding::NoPadding;
use cbc::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use thiserror::Error;
use tiger::{Digest, Tiger};
use zerocopy::IntoBytes;

/// The cipher's block.
pub const BLOCK_LEN: usize = 16;
/// The truncated MAC.
pub const MAC_LEN: usize = 8;
/// The byte that pads a plaintext to the block (facts).
const PAD: u8 = 0x01;
/// The slots of the replay window.
pub const REPLAY_SLOTS: u32 = 32;

/// Why a record does not open, or cannot be sealed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecordError {
    /// Not a type-6 packet with its head.
    #[error(transparent)]
    Packet(#[from] PeerError),
    /// A packet of another type.
    #[error("not a data record")]
    NotData,
    /// A plain length of 0, or past the ciphertext, or a ciphertext off the block.
    #[error("plain length {plain} does not fit {cipher} bytes of ciphertext")]
    Length {
        /// The plain length.
        plain: usize,
        /// The ciphertext's bytes.
        cipher: usize,
    },
    /// The MAC does not verify.
    #[error("the record's MAC does not verify")]
    Mac,
}

/// The IV of the record with `sequence` under `tag` (facts).
fn iv(sequence: u32, tag: u16) -> [u8; BLOCK_LEN] {
    let mut input = [0u8; 6];
    for (slot, byte) in input
        .iter_mut()
        .zip(sequence.to_le_bytes().into_iter().chain(tag.to_le_bytes()))
    {
        *slot = byte;
    }
    let digest: [u8; 24] = Tiger::digest(input).into();
    let mut iv = [0u8; BLOCK_LEN];
    for (slot, byte) in iv.iter_mut().zip(digest) {
        *slot = byte;
    }
    iv
}

/// The MAC of a record: HMAC-SHA256 under the auth key over the header, then the length
/// and the ciphertext, its first 8 bytes.
fn mac(keys: &RecordKeys, header: &AssocHeader, rest: &[&[u8]]) -> Hmac<Sha256> {
    // HMAC zero-pads a key shorter than its block (RFC 2104): padded here, so the key is
    // the block's size and no length can fail
    let mut block = [0u8; 64];
    for (slot, byte) in block.iter_mut().zip(keys.auth) {
        *slot = byte;
    }
    let mut mac = <Hmac<Sha256> as KeyInit>::new(&block.into());
    mac.update(header.as_bytes());
    for part in rest {
        mac.update(part);
    }
    mac
}

/// The record of `plaintext` sent to `tag` as number `sequence`.
pub fn seal(
    keys: &RecordKeys,
    tag: u16,
    sequence: u32,
    plaintext: &[u8],
) -> Result<Vec<u8>, RecordError> {
    let plain_len = u16::try_from(plaintext.len())
        .ok()
        .filter(|len| *len > 0)
        .ok_or(RecordError::Length {
            plain: plaintext.len(),
            cipher: 0,
        })?;
    let mut ciphertext = plaintext.to_vec();
    ciphertext.resize(plaintext.len().next_multiple_of(BLOCK_LEN), PAD);
    let len = ciphertext.len();
    cbc::Encryptor::<Aes128>::new(&keys.cypher.into(), &iv(sequence, tag).into())
        .encrypt_padded::<NoPadding>(&mut ciphertext, len)
        .map_err(|_| RecordError::Length {
            plain: plaintext.len(),
            cipher: len,
        })?;
    let header = AssocHeader {
        kind: DATA,
        sequence: sequence.into(),
        ..AssocHeader::handshake(DATA, tag)
    };
    let plain_len = plain_len.to_le_bytes();
    let digest = mac(keys, &header, &[&plain_len, &ciphertext])
        .finalize()
        .into_bytes();
    let mut head = AssocDataHead {
        header,
        mac: [0; MAC_LEN],
        plain_len: u16::from_le_bytes(plain_len).into(),
    };
    for (slot, byte) in head.mac.iter_mut().zip(digest) {
        *slot = byte;
    }
    Ok([head.as_bytes(), &ciphertext].concat())
}

/// The head and plaintext of the record `bytes` hold, once its MAC verifies.
pub fn open(keys: &RecordKeys, bytes: &[u8]) -> Result<(AssocDataHead, Vec<u8>), RecordError> {
    let AssocPacket::Data { head, ciphertext } = AssocPacket::read(bytes)? else {
        return Err(RecordError::NotData);
    };
    let plain = usize::from(head.plain_len.get());
    let fits = plain > 0
        && ciphertext.len() % BLOCK_LEN == 0
        && plain <= ciphertext.len()
        && ciphertext.len() - plain < BLOCK_LEN;
    if !fits {
        return Err(RecordError::Length {
            plain,
            cipher: ciphertext.len(),
        });
    }
    let length = head.plain_len.get().to_le_bytes();
    mac(keys, &head.header, &[&length, ciphertext])
        .verify_truncated_left(&head.mac)
        .map_err(|_| RecordError::Mac)?;
    let mut plaintext = ciphertext.to_vec();
    let (sequence, tag) = (head.header.sequence.get(), head.header.addressed_tag.get());
    cbc::Decryptor::<Aes128>::new(&keys.cypher.into(), &iv(sequence, tag).into())
        .decrypt_padded::<NoPadding>(&mut plaintext)
        .map_err(|_| RecordError::Length {
            plain,
            cipher: ciphertext.len(),
        })?;
    plaintext.truncate(plain);
    Ok((head, plaintext))
}

/// The 32-slot sliding window of an association's received sequences (PEER-12): the
/// highest seen, and which of the 31 below it were seen too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayWindow {
    highest: Option<u32>,
    seen: u32,
}

/// Why the window refuses a sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum Replay {
    /// Seen already.
    #[error("sequence {0} was seen already")]
    Duplicate(u32),
    /// Below the window.
    #[error("sequence {0} is below the window")]
    TooOld(u32),
}

impl ReplayWindow {
    /// Takes `sequence` in, or says why it is a replay; a refused one changes nothing.
    pub fn admit(&mut self, sequence: u32) -> Result<(), Replay> {
        let Some(highest) = self.highest else {
            self.highest = Some(sequence);
            self.seen = 1;
            return Ok(());
        };
        if sequence > highest {
            let ahead = sequence - highest;
            self.seen = self.seen.checked_shl(ahead).unwrap_or(0) | 1;
            self.highest = Some(sequence);
            return Ok(());
        }
        let behind = highest - sequence;
        if behind >= REPLAY_SLOTS {
            return Err(Replay::TooOld(sequence));
        }
        let bit = 1 << behind;
        if self.seen & bit != 0 {
            return Err(Replay::Duplicate(sequence));
        }
        self.seen |= bit;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> RecordKeys {
        RecordKeys::derive(&[9; 28], &[0; 16])
    }

    /// A record opens to its plaintext at every length around the block, and its head
    /// holds the page's fields: type 6, the tag, the sequence, the plain length.
    #[test]
    fn records_open_at_every_length_around_the_block() {
        for len in [1usize, 15, 16, 17, 31, 32, 33, 1_200] {
            let plaintext: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let record = seal(&keys(), 0xBEEF, 7, &plaintext).unwrap();
            assert_eq!(record.len(), 18 + len.next_multiple_of(16), "{len}");
            assert_eq!(record[..8], [6, 2, 0xEF, 0xBE, 7, 0, 0, 0]);
            assert_eq!(record[16..18], (len as u16).to_le_bytes());
            let (head, opened) = open(&keys(), &record).unwrap();
            assert_eq!((head.header.sequence.get(), opened), (7, plaintext));
        }
    }

    /// The key padded to the block is the same HMAC as the 24-byte key.
    #[test]
    fn the_padded_key_is_the_same_hmac() {
        let keys = keys();
        let header = AssocHeader::handshake(DATA, 1);
        let ours = mac(&keys, &header, &[b"x"]).finalize().into_bytes();
        let mut plain = <Hmac<Sha256> as KeyInit>::new_from_slice(&keys.auth).unwrap();
        plain.update(header.as_bytes());
        plain.update(b"x");
        assert_eq!(ours, plain.finalize().into_bytes());
    }

    /// Each record is its own CBC run: one plaintext under two sequences or two tags
    /// seals to two ciphertexts.
    #[test]
    fn each_record_has_its_own_iv() {
        let a = seal(&keys(), 1, 1, b"same").unwrap();
        let b = seal(&keys(), 1, 2, b"same").unwrap();
        let c = seal(&keys(), 2, 1, b"same").unwrap();
        assert_ne!(a[18..], b[18..]);
        assert_ne!(a[18..], c[18..]);
    }

    /// A flipped bit in the header, the length, the ciphertext or the MAC fails the MAC;
    /// other keys fail it; a length that does not fit the ciphertext is refused first.
    #[test]
    fn the_mac_covers_header_length_and_ciphertext() {
        let record = seal(&keys(), 0xBEEF, 7, b"sixteen bytes!!!").unwrap();
        for i in [1, 3, 4, 8, 15, 18, 33] {
            let mut bad = record.clone();
            bad[i] ^= 1;
            assert_eq!(
                open(&keys(), &bad).err(),
                Some(RecordError::Mac),
                "byte {i}"
            );
        }
        let other = RecordKeys::derive(&[8; 28], &[0; 16]);
        assert_eq!(open(&other, &record).err(), Some(RecordError::Mac));
        for plain in [0u16, 17] {
            let mut bad = record.clone();
            bad[16..18].copy_from_slice(&plain.to_le_bytes());
            assert!(
                matches!(open(&keys(), &bad), Err(RecordError::Length { .. })),
                "{plain}"
            );
        }
        assert!(matches!(
            open(&keys(), &record[..33]),
            Err(RecordError::Length { .. })
        ));
        assert!(seal(&keys(), 1, 1, b"").is_err());
    }

    /// The window takes each sequence once, takes one up to 31 below the highest, and
    /// refuses one 32 below; a jump ahead slides it.
    #[test]
    fn the_replay_window_has_32_slots() {
        let mut w = ReplayWindow::default();
        assert_eq!(w.admit(100), Ok(()));
        assert_eq!(w.admit(100), Err(Replay::Duplicate(100)));
        assert_eq!(w.admit(69), Ok(()), "31 below");
        assert_eq!(w.admit(68), Err(Replay::TooOld(68)), "32 below");
        assert_eq!(w.admit(69), Err(Replay::Duplicate(69)));
        assert_eq!(w.admit(101), Ok(()));
        assert_eq!(w.admit(70), Ok(()), "31 below the new highest");
        assert_eq!(w.admit(69), Err(Replay::TooOld(69)));
        assert_eq!(w.admit(1_000), Ok(()));
        assert_eq!(w.admit(101), Err(Replay::TooOld(101)));
        assert_eq!(w.admit(999), Ok(()));
    }
}
