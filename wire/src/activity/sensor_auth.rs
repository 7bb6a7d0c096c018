//! Message 5, sensor_auth_update: the roster and every slot's Auth state.
//!
//! AH "Message 5: Auth, and the client roster", "The bubble-authority block", "How the
//! client applies an Auth body"; the exact roster-delta layout is facts 4.7.
//!
//! Encoding takes typed blocks and computes each block's 32-bit remainder. Decoding needs
//! no slot knowledge: each object block is delimited by its remainder and returned raw, so
//! a reader that knows the slot's schemas can split it with [`DecodedObject::parse`].

use super::body::Body;
use super::slot::{CLIENT_REF_BITS, ClientRef, EMPTY_KEY, SlotSchemas};
use crate::bits::{BitError, BitReader, BitWriter, Bits};
use std::ops::Range;

/// Bubbles in the authority block: 0 to 64.
pub const AUTHORITY_BUBBLES: usize = 65;
/// The per-tick simulation budget a message-5 body must fit (AUTH-10).
pub const BODY_BUDGET: usize = 471_859;
/// Bits of the top-level key count and of the state-array count.
pub const TOP_COUNT_BITS: u32 = 9;
/// Words in the top-level presence mask.
pub const TOP_MASK_WORDS: usize = 8;
/// Top-level keys the presence mask can cover: the encoder clamps to it (BODY-05).
pub const MAX_TOP_KEYS: usize = TOP_MASK_WORDS * 32;
/// Sub-blocks in one body (facts 4.7).
pub const MAX_SUB_BLOCKS: usize = 64;
/// Keys in one sub-block (facts 4.7).
pub const MAX_SUB_KEYS: usize = 96;
/// Bits of an object block before its content: presence, ClientRef, remainder.
pub const OBJECT_HEAD_BITS: usize = 1 + CLIENT_REF_BITS + 32;
/// Bits of the sub-block count.
pub const SUB_BLOCK_COUNT_BITS: u32 = 7;
/// Bits of a sub-block's key count.
pub const SUB_KEY_COUNT_BITS: u32 = 7;
/// Words in a sub-block's presence mask.
pub const SUB_MASK_WORDS: usize = 3;
/// Bias of a roster state byte: 0x80 + stateSequence.
pub const STATE_BYTE_BIAS: i64 = 128;

/// The bubble-authority block (AH "The bubble-authority block"): 65 authority bits, then
/// an element per bubble 0 to 64, three bits (host-token presence, grant presence,
/// revoke) with a u8[8] host token and a 16-bit grant token behind their presence bits.
/// Held by field rather than by element: the bits as masks, bubble `b` at bit `b`, and
/// the tokens an element carries in bubble order, so the client's questions (which
/// bubbles grant, does any carry a host token) ask a word or a short list, not 65
/// elements.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BubbleAuthority {
    /// Authority bit per bubble 0 to 64 (see [`BubbleAuthority::has_authority`]).
    pub authority: u128,
    /// The i32 header (bias -2^31), when its presence bit is set; a host sends none
    /// (AUTH-18).
    pub header: Option<u32>,
    /// The grant tokens the elements carry, `(bubble, token)` in bubble order (AUTH-11).
    grants: Vec<(usize, u16)>,
    /// The host tokens the elements carry, `(bubble, token)` in bubble order; a host
    /// sends none (AUTH-19).
    host_tokens: Vec<(usize, u64)>,
    /// Revoke bit per bubble 0 to 64, bubble `b` at bit `b`.
    revokes: u128,
}

impl BubbleAuthority {
    /// The block that grants `bubble` with `token`: its authority bit set and its token
    /// in the same message, every other bubble untouched (AUTH-11).
    pub fn granting(bubble: usize, token: u16) -> Self {
        let mut block = Self::default();
        block.set_grant(bubble, Some(token));
        block.set_authority(bubble, true);
        block
    }

    /// Whether `bubble`'s authority bit is set; none past bubble 64.
    pub fn has_authority(&self, bubble: usize) -> bool {
        has_bit(self.authority, bubble)
    }

    /// Sets or clears `bubble`'s authority bit; a bubble past 64 is left alone.
    pub fn set_authority(&mut self, bubble: usize, on: bool) {
        self.authority = with_bit(self.authority, bubble, on);
    }

    /// The grant tokens the elements carry, `(bubble, token)` in bubble order.
    pub fn grants(&self) -> &[(usize, u16)] {
        &self.grants
    }

    /// `bubble`'s grant token, when its element carries one.
    pub fn grant(&self, bubble: usize) -> Option<u16> {
        token_of(&self.grants, bubble)
    }

    /// Gives `bubble`'s element the grant `token`, or none; a bubble past 64 is left
    /// alone.
    pub fn set_grant(&mut self, bubble: usize, token: Option<u16>) {
        set_token(&mut self.grants, bubble, token);
    }

    /// The host tokens the elements carry, `(bubble, token)` in bubble order.
    pub fn host_tokens(&self) -> &[(usize, u64)] {
        &self.host_tokens
    }

    /// `bubble`'s host token, when its element carries one.
    pub fn host_token(&self, bubble: usize) -> Option<u64> {
        token_of(&self.host_tokens, bubble)
    }

    /// Gives `bubble`'s element the host `token`, or none; a bubble past 64 is left
    /// alone.
    pub fn set_host_token(&mut self, bubble: usize, token: Option<u64>) {
        set_token(&mut self.host_tokens, bubble, token);
    }

    /// Whether `bubble`'s element has its revoke bit set; none past bubble 64.
    pub fn revokes(&self, bubble: usize) -> bool {
        has_bit(self.revokes, bubble)
    }

    /// Sets or clears `bubble`'s revoke bit; a bubble past 64 is left alone.
    pub fn set_revoke(&mut self, bubble: usize, on: bool) {
        self.revokes = with_bit(self.revokes, bubble, on);
    }

    /// The grant token after `mirror`: the next one, 1 after 0xFFFF (AUTH-11).
    pub fn next_token(mirror: u16) -> u16 {
        mirror.checked_add(1).unwrap_or(1)
    }
}

/// Whether `mask` has `bubble`'s bit set; none past bubble 64.
fn has_bit(mask: u128, bubble: usize) -> bool {
    bubble < AUTHORITY_BUBBLES && mask >> bubble & 1 == 1
}

/// `mask` with `bubble`'s bit set to `on`; unchanged past bubble 64.
fn with_bit(mask: u128, bubble: usize, on: bool) -> u128 {
    if bubble < AUTHORITY_BUBBLES {
        mask & !(1 << bubble) | u128::from(on) << bubble
    } else {
        mask
    }
}

/// The token `tokens` holds for `bubble`.
fn token_of<T: Copy>(tokens: &[(usize, T)], bubble: usize) -> Option<T> {
    tokens.iter().find(|(b, _)| *b == bubble).map(|(_, t)| *t)
}

/// `tokens`, kept in bubble order, with `bubble`'s token set to `token` or removed.
fn set_token<T>(tokens: &mut Vec<(usize, T)>, bubble: usize, token: Option<T>) {
    if bubble >= AUTHORITY_BUBBLES {
        return;
    }
    match (tokens.binary_search_by_key(&bubble, |(b, _)| *b), token) {
        (Ok(i), Some(t)) => {
            if let Some(held) = tokens.get_mut(i) {
                held.1 = t;
            }
        }
        (Ok(i), None) => {
            tokens.remove(i);
        }
        (Err(i), Some(t)) => tokens.insert(i, (bubble, t)),
        (Err(_), None) => {}
    }
}

/// A per-bubble roster sub-block (facts 4.7, field 1 of the delta).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SubBlock {
    /// The bubble index (i32, bias 2^31); only the current bubble's applies.
    pub bubble: i32,
    /// Group registry keys, at most 96 (7-bit count, clamped).
    pub keys: Vec<u32>,
    /// Presence mask words: key k is bit k % 32 from the LSB of word k / 32.
    pub mask: [u32; SUB_MASK_WORDS],
    /// State byte per key (logical stateSequence, bias 128).
    pub states: Vec<i8>,
}

/// The roster delta of facts 4.7.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RosterDelta {
    /// Top-level group registry keys (9-bit count).
    pub keys: Vec<u32>,
    /// Presence mask: key k is bit k % 32 from the LSB of word k / 32; clear drops it.
    pub mask: [u32; TOP_MASK_WORDS],
    /// State byte per key (logical, bias 128); a change rebuilds the key's objects.
    pub states: Vec<i8>,
    /// Per-bubble sub-blocks, when field 1 is present.
    pub sub_blocks: Option<Vec<SubBlock>>,
}

impl RosterDelta {
    /// The mask that keeps the first `n` keys present.
    pub fn mask_for<const W: usize>(n: usize) -> [u32; W] {
        let mut mask = [0u32; W];
        for (i, word) in mask.iter_mut().enumerate() {
            // keys 32 * i onwards, key k at bit k % 32
            for bit in 0..n.saturating_sub(32 * i).min(32) {
                *word |= 1 << bit;
            }
        }
        mask
    }
}

/// The Auth part of an object block, present when the slot has an Auth schema (AUTH-06).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthPart {
    /// 1 installs the schema defaults first; 1 on a first send.
    pub reset: bool,
    /// The body, when the root bit is 1.
    pub body: Option<Bits>,
}

/// One object block to encode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectBlock {
    /// The slot.
    pub slot: ClientRef,
    /// Present exactly when the slot has an Auth schema.
    pub auth: Option<AuthPart>,
    /// `Some(None)`: the Sense-present bit is 0; `Some(Some(b))`: a Sense override
    /// follows; `None`: the slot has no Sense schema, so no bit.
    pub sense: Option<Option<Bits>>,
}

impl ObjectBlock {
    /// The length of [`ObjectBlock::content`]: the block's remainder (AUTH-05).
    pub fn content_bits(&self) -> usize {
        let flags = |present: bool| usize::from(present);
        let auth = self
            .auth
            .as_ref()
            .map_or(0, |a| 2 + a.body.as_ref().map_or(0, |b| b.bit_len));
        let sense = self
            .sense
            .as_ref()
            .map_or(0, |s| flags(true) + s.as_ref().map_or(0, |b| b.bit_len));
        auth + sense
    }

    /// Writes the bits after the remainder field.
    pub fn write_content(&self, w: &mut BitWriter) {
        if let Some(auth) = &self.auth {
            w.write_bool(auth.reset);
            w.write_bool(auth.body.is_some());
            if let Some(body) = &auth.body {
                w.write_bits(body);
            }
        }
        if let Some(sense) = &self.sense {
            w.write_bool(sense.is_some());
            if let Some(body) = sense {
                w.write_bits(body);
            }
        }
    }
}

/// An entity group to encode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityGroup {
    /// The group's registry key; 0x811C9DC5 makes the client skip the group (AUTH-07).
    pub key: u32,
    /// Read and discarded by the client.
    pub filler: u32,
    /// The object blocks.
    pub objects: Vec<ObjectBlock>,
}

/// Message 5 to encode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SensorAuthUpdate {
    /// Everything before the roster delta.
    pub prefix: AuthPrefix,
    /// The roster delta, when the delta root bit is 1.
    pub roster: Option<RosterDelta>,
    /// The entity groups with their object blocks.
    pub groups: Vec<EntityGroup>,
}

fn write_keys(w: &mut BitWriter, keys: &[u32]) {
    for k in keys {
        w.write(u64::from(*k), 32);
    }
}

fn write_states(w: &mut BitWriter, states: &[i8]) {
    for s in states {
        w.write_biased(i64::from(*s), STATE_BYTE_BIAS, 8);
    }
}

/// The body on the wire. Counts are clamped to their fields (BODY-05); a body over the
/// per-tick budget is refused (AUTH-10). It reads into its decoded form, each object block
/// kept raw.
impl Body for SensorAuthUpdate {
    type Decoded = DecodedAuthUpdate;

    /// The prefix with a full bubble block, the roster delta and every object block.
    fn capacity_bits(&self) -> usize {
        const PREFIX_AND_BLOCK: usize = 8 + 128 + 1 + 65 + 2 + 65 * 19 + 64 + 1;
        let delta = self.roster.as_ref().map_or(1, |d| {
            let subs = d.sub_blocks.as_ref().map_or(0, |s| {
                7 + s
                    .iter()
                    .map(|b| 147 + 32 * b.keys.len() + 8 * b.states.len())
                    .sum::<usize>()
            });
            12 + 32 * d.keys.len() + 8 * d.states.len() + 268 + subs
        });
        let objects: usize = self
            .groups
            .iter()
            .map(|g| {
                66 + g
                    .objects
                    .iter()
                    .map(|o| OBJECT_HEAD_BITS + o.content_bits())
                    .sum::<usize>()
            })
            .sum();
        PREFIX_AND_BLOCK + delta + objects + 2
    }

    fn write(&self, w: &mut BitWriter) {
        self.prefix.write(w);
        w.write_bool(self.roster.is_some());
        if let Some(d) = &self.roster {
            let keys = d.keys.get(..MAX_TOP_KEYS).unwrap_or(&d.keys);
            w.write_bool(true); // field 0 present
            w.write_bool(true); // key array present
            w.write(keys.len() as u64, TOP_COUNT_BITS);
            write_keys(w, keys);
            w.write_bool(true); // mask present
            for word in d.mask {
                w.write(u64::from(word), 32);
            }
            let states = d.states.get(..MAX_TOP_KEYS).unwrap_or(&d.states);
            w.write_bool(true); // state array present
            w.write(states.len() as u64, TOP_COUNT_BITS);
            write_states(w, states);
            w.write_bool(d.sub_blocks.is_some());
            if let Some(subs) = &d.sub_blocks {
                let subs = subs.get(..MAX_SUB_BLOCKS).unwrap_or(subs);
                w.write(subs.len() as u64, SUB_BLOCK_COUNT_BITS);
                for sb in subs {
                    w.write_bool(true);
                    w.write_i32(sb.bubble);
                    w.write_bool(true);
                    w.write_bool(true);
                    let keys = sb.keys.get(..MAX_SUB_KEYS).unwrap_or(&sb.keys);
                    w.write(keys.len() as u64, SUB_KEY_COUNT_BITS);
                    write_keys(w, keys);
                    w.write_bool(true);
                    for word in sb.mask {
                        w.write(u64::from(word), 32);
                    }
                    w.write_bool(true);
                    let states = sb.states.get(..MAX_SUB_KEYS).unwrap_or(&sb.states);
                    w.write(states.len() as u64, SUB_KEY_COUNT_BITS);
                    write_states(w, states);
                }
            }
        }
        for g in &self.groups {
            w.write_bool(true);
            w.write(u64::from(g.key), 32);
            w.write(u64::from(g.filler), 32);
            for o in &g.objects {
                w.write_bool(true);
                o.slot.write(w);
                w.write(o.content_bits() as u64, 32);
                o.write_content(w);
            }
            w.write_bool(false);
        }
        w.write_bool(false); // end of groups
        w.write_bool(false); // singleton gate
        if w.bit_len().div_ceil(8) > BODY_BUDGET {
            w.fail(BitError::Unsafe {
                what: "message 5 length in bytes",
                value: w.bit_len().div_ceil(8) as i64,
            });
        }
    }

    fn read(r: &mut BitReader<'_>) -> Result<DecodedAuthUpdate, BitError> {
        DecodedAuthUpdate::read_with(r, |_, _| None)
    }
}

/// One object block as read: delimited by its remainder, content kept raw.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DecodedObject {
    /// Bit offset of the block's presence bit in the body.
    pub at: usize,
    /// The slot.
    pub slot: ClientRef,
    /// The remainder as sent.
    pub remainder: u32,
    /// The block's bits after the remainder field: as long as the reader measured it
    /// (see [`DecodedAuthUpdate::decode_with`]), else `remainder` bits.
    pub content: Bits,
}

/// The parts of an object block, read with the slot's schemas (AUTH-06).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockParts {
    /// The reset bit, when the slot has an Auth schema.
    pub reset: Option<bool>,
    /// The root bit, when the slot has an Auth schema.
    pub root: Option<bool>,
    /// Bit offset, inside the content, where the Auth body starts.
    pub body_at: usize,
}

impl DecodedObject {
    /// Reads the reset and root bits the slot's schemas say are there.
    pub fn parse(&self, schemas: SlotSchemas) -> Result<BlockParts, BitError> {
        let mut r = self.content.reader();
        let (reset, root) = if schemas.auth {
            (Some(r.read_bool()?), Some(r.read_bool()?))
        } else {
            (None, None)
        };
        Ok(BlockParts {
            reset,
            root,
            body_at: r.position(),
        })
    }
}

/// An entity group as read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DecodedGroup {
    /// The registry key.
    pub key: u32,
    /// The filler word.
    pub filler: u32,
    /// The object blocks.
    pub objects: Vec<DecodedObject>,
}

/// The fixed prefix of message 5: everything before the roster delta (AH "Message 5").
/// The client reads it whole before it judges the epoch (AUTH-01) and the enable bit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AuthPrefix {
    /// Checked only when SignOn named use_hardwipe_tokens (AUTH-03).
    pub hardwipe_token: u8,
    /// Echo of the client's latest message 52 (AUTH-01).
    pub patch_epoch: [u64; 2],
    /// The bubble-authority block.
    pub bubble_block: Option<BubbleAuthority>,
    /// Stored, not validated.
    pub token: u64,
    /// Must be 1 (AUTH-04).
    pub roster_enable: bool,
}

impl AuthPrefix {
    /// The prefix a host sends: `epoch`, the client's latest message 52, echoed (AUTH-01),
    /// no hardwipe token, no bubble-authority block, roster enable set (AUTH-04).
    pub fn echoing(epoch: [u64; 2]) -> Self {
        Self {
            hardwipe_token: 0,
            patch_epoch: epoch,
            bubble_block: None,
            token: 0,
            roster_enable: true,
        }
    }
}

/// Message 5 as read, without slot knowledge. A reader that keeps one and reads each
/// message into it ([`DecodedAuthUpdate::read_prefix`], [`DecodedAuthUpdate::read_rest`])
/// reuses its vectors: a message of the last one's shape allocates nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DecodedAuthUpdate {
    /// The prefix.
    pub prefix: AuthPrefix,
    /// The roster delta.
    pub roster: Option<RosterDelta>,
    /// The groups.
    pub groups: Vec<DecodedGroup>,
    /// The singleton gate bit: 0 ends the message, 1 leads into a section the pages do
    /// not describe (AUTH-17).
    pub singleton_gate: bool,
    /// Where the singleton gate bit sits.
    pub gate_at: usize,
    /// Where the roster delta sits, its presence bit first.
    pub roster_at: Range<usize>,
}

/// A block's length as the reader of message 5 measured it
/// ([`DecodedAuthUpdate::decode_with`]).
#[derive(Debug, Clone, Copy)]
pub enum MeasuredBlock<'k> {
    /// This many bits.
    Bits(usize),
    /// Exactly these bits, which the reader holds and found at the block: copied, not
    /// read again.
    Known(&'k Bits),
}

/// A roster delta a reader holds, with the message it was read from, from its first bit
/// through the delta's last: a message that starts with those same bits has the same
/// prefix and the same delta, and is given a copy, not read again (a read depends on its
/// bits alone). Compared from the first bit, the bits are compared as bytes.
#[derive(Debug, Clone, Copy)]
pub struct KnownRoster<'a> {
    /// The delta.
    pub delta: &'a RosterDelta,
    /// The message it was read from, through the delta.
    pub head: &'a Bits,
}

fn read_keys(r: &mut BitReader<'_>, n: u64, keys: &mut Vec<u32>) -> Result<(), BitError> {
    keys.clear();
    for _ in 0..n {
        keys.push(r.read(32)? as u32);
    }
    Ok(())
}

fn read_states(r: &mut BitReader<'_>, n: u64, states: &mut Vec<i8>) -> Result<(), BitError> {
    states.clear();
    for _ in 0..n {
        states.push(r.read_biased(STATE_BYTE_BIAS, 8)? as i8);
    }
    Ok(())
}

/// The element of `items` at `i`, made when the vector is shorter: where a reader that
/// reuses its vectors reads the `i`th item, its buffers kept from the last read.
fn reused<T: Default>(items: &mut Vec<T>, i: usize) -> &mut T {
    if items.len() <= i {
        items.resize_with(i + 1, T::default);
    }
    items
        .get_mut(i)
        .unwrap_or_else(|| unreachable!("resized above"))
}

fn read_mask<const W: usize>(r: &mut BitReader<'_>) -> Result<[u32; W], BitError> {
    let mut m = [0u32; W];
    for word in &mut m {
        *word = r.read(32)? as u32;
    }
    Ok(m)
}

/// A structural bit that must be 1 in the layout Vex reads (facts 4.7); the client's own
/// reader treats a 0 as an absent field, which Vex does not model.
#[inline]
fn expect_one(r: &mut BitReader<'_>, what: &'static str) -> Result<(), BitError> {
    let at = r.position();
    if r.read_bool()? {
        Ok(())
    } else {
        Err(BitError::UnknownShape { at, what })
    }
}

impl BubbleAuthority {
    /// The 65 bubble elements, bubble 0 first: a host-token presence bit and the token, a
    /// grant presence bit and the 16-bit token, the revoke bit (AH "The bubble-authority
    /// block"). An element with neither a host token nor a grant is plain, three bits ("an
    /// element that grants nothing costs 3 bits"): the runs of them between the others go
    /// out 21 to a write.
    fn write_elements(&self, w: &mut BitWriter) {
        let listed = self.host_tokens.iter().map(|(at, _)| at);
        let listed = listed.chain(self.grants.iter().map(|(at, _)| at));
        let listed = listed.fold(0u128, |mask, at| with_bit(mask, *at, true));
        let mut grants = self.grants.iter().peekable();
        let mut host_tokens = self.host_tokens.iter().peekable();
        let mut from = 0;
        while from < AUTHORITY_BUBBLES {
            let ahead = (listed >> from).trailing_zeros() as usize;
            let next = (from + ahead).min(AUTHORITY_BUBBLES);
            write_plain(w, from..next, self.revokes);
            if next == AUTHORITY_BUBBLES {
                break;
            }
            match host_tokens.next_if(|(at, _)| *at == next) {
                Some((_, t)) => {
                    w.write_bool(true);
                    w.write(*t, 64);
                }
                None => w.write_bool(false),
            }
            // grant-present, [16-bit token], revoke: one write
            let revoke = u64::from(self.revokes(next));
            match grants.next_if(|(at, _)| *at == next) {
                Some((_, t)) => w.write((1 << 17) | (u64::from(*t) << 1) | revoke, 18),
                None => w.write(revoke, 2),
            }
            from = next + 1;
        }
    }
}

/// Bits of a plain bubble's element: no host token, no grant, the revoke bit.
const PLAIN_BITS: usize = 3;
/// Plain elements in one write (63 bits).
const PLAIN_A_WRITE: usize = 64 / PLAIN_BITS;

/// The plain elements of `bubbles`, each `0 0 revoke`, `revokes` holding bubble `b`'s
/// revoke at bit `b`.
fn write_plain(w: &mut BitWriter, bubbles: Range<usize>, revokes: u128) {
    let mut at = bubbles.start;
    while at < bubbles.end {
        let n = (bubbles.end - at).min(PLAIN_A_WRITE);
        // the run's revoke bits, bubble `at` at bit 0; each moves to its element's last bit
        let mut set = (revokes >> at) as u64 & ((1 << n) - 1);
        let mut bits = 0u64;
        while set != 0 {
            let k = set.trailing_zeros() as usize;
            bits |= 1 << (PLAIN_BITS * (n - 1 - k));
            set &= set - 1;
        }
        w.write(bits, (PLAIN_BITS * n) as u32);
        at += n;
    }
}

/// The fixed prefix, read whole before the epoch is judged (AH "Message 5").
impl Body for AuthPrefix {
    type Decoded = Self;

    fn write(&self, w: &mut BitWriter) {
        w.write(u64::from(self.hardwipe_token), 8);
        w.write(self.patch_epoch[0], 64);
        w.write(self.patch_epoch[1], 64);
        w.write_bool(self.bubble_block.is_some());
        if let Some(b) = &self.bubble_block {
            // bubbles 0 to 63 in one write, bubble 0 first, then bubble 64
            w.write((b.authority as u64).reverse_bits(), 64);
            w.write_bool(b.has_authority(AUTHORITY_BUBBLES - 1));
            w.write_bool(true); // root present
            w.write_bool(b.header.is_some());
            if let Some(h) = b.header {
                w.write(u64::from(h), 32);
            }
            b.write_elements(w);
        }
        w.write(self.token, 64);
        w.write_bool(self.roster_enable);
    }

    /// Reads the prefix at the start of a message-5 body.
    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let mut prefix = Self::default();
        prefix.read_into(r)?;
        Ok(prefix)
    }
}

impl AuthPrefix {
    /// Reads the prefix at the reader's cursor into this one, its bubble block's buffer
    /// reused. On an error it holds part of the prefix.
    pub fn read_into(&mut self, r: &mut BitReader<'_>) -> Result<(), BitError> {
        self.hardwipe_token = r.read(8)? as u8;
        self.patch_epoch = [r.read(64)?, r.read(64)?];
        if r.read_bool()? {
            let block = self
                .bubble_block
                .get_or_insert_with(BubbleAuthority::default);
            block.read_into(r)?;
        } else {
            self.bubble_block = None;
        }
        self.token = r.read(64)?;
        self.roster_enable = r.read_bool()?;
        Ok(())
    }
}

impl BubbleAuthority {
    /// Reads the block after its presence bit into this one.
    fn read_into(&mut self, r: &mut BitReader<'_>) -> Result<(), BitError> {
        // bubbles 0 to 63 in one read, bubble 0 first, then bubble 64
        let first = r.read(64)?.reverse_bits();
        let last = r.read_bool()?;
        self.authority = u128::from(first) | u128::from(last) << 64;
        expect_one(r, "an absent bubble-block root")?;
        self.header = if r.read_bool()? {
            Some(r.read(32)? as u32) // no reader known
        } else {
            None
        };
        self.grants.clear();
        self.host_tokens.clear();
        self.revokes = 0;
        let mut next = 0;
        while next < AUTHORITY_BUBBLES {
            // most elements carry no host token and no grant, three bits each: as many as
            // one read holds are taken from it while they do
            let plain = self.plain_elements(r, next)?;
            next += plain;
            if plain == 0 {
                self.read_element(r, next)?;
                next += 1;
            }
        }
        Ok(())
    }

    /// Reads, as bubbles `first` on, the elements at `r` that carry no host token and no
    /// grant (bits `0 0 revoke`), up to the first that does and at most
    /// [`PLAIN_ELEMENTS_A_READ`]: how many it read.
    fn plain_elements(&mut self, r: &mut BitReader<'_>, first: usize) -> Result<usize, BitError> {
        let n = (AUTHORITY_BUBBLES - first)
            .min(PLAIN_ELEMENTS_A_READ)
            .min(r.remaining_bits() / 3);
        if n == 0 {
            return Ok(0);
        }
        let width = 3 * n as u32;
        let window = r.clone().read(width)?;
        // the token and grant presence bits of each element, the first element highest
        let flags = window & FLAG_BITS;
        let read = (flags.leading_zeros() - (64 - width)) as usize / 3;
        // the revoke bits of the elements read, the first element's highest
        let mut revokes = (window >> (3 * (n - read))) & REVOKE_BITS;
        while revokes != 0 {
            let from_last = revokes.trailing_zeros() as usize / 3;
            self.revokes |= 1 << (first + read - 1 - from_last);
            revokes &= revokes - 1;
        }
        r.skip(3 * read)?;
        Ok(read)
    }

    /// Reads one element at `r` as bubble `bubble`'s.
    fn read_element(&mut self, r: &mut BitReader<'_>, bubble: usize) -> Result<(), BitError> {
        if r.read_bool()? {
            let token = r.read(64)?; // compared with a simulation record
            self.host_tokens.push((bubble, token));
        }
        if r.read_bool()? {
            let token = r.read(16)? as u16;
            self.grants.push((bubble, token));
        }
        let revoke = r.read_bool()?;
        self.revokes |= u128::from(revoke) << bubble;
        Ok(())
    }
}

/// Elements one read holds, three bits each.
const PLAIN_ELEMENTS_A_READ: usize = 18;

/// The two presence bits (host token, grant) of each 3-bit element, in every triple from
/// the lowest bit up (the window holds whole elements from its lowest bit up).
const FLAG_BITS: u64 = 0x6DB6_DB6D_B6DB_6DB6;

/// The revoke bit of each 3-bit element: the lowest of every triple.
const REVOKE_BITS: u64 = 0x9249_2492_4924_9249;

impl DecodedAuthUpdate {
    /// Reads a message-5 body the way the client does: `block_bits` gets each block's
    /// slot and a reader at its content, and returns how many bits the client reads there
    /// by the slot's own schemas (or the bits there, when it holds them), or `None` when
    /// the client skips the block by its remainder (AH "How the client applies an Auth
    /// body"); the blocks of a group keyed 0x811C9DC5 are skipped by their remainders
    /// without asking (AUTH-07). A block whose measured length differs from its remainder
    /// is kept at the measured length (AUTH-05).
    pub fn decode_with<'k>(
        body: &[u8],
        block_bits: impl FnMut(&ClientRef, BitReader<'_>) -> Option<MeasuredBlock<'k>>,
    ) -> Result<Self, BitError> {
        Self::read_with(&mut BitReader::new(body), block_bits)
    }

    /// [`DecodedAuthUpdate::decode_with`] at a reader's cursor. Without `block_bits`
    /// ([`SensorAuthUpdate`]'s [`Body::read`]) every block is delimited by its remainder;
    /// it fails only at a read past the end or at an absent delta field whose shape is not
    /// documented.
    fn read_with<'k>(
        r: &mut BitReader<'_>,
        block_bits: impl FnMut(&ClientRef, BitReader<'_>) -> Option<MeasuredBlock<'k>>,
    ) -> Result<Self, BitError> {
        let mut m = Self::default();
        m.prefix.read_into(r)?;
        m.read_roster(r)?;
        m.read_groups(r, block_bits)?;
        Ok(m)
    }

    /// Reads the prefix of message-5 `body` into this message, and gives the bits it took:
    /// the client reads it first, to judge the epoch, then the rest
    /// ([`DecodedAuthUpdate::read_rest`]). On an error the prefix holds part of the body's.
    pub fn read_prefix(&mut self, body: &[u8]) -> Result<usize, BitError> {
        let mut r = BitReader::new(body);
        self.prefix.read_into(&mut r)?;
        Ok(r.position())
    }

    /// Reads what follows the prefix of `body`, which took its first `prefix_bits` bits,
    /// into this message, as [`DecodedAuthUpdate::decode_with`] reads it, reusing the
    /// vectors of the message read before; a body that starts with the `known` delta's
    /// head has that delta, copied. On an error the message holds part of the body.
    pub fn read_rest<'k>(
        &mut self,
        body: &[u8],
        prefix_bits: usize,
        known: Option<KnownRoster<'_>>,
        block_bits: impl FnMut(&ClientRef, BitReader<'_>) -> Option<MeasuredBlock<'k>>,
    ) -> Result<(), BitError> {
        let mut r = BitReader::new(body);
        r.skip(prefix_bits)?;
        match known {
            Some(k) if k.head.bit_len > prefix_bits && BitReader::new(body).starts_with(k.head) => {
                r.skip(k.head.bit_len - prefix_bits)?;
                let roster = self.roster.get_or_insert_with(RosterDelta::default);
                roster.copy_from(k.delta);
                self.roster_at = prefix_bits..r.position();
            }
            _ => self.read_roster(&mut r)?,
        }
        self.read_groups(&mut r, block_bits)
    }

    /// The roster delta, with its presence bit.
    fn read_roster(&mut self, r: &mut BitReader<'_>) -> Result<(), BitError> {
        let start = r.position();
        if r.read_bool()? {
            let roster = self.roster.get_or_insert_with(RosterDelta::default);
            roster.read_into(r)?;
        } else {
            self.roster = None;
        }
        self.roster_at = start..r.position();
        Ok(())
    }

    /// Everything after the roster delta: the object groups, the gate bit.
    fn read_groups<'k>(
        &mut self,
        r: &mut BitReader<'_>,
        mut block_bits: impl FnMut(&ClientRef, BitReader<'_>) -> Option<MeasuredBlock<'k>>,
    ) -> Result<(), BitError> {
        let mut groups = 0;
        while r.read_bool()? {
            let group = reused(&mut self.groups, groups);
            groups += 1;
            group.key = r.read(32)? as u32;
            group.filler = r.read(32)? as u32;
            let mut objects = 0;
            loop {
                let at = r.position();
                if !r.read_bool()? {
                    break;
                }
                let object = reused(&mut group.objects, objects);
                objects += 1;
                object.at = at;
                object.slot = ClientRef::read(r)?;
                object.remainder = r.read(32)? as u32;
                // a group keyed 0x811C9DC5 is skipped whole, each block by its remainder
                // (AUTH-07)
                let measured = match group.key {
                    EMPTY_KEY => None,
                    _ => block_bits(&object.slot, r.clone()),
                };
                match measured {
                    Some(MeasuredBlock::Known(bits)) => {
                        r.skip(bits.bit_len)?;
                        object.content.copy_from(bits);
                    }
                    Some(MeasuredBlock::Bits(len)) => object.content.read_from(r, len)?,
                    None => object.content.read_from(r, object.remainder as usize)?,
                }
            }
            group.objects.truncate(objects);
        }
        self.groups.truncate(groups);
        self.gate_at = r.position();
        self.singleton_gate = r.read_bool()?;
        Ok(())
    }
}

impl RosterDelta {
    /// Reads the roster delta after its presence bit into this one, its vectors reused.
    fn read_into(&mut self, r: &mut BitReader<'_>) -> Result<(), BitError> {
        expect_one(r, "an absent roster field 0")?;
        expect_one(r, "an absent roster key array")?;
        let k = r.read(TOP_COUNT_BITS)?;
        read_keys(r, k, &mut self.keys)?;
        expect_one(r, "an absent roster presence mask")?;
        self.mask = read_mask::<TOP_MASK_WORDS>(r)?;
        expect_one(r, "an absent roster state array")?;
        let n = r.read(TOP_COUNT_BITS)?;
        read_states(r, n, &mut self.states)?;
        if !r.read_bool()? {
            self.sub_blocks = None;
            return Ok(());
        }
        let subs = self.sub_blocks.get_or_insert_with(Vec::new);
        let s = r.read(SUB_BLOCK_COUNT_BITS)? as usize;
        subs.truncate(s);
        for i in 0..s {
            reused(subs, i).read_into(r)?;
        }
        Ok(())
    }

    /// This delta becomes a copy of `other`, its vectors reused.
    pub fn copy_from(&mut self, other: &RosterDelta) {
        self.keys.clone_from(&other.keys);
        self.mask = other.mask;
        self.states.clone_from(&other.states);
        let Some(theirs) = &other.sub_blocks else {
            self.sub_blocks = None;
            return;
        };
        let subs = self.sub_blocks.get_or_insert_with(Vec::new);
        subs.truncate(theirs.len());
        for (i, sub) in theirs.iter().enumerate() {
            reused(subs, i).copy_from(sub);
        }
    }
}

impl SubBlock {
    /// This sub-block becomes a copy of `other`, its vectors reused.
    fn copy_from(&mut self, other: &SubBlock) {
        self.bubble = other.bubble;
        self.keys.clone_from(&other.keys);
        self.mask = other.mask;
        self.states.clone_from(&other.states);
    }

    /// Reads one sub-block into this one, its vectors reused.
    fn read_into(&mut self, r: &mut BitReader<'_>) -> Result<(), BitError> {
        expect_one(r, "an absent sub-block")?;
        self.bubble = r.read_i32()?;
        expect_one(r, "an absent sub-block field")?;
        expect_one(r, "an absent sub-block key array")?;
        let n = r.read(SUB_KEY_COUNT_BITS)?;
        read_keys(r, n, &mut self.keys)?;
        expect_one(r, "an absent sub-block mask")?;
        self.mask = read_mask::<SUB_MASK_WORDS>(r)?;
        expect_one(r, "an absent sub-block state array")?;
        let n = r.read(SUB_KEY_COUNT_BITS)?;
        read_states(r, n, &mut self.states)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vectors::{SENSOR_AUTH_FULL_EXAMPLE, sensor_auth_full_example};

    /// Facts 10.1 "msg 5, full example": 273 bytes, 2,178 meaningful bits, with the bit
    /// walk's offsets and remainders (227, 522, 37).
    #[test]
    fn full_example_vector() {
        let m = sensor_auth_full_example();
        let bytes = m.encode().unwrap();
        assert_eq!(bytes.len(), 273);
        assert_eq!(m.measure(), Ok(2178));
        assert_eq!(hex::encode_upper(&bytes), SENSOR_AUTH_FULL_EXAMPLE);
        let d = SensorAuthUpdate::decode(&bytes).unwrap();
        let walk: Vec<(usize, u32)> = d
            .groups
            .iter()
            .flat_map(|g| g.objects.iter().map(|o| (o.at, o.remainder)))
            .collect();
        assert_eq!(walk, [(1059, 227), (1374, 522), (2050, 37)]);
        assert_eq!(d.prefix, m.prefix);
        assert!(d.prefix.roster_enable && !d.singleton_gate);
        assert_eq!(d.roster, m.roster);
    }

    /// Facts 10.1 "msg 5, phase-one-only": no grant, K = 1, 66 bytes.
    #[test]
    fn phase_one_only_vector() {
        let m = SensorAuthUpdate {
            prefix: AuthPrefix::echoing([0x0102_0304_0506_0708, 0x1112_1314_1516_1718]),
            roster: Some(RosterDelta {
                keys: vec![0xAAAA_0001],
                mask: RosterDelta::mask_for(1),
                states: vec![1],
                sub_blocks: None,
            }),
            groups: vec![],
        };
        let bytes = m.encode().unwrap();
        assert_eq!(
            hex::encode_upper(&bytes),
            "000102030405060708111213141516171800000000000000007806AAA80006000000020000000000000000000000000000000000000000000000000000000100C080"
        );
    }

    /// AUTH-10: a body over the per-tick budget is refused by the encoder.
    #[test]
    fn body_over_the_budget_is_refused() {
        let mut m = sensor_auth_full_example();
        let block = m.groups[0].objects[1].clone(); // the 522-bit type-17 block
        let blocks = BODY_BUDGET * 8 / (88 + 522) + 1;
        m.groups[0].objects = vec![block; blocks];
        assert!(matches!(m.encode(), Err(BitError::Unsafe { .. })));
        m.groups[0].objects.truncate(blocks - 10);
        assert!(m.encode().is_ok());
    }

    #[test]
    fn truncated_body_fails_and_trailing_bytes_are_fine() {
        let bytes = sensor_auth_full_example().encode().unwrap();
        assert!(SensorAuthUpdate::decode(&bytes[..200]).is_err());
        let mut longer = bytes.clone();
        longer.extend([0xFF; 3]);
        assert!(SensorAuthUpdate::decode(&longer).is_ok());
    }

    /// Messages of every shape the reused reader meets: more and fewer groups, objects,
    /// keys and sub-blocks than the one before, no roster, no sub-blocks, no bubble block,
    /// and bubble elements with host tokens, grants and revokes at the first, middle and
    /// last bubbles.
    fn shapes() -> Vec<Vec<u8>> {
        let full = sensor_auth_full_example();
        let mut fewer = full.clone();
        fewer.groups.pop();
        fewer.groups[0].objects.pop();
        let mut more = full.clone();
        more.groups.push(full.groups[0].clone());
        more.groups[1]
            .objects
            .push(full.groups[0].objects[0].clone());
        let mut keys = full.clone();
        if let Some(r) = &mut keys.roster {
            r.keys.extend([7, 8, 9]);
            r.states.extend([1, 2, 3]);
            r.sub_blocks = None;
        }
        let mut tokens = full.clone();
        if let Some(block) = &mut tokens.prefix.bubble_block {
            block.set_host_token(0, Some(u64::MAX));
            block.set_revoke(0, true);
            block.set_grant(31, Some(0xFFFF));
            block.set_revoke(31, true);
            block.set_revoke(63, true);
            block.set_host_token(64, Some(1));
            block.set_grant(64, Some(2));
            block.set_authority(64, true);
        }
        let mut bare = full.clone();
        bare.roster = None;
        bare.prefix.bubble_block = None;
        bare.groups.clear();
        let shapes = [full, fewer, more, keys, tokens, bare];
        for m in &shapes {
            let back = SensorAuthUpdate::decode(&m.encode().unwrap()).unwrap();
            assert_eq!((&back.prefix, &back.roster), (&m.prefix, &m.roster));
        }
        shapes.iter().map(|m| m.encode().unwrap()).collect()
    }

    /// The bubble elements read back field by field by a reader of the test's own: plain
    /// runs longer than one write (21 elements), revoke bits at both ends of a write and of
    /// a run, and a grant and a host token between them.
    #[test]
    fn plain_bubbles_are_three_bits_each() {
        let mut block = BubbleAuthority::default();
        for b in [0, 1, 20, 21, 22, 29, 31, 41, 42, 43, 50, 63, 64] {
            block.set_revoke(b, true);
        }
        block.set_grant(30, Some(0x1234));
        block.set_host_token(50, Some(0xABCD));
        let prefix = AuthPrefix {
            bubble_block: Some(block.clone()),
            token: 0x77,
            ..AuthPrefix::echoing([1, 2])
        };
        let body = prefix.encode().unwrap();
        let mut r = BitReader::new(&body);
        // hardwipe, epoch, block present, authority 64 + 1, root, header absent
        r.skip(8 + 128 + 1 + 65 + 1 + 1).unwrap();
        for b in 0..AUTHORITY_BUBBLES {
            let token = r.read_bool().unwrap().then(|| r.read(64).unwrap());
            let grant = r.read_bool().unwrap().then(|| r.read(16).unwrap() as u16);
            let want_token = block.host_tokens().iter().find(|(at, _)| *at == b);
            let want_grant = block.grants().iter().find(|(at, _)| *at == b);
            assert_eq!(
                token,
                want_token.map(|(_, t)| *t),
                "bubble {b}'s host token"
            );
            assert_eq!(grant, want_grant.map(|(_, t)| *t), "bubble {b}'s grant");
            assert_eq!(
                r.read_bool().unwrap(),
                block.revokes(b),
                "bubble {b}'s revoke"
            );
        }
        assert_eq!(r.read(64).unwrap(), 0x77, "the activity token follows");
    }

    proptest::proptest! {
        /// A bubble block of any elements reads back as written, into a fresh prefix and
        /// into one that held another block: runs of plain elements of every length
        /// between elements with a host token or a grant.
        #[test]
        fn any_bubble_block_reads_back(
            kinds in proptest::collection::vec(0u8..8, AUTHORITY_BUBBLES),
            bits in proptest::prelude::any::<u128>(),
        ) {
            let mut block = BubbleAuthority::default();
            for (b, kind) in kinds.iter().enumerate() {
                block.set_host_token(b, (kind & 4 != 0).then_some(b as u64 * 0x0101));
                block.set_grant(b, (kind & 2 != 0).then_some(b as u16 + 1));
                block.set_revoke(b, kind & 1 != 0);
            }
            block.authority = bits & ((1 << AUTHORITY_BUBBLES) - 1);
            let prefix = AuthPrefix {
                bubble_block: Some(block),
                ..AuthPrefix::echoing([1, 2])
            };
            let body = prefix.encode().unwrap();
            let mut held = AuthPrefix::read(&mut BitReader::new(&shapes()[4])).unwrap();
            held.read_into(&mut BitReader::new(&body)).unwrap();
            proptest::prop_assert_eq!(&held, &prefix);
            proptest::prop_assert_eq!(AuthPrefix::read(&mut BitReader::new(&body)).unwrap(), prefix);
        }
    }

    /// A prefix cut anywhere, in its bubble block's elements too, is an error, read by a
    /// fresh prefix or into one held.
    #[test]
    fn a_prefix_cut_short_is_an_error() {
        for body in shapes() {
            let mut whole = BitReader::new(&body);
            let prefix = AuthPrefix::read(&mut whole).unwrap();
            let mut held = prefix.clone();
            for bits in 0..whole.position() {
                let cut = || BitReader::with_bit_len(&body, bits);
                assert!(AuthPrefix::read(&mut cut()).is_err(), "{bits} bits");
                assert!(held.read_into(&mut cut()).is_err(), "{bits} bits, held");
            }
        }
    }

    /// One message read into after another, whatever the shapes of the two, is what a
    /// fresh decode of the second reads.
    #[test]
    fn a_reused_message_reads_what_a_fresh_one_does() {
        for before in shapes() {
            for body in shapes() {
                let mut m = SensorAuthUpdate::decode(&before).unwrap();
                let prefix_bits = m.read_prefix(&body).unwrap();
                m.read_rest(&body, prefix_bits, None, |_, _| None).unwrap();
                assert_eq!(m, SensorAuthUpdate::decode(&body).unwrap());
            }
        }
    }

    /// The roster delta of `body`, and `body` through it.
    fn roster_and_head(body: &[u8]) -> Option<(RosterDelta, Bits)> {
        let m = SensorAuthUpdate::decode(body).unwrap();
        let head = BitReader::new(body).read_bits(m.roster_at.end).unwrap();
        Some((m.roster?, head))
    }

    /// A message read with a roster delta known (another message's, with that message
    /// through it) is what a fresh decode reads, whatever the shapes of the message read
    /// into before, of the known one and of the body: copied when the body starts with the
    /// known head, read when it does not (a delta the same after another prefix too).
    #[test]
    fn a_known_roster_reads_what_a_fresh_decode_does() {
        let mut copied = 0;
        for reused in shapes() {
            for known in shapes().iter().filter_map(|b| roster_and_head(b)) {
                for body in shapes() {
                    let mut m = SensorAuthUpdate::decode(&reused).unwrap();
                    let prefix_bits = m.read_prefix(&body).unwrap();
                    let (delta, head) = (&known.0, &known.1);
                    m.read_rest(
                        &body,
                        prefix_bits,
                        Some(KnownRoster { delta, head }),
                        |_, _| None,
                    )
                    .unwrap();
                    copied += usize::from(BitReader::new(&body).starts_with(head));
                    assert_eq!(m, SensorAuthUpdate::decode(&body).unwrap());
                }
            }
        }
        assert!(copied > 0);
    }

    /// The known delta is copied, not read again, when the body starts with its head:
    /// given one its head does not read to, the message holds it.
    #[test]
    fn a_known_roster_is_copied_not_read() {
        let body = shapes().swap_remove(0);
        let (mut delta, head) = roster_and_head(&body).unwrap();
        delta.keys.push(0xDEAD);
        let mut m = DecodedAuthUpdate::default();
        let prefix_bits = m.read_prefix(&body).unwrap();
        let known = Some(KnownRoster {
            delta: &delta,
            head: &head,
        });
        m.read_rest(&body, prefix_bits, known, |_, _| None).unwrap();
        assert_eq!(m.roster, Some(delta));
    }

    /// A block measured as bits the reader holds is those bits, and the reader goes on
    /// after them: read so, every shape is what a read by remainders gives.
    #[test]
    fn a_block_measured_as_known_bits_is_those_bits() {
        for body in shapes() {
            let fresh = SensorAuthUpdate::decode(&body).unwrap();
            let contents: Vec<&Bits> = (fresh.groups.iter())
                .flat_map(|g| g.objects.iter().map(|o| &o.content))
                .collect();
            let mut next = contents.iter();
            let known = DecodedAuthUpdate::decode_with(&body, |_, _| {
                next.next().map(|bits| MeasuredBlock::Known(bits))
            });
            assert_eq!(known.unwrap(), fresh);
        }
    }
}
