//! Documented bodies declared as schemas, so one walker encodes, decodes, measures and
//! prints each (AH "Slots", "Key slot types", "How an Auth table is encoded").
//!
//! Where the pages give a width but not a bias, the field is unsigned with bias 0, and
//! the comment says so.

use super::kind::{Field, Guard, I32, Kind, Schema, U32, U64, int, uint};
use vex_rules::Rule;

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
/// is an open question of AH; 386 bits. A zeroed clock window is no neutral timer: the
/// encoder refuses it (SLOT-03; a slot with no real timer goes reset-only).
pub const ACTIVITY_TIMER: Schema = Schema {
    name: "activity_timer_sensor",
    fields: &[
        Field::always("clock", Kind::Record(&CLOCK_WINDOW))
            .guarded(&[Guard::NotAllZero { rule: Rule::Slot03 }]),
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

/// Type 2 combatant_sensor, as far as the pages lay it out (AH "Type 2"): the spawn-edge
/// revision, the active and ownership fields and the master enable, which are the fields
/// message 5 applies with the keyed lanes. Fields .4 to .7 are given only as memory
/// records, so they can be sent absent and nothing else. AH's 11-bit minimum is these
/// seven bits plus four presence bits, so .4 too has a presence bit. The revision is an
/// i32 with the -2^31 bias every i32 of the documented bodies carries.
pub const COMBATANT: Schema = Schema {
    name: "combatant_sensor",
    fields: &[
        Field::optional("spawn_revision", I32),
        Field::always("active", int(2, 1)),
        Field::always("ownership", int(3, 1)),
        Field::always("master_enable", Kind::Bool),
        Field::optional(
            "keyed_lanes",
            Kind::Undocumented {
                what: "type 2 field .4: eight keyed result lanes {key, generation} and a result mask (68 bytes in memory)",
            },
        ),
        Field::optional(
            "actor_control",
            Kind::Undocumented {
                what: "type 2 field .5: actor control (180 bytes in memory)",
            },
        ),
        Field::optional(
            "action_program",
            Kind::Undocumented {
                what: "type 2 field .6: a 32-step action program (2,064 bytes in memory)",
            },
        ),
        Field::optional(
            "referenced_slots",
            Kind::Undocumented {
                what: "type 2 field .7: eight referenced slots and a registration generation (72 bytes in memory)",
            },
        ),
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
            rule: Rule::T1701,
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

/// Type 65's Sense: {active, fraction, generation} (AH "Type 65": the client "reports
/// {active, fraction, generation} through Sense"). The pages give no widths; Vex reads
/// them as the Auth's own kinds (a bool, a raw float32, an i32 with the bias of every
/// documented i32), which is Vex's reading, not a documented layout.
pub const GHOST_LINK_SENSE: Schema = Schema {
    name: "ghost_link_sense",
    fields: &[
        Field::always("active", Kind::Bool),
        Field::always("fraction", Kind::Real),
        Field::always("generation", I32),
    ],
};

/// Every schema declared here, for tools and tests.
pub const ALL: [&Schema; 11] = [
    &CLIENT_REF,
    &COMBATANT,
    &PARTICIPATION,
    &CLOCK_WINDOW,
    &ACTIVITY_TIMER,
    &OBJECTIVE,
    &CHANNEL,
    &TEAM_SIDE,
    &GHOST_LINK,
    &GHOST_LINK_SENSE,
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
                (min, Some(max)),
                "{}",
                schema.name
            );
        }
    }
}
