//! Message-5 blocks the client does not read as long as their remainders say, judged
//! for their cause: a block written for other schemas than its slot's (AUTH-06), a
//! type-17 body short of its fields (T17-02), any other wrong remainder (AUTH-05),
//! including the blocks the client skips by their remainders (AH "How the client applies
//! an Auth body").

use super::auth_blocks::{Block, applies_in, describe, read_block, written_for};
use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::sensor_auth::{DecodedAuthUpdate, DecodedObject};
use vex_wire::activity::slot::{EMPTY_KEY, TYPE_LIFETIME};
use vex_wire::scenario::{Scenario, SlotDecl};

/// Why `block`, read by its slot's schemas from the bits its remainder delimits, is not
/// the block the remainder says: a type-17 body short of its 20 fields (T17-02), any other
/// body or flag the remainder cuts, or a block longer or shorter than what the schemas
/// read (AUTH-05). `None` when the schemas read exactly the remainder, or when the block
/// holds a body whose schema Vex does not know.
pub(super) fn why_misread(
    decl: &SlotDecl,
    block: &Block,
    remainder: u32,
) -> Option<(Rule, String)> {
    Some(match block {
        Block::Read { bits, .. } | Block::Same { bits } if *bits == remainder as usize => {
            return None;
        }
        Block::Read { bits, .. } | Block::Same { bits } => (
            Rule::Auth05,
            format!("remainder {remainder} but the slot's schemas read {bits} bits"),
        ),
        Block::Short(e) if decl.slot_type == TYPE_LIFETIME => (
            Rule::T1702,
            format!(
                "the type-17 body is shorter than its 20 fields, which have no presence bits and go whole ({e})"
            ),
        ),
        Block::Short(e) => (
            Rule::Auth05,
            format!(
                "remainder {remainder} ends the block inside the body its slot's schema reads ({e})"
            ),
        ),
        Block::EndsBefore(what) => (
            Rule::Auth05,
            format!("remainder {remainder} ends the block before {what}"),
        ),
        Block::Unknown | Block::OverCapacity { .. } => return None,
    })
}

/// The block of a slot the client skips by its remainder: its object is in another
/// bubble than the client's (0 to 63), or its group is keyed 0x811C9DC5. Where the slot's
/// schemas read another length there, either the remainder is wrong, and the client lands
/// elsewhere, or the body is, and a client that applies it misreads it (AUTH-05, or
/// AUTH-06 when the block was written for other schemas). Its body is not applied, so not
/// judged.
pub(super) fn skipped_block(
    verdict: &mut Verdict,
    f: Option<u64>,
    decl: &SlotDecl,
    message: &[u8],
    object: &DecodedObject,
) {
    let block = read_block(decl, object.content.reader());
    if let Some((_, why)) = why_misread(decl, &block, object.remainder) {
        let reason = format!(
            "{why}: the client skips this block by its remainder, so either the remainder is wrong and it lands elsewhere, or the body is and a client that applies it misreads it"
        );
        mismatch(verdict, f, decl, message, object, (Rule::Auth05, reason));
    }
}

/// A block the client does not read as long as its remainder says: AUTH-06 when another
/// guess at the slot's schemas reads exactly the remainder, else the rule and reason of
/// what the slot's own schemas found. True for AUTH-06.
pub(super) fn mismatch(
    verdict: &mut Verdict,
    f: Option<u64>,
    decl: &SlotDecl,
    message: &[u8],
    object: &DecodedObject,
    (rule, reason): (Rule, String),
) -> bool {
    let slot = object.slot;
    match written_for(decl, message, object) {
        Some(guess) => {
            let reason = format!(
                "slot {slot}: the block is written for a slot with {} but the slot has {}, and every later bit shifts (or its remainder is off by as many bits)",
                describe(guess),
                describe(decl.schemas)
            );
            verdict.violate(Rule::Auth06, f, Some(object.at), reason);
            true
        }
        None => {
            verdict.violate(rule, f, Some(object.at), format!("slot {slot}: {reason}"));
            false
        }
    }
}

/// A message 5 the client in `bubble` could not read, whose blocks delimited by their
/// remainders show why: the first block the client reads by its slot's schemas that they
/// do not read as long as its remainder says ([`why_misread`]; AUTH-06 when it was
/// written for other schemas). The client's read runs on past it and the message is
/// dropped. True when that was reported.
pub(super) fn misread_block(
    verdict: &mut Verdict,
    scenario: &Scenario,
    (bubble, idx): (u8, u64),
    message: &[u8],
) -> bool {
    let Ok(m) = DecodedAuthUpdate::decode_with(message, |_, _| None) else {
        return false;
    };
    let applied = m.groups.iter().filter(|g| g.key != EMPTY_KEY); // AUTH-07
    let misread = applied.flat_map(|g| &g.objects).find_map(|o| {
        let (object_bubble, decl) = scenario.schemas_of(&o.slot)?;
        if !applies_in(object_bubble, bubble) {
            return None; // skipped by its remainder
        }
        let block = read_block(&decl, o.content.reader());
        why_misread(&decl, &block, o.remainder).map(|why| (o, decl, why))
    });
    let Some((object, decl, (rule, why))) = misread else {
        return false;
    };
    let reason = format!("{why}: the client's read runs on past the block and drops the message");
    mismatch(verdict, Some(idx), &decl, message, object, (rule, reason));
    true
}
