//! Documented bodies declared as schemas, so one walker encodes, decodes, measures and
//! prints each (AH "Slots", "Key slot types", "How an Auth table is encoded").
//!
//! Where the pages give a width but not a bias, the field is unsigned with bias 0, and
//! the comment says so.

use super::kind::{Field, Guard, I32, Kind, Schema, U32, U64, int, uint};

/// ClientRef: key (32, bias 0), type (7, bias 1), index (16, bias 32768); 55 bits
/// (AH "Slots", SLOT-01).
pub const CLIENT_REF: Schema = Schema {
    name: "client_ref",
    fields: &[
        Field::always("registry_key", U32),
        Field::always("slot_type", int(7, 1)),
        Field::always("slot_index", int(16, 32768)),
    ],
};

/// The 353-bit clock window of types 18 and 35 (AH "How an Auth table is encoded").
pub const CLOCK_WINDOW: Schema = Schema {
    name: "clock_window",
    fields: &[
        Field::always("running", Kind::Bool),
        Field::always("minimum", U64),
        Field::always("maximum", U64),
        Field::always("value_at_epoch", U64),
        Field::always("remaining_at_epoch", U64),
        Field::always("epoch", U64),
        Field::always("rate", Kind::Real),
    ],
};

/// Type 18 activity_timer_sensor: the clock window, then a bool and an int32 whose use
/// is an open question of AH; 386 bits.
pub const ACTIVITY_TIMER: Schema = Schema {
    name: "activity_timer_sensor",
    fields: &[
        Field::always("clock", Kind::Record(&CLOCK_WINDOW)),
        Field::always("tail_flag", Kind::Bool),
        Field::always("tail_value", I32),
    ],
};

const OBJECTIVE_ENTRY: Schema = Schema {
    name: "objective_entry",
    // 7 bits with a presence bit; AH gives no bias, so 0.
    fields: &[Field::optional("value", uint(7, 0))],
};

/// Type 3 objective_sensor: 24 objectives of 7 bits, each and the array behind a presence
/// bit, then a 31-bit generation behind one (AH "Type 3"); 2 to 225 bits.
pub const OBJECTIVE: Schema = Schema {
    name: "objective_sensor",
    fields: &[
        Field::optional(
            "objective",
            Kind::FixedArray {
                element: &Kind::Record(&OBJECTIVE_ENTRY),
                len: 24,
            },
        ),
        // 31 bits; AH gives no bias, so 0.
        Field::optional("generation", uint(31, 0)),
    ],
};

const CHANNEL_ROW: Schema = Schema {
    name: "channel_row",
    fields: &[
        Field::always("revision", I32),
        Field::always("target", Kind::Real),
        Field::always("blend_seconds", Kind::Real),
    ],
};

/// Type 24 channel_sensor: a 3-bit count and up to four rows of {i32 revision, float
/// target, float blend seconds} (AH "Type 24"); 3 to 387 bits.
pub const CHANNEL: Schema = Schema {
    name: "channel_sensor",
    fields: &[Field::always(
        "rows",
        Kind::Array {
            element: &Kind::Record(&CHANNEL_ROW),
            count_width: 3,
            capacity: 4,
        },
    )],
};

/// Type 67 team_side_sensor: {i32 side[32], bool, i32}; 1,057 bits (AH "Type 67").
pub const TEAM_SIDE: Schema = Schema {
    name: "team_side_sensor",
    fields: &[
        Field::always(
            "side",
            Kind::FixedArray {
                element: &I32,
                len: 32,
            },
        ),
        Field::always("flag", Kind::Bool),
        Field::always("value", I32),
    ],
};

/// Type 65 ghost_link_sensor: {int32 generation, bool active, u32 interaction hash}
/// (AH "Type 65"; the struct is 12 bytes).
pub const GHOST_LINK: Schema = Schema {
    name: "ghost_link_sensor",
    fields: &[
        Field::always("generation", I32),
        Field::always("active", Kind::Bool),
        Field::always("interaction_hash", U32),
    ],
};

const SWITCH: Schema = Schema {
    name: "switch",
    fields: &[
        Field::always("key", U32),
        Field::always("value", Kind::DynamicValue),
    ],
};

const SPAWN_PAIR: Schema = Schema {
    name: "spawn_pair",
    fields: &[
        Field::always("index", int(10, 1)),
        Field::always("hash", U32),
    ],
};

/// Type 17 activity_lifetime_sensor: 20 fields, no presence bits (AH "Type 17",
/// facts 4.8); 423 to 2,265 bits. The definition refs are a 3-bit count of up to six
/// 32-bit values (28 bytes: the count and six refs).
pub const LIFETIME: Schema = Schema {
    name: "activity_lifetime_sensor",
    fields: &[
        Field::always("state", int(4, 1)).guarded(&[Guard::Range {
            rule: "T17-01",
            min: -1,
            max: 10,
        }]),
        Field::always("quality_bypass", int(3, 1)),
        Field::always("join_flag_inverted", Kind::Bool),
        Field::always("marker_revision", I32),
        Field::always("spawn_entry_hash", U32),
        Field::always("current_bubble", I32),
        Field::always(
            "switches",
            Kind::Array {
                element: &Kind::Record(&SWITCH),
                count_width: 6,
                capacity: 50,
            },
        ),
        Field::always("unused_1220", I32),
        Field::always(
            "spawn_override",
            Kind::FixedArray {
                element: &Kind::Record(&SPAWN_PAIR),
                len: 3,
            },
        ),
        Field::always("cycle_override_on", Kind::Bool),
        Field::always("cycle_phase", Kind::Real),
        Field::always("selection_id", I32),
        Field::always("selection_target", Kind::Record(&CLIENT_REF)),
        Field::always("selection_arg", U32),
        Field::always(
            "definition_refs",
            Kind::Array {
                element: &U32,
                count_width: 3,
                capacity: 6,
            },
        ),
    ],
};

/// Type 13 participation, as Sunrise writes it (facts 4.8): the region and the player key
/// behind presence bits, the other fields by width only; 192 bits, 224 with the region.
pub const PARTICIPATION: Schema = Schema {
    name: "participation",
    fields: &[
        Field::optional("region", I32),
        Field::always("f3", uint(1, 0)),
        Field::always("f4", uint(1, 0)),
        Field::always("f5", uint(1, 0)),
        Field::always("f6", uint(1, 0)),
        Field::always("f7", uint(1, 0)),
        Field::always("f8", uint(3, 0)),
        Field::always("f9", uint(2, 0)),
        Field::always("f10", uint(3, 0)),
        Field::always("f11", U32),
        Field::always("f12a", uint(5, 0)),
        Field::always("f12b", uint(1, 0)),
        Field::always("f12c", uint(3, 0)),
        Field::optional("player_key", U64),
        Field::always("f15", uint(5, 0)),
        Field::always("f16", uint(6, 0)),
        Field::always("f17", uint(6, 0)),
        Field::always("f18", uint(6, 0)),
        Field::always("f19", uint(1, 0)),
        Field::always("sync_state", uint(4, 0)),
        Field::always("f21", uint(3, 0)),
        Field::always("f22", uint(1, 0)),
        Field::always("f23", int(8, 128)),
        Field::always("f24", I32),
    ],
};

/// Every schema declared here, for tools and tests.
pub const ALL: [&Schema; 9] = [
    &CLIENT_REF,
    &PARTICIPATION,
    &CLOCK_WINDOW,
    &ACTIVITY_TIMER,
    &OBJECTIVE,
    &CHANNEL,
    &TEAM_SIDE,
    &GHOST_LINK,
    &LIFETIME,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::measure::{max_bits, min_bits};

    /// AH's slot table and the sizes the pages give, as tests of the schema tables.
    #[test]
    fn documented_sizes() {
        let sizes = [
            (&CLIENT_REF, 55, 55),
            (&CLOCK_WINDOW, 353, 353),
            (&OBJECTIVE, 2, 225),
            (&CHANNEL, 3, 387),
            (&TEAM_SIDE, 1057, 1057),
            (&LIFETIME, 423, 2265),
        ];
        for (schema, min, max) in sizes {
            assert_eq!(
                (min_bits(schema), max_bits(schema)),
                (min, max),
                "{}",
                schema.name
            );
        }
    }
}

#[cfg(test)]
mod round_trip {
    use super::*;
    use crate::bits::{BitReader, BitWriter};
    use crate::schema::kind::{KEYED_LANE_FIRST, KEYED_LANE_SECOND, RUNTIME_I32};
    use crate::schema::measure::{max_bits, min_bits};
    use crate::schema::walk::int_from_stored;
    use crate::schema::{TagMode, Value, decode, encode};
    use proptest::prelude::*;

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
                            if f.presence
                                && f.guards.iter().any(|g| matches!(g, Guard::Absent { .. }))
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
                    Value::Lane {
                        first,
                        second,
                        first_body: self.bytes(KEYED_LANE_FIRST[usize::from(first)]),
                        second_body: self.bytes(KEYED_LANE_SECOND[usize::from(second)]),
                    }
                }
                Kind::DynamicValue => match self.below(2) {
                    0 => Value::Absent,
                    _ => Value::Dynamic {
                        handle: RUNTIME_I32,
                        value: self.next() as i32,
                    },
                },
                Kind::PredicateUnion => Value::Absent,
            }
        }
    }

    proptest! {
        #[test]
        fn every_schema_round_trips_within_its_bounds(seed in 1u64..) {
            let mut g = Gen(seed);
            let catalogued = crate::schema::catalog::names()
                .iter()
                .filter_map(|n| n.split_whitespace().last().and_then(crate::schema::catalog::lookup))
                .collect::<Vec<_>>();
            for schema in ALL.iter().copied().chain([&TAG_FIELDS]).chain(catalogued) {
                let v = g.record(schema);
                let mut w = BitWriter::new();
                encode(schema, &v, &mut w).unwrap();
                let bits = w.bit_len();
                prop_assert!(bits >= min_bits(schema), "{} below its minimum", schema.name);
                if schema.name != LIFETIME.name {
                    // type 17's maximum counts switch values by their presence bit alone
                    prop_assert!(bits <= max_bits(schema), "{} above its maximum", schema.name);
                }
                let bytes = w.finish().unwrap();
                let back = decode(schema, &mut BitReader::new(&bytes)).unwrap();
                prop_assert_eq!(&back, &v, "{}", schema.name);
                if bits > 0 {
                    let cut = BitReader::with_bit_len(&bytes, bits - 1);
                    prop_assert!(decode(schema, &mut cut.clone()).is_err(), "{} one bit short", schema.name);
                }
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
        let mut w = BitWriter::new();
        typed.write(&mut w);
        let bits = w.finish_bits().unwrap();
        let v = decode(&PARTICIPATION, &mut bits.reader()).unwrap();
        let mut w = BitWriter::new();
        encode(&PARTICIPATION, &v, &mut w).unwrap();
        assert_eq!(w.finish_bits().unwrap(), bits);
        assert_eq!(min_bits(&PARTICIPATION), 2 + 190 - 64);
        assert_eq!(max_bits(&PARTICIPATION), 224);
    }

    /// The schema walker and the hand-written type-17 codec agree bit for bit.
    #[test]
    fn lifetime_schema_matches_the_typed_body() {
        use crate::activity::auth::lifetime::LifetimeAuth;
        let mut w = BitWriter::new();
        LifetimeAuth::sunrise_default(3).write(&mut w);
        let typed = w.finish_bits().unwrap();
        let v = decode(&LIFETIME, &mut typed.reader()).unwrap();
        let mut w = BitWriter::new();
        encode(&LIFETIME, &v, &mut w).unwrap();
        assert_eq!(w.finish_bits().unwrap(), typed);
        let Value::Record(fields) = v else { panic!() };
        assert_eq!(fields[0], Value::Int(3), "state");
    }

    #[test]
    fn values_out_of_range_and_wrong_shapes_are_refused() {
        let mut w = BitWriter::new();
        let v = Value::Record(vec![Value::Int(1 << 32), Value::Int(0), Value::Int(0)]);
        assert!(encode(&CLIENT_REF, &v, &mut w).is_err());
        let v = Value::Record(vec![Value::Bool(true), Value::Int(0), Value::Int(0)]);
        assert!(encode(&CLIENT_REF, &v, &mut BitWriter::new()).is_err());
    }

    /// A presence bit in front of a kind with its own null would read "1 0" as absent and
    /// write it back as "0": no declared schema may have one.
    #[test]
    fn no_optional_field_has_a_nullable_kind() {
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
            18 + 33 + 97 + 33 + (12 + 162 + 11) + 96
        );
    }

    /// Signed fields subtract the bias and narrow to their type; they are not sign-extended
    /// from the wire width: state 10 (wire 11 in 4 bits) and slot type 65 (wire 66 in 7).
    #[test]
    fn biased_signed_fields_keep_their_whole_range() {
        let r = Value::Record(vec![Value::Int(7), Value::Int(65), Value::Int(-1)]);
        let mut w = BitWriter::new();
        encode(&CLIENT_REF, &r, &mut w).unwrap();
        let bytes = w.finish().unwrap();
        assert_eq!(decode(&CLIENT_REF, &mut BitReader::new(&bytes)).unwrap(), r);
        let mut lifetime = BitWriter::new();
        crate::activity::auth::lifetime::LifetimeAuth::sunrise_default(10).write(&mut lifetime);
        let bits = lifetime.finish_bits().unwrap();
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
        let refused = encode(&LIFETIME, &Value::Record(eleven), &mut BitWriter::new());
        assert!(matches!(
            refused,
            Err(crate::schema::SchemaError::Unsafe { rule: "T17-01", .. })
        ));
        let bad = Value::Record(vec![Value::Int(7), Value::Int(-5), Value::Int(0)]);
        assert!(
            encode(&CLIENT_REF, &bad, &mut BitWriter::new()).is_err(),
            "-5 + 1 is negative"
        );
    }

    /// BODY-05: a count above capacity is clamped on encode.
    #[test]
    fn dynamic_counts_are_clamped() {
        let rows = Value::Array(vec![
            Value::Record(vec![
                Value::Int(1),
                Value::Raw { bits: 0, width: 32 },
                Value::Raw { bits: 0, width: 32 },
            ]);
            9
        ]);
        let mut w = BitWriter::new();
        encode(&CHANNEL, &Value::Record(vec![rows]), &mut w).unwrap();
        assert_eq!(w.bit_len(), 387);
        let bytes = w.finish().unwrap();
        assert_eq!(bytes[0] >> 5, 4, "the count says 4");
        let over = [0b1010_0000u8, 0, 0, 0];
        assert!(matches!(
            decode(&CHANNEL, &mut BitReader::new(&over)),
            Err(crate::schema::SchemaError::OverCapacity { count: 5, .. })
        ));
    }
}
