//! The signed content manifest (NS "The content manifest"; MANIFEST-01/02): a 264-byte
//! signature prefix, `[u32 BE 1][u32 0]` then a 256-byte RSA-2048 PSS signature (SHA-256,
//! 16-byte salt) over the body, then the body, protobuf.
//!
//! The body's fields are facts from Sunrise (`middleware/content/manifest/
//! content_manifest_encoder.cpp`): entitlement definitions in field 2, package rows in
//! field 3, the fetch id in field 5 as a canonical lowercase UUID, which the client
//! compares as 37 bytes (36 and a terminator).

use prost::Message;
use rsa::pss::{Signature, SigningKey, VerifyingKey};
use rsa::rand_core::TryCryptoRng;
use rsa::sha2::Sha256;
use rsa::signature::{RandomizedSigner, SignatureEncoding, Verifier};
use rsa::{PrivateKey, PublicKey};
use thiserror::Error;

/// The signature prefix: 8 bytes of header and the 256-byte signature.
pub const PREFIX_LEN: usize = 264;
/// The prefix's header: u32 BE 1, then u32 0.
pub const HEADER: [u8; 8] = [0, 0, 0, 1, 0, 0, 0, 0];
/// The key size the client's one public key has.
pub const KEY_BITS: usize = 2048;
/// The PSS salt length.
pub const SALT_LEN: usize = 16;

/// The manifest body.
#[derive(Clone, PartialEq, Message)]
pub struct ContentConfig {
    /// 2: entitlement definitions.
    #[prost(message, repeated, tag = "2")]
    pub entitlements: Vec<EntitlementDefinition>,
    /// 3: package rows.
    #[prost(message, repeated, tag = "3")]
    pub packages: Vec<PackageRow>,
    /// 5: the fetch id, a canonical lowercase UUID.
    #[prost(string, optional, tag = "5")]
    pub fetch_id: Option<String>,
}

/// Manifest field 2: one entitlement definition.
#[derive(Clone, PartialEq, Message)]
pub struct EntitlementDefinition {
    /// 1: the entitlement's name.
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
}

/// Manifest field 3: one package.
#[derive(Clone, PartialEq, Message)]
pub struct PackageRow {
    /// 1: the offer key package registration uses.
    #[prost(uint64, optional, tag = "1")]
    pub offer_key: Option<u64>,
    /// 2: the package file name stem (opened with `.pkg`).
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    /// 3: the package id, read as 16 bits.
    #[prost(uint32, optional, tag = "3")]
    pub package_id: Option<u32>,
    /// 4: the build signature from the package header.
    #[prost(uint64, optional, tag = "4")]
    pub build_signature: Option<u64>,
}

/// Why the client refuses a manifest: the code it records (MANIFEST-02).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ManifestError {
    /// Code 1: the body is not the manifest's protobuf.
    #[error("code 1: the body does not decode: {0}")]
    Decode(String),
    /// Code 2: the HTTP fetch failed.
    #[error("code 2: HTTP failed: {0}")]
    Http(String),
    /// Code 5: shorter than the 264-byte prefix.
    #[error("code 5: {0} bytes, shorter than the {PREFIX_LEN}-byte signature prefix")]
    Short(usize),
    /// Code 6: no key verified the signature (a wrong header counts here too).
    #[error("code 6: no key verified the signature: {0}")]
    Signature(String),
    /// Code 8: HTTP 404.
    #[error("code 8: HTTP 404")]
    NotFound,
}

impl ManifestError {
    /// The code the client records.
    pub fn code(&self) -> u8 {
        match self {
            Self::Decode(_) => 1,
            Self::Http(_) => 2,
            Self::Short(_) => 5,
            Self::Signature(_) => 6,
            Self::NotFound => 8,
        }
    }
}

/// A new 2,048-bit manifest key.
pub fn new_key<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<PrivateKey, rsa::Error> {
    PrivateKey::new(rng, KEY_BITS)
}

/// `body` signed under `key`: the prefix, then the body.
pub fn sign<R: TryCryptoRng + ?Sized>(
    key: &PrivateKey,
    body: &[u8],
    rng: &mut R,
) -> Result<Vec<u8>, rsa::signature::Error> {
    let signer = SigningKey::<Sha256>::new_with_salt_len(key.clone(), SALT_LEN);
    let signature = signer.try_sign_with_rng(rng, body)?.to_vec();
    let mut out = Vec::with_capacity(HEADER.len() + signature.len() + body.len());
    out.extend_from_slice(&HEADER);
    out.extend_from_slice(&signature);
    out.extend_from_slice(body);
    Ok(out)
}

/// The manifest's body once its signature verifies under `key`, decoded.
pub fn verify(key: &PublicKey, manifest: &[u8]) -> Result<ContentConfig, ManifestError> {
    if manifest.len() < PREFIX_LEN {
        return Err(ManifestError::Short(manifest.len()));
    }
    let (prefix, body) = manifest.split_at(PREFIX_LEN);
    let (header, signature) = prefix.split_at(HEADER.len());
    if header != HEADER {
        return Err(ManifestError::Signature(format!(
            "the prefix opens {}, not 00000001 00000000",
            hex(header)
        )));
    }
    let signature =
        Signature::try_from(signature).map_err(|e| ManifestError::Signature(e.to_string()))?;
    VerifyingKey::<Sha256>::new_with_salt_len(key.clone(), SALT_LEN)
        .verify(body, &signature)
        .map_err(|e| ManifestError::Signature(e.to_string()))?;
    ContentConfig::decode(body).map_err(|e| ManifestError::Decode(e.to_string()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
