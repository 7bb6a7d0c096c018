//! Session membership, peer message 30 (NS "Session membership, peer message 30"; PEER-02,
//! PEER-18 to PEER-22): the group-session host tells every member who is in the session.
//!
//! The pages give the decoded body, one 31,104-byte struct in four regions, the root and
//! member fields of its nanopb region, and that on the wire the nanopb region is a 13-bit
//! byte length and that many bytes, the rest bit-packed. The widths and order of the
//! bit-packed rest are Sunrise's (facts, not pages: `mw/gameplay/group/session_messages`
//! `write_membership_update`): the host machine id as 8 raw bytes, the nanopb region, a
//! revision-pair flag (0: present) with the base revision and the unread word, the two
//! delta counts (6 bits each), the deltas, four tail-group flags and the 32-bit hash.
//! Sunrise writes only complete snapshots with full entries and no identity, profile or
//! tail blocks; their layouts are known nowhere, so a reader here ends at one with
//! [`MembershipError::Unread`].

use super::net_addr::NetAddr;
use super::{read_raw_u64, write_raw_u64};
use crate::bits::{BitError, BitReader, BitWriter};
use thiserror::Error;

/// The widest nanopb region: a 13-bit byte length (NS).
pub const MAX_ROOT_LEN: usize = (1 << 13) - 1;
/// The member and player tables' capacity (NS: "up to 32 entries").
pub const CAPACITY: usize = 32;
/// A member's address length (PEER-02).
pub const ADDR_LEN: u64 = NetAddr::LEN as u64;
/// A member's machine id length (PEER-02).
pub const MACHINE_ID_LEN: u64 = 8;
/// The highest member state the client names (NS "Peer and player deltas": 10
/// `_established`).
pub const MAX_STATE: u8 = 10;
/// Member state 9, `_ready`.
pub const STATE_READY: u8 = 9;
/// Member state 10, `_established`.
pub const STATE_ESTABLISHED: u8 = 10;

/// A member record, tags as NS "The member record" gives them.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MembershipMember {
    /// Tag 1: the peer's NetAddr, 86 bytes (PEER-02).
    #[prost(bytes = "vec", optional, tag = "1")]
    pub addr: Option<Vec<u8>>,
    /// Tag 2: the machine id, 8 bytes (PEER-02).
    #[prost(bytes = "vec", optional, tag = "2")]
    pub machine_id: Option<Vec<u8>>,
    /// Tag 3: the join attempt's id; 0 when empty.
    #[prost(uint64, optional, tag = "3")]
    pub join_id: Option<u64>,
    /// Tag 8: the party; 0 and all-ones both mean none.
    #[prost(uint64, optional, tag = "8")]
    pub party_id: Option<u64>,
    /// Tag 9: the party's player count.
    #[prost(uint32, optional, tag = "9")]
    pub player_count: Option<u32>,
    /// Tag 10: the player slot the member owns; at most one (PEER-19).
    #[prost(uint32, repeated, packed = "false", tag = "10")]
    pub player_slot: Vec<u32>,
    /// Tag 11: the host is leaving.
    #[prost(bool, optional, tag = "11")]
    pub host_leave_pending: Option<bool>,
    /// Tag 12: the host has left.
    #[prost(bool, optional, tag = "12")]
    pub host_leave_done: Option<bool>,
}

/// The nanopb region's root, tags as NS "Root fields" gives them.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MembershipRoot {
    /// Tag 1: the membership revision; 0 means none published yet.
    #[prost(uint32, optional, tag = "1")]
    pub revision: Option<u32>,
    /// Tag 2: the host's member index.
    #[prost(uint32, optional, tag = "2")]
    pub host_index: Option<u32>,
    /// Tag 3: the host-succession candidate's index.
    #[prost(uint32, optional, tag = "3")]
    pub succession_index: Option<u32>,
    /// Tag 4: the member count.
    #[prost(uint32, optional, tag = "4")]
    pub member_count: Option<u32>,
    /// Tag 5: the member-slot bitmask; the low 32 bits are used.
    #[prost(uint64, optional, tag = "5")]
    pub member_mask: Option<u64>,
    /// Tag 6: the member table, up to 32 entries.
    #[prost(message, repeated, tag = "6")]
    pub members: Vec<MembershipMember>,
}

/// One peer-table delta in its full-entry form (facts): the member's index, state and
/// connection data. The identity block and the two unnamed flags Sunrise leaves clear are
/// not carried: their layouts are unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerDelta {
    /// The member index, 6 bits.
    pub index: u8,
    /// The connection state, 4 bits (NS: 0 `_none` to 10 `_established`).
    pub state: u8,
    /// The connection data: join compatibility (32 bits), join timestamp (64), a value (8).
    pub connection: Option<(u32, u64, u8)>,
}

/// One player-table delta in its full-entry form with its identity (facts). The profile
/// block's layout is unknown, so a delta here carries none (PEER-20 says what that costs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerDelta {
    /// The player slot, 5 bits.
    pub slot: u8,
    /// The player id, 8 raw bytes.
    pub player_id: u64,
    /// The owning member's index, 6 bits.
    pub member: u8,
    /// The player-add counter, 20 bits.
    pub add_sequence: u32,
    /// The flag bit Sunrise writes 0 (its meaning is not known).
    pub flag: bool,
}

/// A membership-update as it goes on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MembershipUpdate {
    /// The host's machine id, 8 raw bytes.
    pub host_machine_id: u64,
    /// The nanopb region's bytes: a [`MembershipRoot`], or whatever the sender wrote.
    pub root: Vec<u8>,
    /// The base revision (0: a complete snapshot) and the word no consumer reads; `None`
    /// is the flag's absent form (facts: "decodes as -1").
    pub revisions: Option<(u32, u32)>,
    /// The peer-table deltas.
    pub peers: Vec<PeerDelta>,
    /// The player-table deltas.
    pub players: Vec<PlayerDelta>,
    /// The hash over the session state the receiver will hold (PEER-22).
    pub hash: u32,
}

/// Why bytes are not a membership-update Vex reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MembershipError {
    /// The bits ran out, or a field did not fit.
    #[error(transparent)]
    Bits(#[from] BitError),
    /// More deltas than the 32-entry tables hold.
    #[error("{count} {table} deltas; the table holds 32")]
    TooMany {
        /// `peer` or `player`.
        table: &'static str,
        /// The count given.
        count: usize,
    },
    /// A nanopb region longer than its 13-bit length can say.
    #[error("a nanopb region of {0} bytes is past the 13-bit length's 8,191")]
    RootTooLong(usize),
    /// A part whose layout no source gives.
    #[error("membership-update carries {0}, whose layout Vex does not know")]
    Unread(&'static str),
}

impl MembershipUpdate {
    /// A complete snapshot (base revision 0) of `root`.
    pub fn snapshot(host_machine_id: u64, root: &MembershipRoot) -> Self {
        Self {
            host_machine_id,
            root: prost::Message::encode_to_vec(root),
            revisions: Some((0, 0)),
            ..Self::default()
        }
    }

    /// The bits, as the struct's order gives them (facts).
    pub fn write(&self, w: &mut BitWriter) -> Result<(), MembershipError> {
        if self.root.len() > MAX_ROOT_LEN {
            return Err(MembershipError::RootTooLong(self.root.len()));
        }
        for (table, count) in [("peer", self.peers.len()), ("player", self.players.len())] {
            if count > CAPACITY {
                return Err(MembershipError::TooMany { table, count });
            }
        }
        write_raw_u64(w, self.host_machine_id);
        w.write(self.root.len() as u64, 13);
        w.write_stream(&self.root, self.root.len() * 8);
        w.write_bool(self.revisions.is_none());
        if let Some((base, unread)) = self.revisions {
            w.write(base.into(), 32);
            w.write(unread.into(), 32);
        }
        w.write(self.peers.len() as u64, 6);
        w.write(self.players.len() as u64, 6);
        for peer in &self.peers {
            w.write(peer.index.into(), 6);
            w.write_bool(true); // the full-entry mode
            w.write(peer.state.into(), 4);
            w.write_bool(peer.connection.is_some());
            if let Some((compat, timestamp, value)) = peer.connection {
                w.write(compat.into(), 32);
                w.write(timestamp, 64);
                w.write(value.into(), 8);
            }
            w.write(0, 3); // no identity block, two unnamed flags clear
        }
        for player in &self.players {
            w.write(player.slot.into(), 5);
            w.write(0b11, 2); // the full-entry mode, the identity present
            write_raw_u64(w, player.player_id);
            w.write(player.member.into(), 6);
            w.write(0, 1); // the owned index, always 0 (facts)
            w.write(player.add_sequence.into(), 20);
            w.write_bool(player.flag);
            w.write_bool(false); // no profile
        }
        w.write(0, 4); // no tail groups
        w.write(self.hash.into(), 32);
        Ok(w.error().map_or(Ok(()), Err)?)
    }

    /// Reads one from `r`, or says why it is not one Vex reads.
    pub fn read(r: &mut BitReader<'_>) -> Result<Self, MembershipError> {
        let host_machine_id = read_raw_u64(r)?;
        let root_len = r.read(13)? as usize;
        let root = r.read_stream(root_len * 8)?;
        let revisions = match r.read_bool()? {
            false => Some((r.read(32)? as u32, r.read(32)? as u32)),
            true => None,
        };
        let peer_count = r.read(6)? as usize;
        let player_count = r.read(6)? as usize;
        for (table, count) in [("peer", peer_count), ("player", player_count)] {
            if count > CAPACITY {
                return Err(MembershipError::TooMany { table, count });
            }
        }
        let peers = (0..peer_count)
            .map(|_| read_peer(r))
            .collect::<Result<_, _>>()?;
        let players = (0..player_count)
            .map(|_| read_player(r))
            .collect::<Result<_, _>>()?;
        if r.read(4)? != 0 {
            return Err(MembershipError::Unread("a tail group"));
        }
        let hash = r.read(32)? as u32;
        Ok(Self {
            host_machine_id,
            root,
            revisions,
            peers,
            players,
            hash,
        })
    }
}

fn read_peer(r: &mut BitReader<'_>) -> Result<PeerDelta, MembershipError> {
    let index = r.read(6)? as u8;
    if !r.read_bool()? {
        return Err(MembershipError::Unread(
            "a peer delta in its changed-fields mode",
        ));
    }
    let state = r.read(4)? as u8;
    let connection = match r.read_bool()? {
        true => Some((r.read(32)? as u32, r.read(64)?, r.read(8)? as u8)),
        false => None,
    };
    if r.read(3)? != 0 {
        return Err(MembershipError::Unread(
            "a peer delta's identity block or flags",
        ));
    }
    Ok(PeerDelta {
        index,
        state,
        connection,
    })
}

fn read_player(r: &mut BitReader<'_>) -> Result<PlayerDelta, MembershipError> {
    let slot = r.read(5)? as u8;
    if r.read(2)? != 0b11 {
        return Err(MembershipError::Unread(
            "a player delta in its changed-fields mode or without its identity",
        ));
    }
    let player_id = read_raw_u64(r)?;
    let member = r.read(6)? as u8;
    if r.read(1)? != 0 {
        return Err(MembershipError::Unread("a player delta's owned index"));
    }
    let add_sequence = r.read(20)? as u32;
    let flag = r.read_bool()?;
    if r.read_bool()? {
        return Err(MembershipError::Unread("a player's profile block"));
    }
    Ok(PlayerDelta {
        slot,
        player_id,
        member,
        add_sequence,
        flag,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::written;

    fn root() -> MembershipRoot {
        let member = |join_id: u64, machine: u64| MembershipMember {
            addr: Some(vec![7; NetAddr::LEN]),
            machine_id: Some(machine.to_le_bytes().to_vec()),
            join_id: Some(join_id),
            ..MembershipMember::default()
        };
        MembershipRoot {
            revision: Some(1),
            host_index: Some(0),
            succession_index: Some(0),
            member_count: Some(2),
            member_mask: Some(0b11),
            members: vec![member(9, 0x55), member(9, 9)],
        }
    }

    fn update() -> MembershipUpdate {
        MembershipUpdate {
            peers: vec![
                PeerDelta {
                    index: 0,
                    state: STATE_READY,
                    connection: Some((1, 2, 3)),
                },
                PeerDelta {
                    index: 1,
                    state: STATE_ESTABLISHED,
                    connection: None,
                },
            ],
            players: vec![PlayerDelta {
                slot: 0,
                player_id: 0x0102_0304_0506_0708,
                member: 1,
                add_sequence: 0xF_FFFF,
                flag: true,
            }],
            hash: 0xCAFE_F00D,
            ..MembershipUpdate::snapshot(0x55, &root())
        }
    }

    /// An update reads back field for field; it opens with the host machine id's bytes low
    /// first, then the 13-bit length of the nanopb region.
    #[test]
    fn an_update_reads_back() {
        let u = update();
        let bytes = written(|w| {
            u.write(w).unwrap();
        })
        .unwrap();
        assert_eq!(bytes[..8], 0x55u64.to_le_bytes());
        let len = u.root.len();
        assert_eq!(u16::from_be_bytes([bytes[8], bytes[9]]) >> 3, len as u16);
        let back = MembershipUpdate::read(&mut BitReader::new(&bytes)).unwrap();
        assert_eq!(back, u);
        let decoded: MembershipRoot = prost::Message::decode(&back.root[..]).unwrap();
        assert_eq!(decoded, root());
    }

    /// The absent revision pair, empty tables and a root of 8,191 bytes read back; 8,192
    /// and 33 deltas are refused on write, and a count past 32 on read.
    #[test]
    fn the_bounds() {
        let mut u = MembershipUpdate {
            root: vec![0; MAX_ROOT_LEN],
            revisions: None,
            ..MembershipUpdate::default()
        };
        let bytes = written(|w| {
            u.write(w).unwrap();
        })
        .unwrap();
        assert_eq!(
            MembershipUpdate::read(&mut BitReader::new(&bytes)),
            Ok(u.clone())
        );
        u.root.push(0);
        assert_eq!(
            u.write(&mut BitWriter::measuring()),
            Err(MembershipError::RootTooLong(8192))
        );
        let mut u = update();
        u.peers = vec![u.peers[0]; 33];
        assert!(matches!(
            u.write(&mut BitWriter::measuring()),
            Err(MembershipError::TooMany { count: 33, .. })
        ));
        let bytes = written(|w| {
            write_raw_u64(w, 1);
            w.write(0, 13);
            w.write_zeros(1 + 64);
            w.write(33, 6);
            w.write(0, 6);
        })
        .unwrap();
        assert!(matches!(
            MembershipUpdate::read(&mut BitReader::new(&bytes)),
            Err(MembershipError::TooMany { count: 33, .. })
        ));
    }

    /// Each part whose layout is unknown ends the read: a tail group, a changed-fields
    /// peer delta, a player profile.
    #[test]
    fn unknown_parts_end_the_read() {
        let mut bytes = written(|w| {
            MembershipUpdate::snapshot(0, &MembershipRoot::default())
                .write(w)
                .unwrap();
        })
        .unwrap();
        // 64 + 13 + 1 + 64 + 12 bits, then the first tail flag
        let tail = 64 + 13 + 1 + 64 + 12;
        bytes[tail / 8] |= 0x80 >> (tail % 8);
        assert_eq!(
            MembershipUpdate::read(&mut BitReader::new(&bytes)),
            Err(MembershipError::Unread("a tail group"))
        );
        let mut u = update();
        u.peers.truncate(0);
        u.players.truncate(1);
        let mut bytes = written(|w| {
            u.write(w).unwrap();
        })
        .unwrap();
        let root_bits = 64 + 13 + u.root.len() * 8 + 1 + 64 + 12;
        // the player's profile bit: slot 5, mode 2, id 64, member 6, owned 1, sequence 20, flag 1
        let profile = root_bits + 5 + 2 + 64 + 6 + 1 + 20 + 1;
        bytes[profile / 8] |= 0x80 >> (profile % 8);
        assert_eq!(
            MembershipUpdate::read(&mut BitReader::new(&bytes)),
            Err(MembershipError::Unread("a player's profile block"))
        );
    }
}
