//! The smallest and largest wire size of a schema: every presence bit 0 and every array
//! empty, then every presence bit 1 and every array full (AH "Slot types": the table's
//! wire bits).

use super::kind::{
    KEYED_LANE_FIRST, KEYED_LANE_SECOND, KEYED_LANE_SELECTOR_BITS, Kind, PREDICATE_MAX_BODY_BITS,
    Schema, TagMode,
};

/// The smallest body of `schema`, in bits.
pub fn min_bits(schema: &Schema) -> usize {
    schema
        .fields
        .iter()
        .map(|f| if f.presence { 1 } else { kind_min(&f.kind) })
        .sum()
}

/// The largest body of `schema`, in bits, or `None` when an undocumented body could be
/// present. A dynamic schema value counts as its presence bit alone, as AH's table does:
/// its body's size depends on a handle chosen at run time (type 17: 423 + 50 x 33 + 6 x
/// 32 = 2,265 bits).
pub fn max_bits(schema: &Schema) -> Option<usize> {
    schema
        .fields
        .iter()
        .map(|f| Some(usize::from(f.presence) + kind_max(&f.kind)?))
        .sum()
}

fn kind_min(kind: &Kind) -> usize {
    match kind {
        Kind::Record(s) => min_bits(s),
        Kind::Bits { width } => *width as usize,
        Kind::Bool | Kind::NullableU32 | Kind::DynamicValue | Kind::PredicateUnion => 1,
        Kind::Undocumented { .. } => 0, // only ever behind its presence bit
        Kind::Int { width, .. } | Kind::QuantizedReal { width, .. } => *width as usize,
        Kind::Real => 32,
        Kind::Position => 96,
        Kind::TagRef(TagMode::Investment) => 2,
        Kind::TagRef(TagMode::Simulation) => 1,
        Kind::FixedArray { element, len } => usize::from(*len) * kind_min(element),
        Kind::Array { count_width, .. } => *count_width as usize,
        Kind::KeyedLane => 2 * KEYED_LANE_SELECTOR_BITS as usize,
    }
}

fn kind_max(kind: &Kind) -> Option<usize> {
    Some(match kind {
        Kind::Record(s) => max_bits(s)?,
        Kind::Bits { width } => *width as usize,
        Kind::Bool | Kind::DynamicValue => 1,
        Kind::NullableU32 => 33,
        Kind::Int { width, .. } | Kind::QuantizedReal { width, .. } => *width as usize,
        Kind::Real => 32,
        Kind::Position => 96,
        Kind::TagRef(TagMode::Investment) => 18,
        Kind::TagRef(TagMode::Simulation) => 33,
        Kind::FixedArray { element, len } => usize::from(*len) * kind_max(element)?,
        Kind::Array {
            element,
            count_width,
            capacity,
        } => *count_width as usize + usize::from(*capacity) * kind_max(element)?,
        Kind::KeyedLane => {
            let widest = |t: &[u32]| t.iter().copied().max().unwrap_or(0) as usize;
            2 * KEYED_LANE_SELECTOR_BITS as usize
                + widest(&KEYED_LANE_FIRST)
                + widest(&KEYED_LANE_SECOND)
        }
        Kind::PredicateUnion => 33 + PREDICATE_MAX_BODY_BITS,
        Kind::Undocumented { .. } => return None,
    })
}
