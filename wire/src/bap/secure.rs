//! The BAP secure channel: the service-26 hello envelope and AES-128-GCM type-1 frames.
//!
//! Facts 1.3 (service 26 body), 1.4 (encrypted frames) and NS "bdLobby BAP" (BAP-02).
//! Unlike Sunrise, which shares one session key and nonce across every link, Vex gives each
//! link its own [`ChannelSecrets`] (facts 1.1 notes the client accepts per-link material).
//!
//! The GCM frames use `ring`, whose AES-GCM stitches AES-NI or VAES with carry-less
//! multiplication in one pass over the frame: 4 to 5 times the `aes-gcm` crate's rate on
//! this machine (issue 12: `aes-gcm` 0.11 runs CTR with VAES and then GHASH with 128-bit
//! PCLMUL in a second pass, about 2.2 GB/s). The hello's CBC and HMAC stay on `aes` and
//! `hmac`.

use aes::Aes128;
use aes::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use hmac::{Hmac, Mac};
use ring::aead::{AES_128_GCM, Aad, LessSafeKey, Nonce, Tag, UnboundKey};
use sha2::Sha256;
use thiserror::Error;

/// Length of the service-26 body (facts 1.3).
pub const HELLO_ENVELOPE_LEN: usize = 84;
/// The u32 at the start of the service-26 body: the bytes that follow it.
pub const HELLO_ENVELOPE_FOLLOWING: u32 = 80;
/// The GCM tag length; it comes before the ciphertext on the wire.
pub const TAG_LEN: usize = 16;
/// The hand-written padding after the nonce and key in the CBC plaintext.
const CBC_PADDING: [u8; 4] = [4, 4, 4, 4];

/// SignOn success fields 2 and 3: the AES-128 key and the HMAC-SHA256 key of the hello.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignOnKeys {
    /// Field 2: the AES-128-CBC key of the service-26 envelope.
    pub aes: [u8; 16],
    /// Field 3: the HMAC-SHA256 key of the service-26 envelope.
    pub hmac: [u8; 16],
}

impl SignOnKeys {
    /// The documented development defaults: AES key 00..0F, HMAC key 10..1F (the inputs of
    /// facts 10.2). Real deployments pass their own with `--signon-aes-key` and
    /// `--signon-hmac-key`.
    pub const DEVELOPMENT: SignOnKeys = SignOnKeys {
        aes: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        hmac: [
            16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
        ],
    };
}

/// The secrets one link's hello hands the client: the GCM base nonce and session key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelSecrets {
    /// The 96-bit base nonce N.
    pub base_nonce: [u8; 12],
    /// The AES-128-GCM session key.
    pub session_key: [u8; 16],
}

/// Why a hello envelope did not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum HelloError {
    /// The body is not 84 bytes.
    #[error("service-26 body is {0} bytes, not 84")]
    BadLength(usize),
    /// The leading u32 is not 80.
    #[error("service-26 length field is {0}, not 80")]
    BadLengthField(u32),
    /// The HMAC does not verify under the SignOn HMAC key.
    #[error("service-26 HMAC does not verify")]
    BadMac,
    /// The decrypted padding is not 04 04 04 04.
    #[error("service-26 plaintext padding is wrong")]
    BadPadding,
}

fn hmac_of(key: &[u8; 16], data: &[u8]) -> Hmac<Sha256> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap_or_else(|_| {
        unreachable!("HMAC accepts a key of any length") // cannot happen: HMAC takes any key
    });
    mac.update(data);
    mac
}

/// Builds the 84-byte service-26 body: u32 80, IV, AES-128-CBC of (nonce, key, 04040404)
/// under the SignOn AES key with no added padding, HMAC-SHA256 over bytes 0..52 (facts 1.3).
pub fn seal_hello(keys: &SignOnKeys, iv: [u8; 16], secrets: &ChannelSecrets) -> [u8; 84] {
    let mut plain = [0u8; 32];
    plain[..12].copy_from_slice(&secrets.base_nonce);
    plain[12..28].copy_from_slice(&secrets.session_key);
    plain[28..].copy_from_slice(&CBC_PADDING);
    let cipher = Aes128::new(&keys.aes.into());
    let mut prev = iv;
    let mut out = [0u8; HELLO_ENVELOPE_LEN];
    out[..4].copy_from_slice(&HELLO_ENVELOPE_FOLLOWING.to_be_bytes());
    out[4..20].copy_from_slice(&iv);
    for (chunk, sealed) in plain.chunks_exact(16).zip(out[20..52].chunks_exact_mut(16)) {
        let mut block = [0u8; 16];
        for (b, (p, c)) in block.iter_mut().zip(chunk.iter().zip(prev.iter())) {
            *b = p ^ c;
        }
        let mut block = block.into();
        cipher.encrypt_block(&mut block);
        prev = block.into();
        sealed.copy_from_slice(&prev);
    }
    let mac = hmac_of(&keys.hmac, &out[..52]).finalize().into_bytes();
    out[52..].copy_from_slice(&mac);
    out
}

/// Opens a service-26 body: checks length, HMAC and padding, and returns the secrets.
pub fn open_hello(keys: &SignOnKeys, body: &[u8]) -> Result<ChannelSecrets, HelloError> {
    let body: &[u8; HELLO_ENVELOPE_LEN] = body
        .try_into()
        .map_err(|_| HelloError::BadLength(body.len()))?;
    let following = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
    if following != HELLO_ENVELOPE_FOLLOWING {
        return Err(HelloError::BadLengthField(following));
    }
    hmac_of(&keys.hmac, &body[..52])
        .verify_slice(&body[52..])
        .map_err(|_| HelloError::BadMac)?;
    let cipher = Aes128::new(&keys.aes.into());
    let mut plain = [0u8; 32];
    // the IV, then the two ciphertext blocks: each decrypts and XORs with the one before
    let (blocks, _) = body[4..52].as_chunks::<16>();
    let pairs = blocks.iter().zip(blocks.iter().skip(1));
    for ((prev, &c), opened) in pairs.zip(plain.chunks_exact_mut(16)) {
        let mut block = c.into();
        cipher.decrypt_block(&mut block);
        let block: [u8; 16] = block.into();
        for (p, (b, v)) in opened.iter_mut().zip(block.iter().zip(prev)) {
            *p = b ^ v;
        }
    }
    if plain[28..] != CBC_PADDING {
        return Err(HelloError::BadPadding);
    }
    let mut secrets = ChannelSecrets {
        base_nonce: [0; 12],
        session_key: [0; 16],
    };
    secrets.base_nonce.copy_from_slice(&plain[..12]);
    secrets.session_key.copy_from_slice(&plain[12..28]);
    Ok(secrets)
}

/// Which end of the link a [`SecureChannel`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The server: sends on N, receives on N with byte 11 XOR 1.
    Host,
    /// The client: sends on N with byte 11 XOR 1, receives on N.
    Client,
}

/// Why an encrypted frame did not open (BAP-02).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum OpenError {
    /// Shorter than the 16-byte tag.
    #[error("encrypted frame of {0} bytes is shorter than its tag")]
    Short(usize),
    /// The tag does not verify; the receive nonce is not consumed.
    #[error("GCM tag does not verify")]
    BadTag,
}

/// Adds one to a 96-bit nonce, little-endian over all 12 bytes (facts 1.4).
pub fn increment_nonce(nonce: &mut [u8; 12]) {
    for b in nonce.iter_mut() {
        *b = b.wrapping_add(1);
        if *b != 0 {
            break;
        }
    }
}

/// Takes one from a 96-bit nonce, little-endian over all 12 bytes.
fn decrement_nonce(nonce: &mut [u8; 12]) {
    for b in nonce.iter_mut() {
        let (v, borrow) = b.overflowing_sub(1);
        *b = v;
        if !borrow {
            break;
        }
    }
}

/// One link's AES-128-GCM state: the key, scheduled once, and the two nonce counters
/// (facts 1.4).
pub struct SecureChannel {
    cipher: LessSafeKey,
    send_nonce: [u8; 12],
    recv_nonce: [u8; 12],
}

impl std::fmt::Debug for SecureChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecureChannel")
            .field("send_nonce", &self.send_nonce)
            .field("recv_nonce", &self.recv_nonce)
            .finish_non_exhaustive()
    }
}

impl SecureChannel {
    /// Arms the channel for `role` from the hello's secrets.
    pub fn new(secrets: &ChannelSecrets, role: Role) -> Self {
        let mut flipped = secrets.base_nonce;
        flipped[11] ^= 1;
        let (send_nonce, recv_nonce) = match role {
            Role::Host => (secrets.base_nonce, flipped),
            Role::Client => (flipped, secrets.base_nonce),
        };
        let key = UnboundKey::new(&AES_128_GCM, &secrets.session_key)
            .unwrap_or_else(|_| unreachable!("an AES-128 key is 16 bytes"));
        Self {
            cipher: LessSafeKey::new(key),
            send_nonce,
            recv_nonce,
        }
    }

    /// The nonce the next sealed frame uses.
    pub fn send_nonce(&self) -> [u8; 12] {
        self.send_nonce
    }

    /// The nonce the next received frame must use.
    pub fn recv_nonce(&self) -> [u8; 12] {
        self.recv_nonce
    }

    /// Seals an inner message: returns tag then ciphertext (no AAD) and consumes a nonce.
    pub fn seal(&mut self, inner: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(TAG_LEN + inner.len());
        out.resize(TAG_LEN, 0);
        out.extend_from_slice(inner);
        let (tag, text) = out.split_at_mut(TAG_LEN);
        tag.copy_from_slice(&self.seal_in_place(text));
        out
    }

    /// Encrypts `inner` where it lies and returns its tag (no AAD), consuming a nonce: the
    /// caller keeps the tag in front of the ciphertext (facts 1.4).
    pub fn seal_in_place(&mut self, inner: &mut [u8]) -> [u8; TAG_LEN] {
        let nonce = Nonce::assume_unique_for_key(self.send_nonce);
        let tag = self
            .cipher
            .seal_in_place_separate_tag(nonce, Aad::empty(), inner)
            .unwrap_or_else(|_| unreachable!("GCM refuses only messages over 64 GiB"));
        increment_nonce(&mut self.send_nonce);
        let mut out = [0u8; TAG_LEN];
        out.copy_from_slice(tag.as_ref());
        out
    }

    /// Decrypts `ciphertext` in place if `tag` verifies under `nonce`; `ring` zeroes it
    /// when the tag does not.
    fn open_with(&self, nonce: [u8; 12], tag: Tag, ciphertext: &mut [u8]) -> bool {
        let nonce = Nonce::assume_unique_for_key(nonce);
        self.cipher
            .open_in_place_separate_tag(nonce, Aad::empty(), tag, ciphertext, 0..)
            .is_ok()
    }

    /// For a frame that did not open: how many nonces away from the expected one it was
    /// sealed, when one within `window` either side opens it; the receive nonce does not
    /// move (BAP-18: a frame sealed out of step).
    pub fn out_of_step(&self, payload: &[u8], window: u8) -> Option<i16> {
        let (tag, ct) = payload.split_at_checked(TAG_LEN)?;
        let tag = Tag::try_from(tag).ok()?;
        let opens = |nonce: [u8; 12]| self.open_with(nonce, tag, &mut ct.to_vec());
        let (mut ahead, mut behind) = (self.recv_nonce, self.recv_nonce);
        for k in 1..=i16::from(window) {
            increment_nonce(&mut ahead);
            decrement_nonce(&mut behind);
            if opens(ahead) {
                return Some(k);
            }
            if opens(behind) {
                return Some(-k);
            }
        }
        None
    }

    /// Opens tag-then-ciphertext into a new buffer, leaving `payload` as it came so a
    /// frame that does not open can still be placed ([`SecureChannel::out_of_step`]). The
    /// receive nonce advances only after the tag verifies.
    pub fn open(&mut self, payload: &[u8]) -> Result<Vec<u8>, OpenError> {
        let mut plain = Vec::new();
        self.open_into(payload, &mut plain)?;
        Ok(plain)
    }

    /// [`SecureChannel::open`] into `plain`, whose capacity is reused; on an error what
    /// `plain` holds is no plaintext.
    pub fn open_into(&mut self, payload: &[u8], plain: &mut Vec<u8>) -> Result<(), OpenError> {
        let (tag, ct) = payload
            .split_at_checked(TAG_LEN)
            .ok_or(OpenError::Short(payload.len()))?;
        let tag = Tag::try_from(tag).map_err(|_| OpenError::Short(payload.len()))?;
        plain.clear();
        plain.extend_from_slice(ct);
        if !self.open_with(self.recv_nonce, tag, plain) {
            return Err(OpenError::BadTag);
        }
        increment_nonce(&mut self.recv_nonce);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bap::header::{FrameType, InnerHeader, outer_frame, plain_frame};

    fn vector_secrets() -> ChannelSecrets {
        let mut s = ChannelSecrets {
            base_nonce: [0; 12],
            session_key: [0; 16],
        };
        for (i, b) in s.base_nonce.iter_mut().enumerate() {
            *b = 0xA0 + i as u8;
        }
        for (i, b) in s.session_key.iter_mut().enumerate() {
            *b = 0xB0 + i as u8;
        }
        s
    }

    fn vector_iv() -> [u8; 16] {
        std::array::from_fn(|i| 0xC0 + i as u8)
    }

    const HELLO_HEX: &str = "00000050C0C1C2C3C4C5C6C7C8C9CACBCCCDCECF\
        DD26DF35DF0C88D018EA9A1E17A29C71F3247DB45D9CC2094B0959FDF268AE41\
        681D5937BCDA2850FFA1A28D64C830000D3A422B5CC1517867D5C4167E233AF2";

    /// Facts 10.2: the 84-byte service-26 body.
    #[test]
    fn hello_envelope_vector() {
        let body = seal_hello(&SignOnKeys::DEVELOPMENT, vector_iv(), &vector_secrets());
        assert_eq!(hex::encode_upper(body), HELLO_HEX);
        assert_eq!(
            open_hello(&SignOnKeys::DEVELOPMENT, &body),
            Ok(vector_secrets())
        );
    }

    /// Facts 10.2: the full type-2 frame with task 5.
    #[test]
    fn hello_frame_vector() {
        let body = seal_hello(&SignOnKeys::DEVELOPMENT, vector_iv(), &vector_secrets());
        let frame = plain_frame(FrameType::Bootstrap, InnerHeader::response(26, 5), &body);
        assert_eq!(
            hex::encode_upper(frame),
            format!("01020000005C001A0000000500C8{HELLO_HEX}")
        );
    }

    #[test]
    fn hello_refuses_tampering() {
        let mut body = seal_hello(&SignOnKeys::DEVELOPMENT, vector_iv(), &vector_secrets());
        body[30] ^= 1;
        assert_eq!(
            open_hello(&SignOnKeys::DEVELOPMENT, &body),
            Err(HelloError::BadMac)
        );
        assert_eq!(
            open_hello(&SignOnKeys::DEVELOPMENT, &body[..83]),
            Err(HelloError::BadLength(83))
        );
    }

    /// Facts 10.2: nonces, and encrypted frames #0 and #1.
    #[test]
    fn encrypted_frame_vectors() {
        let mut host = SecureChannel::new(&vector_secrets(), Role::Host);
        assert_eq!(
            hex::encode_upper(host.send_nonce()),
            "A0A1A2A3A4A5A6A7A8A9AAAB"
        );
        assert_eq!(
            hex::encode_upper(host.recv_nonce()),
            "A0A1A2A3A4A5A6A7A8A9AAAA"
        );
        let f0 = outer_frame(
            FrameType::Encrypted,
            &host.seal(&hex::decode("00FB0000000700C8").unwrap()),
        );
        assert_eq!(
            hex::encode_upper(f0),
            "0101000000183D0CC2B30F23E5D18E47E5F2C989B0F383D60EEB14A066B6"
        );
        assert_eq!(
            hex::encode_upper(host.send_nonce()),
            "A1A1A2A3A4A5A6A7A8A9AAAB"
        );
        let inner = hex::decode("000900000000019EAA300100200001000000360000000100").unwrap();
        let f1 = outer_frame(FrameType::Encrypted, &host.seal(&inner));
        assert_eq!(
            hex::encode_upper(f1),
            "010100000028747C53F754516CD9D0A5E40895F1DC92\
             9711D26B2B74D0299986F4EAA66E8722D134D1504081AB11"
        );
    }

    #[test]
    fn client_opens_host_frames_and_bad_tag_keeps_the_nonce() {
        let mut host = SecureChannel::new(&vector_secrets(), Role::Host);
        let mut client = SecureChannel::new(&vector_secrets(), Role::Client);
        let sealed = host.seal(b"hello");
        let mut bad = sealed.clone();
        bad[0] ^= 1;
        assert_eq!(client.open(&bad), Err(OpenError::BadTag));
        assert_eq!(client.open(&sealed).unwrap(), b"hello");
        let up = client.seal(b"up");
        assert_eq!(host.open(&up).unwrap(), b"up");
        assert_eq!(client.open(&[0; 3]), Err(OpenError::Short(3)));
    }

    #[test]
    fn nonce_increment_carries_little_endian() {
        let mut n = [0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        increment_nonce(&mut n);
        assert_eq!(n, [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }

    /// A frame sealed one or two nonces away from the expected one is found, either way;
    /// the expected nonce is not consumed, and an unrelated frame finds nothing.
    #[test]
    fn out_of_step_frames_are_found_without_consuming() {
        let s = vector_secrets();
        let mut host = SecureChannel::new(&s, Role::Host);
        let client = SecureChannel::new(&s, Role::Client);
        let first = host.seal(b"one");
        let _second = host.seal(b"two");
        let third = host.seal(b"three");
        assert_eq!(client.out_of_step(&third, 4), Some(2));
        assert_eq!(client.out_of_step(&third, 1), None, "outside the window");
        let mut ahead = SecureChannel::new(&s, Role::Client);
        ahead.open(&first).unwrap();
        ahead.open(&_second).unwrap();
        assert_eq!(ahead.out_of_step(&first, 4), Some(-2));
        assert_eq!(client.out_of_step(&[0; 20], 4), None);
        let mut c = SecureChannel::new(&s, Role::Client);
        assert_eq!(c.open(&first).unwrap(), b"one", "nothing consumed");
    }
}
