//! The receiver's session state, the 28,768 bytes the membership-update hash covers (NS
//! "What a bad update costs"; PEER-19, PEER-22): the receiver applies an update into it
//! and hashes it with lookup3, so a sender computes the hash over a replica of the state
//! each receiver will hold.
//!
//! The nanopb region (+0 to +5944) is the pages': each field is copied straight into the
//! state at its offset (NS "The member record"), a present optional field setting its
//! `has_` byte as nanopb does. The offsets past it, the peer table at +5968 and the player
//! table at +15192, and the hash's start value are Sunrise's (facts, not pages:
//! `mw/gameplay/group/session_state` `build_session_state`), which writes no `has_` bytes;
//! Vex follows the pages' struct there.

use super::lookup3::{SESSION_STATE_INITVAL, hashlittle};
use super::membership::{CAPACITY, MembershipMember, MembershipRoot, PeerDelta, PlayerDelta};

/// The state's size.
pub const LEN: usize = 28_768;

const MEMBERS: usize = 56;
const MEMBER_STRIDE: usize = 184;
const PEERS: usize = 5968;
const PEER_STRIDE: usize = 288;
const PLAYER_COUNT: usize = 15_184;
const PLAYER_MASK: usize = 15_188;
const PLAYERS: usize = 15_192;
const PLAYER_STRIDE: usize = 424;

/// A member's offsets (NS "The member record").
mod member {
    pub const HAS_ADDR: usize = 0x00;
    pub const ADDR_LEN: usize = 0x08;
    pub const ADDR: usize = 0x10;
    pub const ADDR_CAPACITY: usize = 88;
    pub const HAS_MACHINE_ID: usize = 0x68;
    pub const MACHINE_ID_LEN: usize = 0x70;
    pub const MACHINE_ID: usize = 0x78;
    pub const MACHINE_ID_CAPACITY: usize = 8;
    pub const HAS_JOIN_ID: usize = 0x80;
    pub const JOIN_ID: usize = 0x88;
    pub const HAS_PARTY_ID: usize = 0x90;
    pub const PARTY_ID: usize = 0x98;
    pub const HAS_PLAYER_COUNT: usize = 0xA0;
    pub const PLAYER_COUNT: usize = 0xA4;
    pub const PLAYER_SLOT_COUNT: usize = 0xA8;
    pub const PLAYER_SLOT: usize = 0xB0;
    pub const HAS_LEAVE_PENDING: usize = 0xB4;
    pub const HAS_LEAVE_DONE: usize = 0xB6;
}

/// The session state one receiver holds.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionState(Box<[u8; LEN]>);

impl std::fmt::Debug for SessionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SessionState({:#010x})", self.hash())
    }
}

impl Default for SessionState {
    fn default() -> Self {
        Self(Box::new([0; LEN]))
    }
}

/// A member's fields as the state holds them: what a receiver validates after applying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldMember<'a> {
    /// The address length (PEER-02: 86).
    pub addr_len: u64,
    /// The address bytes held (up to 88).
    pub addr: &'a [u8],
    /// The machine id length (PEER-02: 8).
    pub machine_id_len: u64,
    /// The join id.
    pub join_id: u64,
}

impl SessionState {
    /// The bytes.
    pub fn bytes(&self) -> &[u8; LEN] {
        &self.0
    }

    /// lookup3 over the whole state, from Sunrise's initial value (PEER-22).
    pub fn hash(&self) -> u32 {
        hashlittle(&self.0[..], SESSION_STATE_INITVAL)
    }

    /// Applies an update's root and deltas, as the receiver does before it validates
    /// anything (PEER-21). A complete snapshot starts from an empty state. What the
    /// tables cannot hold (a member past 32, an index past 31, a value past its slot) is
    /// left out, nanopb having refused it before the copy (PB-01).
    pub fn apply(
        &mut self,
        snapshot: bool,
        root: &MembershipRoot,
        peers: &[PeerDelta],
        players: &[PlayerDelta],
    ) {
        if snapshot {
            self.0.fill(0);
        }
        self.optional_u32(0, root.revision);
        self.optional_u32(8, root.host_index);
        self.optional_u32(16, root.succession_index);
        self.optional_u32(24, root.member_count);
        if let Some(mask) = root.member_mask {
            self.put(32, &[1]);
            self.put(40, &mask.to_le_bytes());
        }
        let members = root.members.len().min(CAPACITY);
        self.put(48, &(members as u64).to_le_bytes());
        for (i, m) in root.members.iter().take(CAPACITY).enumerate() {
            self.member(MEMBERS + i * MEMBER_STRIDE, m);
        }
        for p in peers.iter().filter(|p| usize::from(p.index) < CAPACITY) {
            let at = PEERS + usize::from(p.index) * PEER_STRIDE;
            self.put(at, &u32::from(p.state).to_le_bytes());
            let (compat, timestamp, value) = p.connection.unwrap_or_default();
            self.put(at + 4, &u32::from(value).to_le_bytes());
            self.put(at + 8, &compat.to_le_bytes());
            self.put(at + 16, &timestamp.to_le_bytes());
        }
        for p in players.iter().filter(|p| usize::from(p.slot) < CAPACITY) {
            let at = PLAYERS + usize::from(p.slot) * PLAYER_STRIDE;
            self.put(at + 4, &p.player_id.to_le_bytes());
            self.put(at + 12, &u32::from(p.member).to_le_bytes());
            self.put(at + 20, &p.add_sequence.to_le_bytes());
            self.put(at + 24, &[p.flag.into()]);
            self.put(at + 28, &u32::MAX.to_le_bytes());
            self.put(at + 264, &u32::MAX.to_le_bytes());
            let mask = self.u32_at(PLAYER_MASK) | 1 << p.slot;
            self.put(PLAYER_MASK, &mask.to_le_bytes());
            self.put(PLAYER_COUNT, &mask.count_ones().to_le_bytes());
        }
    }

    /// The membership revision held (NS "Root fields" tag 1).
    pub fn revision(&self) -> u32 {
        self.u32_at(4)
    }

    /// The members held, in table order.
    pub fn members(&self) -> impl Iterator<Item = HeldMember<'_>> {
        let count = (self.u64_at(48) as usize).min(CAPACITY);
        (0..count).map(move |i| {
            let at = MEMBERS + i * MEMBER_STRIDE;
            let addr_len = self.u64_at(at + member::ADDR_LEN);
            let held = (addr_len as usize).min(member::ADDR_CAPACITY);
            HeldMember {
                addr_len,
                addr: self
                    .0
                    .get(at + member::ADDR..at + member::ADDR + held)
                    .unwrap_or_default(),
                machine_id_len: self.u64_at(at + member::MACHINE_ID_LEN),
                join_id: self.u64_at(at + member::JOIN_ID),
            }
        })
    }

    /// Clears the member and player tables, as a receiver does on most failed checks
    /// (PEER-21).
    pub fn clear_tables(&mut self) {
        self.0.iter_mut().skip(48).for_each(|b| *b = 0);
    }

    fn member(&mut self, at: usize, m: &MembershipMember) {
        let fits = |capacity: usize| move |b: &&[u8]| b.len() <= capacity;
        if let Some(held) = m.addr.as_deref().filter(fits(member::ADDR_CAPACITY)) {
            self.put(at + member::HAS_ADDR, &[1]);
            self.put(at + member::ADDR_LEN, &(held.len() as u64).to_le_bytes());
            self.put(at + member::ADDR, held);
        }
        if let Some(held) = m
            .machine_id
            .as_deref()
            .filter(fits(member::MACHINE_ID_CAPACITY))
        {
            self.put(at + member::HAS_MACHINE_ID, &[1]);
            self.put(
                at + member::MACHINE_ID_LEN,
                &(held.len() as u64).to_le_bytes(),
            );
            self.put(at + member::MACHINE_ID, held);
        }
        self.optional_u64(at + member::HAS_JOIN_ID, at + member::JOIN_ID, m.join_id);
        self.optional_u64(at + member::HAS_PARTY_ID, at + member::PARTY_ID, m.party_id);
        if let Some(count) = m.player_count {
            self.put(at + member::HAS_PLAYER_COUNT, &[1]);
            self.put(at + member::PLAYER_COUNT, &count.to_le_bytes());
        }
        if let Some(slot) = m.player_slot.first() {
            self.put(at + member::PLAYER_SLOT_COUNT, &1u64.to_le_bytes());
            self.put(at + member::PLAYER_SLOT, &slot.to_le_bytes());
        }
        for (has, value) in [
            (member::HAS_LEAVE_PENDING, m.host_leave_pending),
            (member::HAS_LEAVE_DONE, m.host_leave_done),
        ] {
            if let Some(flag) = value {
                self.put(at + has, &[1, flag.into()]);
            }
        }
    }

    fn optional_u32(&mut self, has: usize, value: Option<u32>) {
        if let Some(v) = value {
            self.put(has, &[1]);
            self.put(has + 4, &v.to_le_bytes());
        }
    }

    fn optional_u64(&mut self, has: usize, at: usize, value: Option<u64>) {
        if let Some(v) = value {
            self.put(has, &[1]);
            self.put(at, &v.to_le_bytes());
        }
    }

    /// Writes `bytes` at `at`: every offset here is a constant of the layout, inside it.
    fn put(&mut self, at: usize, bytes: &[u8]) {
        if let Some(held) = self.0.get_mut(at..at + bytes.len()) {
            held.copy_from_slice(bytes);
        }
    }

    fn u32_at(&self, at: usize) -> u32 {
        self.word(at).map_or(0, u32::from_le_bytes)
    }

    fn u64_at(&self, at: usize) -> u64 {
        self.word(at).map_or(0, u64::from_le_bytes)
    }

    fn word<const N: usize>(&self, at: usize) -> Option<[u8; N]> {
        self.0.get(at..at + N)?.try_into().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout's regions fit the 28,768 bytes exactly: the members end where the
    /// pages' 5,944-byte nanopb region ends, the player table 8 bytes before the end.
    #[test]
    fn the_regions_fit() {
        assert_eq!(MEMBERS + CAPACITY * MEMBER_STRIDE, 5944);
        assert_eq!(PEERS + CAPACITY * PEER_STRIDE, 15_184);
        assert_eq!(PLAYERS + CAPACITY * PLAYER_STRIDE, LEN - 8);
    }

    /// Sunrise's published vectors: the empty state hashes to 0x7047B8C0, and with byte 4
    /// (the revision) 1 to 0xCF2037D7.
    #[test]
    fn the_published_hashes() {
        let mut state = SessionState::default();
        assert_eq!(state.hash(), 0x7047_B8C0);
        state.0[4] = 1;
        assert_eq!(state.hash(), 0xCF20_37D7);
    }

    /// A member's fields land at the pages' offsets, each with its `has_` byte, and read
    /// back; a snapshot starts over, clearing what the last one wrote.
    #[test]
    fn a_member_lands_at_the_pages_offsets() {
        let root = MembershipRoot {
            revision: Some(3),
            member_count: Some(1),
            members: vec![MembershipMember {
                addr: Some(vec![0xAB; 86]),
                machine_id: Some(vec![1; 8]),
                join_id: Some(0x1122),
                player_slot: vec![5],
                host_leave_done: Some(true),
                ..MembershipMember::default()
            }],
            ..MembershipRoot::default()
        };
        let mut state = SessionState::default();
        state.apply(true, &root, &[], &[]);
        let b = state.bytes();
        assert_eq!((b[0], b[4], b[24], b[28]), (1, 3, 1, 1));
        let at = MEMBERS;
        assert_eq!(
            (b[at], b[at + 8], b[at + 16], b[at + 101]),
            (1, 86, 0xAB, 0xAB)
        );
        assert_eq!((b[at + 0x68], b[at + 0x70], b[at + 0x78]), (1, 8, 1));
        assert_eq!((b[at + 0x80], b[at + 0x88], b[at + 0x89]), (1, 0x22, 0x11));
        assert_eq!(
            (b[at + 0xA8], b[at + 0xB0], b[at + 0xB6], b[at + 0xB7]),
            (1, 5, 1, 1)
        );
        let held: Vec<_> = state.members().collect();
        assert_eq!(held.len(), 1);
        assert_eq!((held[0].addr_len, held[0].machine_id_len), (86, 8));
        assert_eq!(held[0].join_id, 0x1122);
        assert_eq!(state.revision(), 3);
        state.apply(true, &MembershipRoot::default(), &[], &[]);
        assert_eq!(state, SessionState::default());
    }

    /// The deltas land in the peer and player tables; a player sets its slot's mask bit
    /// and the count; an index past the tables is left out.
    #[test]
    fn deltas_land_in_the_tables() {
        let peers = [
            PeerDelta {
                index: 1,
                state: 9,
                connection: Some((2, 3, 4)),
            },
            PeerDelta {
                index: 40,
                state: 9,
                connection: None,
            },
        ];
        let players = [PlayerDelta {
            slot: 31,
            player_id: 7,
            member: 1,
            add_sequence: 6,
            flag: false,
        }];
        let mut state = SessionState::default();
        state.apply(true, &MembershipRoot::default(), &peers, &players);
        let b = state.bytes();
        let peer = PEERS + PEER_STRIDE;
        assert_eq!(
            (b[peer], b[peer + 4], b[peer + 8], b[peer + 16]),
            (9, 4, 2, 3)
        );
        assert_eq!(state.u32_at(PLAYER_COUNT), 1);
        assert_eq!(state.u32_at(PLAYER_MASK), 1 << 31);
        let player = PLAYERS + 31 * PLAYER_STRIDE;
        assert_eq!((b[player + 4], b[player + 12], b[player + 20]), (7, 1, 6));
        assert_eq!(state.u32_at(player + 28), u32::MAX);
        assert_eq!(state.u32_at(player + 264), u32::MAX);
        let written = b.iter().filter(|&&x| x != 0).count();
        // the peer's four values; the player's id, member, sequence and two all-ones words;
        // the mask and the count
        assert_eq!(written, 4 + 3 + 4 + 4 + 1 + 1);
    }
}
