//! The responder's side of bdNet associations (NS "The association handshake"; PEER-07 to
//! PEER-12): an init gets an init ack, a cookie echo that proves it holds one gets a cookie
//! ack, and the association then opens and seals type-6 records.
//!
//! The cookie is the responder's own value (the page: "the responder's own value"), so Vex
//! makes it hold the state instead of a table: the init ack's first 16 bytes of
//! HMAC-SHA256, under a key the host draws once, over the ack with its cookie zeroed and the
//! requester's address. An init costs no memory; a cookie echo whose cookie is not ours,
//! whose ack is older than [`HANDSHAKE_WITHIN_MS`] (its `free_running` field, which the
//! client stores and never checks, holds the host's clock) or whose security id is not
//! the ack's is dropped before any association sees it (PEER-09). Only a completed
//! handshake takes a slot, and there are at most `capacity` of them.

use hmac::{Hmac, KeyInit, Mac};
use rand_core::RngCore;
use sha2::Sha256;
use std::collections::BTreeMap;
use std::net::SocketAddrV4;
use thiserror::Error;
use vex_wire::peer::association::{
    AssocCookieAck, AssocCookieEcho, AssocInit, AssocInitAck, SecurityId,
};
use vex_wire::peer::keys::{AssociationKey, COORDINATE_LEN, JOIN_KEY_LEN, KeyError, RecordKeys};
use vex_wire::peer::record::{self, RecordError, Replay, ReplayWindow};
use vex_wire::time::Instant;
use zerocopy::IntoBytes;

/// How long an init ack's cookie is good for (facts: Sunrise frees a half handshake's
/// slot after 30 s).
pub const HANDSHAKE_WITHIN_MS: u64 = 30_000;

/// Why a packet on the association port was dropped.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PeerDrop {
    /// Bytes that are no packet of the port.
    #[error(transparent)]
    Packet(#[from] vex_wire::peer::PeerError),
    /// An init ack or cookie ack, which only a requester takes.
    #[error("a packet only a requester takes")]
    NotForResponder,
    /// NAT traversal's packet, which the host does not serve.
    #[error("NAT traversal's type {0}, which the host does not serve")]
    NatTraversal(u8),
    /// A cookie echo whose cookie this host did not make (PEER-09).
    #[error("a cookie echo whose cookie is not ours")]
    ForeignCookie,
    /// A cookie echo of an ack older than [`HANDSHAKE_WITHIN_MS`].
    #[error("a cookie echo {age_ms} ms after its init ack")]
    StaleCookie {
        /// How old the ack was.
        age_ms: u64,
    },
    /// A cookie echo whose security id is not its ack's (PEER-09).
    #[error("a cookie echo whose security id is not its init ack's")]
    SecurityId,
    /// A record addressed to no association (PEER-09).
    #[error("a record for tag {tag:#06x}, which no association of its sender has")]
    NoAssociation {
        /// The tag it was addressed to.
        tag: u16,
    },
    /// A cookie echo whose ack's tag another association took since.
    #[error("tag {0:#06x} belongs to another association now")]
    TagTaken(u16),
    /// Every slot holds an association.
    #[error("every one of the {0} association slots is taken")]
    Full(usize),
    /// The requester's public key is not one.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// A record that does not open.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// An established datagram its connection refused.
    #[error(transparent)]
    Reliable(#[from] vex_wire::peer::reliable::ReliableError),
    /// A peer message body that could not be written.
    #[error(transparent)]
    Body(#[from] vex_wire::peer::message::BodyError),
    /// A record seen already, or below the window (PEER-12).
    #[error(transparent)]
    Replay(#[from] Replay),
}

/// One completed association.
#[derive(Debug)]
struct Association {
    peer: SocketAddrV4,
    security_id: SecurityId,
    requester_tag: u16,
    keys: RecordKeys,
    /// The cookie ack, sent again when its cookie echo comes again.
    cookie_ack: Vec<u8>,
    window: ReplayWindow,
    /// The next record's sequence: the first is 1 (facts).
    next_sequence: u32,
}

/// The associations the host holds, by its own tag, and what it needs to make more.
#[derive(Debug)]
pub struct Responder {
    cookie_key: [u8; 64],
    join_key: [u8; JOIN_KEY_LEN],
    capacity: usize,
    by_tag: BTreeMap<u16, Association>,
}

impl Responder {
    /// No association yet; cookies made under `cookie_key`, record keys derived with
    /// `join_key` (the join descriptor's +94), at most `capacity` associations.
    pub fn new(cookie_key: [u8; 64], join_key: [u8; JOIN_KEY_LEN], capacity: usize) -> Self {
        Self {
            cookie_key,
            join_key,
            capacity,
            by_tag: BTreeMap::new(),
        }
    }

    /// How many associations are open.
    pub fn len(&self) -> usize {
        self.by_tag.len()
    }

    /// True when none is.
    pub fn is_empty(&self) -> bool {
        self.by_tag.is_empty()
    }

    /// The cookie of `ack` for `peer`.
    fn cookie(&self, ack: &AssocInitAck, peer: SocketAddrV4) -> [u8; 16] {
        let mut blank = *ack;
        blank.cookie = [0; 16];
        let mut mac = <Hmac<Sha256> as KeyInit>::new(&self.cookie_key.into());
        mac.update(blank.as_bytes());
        mac.update(&peer.ip().octets());
        mac.update(&peer.port().to_le_bytes());
        let digest = mac.finalize().into_bytes();
        let mut cookie = [0u8; 16];
        for (slot, byte) in cookie.iter_mut().zip(digest) {
            *slot = byte;
        }
        cookie
    }

    /// The init ack answering `init` from `peer` at `now` (PEER-08): a fresh tag, the
    /// host's clock in `free_running`, the requester's address as seen, and our cookie.
    pub fn init(
        &self,
        now: Instant,
        peer: SocketAddrV4,
        init: &AssocInit,
        rng: &mut impl RngCore,
    ) -> AssocInitAck {
        // a tag no open association has, never 0: 0 means none
        let tag = loop {
            let tag = rng.next_u32() as u16;
            if tag != 0 && !self.by_tag.contains_key(&tag) {
                break tag;
            }
        };
        let [a, b, c, d] = peer.ip().octets();
        let [p0, p1] = peer.port().to_le_bytes();
        let mut ack = AssocInitAck::answering(
            init,
            now.millis() as u32,
            [0; 16],
            tag,
            [a, b, c, d, p0, p1],
        );
        ack.cookie = self.cookie(&ack, peer);
        ack
    }

    /// The cookie ack answering `echo` from `peer` at `now`, and whether it opened the
    /// association: an echo of one already open gets its cookie ack again.
    pub fn cookie_echo(
        &mut self,
        now: Instant,
        peer: SocketAddrV4,
        echo: &AssocCookieEcho,
        rng: &mut impl RngCore,
    ) -> Result<(Vec<u8>, bool), PeerDrop> {
        let ack = &echo.echoed;
        if ack.cookie != self.cookie(ack, peer) {
            return Err(PeerDrop::ForeignCookie);
        }
        if echo.security_id != ack.security_id {
            return Err(PeerDrop::SecurityId);
        }
        let responder_tag = ack.responder_tag.get();
        if let Some(open) = self.by_tag.get(&responder_tag) {
            return if open.peer == peer && open.security_id == echo.security_id {
                Ok((open.cookie_ack.clone(), false))
            } else {
                // another association took the tag after this ack was made: the requester
                // starts again with a new init
                Err(PeerDrop::TagTaken(responder_tag))
            };
        }
        let age_ms = u64::from((now.millis() as u32).wrapping_sub(ack.free_running.get()));
        if age_ms > HANDSHAKE_WITHIN_MS {
            return Err(PeerDrop::StaleCookie { age_ms });
        }
        if self.by_tag.len() >= self.capacity {
            return Err(PeerDrop::Full(self.capacity));
        }
        // rejection sampling: a draw outside 1..n is all but impossible, and drawn again
        let ours = loop {
            let mut scalar = [0u8; COORDINATE_LEN];
            rng.fill_bytes(&mut scalar);
            if let Some(key) = AssociationKey::from_scalar(scalar) {
                break key;
            }
        };
        let secret = ours.agree(&echo.public_key)?;
        let cookie_ack = AssocCookieAck::answering(echo, ours.public_key_field()?)
            .as_bytes()
            .to_vec();
        self.by_tag.insert(
            responder_tag,
            Association {
                peer,
                security_id: echo.security_id,
                requester_tag: ack.requester_tag.get(),
                keys: RecordKeys::derive(&secret, &self.join_key),
                cookie_ack: cookie_ack.clone(),
                window: ReplayWindow::default(),
                next_sequence: 1,
            },
        );
        Ok((cookie_ack, true))
    }

    /// The plaintext of a record from `peer` addressed to `tag`.
    pub fn open(
        &mut self,
        peer: SocketAddrV4,
        tag: u16,
        bytes: &[u8],
    ) -> Result<Vec<u8>, PeerDrop> {
        let association = self
            .by_tag
            .get_mut(&tag)
            .filter(|a| a.peer == peer)
            .ok_or(PeerDrop::NoAssociation { tag })?;
        let (head, plaintext) = record::open(&association.keys, bytes)?;
        association.window.admit(head.header.sequence.get())?;
        Ok(plaintext)
    }

    /// The record of `plaintext` on the association whose tag is `tag`, and the peer it
    /// goes to; its sequence is the association's next, as `sequence` leaves it.
    pub fn seal(
        &mut self,
        tag: u16,
        plaintext: &[u8],
        sequence: impl FnOnce(u32) -> u32,
    ) -> Result<(SocketAddrV4, Vec<u8>), PeerDrop> {
        let association = self
            .by_tag
            .get_mut(&tag)
            .ok_or(PeerDrop::NoAssociation { tag })?;
        let next = association.next_sequence;
        let bytes = record::seal(
            &association.keys,
            association.requester_tag,
            sequence(next),
            plaintext,
        )?;
        association.next_sequence = next.wrapping_add(1);
        Ok((association.peer, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;
    use vex_wire::peer::association::AssocPacket;

    const ID: SecurityId = [1, 2, 3, 4, 5, 6, 7, 8];
    const REQUESTER_TAG: u16 = 0x4242;

    fn peer() -> SocketAddrV4 {
        "10.0.0.9:3074".parse().unwrap()
    }

    fn responder(capacity: usize) -> Responder {
        Responder::new([7; 64], [0; 16], capacity)
    }

    /// A requester's side of the handshake, from the wire's builders.
    struct Requester {
        key: AssociationKey,
        init: AssocInit,
    }

    impl Requester {
        fn new() -> Self {
            Self {
                key: AssociationKey::from_scalar([3; 28]).unwrap(),
                init: AssocInit::new(REQUESTER_TAG, ID),
            }
        }

        fn echo(&self, ack: &AssocInitAck) -> AssocCookieEcho {
            AssocCookieEcho::answering(ack, [0; 41], self.key.public_key_field().unwrap())
        }

        fn keys(&self, cookie_ack: &[u8]) -> RecordKeys {
            let Ok(AssocPacket::CookieAck(ack)) = AssocPacket::read(cookie_ack) else {
                panic!("a cookie ack");
            };
            assert_eq!(ack.header.addressed_tag.get(), REQUESTER_TAG);
            assert_eq!(ack.security_id, ID);
            RecordKeys::derive(&self.key.agree(&ack.public_key).unwrap(), &[0; 16])
        }
    }

    /// The whole handshake: the ack answers the init (PEER-08), the echo opens an
    /// association, both sides hold the same keys, and records go both ways.
    #[test]
    fn a_handshake_opens_an_association() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut r = responder(4);
        let requester = Requester::new();
        let now = Instant::from_millis(5_000);
        let ack = r.init(now, peer(), &requester.init, &mut rng);
        assert!(ack.breaches(&requester.init).is_empty());
        assert_eq!(ack.observed_addr, [10, 0, 0, 9, 0x02, 0x0C]);
        assert!(r.is_empty(), "an init costs no state");
        let (cookie_ack, opened) = r
            .cookie_echo(now + 100, peer(), &requester.echo(&ack), &mut rng)
            .unwrap();
        assert!(opened);
        assert_eq!(cookie_ack.len(), 116);
        assert_eq!(r.len(), 1);
        let keys = requester.keys(&cookie_ack);
        let tag = ack.responder_tag.get();
        let up = record::seal(&keys, tag, 1, b"ping").unwrap();
        assert_eq!(r.open(peer(), tag, &up), Ok(b"ping".to_vec()));
        assert!(
            matches!(r.open(peer(), tag, &up), Err(PeerDrop::Replay(_))),
            "a replay"
        );
        let (to, down) = r.seal(tag, b"pong", |next| next).unwrap();
        assert_eq!(to, peer());
        let (head, plain) = record::open(&keys, &down).unwrap();
        assert_eq!(
            (head.header.addressed_tag.get(), head.header.sequence.get()),
            (REQUESTER_TAG, 1)
        );
        assert_eq!(plain, b"pong");
        // the echo again gets the same cookie ack, and no second association
        let again = r
            .cookie_echo(now + 200, peer(), &requester.echo(&ack), &mut rng)
            .unwrap();
        assert_eq!((again, r.len()), ((cookie_ack, false), 1));
    }

    /// An echo whose ack was changed in any field, or sent from another address, carries a
    /// cookie that is not ours; one of another security id, or past 30 s, is dropped too;
    /// none opens an association.
    #[test]
    fn a_bad_echo_opens_nothing() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let mut r = responder(4);
        let requester = Requester::new();
        let now = Instant::from_millis(1_000);
        let ack = r.init(now, peer(), &requester.init, &mut rng);
        let good = requester.echo(&ack);
        let edits: [fn(&mut AssocCookieEcho); 5] = [
            |e| e.echoed.cookie[0] ^= 1,
            |e| e.echoed.responder_tag = (e.echoed.responder_tag.get() ^ 1).into(),
            |e| e.echoed.requester_tag = 1.into(),
            |e| e.echoed.free_running = (e.echoed.free_running.get() + 1).into(),
            |e| e.echoed.security_id[0] ^= 1,
        ];
        for edit in edits {
            let mut echo = good;
            edit(&mut echo);
            assert_eq!(
                r.cookie_echo(now, peer(), &echo, &mut rng),
                Err(PeerDrop::ForeignCookie)
            );
        }
        let elsewhere: SocketAddrV4 = "10.0.0.9:3075".parse().unwrap();
        assert_eq!(
            r.cookie_echo(now, elsewhere, &good, &mut rng),
            Err(PeerDrop::ForeignCookie)
        );
        let mut other_id = good;
        other_id.security_id[7] ^= 1;
        assert_eq!(
            r.cookie_echo(now, peer(), &other_id, &mut rng),
            Err(PeerDrop::SecurityId)
        );
        assert_eq!(
            r.cookie_echo(now + HANDSHAKE_WITHIN_MS + 1, peer(), &good, &mut rng),
            Err(PeerDrop::StaleCookie {
                age_ms: HANDSHAKE_WITHIN_MS + 1
            })
        );
        assert!(r.is_empty());
        assert!(
            r.cookie_echo(now + HANDSHAKE_WITHIN_MS, peer(), &good, &mut rng)
                .is_ok(),
            "at 30 s"
        );
    }

    /// Past its capacity the responder opens no association and the ones it holds go on;
    /// a record to a tag it does not hold, or from another address, is dropped.
    #[test]
    fn capacity_and_routing() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let mut r = responder(1);
        let now = Instant::from_millis(1_000);
        let first = Requester::new();
        let ack = r.init(now, peer(), &first.init, &mut rng);
        let (cookie_ack, _) = r
            .cookie_echo(now, peer(), &first.echo(&ack), &mut rng)
            .unwrap();
        let keys = first.keys(&cookie_ack);
        let second_peer: SocketAddrV4 = "10.0.0.10:3074".parse().unwrap();
        let second_ack = r.init(now, second_peer, &first.init, &mut rng);
        assert_eq!(
            r.cookie_echo(now, second_peer, &first.echo(&second_ack), &mut rng),
            Err(PeerDrop::Full(1))
        );
        let tag = ack.responder_tag.get();
        let record = record::seal(&keys, tag, 1, b"still here").unwrap();
        assert_eq!(
            r.open(second_peer, tag, &record),
            Err(PeerDrop::NoAssociation { tag })
        );
        assert_eq!(
            r.open(peer(), tag ^ 1, &record),
            Err(PeerDrop::NoAssociation { tag: tag ^ 1 })
        );
        assert_eq!(r.open(peer(), tag, &record), Ok(b"still here".to_vec()));
    }
}
