//! The signed manifest: a signed body verifies; every refusal records its code
//! (MANIFEST-01/02), at each byte the prefix names.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
use getrandom::SysRng;
use prost::Message;
use std::sync::OnceLock;
use vex_wire::lobby::manifest::{
    self, ContentConfig, HEADER, ManifestError, PREFIX_LEN, PackageRow,
};

fn key() -> &'static rsa::PrivateKey {
    static KEY: OnceLock<rsa::PrivateKey> = OnceLock::new();
    KEY.get_or_init(|| manifest::new_key(&mut SysRng).unwrap())
}

fn body() -> Vec<u8> {
    ContentConfig {
        entitlements: Vec::new(),
        packages: vec![PackageRow {
            offer_key: Some(1),
            name: Some("w64_sr_audio_063c_0".into()),
            package_id: Some(0x63c),
            build_signature: Some(0x1122_3344),
        }],
        fetch_id: Some("0f8fad5b-d9cb-469f-a165-70867728950e".into()),
    }
    .encode_to_vec()
}

fn signed(body: &[u8]) -> Vec<u8> {
    manifest::sign(key(), body, &mut SysRng).unwrap()
}

fn code(manifest: &[u8]) -> u8 {
    manifest::verify(&key().to_public_key(), manifest)
        .expect_err("refused")
        .code()
}

#[test]
fn a_signed_manifest_verifies_and_decodes() {
    let m = signed(&body());
    assert_eq!(m.len(), PREFIX_LEN + body().len());
    assert_eq!(&m[..8], &HEADER);
    let config = manifest::verify(&key().to_public_key(), &m).unwrap();
    assert_eq!(config.packages[0].package_id, Some(0x63c));
    // the shortest: the prefix over an empty body
    let empty = signed(&[]);
    assert_eq!(empty.len(), PREFIX_LEN);
    assert_eq!(
        manifest::verify(&key().to_public_key(), &empty).unwrap(),
        ContentConfig::default()
    );
}

#[test]
fn shorter_than_the_prefix_is_code_5() {
    let m = signed(&[]);
    for len in [0, 8, PREFIX_LEN - 1] {
        assert_eq!(code(&m[..len]), 5, "{len} bytes");
    }
}

#[test]
fn a_changed_byte_anywhere_is_code_6() {
    let m = signed(&body());
    // each header byte, the signature's first and last, the body's first and last
    let places = (0..8).chain([8, PREFIX_LEN - 1, PREFIX_LEN, m.len() - 1]);
    for at in places {
        let mut bad = m.clone();
        bad[at] ^= 0x01;
        assert_eq!(code(&bad), 6, "byte {at} flipped");
    }
    // a body appended after signing, or one cut short
    let mut longer = m.clone();
    longer.push(0);
    assert_eq!(code(&longer), 6);
    assert_eq!(code(&m[..m.len() - 1]), 6);
}

#[test]
fn another_key_is_code_6() {
    let other = manifest::new_key(&mut SysRng).unwrap();
    let m = signed(&body());
    let e = manifest::verify(&other.to_public_key(), &m).unwrap_err();
    assert!(matches!(e, ManifestError::Signature(_)), "{e}");
}

#[test]
fn a_signed_body_that_is_not_the_manifest_is_code_1() {
    // field 5 as a varint where a string belongs
    assert_eq!(code(&signed(&[0x28, 0x01])), 1);
    // a length past the end
    assert_eq!(code(&signed(&[0x1A, 0x05, 0x08])), 1);
}
