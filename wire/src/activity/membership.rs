//! Message 12, replicate_membership (H→C): the activity's member table, its 64 region
//! records and the host tail (AH "The main messages"; MEMBER-01, MEMBER-02; facts 4.10).
//!
//! **Which layout, and why.** AH gives message 12 as "activity membership, 3,696 bytes"
//! ([`DOCUMENTED_LEN`], MEMBER-01) but gives no layout. Facts 4.10 gives the only known
//! layout, read from Sunrise's encoder: 29,968 bits ([`MEMBERSHIP_BITS`]), which is 3,746
//! bytes ([`MEMBERSHIP_LEN`]) with one local member and the host-present tail, plus 1,024
//! bits for each region record that carries a 128-byte citizen join descriptor (facts 9
//! lists the disagreement). Vex writes the facts layout, and its decoder accepts any body at
//! least as long as what it reads: unread bits and trailing bytes are fine (BODY-04).
//!
//! The client applies message 12 without checks (MEMBER-01) and a table without the local
//! player removes that player (MEMBER-02), so the encoder refuses any value that does not fit
//! its field instead of truncating it.
//!
//! **What the decoder obeys.** Facts 4.10 documents one shape per branch. The decoder obeys
//! the branches whose both arms are documented: a member lane's presence bit (an absent lane
//! is 3 zero bits), the identity block's presence bits for fields 3, 5 and 14 (the only
//! fields with a known width), and a region record's descriptor byte count. The other bits
//! Sunrise always writes as constants (the region-block and host-key presence bits, the
//! ambassador flags, the zero runs) are read and not obeyed, since nothing documents what
//! follows a different value. The identity block repeats the account and character SOIDs;
//! the decoder keeps the member record's copies.

use super::body::Body;
use crate::bits::{BitError, BitReader, BitWriter};

/// Bits in the facts 4.10 body: one local member, 64 plain region records, host-present tail.
pub const MEMBERSHIP_BITS: usize = 29_968;
/// [`MEMBERSHIP_BITS`] in bytes: 3,746, with no pad bits (facts 4.10).
pub const MEMBERSHIP_LEN: usize = 3_746;
/// The length AH documents for message 12 (MEMBER-01). No layout of this length is known.
pub const DOCUMENTED_LEN: usize = 3_696;

/// Width of the root presence bit at @0 (always 1).
pub const ROOT_BITS: u32 = 1;
/// Width of the revision at @1: 1 for the first identity snapshot, +1 per change (facts 4.10).
pub const REVISION_BITS: u32 = 32;
/// Width of the epoch at @33: stable 0 in Sunrise; changing it clears the client's peer table.
pub const EPOCH_BITS: u32 = 32;
/// Bit offset of member lane 0 (facts 4.10 @65).
pub const MEMBER_START_BIT: usize = 65;

/// Member lanes in the table (facts 4.10: member 0, members 1..31).
pub const MEMBER_LANES: usize = 32;
/// Bits of an absent member lane: 3 zero bits (facts 4.10).
pub const ABSENT_MEMBER_BITS: usize = 3;
/// Bits of a present member lane with the minimal identity block (facts 4.10: @65 to @741).
pub const PRESENT_MEMBER_BITS: usize = 676;
/// Bytes of a member or host key, written low byte first, 8 bits each (facts 3 "raw fields").
pub const KEY_BYTES: usize = 8;
/// Width of each key byte.
pub const KEY_BYTE_BITS: u32 = 8;
/// Width of member field 1.
pub const FIELD1_BITS: u32 = 10;
/// Bias of member field 1. The client drops a member whose field 1 is not -1 (wire 0).
pub const FIELD1_BIAS: i64 = 1;
/// Width of member field 2.
pub const FIELD2_BITS: u32 = 32;
/// Width of the 64-bit member fields: join identity, account SOID, character SOID, field 6.
pub const ID_BITS: u32 = 64;
/// The two 1-bit flags after field 6, both written as 1.
pub const MEMBER_FLAGS: [bool; 2] = [true, true];
/// Fields of the nested identity block, each behind a presence bit.
pub const IDENTITY_FIELDS: usize = 15;
/// Identity field carrying the account SOID (64 bits).
pub const IDENTITY_ACCOUNT_FIELD: usize = 3;
/// Identity field carrying the character SOID, member field 5 (64 bits).
pub const IDENTITY_CHARACTER_FIELD: usize = 5;
/// Identity field carrying the nested player blob: a byte count, then the bytes.
pub const IDENTITY_BLOB_FIELD: usize = 14;
/// Width of the blob's byte count.
pub const BLOB_COUNT_BITS: u32 = 14;
/// Bytes in the minimal player blob (144 bits, including one zero pad bit).
pub const BLOB_LEN: usize = 18;
/// First blob field: 3 bits, written as 1.
pub const BLOB_KIND: u64 = 1;
/// Width of [`BLOB_KIND`].
pub const BLOB_KIND_BITS: u32 = 3;
/// Zero bits between the blob kind and the blob's 1 flag: a 1-bit and a 10-bit field.
pub const BLOB_GAP_BITS: usize = 1 + 10;
/// Zero bits after the identity block's 15 fields.
pub const IDENTITY_TAIL_BITS: usize = 1;
/// Zero bits after the identity block, before the leave-reason flag.
pub const MEMBER_GAP_BITS: usize = 3;
/// Width of the leave reason.
pub const LEAVE_REASON_BITS: u32 = 5;
/// Bias of the leave reason: a present member carries logical 0, wire 1.
pub const LEAVE_REASON_BIAS: i64 = 1;

/// Bit offset of the region-block presence bit with one present member (facts 4.10 @834).
pub const REGION_BLOCK_BIT: usize = 834;
/// Region records, one per bubble 0..63 (facts 4.10).
pub const REGION_COUNT: usize = 64;
/// Bits of a region record without a citizen descriptor (facts 4.10).
pub const REGION_RECORD_BITS: usize = 451;
/// Extra bits of a region record that carries a 128-byte citizen descriptor (facts 4.10).
pub const CITIZEN_EXTRA_BITS: usize = 1_024;
/// Width of the region index.
pub const REGION_INDEX_BITS: u32 = 32;
/// Region index = bubble × 8 (facts 4.10; `region_reader.h`).
pub const REGION_INDEX_STRIDE: i32 = 8;
/// The 2-bit field after the region index, written as 1.
pub const REGION_FLAG: u64 = 1;
/// Width of [`REGION_FLAG`].
pub const REGION_FLAG_BITS: u32 = 2;
/// Zero bits between [`REGION_FLAG`] and the ambassador state.
pub const REGION_GAP_BITS: usize = 8;
/// Width of the ambassador state.
pub const AMBASSADOR_STATE_BITS: u32 = 2;
/// Ambassador state wire 2: assigned (facts 4.10).
pub const AMBASSADOR_ASSIGNED: u8 = 2;
/// Width of the ambassador slot.
pub const AMBASSADOR_SLOT_BITS: u32 = 6;
/// Bias of the ambassador slot.
pub const AMBASSADOR_SLOT_BIAS: i64 = 1;
/// Sunrise's ambassador slot when none is advertised: 1 (never slot 0, which is self).
pub const DEFAULT_AMBASSADOR_SLOT: i8 = 1;
/// Zero fields after the ambassador slot: 1, 32, 8 and 32 bits.
pub const REGION_ZERO_BITS: usize = 1 + 32 + 8 + 32;
/// Width of each transition token, one per member lane.
pub const TOKEN_BITS: u32 = 8;
/// Width of the citizen descriptor byte count (0 = none).
pub const DESCRIPTOR_COUNT_BITS: u32 = 8;
/// Bytes of a citizen join descriptor (facts 4.10).
pub const CITIZEN_DESCRIPTOR_LEN: usize = 128;
/// Width of the online session id that ends a region record.
pub const ONLINE_SESSION_BITS: u32 = 64;

/// Bit offset of the host tail with one member and no descriptor (facts 4.10 @29699).
pub const HOST_TAIL_BIT: usize = 29_699;
/// Bits of the host-present tail (facts 4.10).
pub const HOST_TAIL_BITS: usize = 200;
/// Width of the spawn opaque byte.
pub const SPAWN_BYTE_BITS: u32 = 8;
/// Width of the spawn and teleport states.
pub const STATE_BITS: u32 = 3;
/// Bias of the spawn and teleport states. Wire 0 (logical -1) is fatal in both, so a
/// negative state goes out as logical 0 (facts 4.10).
pub const STATE_BIAS: i64 = 1;
/// Width of the spawn opaque value.
pub const SPAWN_VALUE_BITS: u32 = 64;
/// Zero bits between the spawn value and the teleport state.
pub const HOST_GAP_BITS: usize = 4;
/// Width of the teleport token.
pub const TELEPORT_TOKEN_BITS: u32 = 8;
/// Width of the teleport slice set.
pub const SLICE_SET_BITS: u32 = 10;
/// Bias of the teleport slice set: -1 (none) goes out as 0.
pub const SLICE_SET_BIAS: i64 = 1;
/// Width of the teleport slice-set hash.
pub const SLICE_HASH_BITS: u32 = 32;

/// Bit offset of the trailing masks with one member and no descriptor (facts 4.10 @29899).
pub const MASKS_BIT: usize = 29_899;
/// Width of each of the two member masks.
pub const MASK_BITS: u32 = 32;
/// Sunrise's value of both masks: the local member in lane 0.
pub const LOCAL_MEMBER_MASK: u32 = 1;
/// Absent 1-bit fields that end the body.
pub const TRAILING_ABSENT_BITS: usize = 3;

/// One member lane's record (facts 4.10 "member 0"; the same fields as message 23, facts
/// 4.12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// The member key, 8 bytes low byte first.
    pub member_key: u64,
    /// Field 1, 10 bits, bias 1. Must be -1: any other value drops the member.
    pub field1: i16,
    /// Field 2, 32 bits, bias 0x80000000. Sunrise seeds -1.
    pub field2: i32,
    /// Field 3, the join identity; the seed uses the member key.
    pub join_identity: u64,
    /// The account SOID (also repeated as identity field 3 and in the blob).
    pub account_soid: u64,
    /// Field 5, the character SOID (also repeated as identity field 5 and in the blob).
    pub character_soid: u64,
    /// Field 6.
    pub field6: u64,
    /// The leave reason, 5 bits, bias 1; 0 for a present member.
    pub leave_reason: i8,
}

impl Member {
    /// Sunrise's seed before message 23 arrives (facts 4.10): field 1 and field 2 are -1
    /// ("seeding zero cost the ship and the banner"), the join identity is the member key.
    pub fn seed(member_key: u64, account_soid: u64, character_soid: u64) -> Self {
        Self {
            member_key,
            field1: -1,
            field2: -1,
            join_identity: member_key,
            account_soid,
            character_soid,
            field6: 0,
            leave_reason: 0,
        }
    }
}

/// One of the 64 region records, bubble b (facts 4.10).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionRecord {
    /// The region index, 32 bits, bias 0x80000000; Sunrise writes bubble × 8.
    pub region_index: i32,
    /// The ambassador state as its 2-bit wire value; [`AMBASSADOR_ASSIGNED`] in Sunrise.
    pub ambassador_state: u8,
    /// The ambassador slot, 6 bits, bias 1; [`DEFAULT_AMBASSADOR_SLOT`] when not advertised.
    pub ambassador_slot: i8,
    /// One transition token per member lane.
    pub transition_tokens: [u8; MEMBER_LANES],
    /// A citizen join descriptor ([`CITIZEN_DESCRIPTOR_LEN`] bytes). An empty one is
    /// written as none.
    pub citizen_descriptor: Option<Vec<u8>>,
    /// The online session id; 0 in a record without a descriptor.
    pub online_session_id: u64,
}

impl RegionRecord {
    /// Sunrise's record for `bubble`: region index 8·b, assigned, slot 1, tokens 0.
    pub fn seed(bubble: usize) -> Self {
        Self {
            region_index: i32::try_from(bubble)
                .unwrap_or(i32::MAX)
                .saturating_mul(REGION_INDEX_STRIDE),
            ambassador_state: AMBASSADOR_ASSIGNED,
            ambassador_slot: DEFAULT_AMBASSADOR_SLOT,
            transition_tokens: [0; MEMBER_LANES],
            citizen_descriptor: None,
            online_session_id: 0,
        }
    }
}

/// The host-present tail after the region records (facts 4.10 @29699, 200 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostTail {
    /// The spawn opaque byte.
    pub spawn_opaque_byte: u8,
    /// The spawn state, 3 bits, bias 1; a negative state goes out as 0.
    pub spawn_state: i8,
    /// The spawn opaque value.
    pub spawn_opaque_value: u64,
    /// The teleport state, 3 bits, bias 1; a negative state goes out as 0.
    pub teleport_state: i8,
    /// The teleport token.
    pub teleport_token: u8,
    /// The teleport slice set, 10 bits, bias 1; -1 is none.
    pub teleport_slice_set: i16,
    /// The teleport slice-set hash.
    pub teleport_slice_hash: u32,
    /// The host key, 8 bytes low byte first; Sunrise writes the local member key.
    pub host_key: u64,
}

impl HostTail {
    /// Sunrise's defaults (states 0, no slice set) with `host_key`.
    pub fn seed(host_key: u64) -> Self {
        Self {
            spawn_opaque_byte: 0,
            spawn_state: 0,
            spawn_opaque_value: 0,
            teleport_state: 0,
            teleport_token: 0,
            teleport_slice_set: -1,
            teleport_slice_hash: 0,
            host_key,
        }
    }
}

/// Bit offsets of a message 12's parts ([`ReplicateMembership::decode_with_offsets`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MembershipOffsets {
    /// Each member lane's first bit.
    pub lanes: [usize; MEMBER_LANES],
    /// Each region record's first bit, bubble 0 first.
    pub regions: [usize; REGION_COUNT],
    /// The host tail's first bit.
    pub host: usize,
    /// The first trailing mask's presence bit.
    pub masks: usize,
}

/// The offsets before a read fills them in.
const UNREAD: MembershipOffsets = MembershipOffsets {
    lanes: [0; MEMBER_LANES],
    regions: [0; REGION_COUNT],
    host: 0,
    masks: 0,
};

/// Message 12 as facts 4.10 lays it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicateMembership {
    /// The revision: 1 for the first identity snapshot, +1 per change. The client applies
    /// one update per revision.
    pub revision: u32,
    /// The epoch; Sunrise keeps it 0, and changing it clears the client's peer table.
    pub epoch: u32,
    /// The 32 member lanes; `None` is an absent lane (3 zero bits).
    pub members: [Option<Member>; MEMBER_LANES],
    /// The 64 region records, bubble 0 first.
    pub regions: [RegionRecord; REGION_COUNT],
    /// The host-present tail.
    pub host: HostTail,
    /// The first trailing 32-bit mask; Sunrise writes [`LOCAL_MEMBER_MASK`].
    pub member_mask: u32,
    /// The second trailing 32-bit mask; Sunrise writes [`LOCAL_MEMBER_MASK`] too.
    pub second_mask: u32,
}

impl ReplicateMembership {
    /// Sunrise's body (facts 4.10): `member` in lane 0, the other lanes absent, epoch 0, 64
    /// region records of index 8·b assigned to slot 1, the host key = the member key, both
    /// masks 1.
    pub fn for_local_member(member: Member, revision: u32) -> Self {
        let mut members = [None; MEMBER_LANES];
        members[0] = Some(member);
        Self::for_members(members, revision, member.member_key)
    }

    /// An activity's table (facts 4.10 laid out for many members): `members` in their
    /// lanes, epoch 0, the 64 seeded region records, the host key of `host_key` (the
    /// activity owner's member key; Sunrise's one-member table writes the local member's),
    /// and both trailing masks holding one bit per present lane (Sunrise's `1` is lane 0).
    pub fn for_members(
        members: [Option<Member>; MEMBER_LANES],
        revision: u32,
        host_key: u64,
    ) -> Self {
        let mask = members
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_some())
            .fold(0u32, |mask, (lane, _)| mask | 1 << lane);
        Self {
            revision,
            epoch: 0,
            members,
            regions: std::array::from_fn(RegionRecord::seed),
            host: HostTail::seed(host_key),
            member_mask: mask,
            second_mask: mask,
        }
    }

    /// Reads a body and where each of its parts starts, in bits from the body's start,
    /// as the reader found them (facts 4.10).
    pub fn decode_with_offsets(body: &[u8]) -> Result<(Self, MembershipOffsets), BitError> {
        let mut at = UNREAD;
        let m = Self::read_recording(&mut BitReader::new(body), &mut at)?;
        Ok((m, at))
    }

    /// Reads message 12, noting each part's first bit in `at`; fails only when the body
    /// ends before the layout does (BODY-04).
    fn read_recording(r: &mut BitReader<'_>, at: &mut MembershipOffsets) -> Result<Self, BitError> {
        r.skip(ROOT_BITS as usize)?;
        let revision = r.read(REVISION_BITS)? as u32;
        let epoch = r.read(EPOCH_BITS)? as u32;
        let mut members = [None; MEMBER_LANES];
        for (lane, start) in members.iter_mut().zip(&mut at.lanes) {
            *start = r.position();
            if r.read_bool()? {
                *lane = Some(read_member(r)?);
            } else {
                r.skip(ABSENT_MEMBER_BITS - 1)?;
            }
        }
        r.skip(1)?; // region block present
        let mut regions = std::array::from_fn(RegionRecord::seed);
        for (region, start) in regions.iter_mut().zip(&mut at.regions) {
            *start = r.position();
            *region = read_region(r)?;
        }
        at.host = r.position();
        let host = read_host(r)?;
        at.masks = r.position();
        r.skip(1)?;
        let member_mask = r.read(MASK_BITS)? as u32;
        r.skip(1)?;
        let second_mask = r.read(MASK_BITS)? as u32;
        r.skip(TRAILING_ABSENT_BITS)?;
        Ok(Self {
            revision,
            epoch,
            members,
            regions,
            host,
            member_mask,
            second_mask,
        })
    }

    /// The member keys of the present lanes, in lane order.
    pub fn member_keys(&self) -> Vec<u64> {
        self.members
            .iter()
            .flatten()
            .map(|m| m.member_key)
            .collect()
    }

    /// True when a present lane carries `member_key` (MEMBER-02).
    pub fn has_member(&self, member_key: u64) -> bool {
        self.members
            .iter()
            .flatten()
            .any(|m| m.member_key == member_key)
    }
}

/// The body as facts 4.10 lays it out: [`MEMBERSHIP_BITS`] for the seed.
impl Body for ReplicateMembership {
    type Decoded = Self;

    /// The one-member body, and a record's worth for each region with a descriptor.
    fn capacity_bits(&self) -> usize {
        let present = self.members.iter().flatten().count();
        let citizens = self
            .regions
            .iter()
            .filter(|r| r.citizen_descriptor.is_some())
            .count();
        MEMBERSHIP_BITS
            + present.saturating_sub(1) * (PRESENT_MEMBER_BITS - ABSENT_MEMBER_BITS)
            + citizens * CITIZEN_EXTRA_BITS
    }

    fn write(&self, w: &mut BitWriter) {
        w.write(1, ROOT_BITS);
        w.write(u64::from(self.revision), REVISION_BITS);
        w.write(u64::from(self.epoch), EPOCH_BITS);
        for lane in &self.members {
            match lane {
                Some(m) => write_member(w, m),
                None => w.write_zeros(ABSENT_MEMBER_BITS),
            }
        }
        w.write_bool(true); // region block present
        for region in &self.regions {
            write_region(w, region);
        }
        write_host(w, &self.host);
        w.write_bool(true);
        w.write(u64::from(self.member_mask), MASK_BITS);
        w.write_bool(true);
        w.write(u64::from(self.second_mask), MASK_BITS);
        w.write_zeros(TRAILING_ABSENT_BITS);
    }

    /// Reads message 12; fails only when the body ends before the layout does (BODY-04).
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let mut at = UNREAD;
        Self::read_recording(r, &mut at)
    }
}

/// A key's 8 bytes low byte first, 8 bits each: one 64-bit field holding the byte-swapped
/// key.
fn write_key(w: &mut BitWriter, key: u64) {
    w.write(key.swap_bytes(), KEY_BYTES as u32 * KEY_BYTE_BITS);
}

fn read_key(r: &mut BitReader<'_>) -> Result<u64, BitError> {
    Ok(r.read(KEY_BYTES as u32 * KEY_BYTE_BITS)?.swap_bytes())
}

/// A present lane: the message 23 fields, two flags, the identity block, the leave reason.
fn write_member(w: &mut BitWriter, m: &Member) {
    w.write_bool(true);
    write_identity(w, m);
    for flag in MEMBER_FLAGS {
        w.write_bool(flag);
    }
    for field in 0..IDENTITY_FIELDS {
        match field {
            IDENTITY_ACCOUNT_FIELD => {
                w.write_bool(true);
                w.write(m.account_soid, ID_BITS);
            }
            IDENTITY_CHARACTER_FIELD => {
                w.write_bool(true);
                w.write(m.character_soid, ID_BITS);
            }
            IDENTITY_BLOB_FIELD => {
                w.write_bool(true);
                w.write(BLOB_LEN as u64, BLOB_COUNT_BITS);
                write_blob(w, m);
            }
            _ => w.write_bool(false),
        }
    }
    w.write_zeros(IDENTITY_TAIL_BITS);
    w.write_zeros(MEMBER_GAP_BITS);
    w.write_bool(true);
    w.write_biased(
        i64::from(m.leave_reason),
        LEAVE_REASON_BIAS,
        LEAVE_REASON_BITS,
    );
}

/// The 18-byte player blob: {3b=1, 1b=0, 10b=0, 1b=1, 64 account, 64 character, 1b=0}.
fn write_blob(w: &mut BitWriter, m: &Member) {
    w.write(BLOB_KIND, BLOB_KIND_BITS);
    w.write_zeros(BLOB_GAP_BITS);
    w.write_bool(true);
    w.write(m.account_soid, ID_BITS);
    w.write(m.character_soid, ID_BITS);
    w.write_zeros(1);
}

/// The identity fields a member lane opens with, the same as message 23's (facts 4.10,
/// 4.12): the key low byte first, fields 1 and 2 biased, then four 64-bit ids.
pub(crate) fn write_identity(w: &mut BitWriter, m: &Member) {
    write_key(w, m.member_key);
    w.write_biased(i64::from(m.field1), FIELD1_BIAS, FIELD1_BITS);
    w.write_i32(m.field2);
    for id in [m.join_identity, m.account_soid, m.character_soid, m.field6] {
        w.write(id, ID_BITS);
    }
}

/// Reads [`write_identity`]'s fields; the leave reason, which they do not carry, is 0.
pub(crate) fn read_identity(r: &mut BitReader<'_>) -> Result<Member, BitError> {
    let member_key = read_key(r)?;
    let field1 = r.read_biased(FIELD1_BIAS, FIELD1_BITS)? as i16;
    let field2 = r.read_i32()?;
    let mut ids = [0u64; 4];
    for id in &mut ids {
        *id = r.read(ID_BITS)?;
    }
    let [join_identity, account_soid, character_soid, field6] = ids;
    Ok(Member {
        member_key,
        field1,
        field2,
        join_identity,
        account_soid,
        character_soid,
        field6,
        leave_reason: 0,
    })
}

/// Reads a present lane after its presence bit.
fn read_member(r: &mut BitReader<'_>) -> Result<Member, BitError> {
    let identity = read_identity(r)?;
    r.skip(MEMBER_FLAGS.len())?;
    for field in 0..IDENTITY_FIELDS {
        if !r.read_bool()? {
            continue;
        }
        match field {
            IDENTITY_ACCOUNT_FIELD | IDENTITY_CHARACTER_FIELD => r.skip(ID_BITS as usize)?,
            IDENTITY_BLOB_FIELD => {
                let count = r.read(BLOB_COUNT_BITS)? as usize;
                r.skip(count * 8)?;
            }
            // No width is documented for the other fields; Sunrise never sets them.
            _ => {}
        }
    }
    r.skip(IDENTITY_TAIL_BITS + MEMBER_GAP_BITS + 1)?;
    let leave_reason = r.read_biased(LEAVE_REASON_BIAS, LEAVE_REASON_BITS)? as i8;
    Ok(Member {
        leave_reason,
        ..identity
    })
}

fn write_region(w: &mut BitWriter, g: &RegionRecord) {
    w.write_i32(g.region_index);
    w.write(REGION_FLAG, REGION_FLAG_BITS);
    w.write_zeros(REGION_GAP_BITS);
    w.write(u64::from(g.ambassador_state), AMBASSADOR_STATE_BITS);
    w.write_biased(
        i64::from(g.ambassador_slot),
        AMBASSADOR_SLOT_BIAS,
        AMBASSADOR_SLOT_BITS,
    );
    w.write_zeros(REGION_ZERO_BITS);
    // the tokens are 8 bits each, in lane order: the bytes as a stream, 64 bits a write
    w.write_stream(&g.transition_tokens, MEMBER_LANES * TOKEN_BITS as usize);
    let descriptor = g.citizen_descriptor.as_deref().unwrap_or_default();
    w.write(descriptor.len() as u64, DESCRIPTOR_COUNT_BITS);
    w.write_stream(descriptor, descriptor.len() * 8);
    w.write(g.online_session_id, ONLINE_SESSION_BITS);
}

fn read_region(r: &mut BitReader<'_>) -> Result<RegionRecord, BitError> {
    let region_index = r.read_i32()?;
    r.skip(REGION_FLAG_BITS as usize + REGION_GAP_BITS)?;
    let ambassador_state = r.read(AMBASSADOR_STATE_BITS)? as u8;
    let ambassador_slot = r.read_biased(AMBASSADOR_SLOT_BIAS, AMBASSADOR_SLOT_BITS)? as i8;
    r.skip(REGION_ZERO_BITS)?;
    let mut transition_tokens = [0u8; MEMBER_LANES];
    for eight in transition_tokens.chunks_exact_mut(8) {
        eight.copy_from_slice(&r.read(8 * TOKEN_BITS)?.to_be_bytes());
    }
    let count = r.read(DESCRIPTOR_COUNT_BITS)? as usize;
    let citizen_descriptor = if count == 0 {
        None
    } else {
        Some(r.read_stream(count * 8)?)
    };
    let online_session_id = r.read(ONLINE_SESSION_BITS)?;
    Ok(RegionRecord {
        region_index,
        ambassador_state,
        ambassador_slot,
        transition_tokens,
        citizen_descriptor,
        online_session_id,
    })
}

fn write_host(w: &mut BitWriter, h: &HostTail) {
    w.write(u64::from(h.spawn_opaque_byte), SPAWN_BYTE_BITS);
    w.write_biased(i64::from(h.spawn_state.max(0)), STATE_BIAS, STATE_BITS);
    w.write(h.spawn_opaque_value, SPAWN_VALUE_BITS);
    w.write_zeros(HOST_GAP_BITS);
    w.write_biased(i64::from(h.teleport_state.max(0)), STATE_BIAS, STATE_BITS);
    w.write(u64::from(h.teleport_token), TELEPORT_TOKEN_BITS);
    w.write_biased(
        i64::from(h.teleport_slice_set),
        SLICE_SET_BIAS,
        SLICE_SET_BITS,
    );
    w.write(u64::from(h.teleport_slice_hash), SLICE_HASH_BITS);
    w.write_bool(false);
    w.write_bool(true); // host key present
    write_key(w, h.host_key);
    w.write_bool(false);
    w.write_bool(false);
}

fn read_host(r: &mut BitReader<'_>) -> Result<HostTail, BitError> {
    let spawn_opaque_byte = r.read(SPAWN_BYTE_BITS)? as u8;
    let spawn_state = r.read_biased(STATE_BIAS, STATE_BITS)? as i8;
    let spawn_opaque_value = r.read(SPAWN_VALUE_BITS)?;
    r.skip(HOST_GAP_BITS)?;
    let teleport_state = r.read_biased(STATE_BIAS, STATE_BITS)? as i8;
    let teleport_token = r.read(TELEPORT_TOKEN_BITS)? as u8;
    let teleport_slice_set = r.read_biased(SLICE_SET_BIAS, SLICE_SET_BITS)? as i16;
    let teleport_slice_hash = r.read(SLICE_HASH_BITS)? as u32;
    r.skip(2)?;
    let host_key = read_key(r)?;
    r.skip(2)?;
    Ok(HostTail {
        spawn_opaque_byte,
        spawn_state,
        spawn_opaque_value,
        teleport_state,
        teleport_token,
        teleport_slice_set,
        teleport_slice_hash,
        host_key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: u64 = 0x1122_3344_5566_7788;

    fn seed() -> ReplicateMembership {
        ReplicateMembership::for_local_member(
            Member::seed(KEY, 0x9EAA_3001_0000_0001, 0x2305_8430_0000_0042),
            1,
        )
    }

    /// Facts 10.1: Sunrise's msg 12 starts with these 24 bytes. Read against facts 4.10:
    /// root 1 @0, revision 1 @1..32 (bit 32 is the top bit of byte 4), epoch 0 @33..64,
    /// member present @65, so the low-byte-first key starts at bit 66, two bits into byte
    /// 8: `62 1D D9 95 51 0C C8 84` are the key bytes 88 77 66 55 44 33 22 11 shifted
    /// right by two bits, not the key itself. Field 1 = -1 (wire 0) @130, field 2 = -1
    /// (0x7FFFFFFF) @140, and the join identity = the key, MSB first, from @172.
    #[test]
    fn facts_prefix_vector() {
        let body = seed().encode().unwrap();
        assert_eq!(
            hex::encode(&body[..24]),
            "800000008000000062 1dd99551 0cc88440 07ffffff f11223".replace(' ', "")
        );
    }

    #[test]
    fn seed_is_3746_bytes_with_facts_offsets() {
        let m = seed();
        assert_eq!(m.measure().unwrap(), MEMBERSHIP_BITS);
        let body = m.encode().unwrap();
        assert_eq!(body.len(), MEMBERSHIP_LEN);
        assert_eq!(MEMBERSHIP_BITS, MEMBERSHIP_LEN * 8);
        assert_ne!(body.len(), DOCUMENTED_LEN, "AH's 3,696 has no known layout");
        assert_eq!(
            REGION_BLOCK_BIT,
            MEMBER_START_BIT + PRESENT_MEMBER_BITS + (MEMBER_LANES - 1) * ABSENT_MEMBER_BITS
        );
        assert_eq!(
            HOST_TAIL_BIT,
            REGION_BLOCK_BIT + 1 + REGION_COUNT * REGION_RECORD_BITS
        );
        assert_eq!(MASKS_BIT, HOST_TAIL_BIT + HOST_TAIL_BITS);
        let (_, offsets) = ReplicateMembership::decode_with_offsets(&body).unwrap();
        assert_eq!(offsets.lanes[1], MEMBER_START_BIT + PRESENT_MEMBER_BITS);
        assert_eq!(offsets.regions[0], REGION_BLOCK_BIT + 1);
        assert_eq!(offsets.host, HOST_TAIL_BIT);
        assert_eq!(offsets.masks, MASKS_BIT);

        let mut r = BitReader::new(&body);
        r.skip(REGION_BLOCK_BIT).unwrap();
        assert!(r.read_bool().unwrap(), "region block present @834");
        for b in 0..REGION_COUNT as u64 {
            assert_eq!(r.read(32).unwrap(), 0x8000_0000 + 8 * b, "region index 8·b");
            assert_eq!(r.read(2).unwrap(), 1);
            assert_eq!(r.read(8).unwrap(), 0);
            assert_eq!(r.read(2).unwrap(), 2, "ambassador assigned");
            assert_eq!(r.read(6).unwrap(), 2, "ambassador slot 1");
            r.skip(REGION_RECORD_BITS - 50).unwrap();
        }
        assert_eq!(r.position(), HOST_TAIL_BIT);
        assert_eq!(r.read(8).unwrap(), 0);
        assert_eq!(r.read(3).unwrap(), 1, "spawn state 0");
        r.skip(64 + 4).unwrap();
        assert_eq!(r.read(3).unwrap(), 1, "teleport state 0");
        r.skip(8).unwrap();
        assert_eq!(r.read(10).unwrap(), 0, "no slice set");
        r.skip(32).unwrap();
        assert_eq!(r.read(2).unwrap(), 0b01);
        assert_eq!(r.read(64).unwrap(), u64::from_be_bytes(KEY.to_le_bytes()));
        assert_eq!(r.read(2).unwrap(), 0);
        assert_eq!(r.position(), MASKS_BIT);
        assert_eq!(r.read(33).unwrap(), (1 << 32) | 1);
        assert_eq!(r.read(33).unwrap(), (1 << 32) | 1);
        assert_eq!(r.read(3).unwrap(), 0);
        assert_eq!(r.remaining_bits(), 0);
    }

    #[test]
    fn round_trip_seed_and_rich_table() {
        let m = seed();
        assert_eq!(
            ReplicateMembership::decode(&m.encode().unwrap()).unwrap(),
            m
        );

        let mut m = seed();
        m.revision = 7;
        m.epoch = 3;
        m.members[5] = Some(Member {
            member_key: 0xA1A2_A3A4_A5A6_A7A8,
            field1: -1,
            field2: 12345,
            join_identity: 99,
            account_soid: 100,
            character_soid: 101,
            field6: 102,
            leave_reason: 4,
        });
        m.regions[3].citizen_descriptor = Some((0..=127).collect());
        m.regions[3].online_session_id = 0x9EAA_3001_0020_0001;
        m.regions[9].transition_tokens = std::array::from_fn(|i| i as u8 * 3);
        m.regions[9].ambassador_slot = 4;
        m.regions[9].region_index = -1;
        m.host = HostTail {
            spawn_opaque_byte: 0xAB,
            spawn_state: 3,
            spawn_opaque_value: 0xCAFE_F00D,
            teleport_state: 6,
            teleport_token: 9,
            teleport_slice_set: 1022,
            teleport_slice_hash: 0xDEAD_BEEF,
            host_key: 5,
        };
        m.member_mask = 0x21;
        m.second_mask = 0x20;
        let bits =
            MEMBERSHIP_BITS + (PRESENT_MEMBER_BITS - ABSENT_MEMBER_BITS) + CITIZEN_EXTRA_BITS;
        assert_eq!(m.measure().unwrap(), bits);
        let body = m.encode().unwrap();
        assert_eq!(body.len(), bits.div_ceil(8));
        assert_eq!(ReplicateMembership::decode(&body).unwrap(), m);

        // the offsets are where the reader found each part: lane 6 after a present lane
        // 5, region 4 after region 3's descriptor
        let (_, at) = ReplicateMembership::decode_with_offsets(&body).unwrap();
        assert_eq!(at.lanes[6] - at.lanes[5], PRESENT_MEMBER_BITS);
        assert_eq!(at.lanes[5] - at.lanes[4], ABSENT_MEMBER_BITS);
        assert_eq!(
            at.regions[4] - at.regions[3],
            CITIZEN_EXTRA_BITS + REGION_RECORD_BITS
        );
        assert_eq!(at.host, HOST_TAIL_BIT + bits - MEMBERSHIP_BITS);
        assert_eq!(at.masks, at.host + HOST_TAIL_BITS);
    }

    #[test]
    fn citizen_descriptor_adds_1024_bits() {
        let mut m = seed();
        m.regions[0].citizen_descriptor = Some(vec![0x5A; CITIZEN_DESCRIPTOR_LEN]);
        assert_eq!(m.measure().unwrap(), MEMBERSHIP_BITS + CITIZEN_EXTRA_BITS);
        assert_eq!(m.encode().unwrap().len(), MEMBERSHIP_LEN + 128);
    }

    #[test]
    fn short_body_fails_and_trailing_bytes_are_fine() {
        let body = seed().encode().unwrap();
        assert!(matches!(
            ReplicateMembership::decode(&body[..MEMBERSHIP_LEN - 1]),
            Err(BitError::PastEnd { .. })
        ));
        let mut longer = body.clone();
        longer.extend_from_slice(&[0xFF; 4]);
        assert_eq!(ReplicateMembership::decode(&longer).unwrap(), seed());
    }

    #[test]
    fn has_member() {
        let m = seed();
        assert!(m.has_member(KEY));
        assert!(!m.has_member(KEY + 1));
        let mut empty = m.clone();
        empty.members[0] = None;
        assert!(!empty.has_member(KEY), "MEMBER-02: no local player");
    }

    #[test]
    fn values_that_do_not_fit_are_refused_not_truncated() {
        let mut m = seed();
        m.host.teleport_slice_set = 1023;
        assert!(m.encode().is_err());
        let mut m = seed();
        m.regions[0].citizen_descriptor = Some(vec![0; 256]);
        assert!(m.encode().is_err());
        let mut m = seed();
        m.host.spawn_state = -1;
        let back = ReplicateMembership::decode(&m.encode().unwrap()).unwrap();
        assert_eq!(back.host.spawn_state, 0, "a negative state goes out as 0");
    }

    use proptest::prelude::*;

    prop_compose! {
        fn table()(
            lanes in proptest::collection::vec(proptest::option::of(any::<[u64; 5]>()), MEMBER_LANES),
            tokens in proptest::collection::vec(any::<[u8; MEMBER_LANES]>(), REGION_COUNT),
            citizen in proptest::option::of((0..REGION_COUNT, any::<u64>())),
            revision in any::<u32>(),
        ) -> ReplicateMembership {
            let mut m = seed();
            m.revision = revision;
            for (lane, ids) in m.members.iter_mut().zip(lanes) {
                *lane = ids.map(|[key, join, account, character, six]| Member {
                    join_identity: join,
                    field6: six,
                    ..Member::seed(key, account, character)
                });
            }
            for (region, t) in m.regions.iter_mut().zip(tokens) {
                region.transition_tokens = t;
            }
            if let Some((b, session)) = citizen {
                m.regions[b].citizen_descriptor = Some(vec![0xC3; CITIZEN_DESCRIPTOR_LEN]);
                m.regions[b].online_session_id = session;
            }
            m
        }
    }

    proptest! {
        /// Generated tables round trip, and the fields the encoder writes 64 bits at a time
        /// are where facts 4.10 puts them one field at a time: each key byte, low byte
        /// first, 8 bits each, and each region's 32 transition tokens of 8 bits.
        #[test]
        fn generated_tables_keep_the_facts_field_layout(m in table()) {
            let body = m.encode().unwrap();
            let (back, at) = ReplicateMembership::decode_with_offsets(&body).unwrap();
            prop_assert_eq!(&back, &m);
            let field = |bit: usize, width: u32| {
                let mut r = BitReader::new(&body);
                r.skip(bit).and_then(|()| r.read(width)).unwrap()
            };
            for (lane, member) in m.members.iter().enumerate() {
                let Some(member) = member else { continue };
                for (i, byte) in member.member_key.to_le_bytes().iter().enumerate() {
                    prop_assert_eq!(field(at.lanes[lane] + 1 + 8 * i, 8), u64::from(*byte));
                }
            }
            let tokens_at = REGION_INDEX_BITS as usize
                + REGION_FLAG_BITS as usize
                + REGION_GAP_BITS
                + AMBASSADOR_STATE_BITS as usize
                + AMBASSADOR_SLOT_BITS as usize
                + REGION_ZERO_BITS;
            for (region, start) in m.regions.iter().zip(at.regions) {
                for (i, token) in region.transition_tokens.iter().enumerate() {
                    prop_assert_eq!(field(start + tokens_at + 8 * i, 8), u64::from(*token));
                }
            }
            let host_key = at.host + HOST_TAIL_BITS - 2 - 64;
            for (i, byte) in m.host.host_key.to_le_bytes().iter().enumerate() {
                prop_assert_eq!(field(host_key + 8 * i, 8), u64::from(*byte));
            }
        }
    }
}
