//! Round trips of the schema walker: every declared body with generated values, and
//! generated schemas with generated values (issue 3 "Done means": proptest round trips for
//! the walker over generated schemas and values).

use super::kind::{Field, Guard, Kind, Schema};
use super::tables::*;
use crate::activity::body::Body;
use crate::bits::{BitReader, BitWriter, Bits, written, written_bits};
use crate::schema::kind::{KEYED_LANE_FIRST, KEYED_LANE_SECOND, RUNTIME_I32};
use crate::schema::measure::{max_bits, min_bits};
use crate::schema::walk::int_from_stored;
use crate::schema::{
    KeyedLane, SchemaError, TagMode, Value, decode, decode_into, decode_traced, encode, encode_bits,
};
use proptest::prelude::*;
use vex_rules::Rule;

/// The kinds no documented table uses yet, so the walker's handling of each is tested.
const TAG_FIELDS: Schema = Schema {
    name: "tags",
    fields: &[
        Field::always("investment", Kind::TagRef(TagMode::Investment)),
        Field::always("simulation", Kind::TagRef(TagMode::Simulation)),
        Field::optional("position", Kind::Position),
        Field::always("nullable", Kind::NullableU32),
        Field::always("lane", Kind::KeyedLane),
        Field::always("predicate", Kind::PredicateUnion),
    ],
};

/// A small deterministic generator, so one proptest seed gives one value tree.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn record(&mut self, s: &Schema) -> Value {
        Value::Record(
            s.fields
                .iter()
                .map(|f| {
                    loop {
                        let v = if f.presence && self.below(3) == 0 {
                            Value::Absent
                        } else {
                            self.kind(&f.kind)
                        };
                        if f.presence && f.guards.iter().any(|g| matches!(g, Guard::Absent { .. }))
                        {
                            break Value::Absent;
                        }
                        if crate::schema::walk::check_guards(f, &v, "").is_ok() {
                            break v;
                        }
                    }
                })
                .collect(),
        )
    }

    fn bytes(&mut self, bits: u32) -> Vec<u8> {
        let mut v: Vec<u8> = (0..bits.div_ceil(8)).map(|_| self.next() as u8).collect();
        if !bits.is_multiple_of(8)
            && let Some(last) = v.last_mut()
        {
            *last &= 0xFF << (8 - bits % 8);
        }
        v
    }

    fn kind(&mut self, k: &Kind) -> Value {
        match k {
            Kind::Record(s) => self.record(s),
            Kind::Bits { width } => Value::Bits(self.bytes(*width)),
            Kind::Bool => Value::Bool(self.below(2) == 1),
            Kind::Int {
                width,
                bias,
                signed,
            } => {
                let stored = self.next() & (u64::MAX >> (64 - width));
                Value::Int(int_from_stored(stored, *width, *bias, *signed))
            }
            Kind::QuantizedReal { width, .. } => Value::Raw {
                bits: u128::from(self.next() & ((1u64 << width) - 1)),
                width: *width,
            },
            Kind::Real => Value::Raw {
                bits: u128::from(self.next() as u32),
                width: 32,
            },
            Kind::Position => Value::Position([self.next() as u32, 7, self.next() as u32]),
            Kind::NullableU32 => match self.below(2) {
                0 => Value::Absent,
                _ => Value::Int(i128::from(self.next() as u32)),
            },
            Kind::TagRef(TagMode::Investment) => match self.below(3) {
                0 => Value::Tag(-1),
                1 => Value::Tag(-2),
                _ => Value::Tag((self.below(0x2000) | (self.below(16) << 16)) as i64),
            },
            Kind::TagRef(TagMode::Simulation) => match self.below(2) {
                0 => Value::Tag(-1),
                _ => Value::Tag(i64::from(self.next() as u32)),
            },
            Kind::FixedArray { element, len } => {
                Value::Array((0..*len).map(|_| self.kind(element)).collect())
            }
            Kind::Array {
                element, capacity, ..
            } => {
                let n = self.below(u64::from(*capacity) + 1);
                Value::Array((0..n).map(|_| self.kind(element)).collect())
            }
            Kind::KeyedLane => {
                let first = self.below(10) as u8;
                let second = self.below(3) as u8;
                Value::Lane(Box::new(KeyedLane {
                    first,
                    second,
                    first_body: self.bytes(KEYED_LANE_FIRST[usize::from(first)]),
                    second_body: self.bytes(KEYED_LANE_SECOND[usize::from(second)]),
                }))
            }
            Kind::DynamicValue => match self.below(2) {
                0 => Value::Absent,
                _ => Value::Dynamic {
                    handle: RUNTIME_I32,
                    value: self.next() as i32,
                },
            },
            Kind::PredicateUnion | Kind::Undocumented { .. } => Value::Absent,
        }
    }
}

/// Generated schemas: each is leaked, so it lives as long as the test process, as a
/// declared schema does.
impl Gen {
    fn schema(&mut self, depth: u32) -> &'static Schema {
        let fields: Vec<Field> = (0..=self.below(5))
            .map(|i| {
                // an undocumented body only ever stands as a field, behind its presence bit
                let kind = match self.below(16) {
                    0 => Kind::Undocumented { what: "generated" },
                    _ => self.schema_kind(depth),
                };
                let name: &'static str = Box::leak(format!("f{i}").into_boxed_str());
                let has_own_null = matches!(
                    kind,
                    Kind::NullableU32 | Kind::DynamicValue | Kind::PredicateUnion
                );
                let undocumented = matches!(kind, Kind::Undocumented { .. });
                if undocumented || (!has_own_null && self.below(2) == 0) {
                    Field::optional(name, kind)
                } else {
                    Field::always(name, kind)
                }
            })
            .collect();
        Box::leak(Box::new(Schema {
            name: "generated",
            fields: Box::leak(fields.into_boxed_slice()),
        }))
    }

    fn schema_kind(&mut self, depth: u32) -> Kind {
        let leaves = 12;
        match self.below(if depth == 0 { leaves } else { leaves + 3 }) {
            0 => Kind::Bits {
                width: 1 + self.below(100) as u32,
            },
            1 => Kind::Bool,
            2 => {
                let width = 1 + self.below(64) as u32;
                let bias = match self.below(4) {
                    0 => 0,
                    1 => 1,
                    2 => 1i64 << (width - 1).min(62),
                    _ => self.below(1000) as i64,
                };
                Kind::Int {
                    width,
                    bias,
                    signed: self.below(2) == 0,
                }
            }
            3 => Kind::QuantizedReal {
                width: 1 + self.below(32) as u32,
                min: -1.0,
                max: 1.0,
            },
            4 => Kind::Real,
            5 => Kind::Position,
            6 => Kind::NullableU32,
            7 => Kind::TagRef(TagMode::Investment),
            8 => Kind::TagRef(TagMode::Simulation),
            9 => Kind::KeyedLane,
            10 => Kind::DynamicValue,
            11 => Kind::PredicateUnion,
            12 => Kind::Record(self.schema(depth - 1)),
            13 => Kind::FixedArray {
                element: Box::leak(Box::new(self.schema_kind(depth - 1))),
                len: self.below(4) as u16,
            },
            _ => {
                let count_width = 1 + self.below(4) as u32;
                let most = (1u64 << count_width) - 1;
                Kind::Array {
                    element: Box::leak(Box::new(self.schema_kind(depth - 1))),
                    count_width,
                    capacity: self.below(most.min(4) + 1) as u16,
                }
            }
        }
    }
}

/// Whether a dynamic schema value sits anywhere in `schema`: [`max_bits`] counts it as its
/// presence bit alone, as AH's table does.
fn has_dynamic_value(schema: &Schema) -> bool {
    fn in_kind(k: &Kind) -> bool {
        match k {
            Kind::DynamicValue => true,
            Kind::Record(s) => has_dynamic_value(s),
            Kind::FixedArray { element, .. } | Kind::Array { element, .. } => in_kind(element),
            _ => false,
        }
    }
    schema.fields.iter().any(|f| in_kind(&f.kind))
}

/// Encodes `value`, then checks what every body must satisfy: the measuring writer agrees
/// with the real one, the size lies within the schema's bounds, the decode gives the value
/// back, the traced decode lists contiguous fields that end where the body ends, and one
/// bit less does not decode.
/// `value` written and read back by `schema`, within the schema's bounds; read into
/// `reused` too, which holds whatever was read before (a value of another shape, or of
/// another schema).
fn check_round_trip(
    schema: &Schema,
    value: &Value,
    reused: &mut Value,
) -> Result<(), TestCaseError> {
    let written = encode_bits(schema, value).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
    let bits = written.bit_len;
    let mut measured = BitWriter::measuring();
    encode(schema, value, &mut measured).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
    prop_assert_eq!(measured.bit_len(), bits, "{} measured", schema.name);
    prop_assert!(
        bits >= min_bits(schema),
        "{} below its minimum",
        schema.name
    );
    if !has_dynamic_value(schema)
        && let Some(max) = max_bits(schema)
    {
        prop_assert!(bits <= max, "{} above its maximum", schema.name);
    }
    let bytes = written.bytes;
    let back = decode(schema, &mut BitReader::new(&bytes));
    prop_assert_eq!(back.as_ref().ok(), Some(value), "{}", schema.name);
    let into = decode_into(schema, &mut BitReader::new(&bytes), reused);
    prop_assert_eq!(
        into.ok().map(|_| &*reused),
        Some(value),
        "{} reused",
        schema.name
    );
    let mut lines = Vec::new();
    let traced = decode_traced(schema, &mut BitReader::new(&bytes), &mut lines);
    prop_assert_eq!(traced.as_ref().ok(), Some(value), "{} traced", schema.name);
    let mut end = 0;
    for line in &lines {
        prop_assert_eq!(
            line.at,
            end,
            "{}: a gap or overlap at {}",
            schema.name,
            &line.path
        );
        end = line.at + line.width;
    }
    prop_assert_eq!(
        end,
        bits,
        "{}: the trace ends where the body ends",
        schema.name
    );
    if bits > 0 {
        let cut = BitReader::with_bit_len(&bytes, bits - 1);
        prop_assert!(
            decode(schema, &mut cut.clone()).is_err(),
            "{} one bit short",
            schema.name
        );
    }
    Ok(())
}

proptest! {
    #[test]
    fn every_schema_round_trips_within_its_bounds(seed in 1u64..) {
        let mut g = Gen(seed);
        let catalogued = crate::schema::catalog::names()
            .iter()
            .filter_map(|n| n.split_whitespace().last().and_then(crate::schema::catalog::lookup))
            .collect::<Vec<_>>();
        let mut reused = Value::Absent;
        for schema in ALL.iter().copied().chain([&TAG_FIELDS]).chain(catalogued) {
            for _ in 0..2 {
                let v = g.record(schema);
                check_round_trip(schema, &v, &mut reused)?;
            }
        }
    }

    /// Schemas of every kind, nested up to three records deep, with values of their own.
    #[test]
    fn generated_schemas_round_trip_within_their_bounds(seed in 1u64..) {
        let mut g = Gen(seed);
        let schema = g.schema(3);
        let mut reused = Value::Absent;
        for _ in 0..3 {
            let v = g.record(schema);
            check_round_trip(schema, &v, &mut reused)?;
        }
    }
}

/// The schema walker and the hand-written type-13 codec agree bit for bit.
#[test]
fn participation_schema_matches_the_typed_body() {
    use crate::activity::auth::participation::ParticipationAuth;
    let typed = ParticipationAuth {
        region: Some(0),
        player_key: Some(0x0123_4567_89AB_CDEF),
        sync_state: 2,
    };
    let bits = written_bits(|w| {
        typed.write(w);
    })
    .unwrap();
    let v = decode(&PARTICIPATION, &mut bits.reader()).unwrap();
    assert_eq!(encode_bits(&PARTICIPATION, &v).unwrap(), bits);
    assert_eq!(min_bits(&PARTICIPATION), 2 + 190 - 64);
    assert_eq!(max_bits(&PARTICIPATION), Some(224));
}

/// The schema walker and the hand-written type-17 codec agree bit for bit.
#[test]
fn lifetime_schema_matches_the_typed_body() {
    use crate::activity::auth::lifetime::LifetimeAuth;
    let typed = written_bits(|w| {
        LifetimeAuth::sunrise_default(3).write(w);
    })
    .unwrap();
    let v = decode(&LIFETIME, &mut typed.reader()).unwrap();
    assert_eq!(encode_bits(&LIFETIME, &v).unwrap(), typed);
    let Value::Record(fields) = v else { panic!() };
    assert_eq!(fields[0], Value::Int(3), "state");
}

#[test]
fn values_out_of_range_and_wrong_shapes_are_refused() {
    let v = Value::Record(vec![Value::Int(1 << 32), Value::Int(0), Value::Int(0)]);
    assert!(encode(&CLIENT_REF, &v, &mut BitWriter::measuring()).is_err());
    let v = Value::Record(vec![Value::Bool(true), Value::Int(0), Value::Int(0)]);
    assert!(encode(&CLIENT_REF, &v, &mut BitWriter::measuring()).is_err());
}

/// SLOT-03: the encoder refuses a type-18 body whose clock window is all zeros, names the
/// window and the rule, and takes the same body once any window field is set; the decoder
/// still reads the zeroed one as sent.
#[test]
fn a_zeroed_clock_window_is_refused() {
    let body = |running: bool| {
        let zero = Value::Int(0);
        let window = vec![
            Value::Bool(running),
            zero.clone(),
            zero.clone(),
            zero.clone(),
            zero.clone(),
            zero.clone(),
            Value::Raw { bits: 0, width: 32 },
        ];
        Value::Record(vec![Value::Record(window), Value::Bool(false), zero])
    };
    let refused = encode(&ACTIVITY_TIMER, &body(false), &mut BitWriter::measuring());
    match refused {
        Err(SchemaError::Unsafe { path, rule, .. }) => {
            assert_eq!((path.as_str(), rule), ("clock", Rule::Slot03));
        }
        other => panic!("a zeroed window encoded: {other:?}"),
    }
    let bits = written_bits(|w| {
        encode(&ACTIVITY_TIMER, &body(true), w).unwrap();
    })
    .unwrap();
    let zeroed = Bits {
        bytes: vec![0; bits.bytes.len()],
        bit_len: bits.bit_len,
    };
    let read = decode(&ACTIVITY_TIMER, &mut zeroed.reader()).unwrap();
    let Value::Record(fields) = read else {
        panic!("not a record")
    };
    assert!(matches!(&fields[0], Value::Record(w) if w.iter().all(Value::is_zero)));
}

/// A presence bit in front of a kind with its own null would read "1 0" as absent and
/// write it back as "0": no declared schema may have one. An undocumented body can only be
/// sent absent, so it always has one.
#[test]
fn presence_bits_fit_their_kinds() {
    let nullable = |k: &Kind| {
        matches!(
            k,
            Kind::NullableU32 | Kind::DynamicValue | Kind::PredicateUnion
        )
    };
    let mut stack: Vec<&Schema> = ALL.to_vec();
    stack.extend(crate::schema::catalog::names().iter().filter_map(|n| {
        n.split_whitespace()
            .last()
            .and_then(crate::schema::catalog::lookup)
    }));
    while let Some(s) = stack.pop() {
        for f in s.fields {
            assert!(!(f.presence && nullable(&f.kind)), "{}.{}", s.name, f.name);
            let undocumented = matches!(f.kind, Kind::Undocumented { .. });
            assert!(
                f.presence || !undocumented,
                "{}.{} cannot be sent absent",
                s.name,
                f.name
            );
            if let Kind::Record(inner) = f.kind {
                stack.push(inner);
            }
        }
    }
}

#[test]
fn tag_and_lane_sizes() {
    assert_eq!(min_bits(&TAG_FIELDS), 2 + 1 + 1 + 1 + 12 + 1);
    assert_eq!(
        max_bits(&TAG_FIELDS),
        Some(18 + 33 + 97 + 33 + (12 + 162 + 11) + 96)
    );
}

/// Signed fields subtract the bias and narrow to their type; they are not sign-extended
/// from the wire width: state 10 (wire 11 in 4 bits) and slot type 65 (wire 66 in 7).
#[test]
fn biased_signed_fields_keep_their_whole_range() {
    let r = Value::Record(vec![Value::Int(7), Value::Int(65), Value::Int(-1)]);
    let bytes = written(|w| {
        encode(&CLIENT_REF, &r, w).unwrap();
    })
    .unwrap();
    assert_eq!(decode(&CLIENT_REF, &mut BitReader::new(&bytes)).unwrap(), r);
    let bits = written_bits(|lifetime| {
        crate::activity::auth::lifetime::LifetimeAuth::sunrise_default(10).write(lifetime);
    })
    .unwrap();
    let Value::Record(f) = decode(&LIFETIME, &mut bits.reader()).unwrap() else {
        panic!("a record")
    };
    assert_eq!(f[0], Value::Int(10));
    assert_eq!(f[1], Value::Int(0), "quality_bypass");
    let mut eleven = match decode(&LIFETIME, &mut bits.reader()).unwrap() {
        Value::Record(f) => f,
        _ => unreachable!(),
    };
    eleven[0] = Value::Int(11);
    let refused = encode(
        &LIFETIME,
        &Value::Record(eleven),
        &mut BitWriter::measuring(),
    );
    assert!(matches!(
        refused,
        Err(crate::schema::SchemaError::Unsafe {
            rule: vex_rules::Rule::T1701,
            ..
        })
    ));
    let bad = Value::Record(vec![Value::Int(7), Value::Int(-5), Value::Int(0)]);
    assert!(
        encode(&CLIENT_REF, &bad, &mut BitWriter::measuring()).is_err(),
        "-5 + 1 is negative"
    );
}

/// BODY-05: more elements than an array holds are refused on encode, naming the array,
/// the count and the capacity (the game's codec would clamp them without a word); as many
/// as it holds encode; a count above capacity on the wire is refused on decode.
#[test]
fn counts_above_capacity_are_refused() {
    let rows = |n| {
        let row = Value::Record(vec![
            Value::Int(1),
            Value::Raw { bits: 0, width: 32 },
            Value::Raw { bits: 0, width: 32 },
        ]);
        Value::Record(vec![Value::Array(vec![row; n])])
    };
    for n in [5, 7, 9] {
        assert_eq!(
            encode(&CHANNEL, &rows(n), &mut BitWriter::measuring()),
            Err(crate::schema::SchemaError::OverCapacity {
                path: "rows".into(),
                count: n as u64,
                capacity: 4
            }),
            "{n} rows"
        );
    }
    assert_eq!(encode_bits(&CHANNEL, &rows(4)).unwrap().bit_len, 387);
    let over = [0b1010_0000u8, 0, 0, 0];
    assert!(matches!(
        decode(&CHANNEL, &mut BitReader::new(&over)),
        Err(crate::schema::SchemaError::OverCapacity { count: 5, .. })
    ));
}
