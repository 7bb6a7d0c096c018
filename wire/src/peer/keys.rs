//! The association's keys (NS "The association handshake": "The key exchange is ECDH on
//! the curve secp224r1, using LibTomCrypt. Each side exports its public key in the cookie
//! echo or cookie ack. The association then derives its record keys"; PEER-10). The pages
//! give the curve and no more: the export form and the derivation below are facts from
//! Sunrise (`mw/crypto/ecc_p224`, `mw/gameplay/dtls/association_keys`), not pages, and a
//! verdict built on them says so.

use super::association::PUBLIC_KEY_LEN;
use der::asn1::{BitStringRef, UintRef};
use der::{Decode, Encode, SliceReader};
use p224::elliptic_curve::sec1::ToEncodedPoint;
use p224::{PublicKey, SecretKey};
use thiserror::Error;
use tiger::{Digest, Tiger};

/// A P-224 coordinate, and the shared secret's length.
pub const COORDINATE_LEN: usize = 28;
/// The join key's length (the join descriptor's +94).
pub const JOIN_KEY_LEN: usize = 16;
/// The derivation buffer: the shared secret, the join key, a suffix, zeros (facts).
const DERIVATION_LEN: usize = 68;
/// The suffix of the cipher key's derivation (facts).
const CYPHER_SUFFIX: &[u8] = b"cypherKeySuffix";
/// The suffix of the MAC key's derivation (facts).
const AUTH_SUFFIX: &[u8] = b"SuffixForHMACKey";
/// The key size LibTomCrypt exports: 28 bytes (facts).
const KEY_SIZE: u8 = 28;

/// Why a public-key field is not a key.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeyError {
    /// Not the DER form LibTomCrypt exports.
    #[error("the public key is not LibTomCrypt's export form: {0}")]
    Form(String),
    /// A key size other than 28.
    #[error("the public key's size is {0}, not 28")]
    Size(u8),
    /// A coordinate past 28 bytes, or a point off the curve.
    #[error("the public key is not a point of secp224r1")]
    Point,
}

/// LibTomCrypt's `ecc_export(PK_PUBLIC)` form (facts): a SEQUENCE of a one-bit BIT STRING
/// (0: public), the key size and the two coordinates as DER INTEGERs.
#[derive(der::Sequence)]
struct ExportedKey<'a> {
    flags: BitStringRef<'a>,
    key_size: u8,
    x: UintRef<'a>,
    y: UintRef<'a>,
}

/// One side's ephemeral key of an association.
#[derive(Clone)]
pub struct AssociationKey {
    secret: SecretKey,
}

impl std::fmt::Debug for AssociationKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AssociationKey")
    }
}

impl AssociationKey {
    /// The key whose scalar is `scalar`, big-endian, when it is one (1 to n - 1): the
    /// caller draws it, so a core stays deterministic.
    pub fn from_scalar(scalar: [u8; COORDINATE_LEN]) -> Option<Self> {
        let secret = SecretKey::from_slice(&scalar).ok()?;
        Some(Self { secret })
    }

    /// The 100-byte public-key field of a cookie echo or cookie ack: the export form,
    /// zero padded.
    pub fn public_key_field(&self) -> Result<[u8; PUBLIC_KEY_LEN], KeyError> {
        export(&self.secret.public_key()).map_err(|e| KeyError::Form(e.to_string()))
    }

    /// The shared secret with the peer whose field is `peer`: the affine x of our scalar
    /// times its point, 28 bytes big-endian (facts).
    pub fn agree(&self, peer: &[u8; PUBLIC_KEY_LEN]) -> Result<[u8; COORDINATE_LEN], KeyError> {
        let peer = import(peer)?;
        let shared = p224::ecdh::diffie_hellman(self.secret.to_nonzero_scalar(), peer.as_affine());
        Ok((*shared.raw_secret_bytes()).into())
    }
}

/// `key` in the export form, zero padded to 100 bytes.
fn export(key: &PublicKey) -> der::Result<[u8; PUBLIC_KEY_LEN]> {
    let point = key.to_encoded_point(false);
    let (x, y) = (point.x(), point.y());
    let exported = ExportedKey {
        flags: BitStringRef::new(7, &[0])?,
        key_size: KEY_SIZE,
        x: UintRef::new(x.map_or(&[][..], |c| &c[..]))?,
        y: UintRef::new(y.map_or(&[][..], |c| &c[..]))?,
    };
    let mut field = [0u8; PUBLIC_KEY_LEN];
    for (slot, byte) in field.iter_mut().zip(&exported.to_der()?) {
        *slot = *byte;
    }
    Ok(field)
}

/// The key a 100-byte field holds: the export form, then anything (zeros).
pub fn import(field: &[u8; PUBLIC_KEY_LEN]) -> Result<PublicKey, KeyError> {
    // the zero padding after the form is not read
    let mut reader = SliceReader::new(field).map_err(|e| KeyError::Form(e.to_string()))?;
    let exported = ExportedKey::decode(&mut reader).map_err(|e| KeyError::Form(e.to_string()))?;
    if exported.key_size != KEY_SIZE {
        return Err(KeyError::Size(exported.key_size));
    }
    // SEC1's uncompressed form: 0x04, then x and y, each 28 bytes
    let sec1 = [
        &[0x04][..],
        &coordinate(exported.x.as_bytes())?,
        &coordinate(exported.y.as_bytes())?,
    ]
    .concat();
    PublicKey::from_sec1_bytes(&sec1).map_err(|_| KeyError::Point)
}

/// A coordinate right-aligned in 28 bytes, or [`KeyError::Point`] when it is longer.
fn coordinate(value: &[u8]) -> Result<[u8; COORDINATE_LEN], KeyError> {
    let start = COORDINATE_LEN
        .checked_sub(value.len())
        .ok_or(KeyError::Point)?;
    let mut out = [0u8; COORDINATE_LEN];
    for (slot, byte) in out.iter_mut().skip(start).zip(value) {
        *slot = *byte;
    }
    Ok(out)
}

/// The two keys of an association, the same for both directions (facts): the AES-128
/// key of its records and the key of their MAC.
#[derive(Clone, PartialEq, Eq)]
pub struct RecordKeys {
    /// The AES-128 key.
    pub cypher: [u8; 16],
    /// The MAC key.
    pub auth: [u8; 24],
}

impl std::fmt::Debug for RecordKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RecordKeys")
    }
}

impl RecordKeys {
    /// The keys from the shared `secret` and the join descriptor's `join_key` (facts):
    /// Tiger/192 of secret, join key and a suffix, zero filled to 68 bytes; the cipher
    /// key is the first 16 bytes of one digest, the MAC key all 24 of the other.
    pub fn derive(secret: &[u8; COORDINATE_LEN], join_key: &[u8; JOIN_KEY_LEN]) -> Self {
        let digest = |suffix: &[u8]| -> [u8; 24] {
            let mut buffer = [0u8; DERIVATION_LEN];
            let parts = secret.iter().chain(join_key).chain(suffix);
            for (slot, byte) in buffer.iter_mut().zip(parts) {
                *slot = *byte;
            }
            Tiger::digest(buffer).into()
        };
        let [
            c0,
            c1,
            c2,
            c3,
            c4,
            c5,
            c6,
            c7,
            c8,
            c9,
            c10,
            c11,
            c12,
            c13,
            c14,
            c15,
            ..,
        ] = digest(CYPHER_SUFFIX);
        Self {
            cypher: [
                c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15,
            ],
            auth: digest(AUTH_SUFFIX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(fill: u8) -> AssociationKey {
        AssociationKey::from_scalar([fill; COORDINATE_LEN]).unwrap()
    }

    /// Tiger is the original Tiger/192 (padding 0x01): its published digest of "".
    #[test]
    fn tiger_is_the_original_tiger() {
        let empty: [u8; 24] = Tiger::digest(b"").into();
        assert_eq!(
            hex::encode(empty),
            "3293ac630c13f0245f92bbb1766e16167a4e58492dde73f3"
        );
    }

    /// The field opens with the SEQUENCE, the one-bit BIT STRING, the size 28, then the
    /// x INTEGER; it reads back as the same key, and is zero padded.
    #[test]
    fn the_export_form() {
        let k = key(7);
        let field = k.public_key_field().unwrap();
        assert_eq!(field[0], 0x30);
        let body = usize::from(field[1]);
        assert!((66..=69).contains(&body), "{body}");
        assert_eq!(field[2..9], [0x03, 0x02, 0x07, 0x00, 0x02, 0x01, 0x1C]);
        assert_eq!(field[9], 0x02);
        assert!(field[2 + body..].iter().all(|b| *b == 0));
        assert_eq!(import(&field).unwrap(), k.secret.public_key());
    }

    /// Both sides agree on one secret, and derive one pair of keys from it; another join
    /// key gives other keys.
    #[test]
    fn both_sides_agree() {
        let (a, b) = (key(1), key(2));
        let ab = a.agree(&b.public_key_field().unwrap()).unwrap();
        let ba = b.agree(&a.public_key_field().unwrap()).unwrap();
        assert_eq!(ab, ba);
        let keys = RecordKeys::derive(&ab, &[0; 16]);
        assert_eq!(keys, RecordKeys::derive(&ba, &[0; 16]));
        assert_ne!(keys, RecordKeys::derive(&ab, &[1; 16]));
        assert_ne!(keys.cypher[..], keys.auth[..16]);
    }

    /// Another key size, a point off the curve, and bytes that are no DER are refused.
    #[test]
    fn a_bad_field_is_refused() {
        let mut field = key(3).public_key_field().unwrap();
        field[8] = 32;
        assert_eq!(import(&field), Err(KeyError::Size(32)));
        let mut off_curve = key(3).public_key_field().unwrap();
        let last = 2 + usize::from(off_curve[1]) - 1;
        off_curve[last] ^= 1;
        assert_eq!(import(&off_curve), Err(KeyError::Point));
        assert!(matches!(import(&[0; 100]), Err(KeyError::Form(_))));
        assert!(AssociationKey::from_scalar([0; 28]).is_none());
    }
}
