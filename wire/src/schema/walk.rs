//! The one walker: encode and decode any schema (TD "Walking a definition", "The
//! bit-packed codec"). Decoding accepts unread bits and trailing bytes (BODY-04) and
//! refuses a count above its array's capacity (BODY-05); so does encoding, where the
//! game's codec would clamp the count and drop the elements past it without a word.

use super::kind::{
    Field, Guard, KEYED_LANE_FIRST, KEYED_LANE_SECOND, KEYED_LANE_SELECTOR_BITS, Kind, MAX_DEPTH,
    RUNTIME_I32, Schema, TagMode,
};
use super::place::Place;
use super::text;
use super::value::{KeyedLane, Value};
use crate::bits::{BitError, BitReader, BitWriter, Bits, I32_BIAS};
use thiserror::Error;

/// The bits of a tag the investment walker mode keeps: 0-12 and 16-19 (TD).
const INVESTMENT_TAG_BITS: i64 = 0xF_1FFF;

/// Why a value does not fit its schema, or a body its schema.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SchemaError {
    /// The bit codec failed (a read past the end, a value too wide).
    #[error("{path}: {source}")]
    Bits {
        /// The field path.
        path: String,
        /// The codec error.
        source: BitError,
    },
    /// The value's shape is not the field's.
    #[error("{path}: expected {expected}")]
    Shape {
        /// The field path.
        path: String,
        /// What the field takes.
        expected: &'static str,
    },
    /// A dynamic count above the array's capacity: the client does not clamp it and
    /// writes past the end (BODY-05); on encode, more elements than the array holds.
    #[error("{path}: count {count} is above the capacity {capacity} (BODY-05)")]
    OverCapacity {
        /// The field path.
        path: String,
        /// The count on the wire.
        count: u64,
        /// The array's capacity.
        capacity: u16,
    },
    /// A value the client cannot take safely (AH "Values that crash the client").
    #[error("{path}: {value} breaks {rule}")]
    Unsafe {
        /// The field path.
        path: String,
        /// The rule.
        rule: vex_rules::Rule,
        /// The value refused.
        value: String,
    },
    /// Records nest deeper than the walker's 32 frames.
    #[error("{path}: nesting deeper than 32")]
    TooDeep {
        /// The field path.
        path: String,
    },
}

fn bits(path: &Place<'_>, source: BitError) -> SchemaError {
    SchemaError::Bits {
        path: path.to_string(),
        source,
    }
}

fn shape(path: &Place<'_>, expected: &'static str) -> SchemaError {
    SchemaError::Shape {
        path: path.to_string(),
        expected,
    }
}

/// Writes `value` (a [`Value::Record`]) with `schema`.
pub fn encode(schema: &Schema, value: &Value, w: &mut BitWriter) -> Result<(), SchemaError> {
    encode_record(schema, value, w, &Place::Root, 0)
}

/// [`encode`] into exact bits of their own.
pub fn encode_bits(schema: &Schema, value: &Value) -> Result<Bits, SchemaError> {
    let mut bytes = Vec::new();
    let mut w = BitWriter::appending(&mut bytes);
    encode(schema, value, &mut w)?;
    let bit_len = w.finish().map_err(|source| bits(&Place::Root, source))?;
    Ok(Bits { bytes, bit_len })
}

fn encode_record(
    schema: &Schema,
    value: &Value,
    w: &mut BitWriter,
    path: &Place<'_>,
    depth: usize,
) -> Result<(), SchemaError> {
    if depth >= MAX_DEPTH {
        return Err(SchemaError::TooDeep {
            path: path.to_string(),
        });
    }
    let Value::Record(values) = value else {
        return Err(shape(path, "a record"));
    };
    if values.len() != schema.fields.len() {
        return Err(shape(path, "one value per field"));
    }
    for (field, v) in schema.fields.iter().zip(values) {
        encode_field(field, v, w, &path.field(field.name), depth)?;
    }
    Ok(())
}

/// Refuses `v` when a guard of `field` forbids it; `path` names the field in the error
/// (written out only then).
pub fn check_guards(
    field: &Field,
    v: &Value,
    path: &(impl std::fmt::Display + ?Sized),
) -> Result<(), SchemaError> {
    let broken = field.guards.iter().find_map(|guard| match (guard, v) {
        (Guard::Range { rule, min, max }, Value::Int(i)) if !(min..=max).contains(&i) => {
            Some(*rule)
        }
        (Guard::Refused { rule, values }, Value::Int(i)) if values.contains(i) => Some(*rule),
        (Guard::Absent { rule }, v) if *v != Value::Absent => Some(*rule),
        (Guard::NotAllZero { rule }, Value::Record(fields))
            if fields.iter().all(Value::is_zero) =>
        {
            Some(*rule)
        }
        _ => None,
    });
    match broken {
        Some(rule) => Err(SchemaError::Unsafe {
            path: path.to_string(),
            rule,
            value: describe(v),
        }),
        None => Ok(()),
    }
}

fn encode_field(
    field: &Field,
    v: &Value,
    w: &mut BitWriter,
    path: &Place<'_>,
    depth: usize,
) -> Result<(), SchemaError> {
    check_guards(field, v, path)?;
    if field.presence {
        w.write_bool(*v != Value::Absent);
        if *v == Value::Absent {
            return Ok(());
        }
    }
    encode_kind(&field.kind, v, w, path, depth)
}

fn encode_kind(
    kind: &Kind,
    v: &Value,
    w: &mut BitWriter,
    path: &Place<'_>,
    depth: usize,
) -> Result<(), SchemaError> {
    match (kind, v) {
        (Kind::Record(s), _) => return encode_record(s, v, w, path, depth + 1),
        (Kind::Bits { width }, Value::Bits(b)) if b.len() == (*width as usize).div_ceil(8) => {
            w.write_stream(b, *width as usize);
        }
        (Kind::Bool, Value::Bool(b)) => w.write_bool(*b),
        (
            Kind::Int {
                width,
                bias,
                signed,
            },
            Value::Int(i),
        ) => {
            let Some(stored) = int_to_stored(*i, *width, *bias, *signed) else {
                return Err(shape(
                    path,
                    "an integer the field's width and bias can hold",
                ));
            };
            w.write(stored, *width);
        }
        (Kind::QuantizedReal { width, .. }, Value::Raw { bits, width: vw })
            if vw == width && bits >> width == 0 =>
        {
            w.write(*bits as u64, *width);
        }
        (Kind::Real, Value::Raw { bits, width: 32 }) if bits >> 32 == 0 => {
            w.write(*bits as u64, 32)
        }
        (Kind::Position, Value::Position(xyz)) => {
            for c in xyz {
                w.write(u64::from(*c), 32);
            }
        }
        (Kind::NullableU32, Value::Absent) => w.write_bool(false),
        (Kind::NullableU32, Value::Int(i)) if (0..=i128::from(u32::MAX)).contains(i) => {
            w.write_bool(true);
            w.write(*i as u64, 32);
        }
        (Kind::TagRef(TagMode::Investment), Value::Tag(t)) => match *t {
            -1 | -2 => {
                w.write_bool(false);
                w.write_bool(*t == -2);
            }
            // only the low 13 bits and bits 16-19 go on the wire (TD)
            t if t >= 0 && t & !INVESTMENT_TAG_BITS == 0 => {
                w.write_bool(true);
                w.write((t as u64) & 0x1FFF, 13);
                w.write(((t as u64) >> 16) & 0xF, 4);
            }
            _ => {
                return Err(shape(
                    path,
                    "-1, -2 or a tag with only bits 0-12 and 16-19 set",
                ));
            }
        },
        (Kind::TagRef(TagMode::Simulation), Value::Tag(t)) => match u32::try_from(*t) {
            _ if *t == -1 => w.write_bool(false),
            Ok(t) => {
                w.write_bool(true);
                w.write(u64::from(t), 32);
            }
            Err(_) => return Err(shape(path, "-1 or a 32-bit tag")),
        },
        (Kind::FixedArray { element, len }, Value::Array(items)) => {
            if items.len() != usize::from(*len) {
                return Err(shape(path, "exactly the fixed array's length"));
            }
            for (i, item) in items.iter().enumerate() {
                encode_kind(element, item, w, &path.index(i as u64), depth)?;
            }
        }
        (
            Kind::Array {
                element,
                count_width,
                capacity,
            },
            Value::Array(items),
        ) => {
            if items.len() > usize::from(*capacity) {
                return Err(SchemaError::OverCapacity {
                    path: path.to_string(),
                    count: items.len() as u64,
                    capacity: *capacity,
                });
            }
            w.write(items.len() as u64, *count_width);
            for (i, item) in items.iter().enumerate() {
                encode_kind(element, item, w, &path.index(i as u64), depth)?;
            }
        }
        (Kind::KeyedLane, Value::Lane(lane)) => {
            let KeyedLane {
                first,
                second,
                first_body,
                second_body,
            } = lane.as_ref();
            let (Some(&a), Some(&b)) = (
                KEYED_LANE_FIRST.get(usize::from(*first)),
                KEYED_LANE_SECOND.get(usize::from(*second)),
            ) else {
                return Err(shape(path, "selectors below 10 and 3"));
            };
            let whole = |body: &[u8], bits: u32| body.len() == (bits as usize).div_ceil(8);
            if !whole(first_body, a) || !whole(second_body, b) {
                return Err(shape(path, "lane bodies of their tables' widths"));
            }
            w.write(u64::from(*first), KEYED_LANE_SELECTOR_BITS);
            w.write(u64::from(*second), KEYED_LANE_SELECTOR_BITS);
            w.write_stream(first_body, a as usize);
            w.write_stream(second_body, b as usize);
        }
        (Kind::DynamicValue, Value::Absent) => w.write_bool(false),
        (Kind::DynamicValue, Value::Dynamic { handle, value }) if *handle == RUNTIME_I32 => {
            w.write_bool(true);
            w.write(u64::from(*handle), 32);
            w.write_wrapping(i64::from(*value), I32_BIAS, 32);
        }
        (Kind::PredicateUnion, Value::Absent) => w.write_bool(false),
        (Kind::PredicateUnion, _) => {
            return Err(shape(
                path,
                "absent (the predicate bodies are not documented)",
            ));
        }
        (Kind::Undocumented { .. }, _) => {
            return Err(shape(
                path,
                "absent (the pages do not give this body's layout)",
            ));
        }
        _ => return Err(shape(path, kind_name(kind))),
    }
    match w.error() {
        Some(e) => Err(bits(path, e)),
        None => Ok(()),
    }
}

/// Bits of the in-memory type an integer field narrows to: the smallest of 8, 16, 32 and
/// 64 that holds its wire width (an int8 state in 4 bits, an int16 index in 16).
fn type_bits(width: u32) -> u32 {
    match width {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

/// Wraps `v` into the range of the field's in-memory type, as the client narrows it.
/// Two's complement keeps the low bits of a wrap, so this masks and sign-extends where a
/// Euclidean remainder by the type's modulus would divide 128-bit integers.
fn narrow(v: i128, width: u32, signed: bool) -> i128 {
    let low = v as u64; // the low 64 bits: every in-memory type fits in them
    match (type_bits(width), signed) {
        (64, true) => i128::from(low as i64),
        (64, false) => i128::from(low),
        (bits, true) => i128::from(((low << (64 - bits)) as i64) >> (64 - bits)),
        (bits, false) => i128::from(low & ((1 << bits) - 1)),
    }
}

/// The logical value of `stored` bits: `stored - bias`, narrowed to the field's type
/// (TD "The bit-packed codec"; facts 3: the reader subtracts the bias, then narrows).
pub fn int_from_stored(stored: u64, width: u32, bias: i64, signed: bool) -> i128 {
    narrow(i128::from(stored) - i128::from(bias), width, signed)
}

/// The stored bits of logical `v`, or `None` when the field cannot hold it: `v` must be a
/// value of the field's type, and `v + bias` (in that type's arithmetic) must fit `width`.
pub fn int_to_stored(v: i128, width: u32, bias: i64, signed: bool) -> Option<u64> {
    if narrow(v, width, signed) != v {
        return None;
    }
    let modulus = 1i128 << type_bits(width);
    let stored = (v + i128::from(bias)).rem_euclid(modulus);
    let fits = width >= 64 || stored < (1i128 << width);
    (fits && int_from_stored(stored as u64, width, bias, signed) == v).then_some(stored as u64)
}

fn read_int(r: &mut BitReader<'_>, width: u32, bias: i64, signed: bool) -> Result<i128, BitError> {
    Ok(int_from_stored(r.read(width)?, width, bias, signed))
}

fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Record(_) => "a record",
        Kind::Bits { .. } => "bits of the run's width",
        Kind::Bool => "a bool",
        Kind::Int { .. } => "an integer",
        Kind::QuantizedReal { .. } => "raw bits of the real's width",
        Kind::Real => "32 raw bits",
        Kind::Position => "a position",
        Kind::NullableU32 => "an integer or absent",
        Kind::TagRef(_) => "a tag",
        Kind::FixedArray { .. } | Kind::Array { .. } => "an array",
        Kind::KeyedLane => "a keyed lane",
        Kind::DynamicValue => "absent or a runtime i32",
        Kind::PredicateUnion | Kind::Undocumented { .. } => "absent",
    }
}

/// One field as read, for printing: where it sat, its bits and its logical value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceLine {
    /// Bit offset from the start of the body.
    pub at: usize,
    /// Bits it took.
    pub width: usize,
    /// The field path, e.g. `rows[2].revision`; a presence bit ends in `?`.
    pub path: String,
    /// The bits as read, in hex (MSB first, zero-padded on the right to a byte).
    pub raw: String,
    /// The logical value.
    pub value: String,
}

/// Reads a record of `schema` at the reader's cursor.
pub fn decode(schema: &Schema, r: &mut BitReader<'_>) -> Result<Value, SchemaError> {
    let mut v = Value::Absent;
    decode_into(schema, r, &mut v)?;
    Ok(v)
}

/// [`decode`] into `out`, whose vectors are reused where the value read has their shape:
/// a reader that keeps the values it is done with reads the next of the same shape
/// without allocating. On an error what `out` holds is no value the schema read.
pub fn decode_into(
    schema: &Schema,
    r: &mut BitReader<'_>,
    out: &mut Value,
) -> Result<(), SchemaError> {
    decode_record(schema, r, &Place::Root, 0, None, out)
}

/// Reads a record of `schema` and lists every field with its bit offset (TD: a pretty
/// printer with bit offsets). On a failure the lines read so far are kept in `lines`.
pub fn decode_traced(
    schema: &Schema,
    r: &mut BitReader<'_>,
    lines: &mut Vec<TraceLine>,
) -> Result<Value, SchemaError> {
    let mut v = Value::Absent;
    decode_record(schema, r, &Place::Root, 0, Some(lines), &mut v)?;
    Ok(v)
}

/// The vector `out` holds as a record or an array, taken out with its buffer and made `n`
/// values long: a value read into `out` reuses it when it had that shape.
fn taken_values(out: &mut Value, n: usize) -> Vec<Value> {
    let mut values = match std::mem::replace(out, Value::Absent) {
        Value::Record(values) | Value::Array(values) => values,
        _ => Vec::with_capacity(n),
    };
    values.truncate(n);
    values.resize_with(n, || Value::Absent);
    values
}

/// A trace line for the bits read since `before`, when tracing: `value` is only called
/// then.
fn trace(
    lines: Option<&mut Vec<TraceLine>>,
    before: &BitReader<'_>,
    r: &BitReader<'_>,
    path: &Place<'_>,
    value: impl FnOnce() -> String,
) {
    if let Some(lines) = lines {
        let at = before.position();
        let width = r.position() - at;
        let raw = before
            .clone()
            .read_stream(width)
            .map(|b| b.iter().map(|x| format!("{x:02X}")).collect())
            .unwrap_or_default();
        lines.push(TraceLine {
            at,
            width,
            path: path.to_string(),
            raw,
            value: value(),
        });
    }
}

/// The logical value of a leaf, as printed.
pub fn describe(v: &Value) -> String {
    match v {
        Value::Absent => "absent".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) if *i >= 0x10000 => format!("{i} ({i:#x})"),
        Value::Int(i) => i.to_string(),
        Value::Raw { bits, width: 32 } => {
            format!("{} (raw {bits:#010x})", f32::from_bits(*bits as u32))
        }
        Value::Raw { bits, width } => format!("raw {bits:#x} ({width} bits)"),
        Value::Bits(b) => format!("{} bytes of unnamed bits", b.len()),
        Value::Position(p) => format!(
            "({}, {}, {})",
            f32::from_bits(p[0]),
            f32::from_bits(p[1]),
            f32::from_bits(p[2])
        ),
        Value::Tag(-1) => "none (-1)".into(),
        Value::Tag(-2) => "none (-2)".into(),
        Value::Tag(t) => format!("{t:#x}"),
        Value::Lane(lane) => format!("lane {}/{}", lane.first, lane.second),
        Value::Dynamic { handle, value } => format!("{value} (schema {handle:#x})"),
        Value::Record(_) | Value::Array(_) => String::new(),
    }
}

fn decode_record(
    schema: &Schema,
    r: &mut BitReader<'_>,
    path: &Place<'_>,
    depth: usize,
    mut lines: Option<&mut Vec<TraceLine>>,
    out: &mut Value,
) -> Result<(), SchemaError> {
    if depth >= MAX_DEPTH {
        return Err(SchemaError::TooDeep {
            path: path.to_string(),
        });
    }
    let mut values = taken_values(out, schema.fields.len());
    for (field, v) in schema.fields.iter().zip(values.iter_mut()) {
        let p = path.field(field.name);
        if field.presence {
            let before = r.clone();
            let present = r.read_bool().map_err(|e| bits(&p, e))?;
            let word = if present { "present" } else { "absent" };
            trace(lines.as_deref_mut(), &before, r, &p.suffix("?"), || {
                word.into()
            });
            if !present {
                *v = Value::Absent;
                continue;
            }
        }
        decode_kind(&field.kind, r, &p, depth, lines.as_deref_mut(), v)?;
    }
    *out = Value::Record(values);
    Ok(())
}

fn decode_kind(
    kind: &Kind,
    r: &mut BitReader<'_>,
    path: &Place<'_>,
    depth: usize,
    mut lines: Option<&mut Vec<TraceLine>>,
    out: &mut Value,
) -> Result<(), SchemaError> {
    let e = |err| bits(path, err);
    let before = r.clone();
    let leaf = match kind {
        Kind::Record(s) => return decode_record(s, r, path, depth + 1, lines, out),
        Kind::FixedArray { element, len } => {
            let chars = text::is_char(element);
            let mut items = taken_values(out, usize::from(*len));
            for (i, item) in items.iter_mut().enumerate() {
                let p = path.index(i as u64);
                let lines = lines.as_deref_mut().filter(|_| !chars);
                decode_kind(element, r, &p, depth, lines, item)?;
            }
            if chars {
                trace(lines, &before, r, path, || {
                    format!("{:?}", text::to_text(&items))
                });
            }
            *out = Value::Array(items);
            return Ok(());
        }
        Kind::Array {
            element,
            count_width,
            capacity,
        } => {
            let n = r.read(*count_width).map_err(e)?;
            trace(
                lines.as_deref_mut(),
                &before,
                r,
                &path.suffix(".count"),
                || n.to_string(),
            );
            if n > u64::from(*capacity) {
                return Err(SchemaError::OverCapacity {
                    path: path.to_string(),
                    count: n,
                    capacity: *capacity,
                });
            }
            let mut items = taken_values(out, n as usize);
            for (i, item) in items.iter_mut().enumerate() {
                let p = path.index(i as u64);
                decode_kind(element, r, &p, depth, lines.as_deref_mut(), item)?;
            }
            *out = Value::Array(items);
            return Ok(());
        }
        Kind::Bits { width } => {
            let mut bytes = match std::mem::replace(out, Value::Absent) {
                Value::Bits(bytes) => bytes,
                _ => Vec::new(),
            };
            bytes.clear();
            r.read_stream_into(*width as usize, &mut bytes).map_err(e)?;
            Value::Bits(bytes)
        }
        Kind::Bool => Value::Bool(r.read_bool().map_err(e)?),
        Kind::Int {
            width,
            bias,
            signed,
        } => Value::Int(read_int(r, *width, *bias, *signed).map_err(e)?),
        Kind::QuantizedReal { width, .. } => Value::Raw {
            bits: u128::from(r.read(*width).map_err(e)?),
            width: *width,
        },
        Kind::Real => Value::Raw {
            bits: u128::from(r.read(32).map_err(e)?),
            width: 32,
        },
        Kind::Position => {
            let mut xyz = [0u32; 3];
            for c in &mut xyz {
                *c = r.read(32).map_err(e)? as u32;
            }
            Value::Position(xyz)
        }
        Kind::NullableU32 => match r.read_bool().map_err(e)? {
            true => Value::Int(i128::from(r.read(32).map_err(e)?)),
            false => Value::Absent,
        },
        Kind::TagRef(TagMode::Investment) => match r.read_bool().map_err(e)? {
            true => {
                let low = r.read(13).map_err(e)?;
                let high = r.read(4).map_err(e)?;
                Value::Tag((low | (high << 16)) as i64)
            }
            false => Value::Tag(if r.read_bool().map_err(e)? { -2 } else { -1 }),
        },
        Kind::TagRef(TagMode::Simulation) => match r.read_bool().map_err(e)? {
            true => Value::Tag(r.read(32).map_err(e)? as i64),
            false => Value::Tag(-1),
        },
        Kind::KeyedLane => {
            let at = r.position();
            let first = r.read(KEYED_LANE_SELECTOR_BITS).map_err(e)? as usize;
            let second = r.read(KEYED_LANE_SELECTOR_BITS).map_err(e)? as usize;
            let (Some(&a), Some(&b)) = (KEYED_LANE_FIRST.get(first), KEYED_LANE_SECOND.get(second))
            else {
                return Err(e(BitError::UnknownShape {
                    at,
                    what: "a keyed-lane selector past its table",
                }));
            };
            Value::Lane(Box::new(KeyedLane {
                first: first as u8,
                second: second as u8,
                first_body: r.read_stream(a as usize).map_err(e)?,
                second_body: r.read_stream(b as usize).map_err(e)?,
            }))
        }
        Kind::DynamicValue => {
            if !r.read_bool().map_err(e)? {
                trace(lines, &before, r, path, || "absent".into());
                *out = Value::Absent;
                return Ok(());
            }
            let at = r.position();
            let handle = r.read(32).map_err(e)? as u32;
            if handle != RUNTIME_I32 {
                return Err(e(BitError::UnknownShape {
                    at,
                    what: "a dynamic value of a schema other than the runtime i32",
                }));
            }
            let value = read_int(r, 32, I32_BIAS, true).map_err(e)? as i32;
            Value::Dynamic { handle, value }
        }
        Kind::PredicateUnion => {
            let at = r.position();
            match r.read_bool().map_err(e)? {
                false => Value::Absent,
                true => {
                    return Err(e(BitError::UnknownShape {
                        at,
                        what: "a code-34 predicate body",
                    }));
                }
            }
        }
        Kind::Undocumented { what } => {
            return Err(e(BitError::UnknownShape {
                at: r.position(),
                what,
            }));
        }
    };
    trace(lines, &before, r, path, || describe(&leaf));
    *out = leaf;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The narrowing is the Euclidean remainder by the in-memory type's modulus, read
        /// back signed when the field is: at every width, for any value an i128 holds.
        #[test]
        fn narrowing_wraps_into_the_in_memory_type(v in any::<i128>(), width in 1u32..=64, signed in any::<bool>()) {
            let modulus = 1i128 << type_bits(width);
            let wrapped = v.rem_euclid(modulus);
            let want = if signed && wrapped >= modulus / 2 { wrapped - modulus } else { wrapped };
            prop_assert_eq!(narrow(v, width, signed), want);
        }
    }
}
