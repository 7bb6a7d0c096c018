//! Values the schema walker writes and reads.

/// A field's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A field whose presence bit is 0, or a null nullable value.
    Absent,
    /// A bool.
    Bool(bool),
    /// An integer, the logical value (the bias is not included); wide enough for a u64.
    Int(i128),
    /// Raw bits of a real, a quantized real or a keyed-lane body, with their width.
    Raw {
        /// The bits, right-aligned.
        bits: u128,
        /// How many.
        width: u32,
    },
    /// A raw run of bits ([`super::Kind::Bits`]), zero-padded to a byte.
    Bits(Vec<u8>),
    /// A position: three raw float32.
    Position([u32; 3]),
    /// A tag reference: the tag, or -1 / -2 for the two empties.
    Tag(i64),
    /// A keyed lane, boxed: it is rare, and inline it would double every value's size.
    Lane(Box<KeyedLane>),
    /// A dynamic value: its schema handle and, for a runtime i32, the value.
    Dynamic {
        /// The schema handle.
        handle: u32,
        /// The i32 value.
        value: i32,
    },
    /// A record's field values, in order.
    Record(Vec<Value>),
    /// An array's elements.
    Array(Vec<Value>),
}

/// A keyed lane's value: the two selectors and the raw body bits of each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyedLane {
    /// Index into the 10-entry table.
    pub first: u8,
    /// Index into the 3-entry table.
    pub second: u8,
    /// The first body's bits.
    pub first_body: Vec<u8>,
    /// The second body's bits.
    pub second_body: Vec<u8>,
}

impl Value {
    /// True for false, the integer 0, and a real or quantized real of zero bits.
    pub fn is_zero(&self) -> bool {
        matches!(
            self,
            Value::Bool(false) | Value::Int(0) | Value::Raw { bits: 0, .. }
        )
    }
}
