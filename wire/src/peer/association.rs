//! The bdNet association (NS "The association handshake"; PEER-07 to PEER-11): four
//! handshake packets, init, init ack, cookie echo and cookie ack, then type-6 data records.
//! Every field is a plain byte append, multi-byte integers low byte first, with no length
//! prefix and no checksum; every packet opens with the same 8-byte header.

use super::{PeerError, read_exact, read_prefix};
use zerocopy::little_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// Type 1, requester to responder.
pub const INIT: u8 = 1;
/// Type 2, responder to requester.
pub const INIT_ACK: u8 = 2;
/// Type 3, requester to responder.
pub const COOKIE_ECHO: u8 = 3;
/// Type 4, responder to requester.
pub const COOKIE_ACK: u8 = 4;
/// Type 6: a data record.
pub const DATA: u8 = 6;
/// Types 10 to 13 on the same port belong to NAT traversal.
pub const NAT_TRAVERSAL: std::ops::RangeInclusive<u8> = 10..=13;
/// The header's second byte: 2, never read back.
pub const HEADER_CONSTANT: u8 = 2;
/// The bytes of the address claim a cookie echo carries: a serialized address's first
/// 41 (PEER-06).
pub const ADDRESS_CLAIM_LEN: usize = 41;
/// The exported public key's field, zero padded (PEER-10).
pub const PUBLIC_KEY_LEN: usize = 100;

/// The security id: the requester chooses it, every reply repeats it, and the socket
/// router keys its association table on it (PEER-09).
pub type SecurityId = [u8; 8];

/// The 8-byte header every packet opens with.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct AssocHeader {
    /// +0x00: 1 to 4, or 6 for data.
    pub kind: u8,
    /// +0x01: 2, never read back.
    pub constant_2: u8,
    /// +0x02: the tag this packet is for.
    pub addressed_tag: U16,
    /// +0x04: 0 on handshake packets.
    pub sequence: U32,
}

impl AssocHeader {
    /// A handshake packet's header: `kind`, addressed to `tag`, sequence 0.
    pub fn handshake(kind: u8, tag: u16) -> Self {
        Self {
            kind,
            constant_2: HEADER_CONSTANT,
            addressed_tag: tag.into(),
            sequence: 0.into(),
        }
    }
}

/// Type 1, 18 bytes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct AssocInit {
    /// Type 1, tag 0.
    pub header: AssocHeader,
    /// +0x08: chosen by the requester.
    pub requester_tag: U16,
    /// +0x0A.
    pub security_id: SecurityId,
}

/// Type 2, 52 bytes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct AssocInitAck {
    /// Type 2, addressed to the requester's tag.
    pub header: AssocHeader,
    /// +0x08: stored, never checked.
    pub free_running: U32,
    /// +0x0C: the responder's own value.
    pub cookie: [u8; 16],
    /// +0x1C.
    pub responder_tag: U16,
    /// +0x1E: the same value again.
    pub responder_tag2: U16,
    /// +0x20.
    pub requester_tag: U16,
    /// +0x22: 0 on a fresh association.
    pub old_responder_tag: U16,
    /// +0x24: 0 on a fresh association.
    pub old_requester_tag: U16,
    /// +0x26: the requester's address as the responder saw it.
    pub observed_addr: [u8; 6],
    /// +0x2C: copied from the init.
    pub security_id: SecurityId,
}

/// Type 3, 209 bytes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct AssocCookieEcho {
    /// Type 3, addressed to the responder's tag.
    pub header: AssocHeader,
    /// +0x08: the init ack, unchanged.
    pub echoed: AssocInitAck,
    /// +0x3C: the serialized address claim.
    pub requester_addr: [u8; ADDRESS_CLAIM_LEN],
    /// +0x65.
    pub security_id: SecurityId,
    /// +0x6D: the exported ECC public key, zero padded.
    pub public_key: [u8; PUBLIC_KEY_LEN],
}

/// Type 4, 116 bytes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct AssocCookieAck {
    /// Type 4, addressed to the requester's tag.
    pub header: AssocHeader,
    /// +0x08.
    pub public_key: [u8; PUBLIC_KEY_LEN],
    /// +0x6C.
    pub security_id: SecurityId,
}

/// The 18 bytes in front of a type-6 record's ciphertext (PEER-11).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct AssocDataHead {
    /// Type 6; the record's sequence at +0x04.
    pub header: AssocHeader,
    /// +0x08: the truncated MAC.
    pub mac: [u8; 8],
    /// +0x10: the plaintext's length.
    pub plain_len: U16,
}

const _: () = assert!(size_of::<AssocHeader>() == 8);
const _: () = assert!(size_of::<AssocInit>() == 18);
const _: () = assert!(size_of::<AssocInitAck>() == 52);
const _: () = assert!(size_of::<AssocCookieEcho>() == 209);
const _: () = assert!(size_of::<AssocCookieAck>() == 116);
const _: () = assert!(size_of::<AssocDataHead>() == 18);

/// A packet on the association port, by its type byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssocPacket<'a> {
    /// Type 1.
    Init(AssocInit),
    /// Type 2.
    InitAck(AssocInitAck),
    /// Type 3.
    CookieEcho(Box<AssocCookieEcho>),
    /// Type 4.
    CookieAck(Box<AssocCookieAck>),
    /// Type 6: the head and the ciphertext after it.
    Data {
        /// The 18 bytes in front.
        head: AssocDataHead,
        /// The rest.
        ciphertext: &'a [u8],
    },
    /// Types 10 to 13: NAT traversal's, not the association's.
    NatTraversal(u8),
}

impl<'a> AssocPacket<'a> {
    /// The packet `bytes` hold: its type byte picks the layout, whose length must be
    /// exact (a data record's is at least its head).
    pub fn read(bytes: &'a [u8]) -> Result<Self, PeerError> {
        let kind = bytes.first().copied().ok_or(PeerError::Length {
            what: "an association packet",
            want: size_of::<AssocHeader>(),
            got: 0,
        })?;
        Ok(match kind {
            INIT => Self::Init(read_exact("an init", bytes)?),
            INIT_ACK => Self::InitAck(read_exact("an init ack", bytes)?),
            COOKIE_ECHO => Self::CookieEcho(Box::new(read_exact("a cookie echo", bytes)?)),
            COOKIE_ACK => Self::CookieAck(Box::new(read_exact("a cookie ack", bytes)?)),
            DATA => {
                let (head, ciphertext) = read_prefix("a data record's head", bytes)?;
                Self::Data { head, ciphertext }
            }
            k if NAT_TRAVERSAL.contains(&k) => Self::NatTraversal(k),
            got => {
                return Err(PeerError::Type {
                    what: "an association packet",
                    want: INIT,
                    got,
                });
            }
        })
    }
}

impl AssocInit {
    /// The init of a requester with `requester_tag` and `security_id`.
    pub fn new(requester_tag: u16, security_id: SecurityId) -> Self {
        Self {
            header: AssocHeader::handshake(INIT, 0),
            requester_tag: requester_tag.into(),
            security_id,
        }
    }
}

impl AssocInitAck {
    /// A fresh association's answer to `init` (PEER-08): addressed to the requester's
    /// tag, the responder's `cookie`, its `responder_tag` twice, the requester's tag, old
    /// tags 0, the requester's address as `observed`, and the init's security id.
    pub fn answering(
        init: &AssocInit,
        free_running: u32,
        cookie: [u8; 16],
        responder_tag: u16,
        observed: [u8; 6],
    ) -> Self {
        Self {
            header: AssocHeader::handshake(INIT_ACK, init.requester_tag.get()),
            free_running: free_running.into(),
            cookie,
            responder_tag: responder_tag.into(),
            responder_tag2: responder_tag.into(),
            requester_tag: init.requester_tag,
            old_responder_tag: 0.into(),
            old_requester_tag: 0.into(),
            observed_addr: observed,
            security_id: init.security_id,
        }
    }

    /// What of PEER-08 this packet breaks as the answer to `init` on a fresh
    /// association: the name of each field that is not what the page says, in layout
    /// order; empty when it answers.
    pub fn breaches(&self, init: &AssocInit) -> Vec<&'static str> {
        let checks = [
            (self.header.kind == INIT_ACK, "type"),
            (self.header.sequence.get() == 0, "sequence"),
            (
                self.header.addressed_tag == init.requester_tag,
                "addressed_tag",
            ),
            (self.responder_tag2 == self.responder_tag, "responder_tag2"),
            (self.requester_tag == init.requester_tag, "requester_tag"),
            (self.old_responder_tag.get() == 0, "old_responder_tag"),
            (self.old_requester_tag.get() == 0, "old_requester_tag"),
            (self.security_id == init.security_id, "security_id"),
        ];
        checks
            .into_iter()
            .filter(|(holds, _)| !holds)
            .map(|(_, field)| field)
            .collect()
    }
}

impl AssocCookieEcho {
    /// The requester's echo of `ack`, unchanged, with its address claim and public key,
    /// addressed to the responder's tag.
    pub fn answering(
        ack: &AssocInitAck,
        requester_addr: [u8; ADDRESS_CLAIM_LEN],
        public_key: [u8; PUBLIC_KEY_LEN],
    ) -> Self {
        Self {
            header: AssocHeader::handshake(COOKIE_ECHO, ack.responder_tag.get()),
            echoed: *ack,
            requester_addr,
            security_id: ack.security_id,
            public_key,
        }
    }
}

impl AssocCookieAck {
    /// The responder's answer to `echo`, with its public key, addressed to the
    /// requester's tag (PEER-08).
    pub fn answering(echo: &AssocCookieEcho, public_key: [u8; PUBLIC_KEY_LEN]) -> Self {
        Self {
            header: AssocHeader::handshake(COOKIE_ACK, echo.echoed.requester_tag.get()),
            public_key,
            security_id: echo.security_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: SecurityId = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7];

    /// The four packets at the page's sizes and offsets, each read back by its type byte.
    #[test]
    fn the_handshake_at_the_pages_offsets() {
        let init = AssocInit::new(0x1234, ID);
        let bytes = init.as_bytes();
        assert_eq!(bytes.len(), 18);
        assert_eq!(bytes[..10], [1, 2, 0, 0, 0, 0, 0, 0, 0x34, 0x12]);
        assert_eq!(bytes[0x0A..], ID);
        assert_eq!(AssocPacket::read(bytes), Ok(AssocPacket::Init(init)));

        let ack = AssocInitAck::answering(&init, 0x0102_0304, [7; 16], 0xBEEF, [1, 2, 3, 4, 5, 6]);
        let bytes = ack.as_bytes();
        assert_eq!(bytes.len(), 52);
        assert_eq!(bytes[..4], [2, 2, 0x34, 0x12], "addressed to the requester");
        assert_eq!(bytes[0x08..0x0C], [4, 3, 2, 1]);
        assert_eq!(bytes[0x1C..0x22], [0xEF, 0xBE, 0xEF, 0xBE, 0x34, 0x12]);
        assert_eq!(bytes[0x22..0x26], [0; 4], "fresh: old tags 0");
        assert_eq!(bytes[0x26..0x2C], [1, 2, 3, 4, 5, 6]);
        assert_eq!(bytes[0x2C..], ID);
        assert!(ack.breaches(&init).is_empty());

        let echo = AssocCookieEcho::answering(&ack, [9; 41], [5; 100]);
        let bytes = echo.as_bytes();
        assert_eq!(bytes.len(), 209);
        assert_eq!(bytes[..4], [3, 2, 0xEF, 0xBE], "addressed to the responder");
        assert_eq!(
            bytes[0x08..0x3C],
            *ack.as_bytes(),
            "the init ack, unchanged"
        );
        assert_eq!(bytes[0x3C..0x65], [9; 41]);
        assert_eq!(bytes[0x65..0x6D], ID);
        assert_eq!(bytes[0x6D..], [5; 100]);

        let cookie_ack = AssocCookieAck::answering(&echo, [6; 100]);
        let bytes = cookie_ack.as_bytes();
        assert_eq!(bytes.len(), 116);
        assert_eq!(bytes[..4], [4, 2, 0x34, 0x12], "addressed to the requester");
        assert_eq!(bytes[0x6C..], ID);
        assert_eq!(
            AssocPacket::read(bytes),
            Ok(AssocPacket::CookieAck(Box::new(cookie_ack)))
        );
    }

    /// Each PEER-08 field of an init ack, broken alone, is named, and only it.
    #[test]
    fn each_init_ack_field_is_checked() {
        let init = AssocInit::new(0x1234, ID);
        let good = AssocInitAck::answering(&init, 0, [0; 16], 0xBEEF, [0; 6]);
        type Edit = fn(&mut AssocInitAck);
        let edits: [(&str, Edit); 8] = [
            ("type", |a| a.header.kind = COOKIE_ACK),
            ("sequence", |a| a.header.sequence = 1.into()),
            ("addressed_tag", |a| a.header.addressed_tag = 0x1235.into()),
            ("responder_tag2", |a| a.responder_tag2 = 0xBEEE.into()),
            ("requester_tag", |a| a.requester_tag = 0.into()),
            ("old_responder_tag", |a| a.old_responder_tag = 1.into()),
            ("old_requester_tag", |a| a.old_requester_tag = 1.into()),
            ("security_id", |a| a.security_id[7] ^= 1),
        ];
        for (field, edit) in edits {
            let mut ack = good;
            edit(&mut ack);
            assert_eq!(ack.breaches(&init), [field]);
        }
        // free_running and the cookie are the responder's own: any value is fine
        let mut own = good;
        own.free_running = u32::MAX.into();
        own.cookie = [0xFF; 16];
        assert!(own.breaches(&init).is_empty());
    }

    /// Each handshake type one byte short or long is refused; a data record needs only its
    /// head; NAT traversal's types are told apart; type 5 is no packet.
    #[test]
    fn lengths_and_types_are_read_exactly() {
        for (kind, len) in [
            (INIT, 18),
            (INIT_ACK, 52),
            (COOKIE_ECHO, 209),
            (COOKIE_ACK, 116),
        ] {
            for wrong in [len - 1, len + 1] {
                let mut bytes = vec![0; wrong];
                bytes[0] = kind;
                assert!(
                    matches!(AssocPacket::read(&bytes), Err(PeerError::Length { got, .. }) if got == wrong),
                    "type {kind}, {wrong} bytes"
                );
            }
        }
        let mut record = vec![0; 18 + 16];
        record[0] = DATA;
        record[0x10] = 5; // plain_len 5, low byte first
        let Ok(AssocPacket::Data { head, ciphertext }) = AssocPacket::read(&record) else {
            panic!("a record");
        };
        assert_eq!((head.plain_len.get(), ciphertext.len()), (5, 16));
        assert!(AssocPacket::read(&record[..17]).is_err());
        assert_eq!(
            AssocPacket::read(&[12, 0]),
            Ok(AssocPacket::NatTraversal(12))
        );
        assert!(matches!(
            AssocPacket::read(&[5; 18]),
            Err(PeerError::Type { got: 5, .. })
        ));
        assert!(AssocPacket::read(&[]).is_err());
    }
}
