//! Field descriptors as data (TD "Field descriptors", "Type codes"; AH "How an Auth table
//! is encoded").
//!
//! The pages give the numbers of only some type codes: 1 is a nested record, 3/7, 4/8,
//! 5/9 and 6/10 are the 8-, 16-, 32- and 64-bit integers, 13 is a position, 34 the
//! predicate union and 38 the keyed lane; 18, 20 and 30 are nullable tag references in
//! some walker mode. The other forms are named by their shape and carry no code here.

use vex_rules::Rule;

/// The two walker modes for tag references (TD "Nullable tag references").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagMode {
    /// Investment blob and activity messages: 1 + 13 + 4 bits present, 1 + 1 absent.
    Investment,
    /// Simulation messages: 1 + 32 bits.
    Simulation,
}

/// How one field goes on the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A run of `width` bits whose fields the pages do not describe, kept raw.
    Bits {
        /// Bits in the run.
        width: u32,
    },
    /// Code 1: a nested record, its fields in order.
    Record(&'static Schema),
    /// A 1-bit bool.
    Bool,
    /// Codes 3 to 10: `width` bits holding `value + bias`. The reader subtracts the bias
    /// and narrows to the field's type (facts section 3), taken to be the smallest of 8,
    /// 16, 32 and 64 bits that holds the width.
    Int {
        /// Bits on the wire.
        width: u32,
        /// Added before writing, subtracted after reading (BODY-02).
        bias: i64,
        /// Codes 3 to 6 are signed, 7 to 10 unsigned: how the value narrows.
        signed: bool,
    },
    /// A real32 quantized to `width` bits over [`min`, `max`]; TD does not say how the
    /// value is quantized, so the walker keeps the raw `width` bits.
    QuantizedReal {
        /// Bits on the wire (params[2]).
        width: u32,
        /// Range minimum (params[0]).
        min: f32,
        /// Range maximum (params[1]).
        max: f32,
    },
    /// A real32 as its raw 32 bits.
    Real,
    /// Code 13: three raw float32 (96 bits), stored as float4 with W = 1.0; no width in
    /// the descriptor (BODY-06).
    Position,
    /// A nullable u32: one bit, then 32 bits when present.
    NullableU32,
    /// A nullable tag reference in one of the two walker modes.
    TagRef(TagMode),
    /// A fixed array: the element repeats `len` times (array_length > 0).
    FixedArray {
        /// The element.
        element: &'static Kind,
        /// Elements.
        len: u16,
    },
    /// A dynamic array (params[0] = 1): a count of `count_width` bits, then that many
    /// elements; a count above `capacity` is refused both ways (BODY-05).
    Array {
        /// The element.
        element: &'static Kind,
        /// Bits of the count.
        count_width: u32,
        /// The struct's capacity.
        capacity: u16,
    },
    /// Code 38: two 6-bit selectors, then a body from each table (BODY-06). The bodies'
    /// fields are not documented, only their widths. AH also says one lane costs 6 to 179
    /// bits, which fits a single 6-bit selector better than two; Vex follows the two
    /// selectors of AH's description and of BODY-06 and keeps the discrepancy here.
    KeyedLane,
    /// A dynamic schema value: a presence bit, a 32-bit schema handle, then a body of that
    /// handle's schema. Only the runtime-i32 handle 0x80800007 has a documented body.
    /// AH's "schema id, then body" code has the same wire form (a nullable 32-bit schema
    /// id, then a body of the schema it names), so this kind reads both.
    DynamicValue,
    /// Code 34: a union of 13 compact predicate schemas, 0x80809571 to 0x8080957D: 1 bit
    /// absent, 33 with the schema id. The bodies are not documented, so only the absent
    /// form can be read or written.
    PredicateUnion,
    /// A body the pages name but do not lay out on the wire, with what is known of it. It
    /// sits behind a presence bit: absent it costs that bit; present it cannot be read,
    /// and a decode stops there with a typed error that says what the field is.
    Undocumented {
        /// What the pages say of it.
        what: &'static str,
    },
}

/// Body widths of a keyed lane's first selector (AH "How an Auth table is encoded").
pub const KEYED_LANE_FIRST: [u32; 10] = [63, 32, 32, 64, 0, 6, 33, 64, 63, 162];
/// Body widths of a keyed lane's second selector.
pub const KEYED_LANE_SECOND: [u32; 3] = [0, 0, 11];
/// Bits of each keyed-lane selector.
pub const KEYED_LANE_SELECTOR_BITS: u32 = 6;
/// The largest predicate body: a biased i8 mode plus at most a ClientRef (AH).
pub const PREDICATE_MAX_BODY_BITS: usize = 8 + 55;
/// The schema handle of a runtime i32 value (facts 4.8).
pub const RUNTIME_I32: u32 = crate::activity::auth::lifetime::SWITCH_CLASS_I32;
/// The walker's own stack: nesting is at most 32 deep (TD "The walker's view").
pub const MAX_DEPTH: usize = 32;

/// A value the client cannot take safely, which the encoder refuses (AH "Values that crash
/// the client"). The decoder reads such values as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// The integer must lie in `min..=max`.
    Range {
        /// The rule that says so.
        rule: Rule,
        /// The smallest safe value.
        min: i128,
        /// The largest safe value.
        max: i128,
    },
    /// The integer must not be one of these.
    Refused {
        /// The rule that says so.
        rule: Rule,
        /// The values that crash the client.
        values: &'static [i128],
    },
    /// The field must be absent (its presence bit clear).
    Absent {
        /// The rule that says so.
        rule: Rule,
    },
    /// The record must not have every field zero (a zeroed clock window, SLOT-03).
    NotAllZero {
        /// The rule that says so.
        rule: Rule,
    },
}

/// One field descriptor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Field {
    /// A descriptive name (names never go on the wire).
    pub name: &'static str,
    /// One bit precedes the value; 0 omits it (BODY-03).
    pub presence: bool,
    /// The wire form.
    pub kind: Kind,
    /// What the encoder refuses.
    pub guards: &'static [Guard],
}

/// A definition: a named list of fields, walked in order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schema {
    /// A descriptive name.
    pub name: &'static str,
    /// The fields.
    pub fields: &'static [Field],
}

impl Field {
    /// A field with no presence bit.
    pub const fn always(name: &'static str, kind: Kind) -> Self {
        Self {
            name,
            presence: false,
            kind,
            guards: &[],
        }
    }

    /// A field behind a presence bit.
    pub const fn optional(name: &'static str, kind: Kind) -> Self {
        Self {
            name,
            presence: true,
            kind,
            guards: &[],
        }
    }

    /// The same field with values the encoder refuses.
    pub const fn guarded(self, guards: &'static [Guard]) -> Self {
        Self { guards, ..self }
    }
}

/// A signed integer of `width` bits with `bias`.
pub const fn int(width: u32, bias: i64) -> Kind {
    Kind::Int {
        width,
        bias,
        signed: true,
    }
}

/// An unsigned integer of `width` bits with `bias`.
pub const fn uint(width: u32, bias: i64) -> Kind {
    Kind::Int {
        width,
        bias,
        signed: false,
    }
}

/// An i32 with bias 2^31.
pub const I32: Kind = int(32, crate::bits::I32_BIAS);
/// A u32 with bias 0.
pub const U32: Kind = uint(32, 0);
/// A u64 with bias 0.
pub const U64: Kind = uint(64, 0);
