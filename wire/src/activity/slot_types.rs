//! The 39 slot types that carry an Auth schema (AH "Slot types"), in the page's order,
//! with the type numbers that are known and the evidence for each.
//!
//! AH's table names each schema, its record size and its smallest and largest wire body,
//! but not the type numbers; a number here is given only with its evidence.

/// One row of AH's slot-type table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotTypeInfo {
    /// The engine's schema name.
    pub name: &'static str,
    /// The Auth record size in bytes (the reflection struct size).
    pub auth_bytes: u32,
    /// The smallest and largest legal body in bits, where the page gives them.
    pub wire_bits: Option<(u32, u32)>,
    /// The slot type number, where known.
    pub number: Option<i8>,
    /// Why the number is believed, or what is known instead.
    pub evidence: &'static str,
}

const fn row(
    name: &'static str,
    auth_bytes: u32,
    wire_bits: Option<(u32, u32)>,
    number: Option<i8>,
    evidence: &'static str,
) -> SlotTypeInfo {
    SlotTypeInfo {
        name,
        auth_bytes,
        wire_bits,
        number,
        evidence,
    }
}

const UNKNOWN: &str = "not given by the pages";

/// AH's table, in order.
pub const SLOT_TYPES: [SlotTypeInfo; 39] = [
    row(
        "squad_sensor",
        196,
        Some((24, 1313)),
        Some(1),
        "AH \"Type 1, squad_sensor\"",
    ),
    row(
        "combatant_sensor",
        2392,
        Some((11, 8228)),
        Some(2),
        "AH \"Type 2, combatant_sensor\"",
    ),
    row(
        "objective_sensor",
        28,
        Some((2, 225)),
        Some(3),
        "AH \"Type 3, objective_sensor\"",
    ),
    row(
        "object_sensor",
        368,
        Some((252, 525)),
        Some(4),
        "AH \"Type 4, object_sensor\"",
    ),
    row(
        "sequence_sensor",
        1072,
        Some((7359, 7359)),
        Some(5),
        "AH \"Type 5, sequence_sensor\"",
    ),
    row("cinematic_sensor", 224, Some((263, 1671)), None, UNKNOWN),
    row(
        "hud_sensor",
        464,
        Some((35, 3582)),
        Some(8),
        "facts 4.8: Sunrise's type-8 body is 35 bits with three clear presence bits, hud_sensor's minimum",
    ),
    row("music_sensor", 1048, Some((7223, 7223)), None, UNKNOWN),
    row(
        "player_spasaha_sensor",
        760,
        Some((128, 4800)),
        None,
        "possibly 13: facts 4.8's type-13 layout has a 128-bit minimum, this schema's",
    ),
    row(
        "scoreboard_sensor",
        5904,
        Some((7, 47054)),
        None,
        "possibly 16: facts 4.8's type-16 body is seven clear presence bits, this schema's minimum",
    ),
    row(
        "activity_lifetime_sensor",
        1300,
        Some((423, 2265)),
        Some(17),
        "AH \"Type 17, activity_lifetime_sensor\"",
    ),
    row(
        "activity_timer_sensor",
        64,
        Some((386, 386)),
        Some(18),
        "AH: type 18 carries the 353-bit clock window and a tail bool and int32: 353 + 1 + 32 = 386",
    ),
    row(
        "player_navigation_sensor",
        7308,
        Some((62, 53150)),
        None,
        UNKNOWN,
    ),
    row("damage_component_sensor", 12, None, None, UNKNOWN),
    row("distance_sensor", 276, Some((98, 1868)), None, UNKNOWN),
    row("device_sensor", 24, Some((147, 147)), None, UNKNOWN),
    row(
        "channel_sensor",
        52,
        Some((3, 387)),
        Some(24),
        "AH \"Type 24, channel_sensor\"",
    ),
    row("look_trigger_sensor", 16, Some((65, 129)), None, UNKNOWN),
    row("hop_on_sensor", 112, Some((186, 276)), None, UNKNOWN),
    row("object_monitor_sensor", 12, None, None, UNKNOWN),
    row(
        "player_monitor_sensor",
        12,
        None,
        Some(30),
        "AH \"Types 30 and 31\": 30 player_monitor_sensor",
    ),
    row(
        "player_trigger_sensor",
        24,
        Some((129, 129)),
        Some(31),
        "AH \"Types 30 and 31\": 31 player_trigger_sensor",
    ),
    row("toggle_sensor", 12, None, None, UNKNOWN),
    row("object_filter_sensor", 400, Some((4, 732)), None, UNKNOWN),
    row(
        "activity_hard_wipe_globals_sensor",
        64,
        Some((359, 359)),
        None,
        UNKNOWN,
    ),
    row("loot_sensor", 16, None, None, UNKNOWN),
    row(
        "map_generator_sensor",
        1460,
        Some((1750, 11350)),
        Some(37),
        "AH \"Type 37, map_generator_sensor\"",
    ),
    row("task_sensor", 4, None, None, UNKNOWN),
    row("passenger_sensor", 12, None, None, UNKNOWN),
    row("target_sensor", 8, None, None, UNKNOWN),
    row(
        "new_user_experience_sensor",
        2120,
        Some((12, 9948)),
        None,
        "possibly 41: facts 4.8's type-41 body is 12 bits, this schema's minimum",
    ),
    row("performance_sensor", 48, Some((2, 357)), None, UNKNOWN),
    row(
        "scene_sensor",
        212,
        Some((74, 1538)),
        Some(43),
        "AH \"Type 43, scene_sensor\"",
    ),
    row(
        "dialog_sensor",
        4104,
        Some((19767, 27959)),
        Some(53),
        "AH \"Type 53, dialog_sensor\"",
    ),
    row(
        "ghost_link_sensor",
        12,
        None,
        Some(65),
        "AH \"Type 65, ghost_link_sensor\"",
    ),
    row(
        "team_side_sensor",
        136,
        Some((1057, 1057)),
        Some(67),
        "AH \"Type 67, team_side_sensor\"; facts 4.8: 1,057 bits",
    ),
    row(
        "directive_sensor",
        768,
        Some((4802, 4802)),
        None,
        "probably 68: AH's crash table names type 68's directive hash and element index",
    ),
    row(
        "encounter_engagement_sensor",
        208,
        Some((23, 1496)),
        None,
        UNKNOWN,
    ),
    row("public_event_sensor", 24, Some((183, 183)), None, UNKNOWN),
];

/// The table row of slot type `number`, where the number is known.
pub fn by_number(number: i8) -> Option<&'static SlotTypeInfo> {
    SLOT_TYPES.iter().find(|t| t.number == Some(number))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activity::slot::NEVER_DESCRIBED;
    use crate::schema::measure::{max_bits, min_bits};
    use crate::schema::tables;

    #[test]
    fn known_numbers_are_unique_and_never_a_type_without_descriptor() {
        let mut numbers: Vec<i8> = SLOT_TYPES.iter().filter_map(|t| t.number).collect();
        numbers.sort_unstable();
        let n = numbers.len();
        numbers.dedup();
        assert_eq!(numbers.len(), n);
        assert!(numbers.iter().all(|x| !NEVER_DESCRIBED.contains(x)));
    }

    /// AH's rows run in type order: every known number is above the one before it.
    #[test]
    fn known_numbers_rise_in_table_order() {
        let numbers: Vec<i8> = SLOT_TYPES.iter().filter_map(|t| t.number).collect();
        assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
    }

    /// Each schema Vex declares in full measures as AH's table says.
    #[test]
    fn declared_schemas_match_the_table() {
        for (number, schema) in [
            (3, &tables::OBJECTIVE),
            (17, &tables::LIFETIME),
            (18, &tables::ACTIVITY_TIMER),
            (24, &tables::CHANNEL),
            (67, &tables::TEAM_SIDE),
        ] {
            let row = by_number(number).unwrap();
            assert_eq!(row.name, schema.name);
            let bits = (
                min_bits(schema) as u32,
                max_bits(schema).unwrap_or(0) as u32,
            );
            assert_eq!(Some(bits), row.wire_bits, "type {number}");
        }
    }

    /// A schema declared only as far as the pages go has AH's minimum, and no maximum.
    #[test]
    fn partial_schemas_have_the_table_minimum() {
        let row = by_number(2).unwrap();
        assert_eq!(row.name, tables::COMBATANT.name);
        assert_eq!(
            row.wire_bits.map(|(min, _)| min),
            Some(min_bits(&tables::COMBATANT) as u32)
        );
        assert_eq!(max_bits(&tables::COMBATANT), None);
    }
}
