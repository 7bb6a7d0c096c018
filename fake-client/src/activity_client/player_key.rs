//! Where the player key rides (SEED-03): "only a top-level group can carry the player key
//! (on its first type-13 slot)" (facts 4.7), and the type-13 body that carries it is "sent
//! only on the slot that carries the player key" (facts 4.8). What the client does with a
//! key elsewhere is not documented, so a key elsewhere is a duty the host breaks.

use super::slot_bodies::At;
use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::slot::ClientRef;
use vex_wire::schema::Value;

/// The index of `region` in the type-13 body (`vex_wire::schema::tables::PARTICIPATION`).
const REGION: usize = 0;
/// The index of `player_key` in the type-13 body.
const PLAYER_KEY: usize = 13;

/// Where a type-13 body sits in its message 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Place {
    /// Its group is one of the roster's top-level groups, not a bubble's sub-block.
    pub(super) top_level: bool,
    /// It is its group's first type-13 slot.
    pub(super) first_in_group: bool,
}

/// The player key a type-13 `body` carries, when its presence bit is set.
fn player_key(body: &Value) -> Option<u64> {
    match body {
        Value::Record(fields) => match fields.get(PLAYER_KEY) {
            Some(Value::Int(key)) => u64::try_from(*key).ok(),
            _ => None,
        },
        _ => None,
    }
}

/// The region field of the type-13 body among `held` that carries the player key, when
/// its presence bit is set (facts 4.8: "the client-reported region (msg 22), or else the
/// arrival slice set").
pub(super) fn player_region<'a>(
    mut held: impl Iterator<Item = (&'a ClientRef, &'a Value)>,
) -> Option<i128> {
    held.find(|(_, body)| player_key(body).is_some())
        .and_then(|(_, body)| match body {
            Value::Record(fields) => match fields.get(REGION) {
                Some(Value::Int(region)) => Some(*region),
                _ => None,
            },
            _ => None,
        })
}

/// SEED-03: the type-13 `body` of `slot`, at `place`, carries a player key somewhere other
/// than a top-level group's first type-13 slot.
pub(super) fn check_player_key(
    verdict: &mut Verdict,
    at: At,
    slot: ClientRef,
    place: Place,
    body: &Value,
) {
    let Some(key) = player_key(body) else {
        return;
    };
    let elsewhere = match place {
        Place {
            top_level: false, ..
        } => "in a bubble's sub-block group, not a top-level group",
        Place {
            first_in_group: false,
            ..
        } => "on a type-13 slot after its group's first",
        _ => return,
    };
    let reason = format!(
        "slot {slot}: the player key {key:#018x} rides {elsewhere}: only a top-level group's first type-13 slot carries it"
    );
    verdict.violate(Rule::Seed03, Some(at.idx), Some(at.bit), reason);
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::auth::AuthBody;
    use vex_wire::activity::auth::participation::ParticipationAuth;
    use vex_wire::activity::slot::TYPE_PARTICIPATION;
    use vex_wire::schema::tables::PARTICIPATION;

    fn body(player_key: Option<u64>) -> Value {
        body_in(0, player_key)
    }

    fn body_in(region: i32, player_key: Option<u64>) -> Value {
        let bits = AuthBody::Participation(ParticipationAuth {
            region: Some(region),
            player_key,
            sync_state: 0,
        })
        .to_bits()
        .unwrap();
        vex_wire::schema::walk::decode(&PARTICIPATION, &mut bits.reader()).unwrap()
    }

    #[test]
    fn the_index_names_the_player_key() {
        assert_eq!(PARTICIPATION.fields[REGION].name, "region");
        assert_eq!(PARTICIPATION.fields[PLAYER_KEY].name, "player_key");
        assert_eq!(player_key(&body(Some(7))), Some(7));
        assert_eq!(player_key(&body(None)), None);
    }

    /// The key on the first type-13 slot of a top-level group passes, and so does a body
    /// without it anywhere; the key in a sub-block group, or on a later type-13 slot, is
    /// SEED-03.
    #[test]
    fn the_player_key_rides_only_on_a_top_level_first_slot() {
        let slot = ClientRef {
            key: 0xAAAA_0001,
            slot_type: TYPE_PARTICIPATION,
            index: 0,
        };
        let at = At { idx: 1, bit: 100 };
        let place = |top_level, first_in_group| Place {
            top_level,
            first_in_group,
        };
        let cases = [
            (place(true, true), Some(1), false),
            (place(false, true), Some(1), true),
            (place(true, false), Some(1), true),
            (place(false, false), Some(0), true),
            (place(false, false), None, false),
        ];
        for (place, key, caught) in cases {
            let mut v = Verdict::new();
            check_player_key(&mut v, at, slot, place, &body(key));
            let want: &[Rule] = if caught { &[Rule::Seed03] } else { &[] };
            assert_eq!(v.rules(), want, "{place:?} {key:?}");
        }
    }

    /// The region is read from the body that carries the key, not another type-13 body.
    #[test]
    fn the_player_region_is_the_keyed_bodys() {
        let slot = |index| ClientRef {
            key: 1,
            slot_type: TYPE_PARTICIPATION,
            index,
        };
        let (a, b) = (slot(0), slot(2));
        let (keyless, keyed) = (body_in(3, None), body_in(8, Some(1)));
        let held = [(&a, &keyless), (&b, &keyed)];
        assert_eq!(player_region(held.into_iter()), Some(8));
        assert_eq!(player_region([(&a, &keyless)].into_iter()), None);
    }
}
