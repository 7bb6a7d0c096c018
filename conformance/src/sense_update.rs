//! `vex decode sensor_sense_update HEX`: message 6 printed group by group (AH "Message 6:
//! Sense"; facts 4.9).
//!
//! A Sense body has no length of its own, and the pages give no slot type's Sense schema
//! field by field, so a group's objects cannot be told apart with certainty. Each group
//! prints its key, its length and its bits, and the slot of its first object, which sits
//! at a fixed place.

use serde_json::{Value as Json, json};
use std::fmt::Write;
use vex_wire::activity::body::Body;
use vex_wire::activity::sense_update::{DecodedSenseGroup, SenseUpdate};
use vex_wire::activity::slot::ClientRef;
use vex_wire::activity::slot_types;
use vex_wire::bits::BitError;

/// Bits before a group's substream: its present bit, key and length.
const GROUP_HEAD_BITS: usize = 1 + 32 + 32;

/// What a group's substream starts with.
enum FirstObject {
    /// The substream's present bit is 0: the group has no objects.
    Absent,
    /// The slot of the first object.
    Slot(ClientRef),
    /// The substream ends inside the first object's slot.
    Unreadable(BitError),
}

/// The group's first object, read from the substream's start.
fn first_object(g: &DecodedSenseGroup) -> FirstObject {
    let mut r = g.substream.reader();
    match r.read_bool() {
        Ok(false) => FirstObject::Absent,
        Ok(true) => ClientRef::read(&mut r).map_or_else(FirstObject::Unreadable, FirstObject::Slot),
        Err(e) => FirstObject::Unreadable(e),
    }
}

/// The name of the slot's type, when the type table knows it.
fn type_name(s: &ClientRef) -> Option<&'static str> {
    slot_types::by_number(s.slot_type).map(|t| t.name)
}

/// The text form of a message-6 body.
pub fn text(body: &[u8]) -> Result<String, BitError> {
    let m = SenseUpdate::decode(body)?;
    let mut out = format!("sensor_sense_update ({} bits)\n", body.len() * 8);
    let _ = writeln!(
        out,
        "patch_epoch    {:#018x} {:#018x}",
        m.patch_epoch[0], m.patch_epoch[1]
    );
    let _ = writeln!(out, "groups         {}", m.groups.len());
    for g in &m.groups {
        let _ = writeln!(
            out,
            "group {:#010x} @{} ({} bits of objects) {}",
            g.key,
            g.at,
            g.substream.bit_len,
            hex::encode_upper(&g.substream.bytes)
        );
        let _ = match first_object(g) {
            FirstObject::Absent => writeln!(out, "  no objects"),
            FirstObject::Slot(s) => writeln!(
                out,
                "  @{:<6} first slot {:#010x}/{}/{} {}; its Sense body and the objects after it need the type's Sense schema",
                g.at + GROUP_HEAD_BITS + 1,
                s.key,
                s.slot_type,
                s.index,
                type_name(&s).unwrap_or_default()
            ),
            FirstObject::Unreadable(e) => writeln!(out, "  the first object does not parse: {e}"),
        };
    }
    Ok(out)
}

/// The JSON form of a message-6 body: the patch epoch, then each group with its bit
/// offset, its substream and the slot of its first object.
pub fn json(body: &[u8]) -> Result<Json, BitError> {
    let m = SenseUpdate::decode(body)?;
    let groups: Vec<Json> = m
        .groups
        .iter()
        .map(|g| {
            let first = match first_object(g) {
                FirstObject::Absent => Json::Null,
                FirstObject::Slot(s) => json!({
                    "at": g.at + GROUP_HEAD_BITS + 1, "key": s.key, "slot_type": s.slot_type,
                    "index": s.index, "type_name": type_name(&s),
                }),
                FirstObject::Unreadable(e) => json!({ "error": e.to_string() }),
            };
            json!({
                "at": g.at, "key": g.key, "bits": g.substream.bit_len,
                "substream": hex::encode_upper(&g.substream.bytes), "first_slot": first,
            })
        })
        .collect();
    Ok(json!({
        "message": "sensor_sense_update",
        "bits": body.len() * 8,
        "patch_epoch": m.patch_epoch.to_vec(),
        "groups": groups,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::sense_update::{SenseGroup, SenseObject};
    use vex_wire::bits::Bits;

    #[test]
    fn groups_print_with_their_first_slot() {
        let slot = ClientRef {
            key: 0xAAAA_0001,
            slot_type: 30,
            index: 4,
        };
        let body = SenseUpdate {
            patch_epoch: [1, 2],
            groups: vec![
                SenseGroup {
                    key: 0xAAAA_0001,
                    objects: vec![SenseObject {
                        slot,
                        sense: Bits {
                            bytes: vec![0xA0],
                            bit_len: 3,
                        },
                        counter: 9,
                    }],
                },
                SenseGroup {
                    key: 0xBBBB_0002,
                    objects: vec![],
                },
            ],
        }
        .encode()
        .unwrap();
        let out = text(&body).unwrap();
        assert!(out.contains("groups         2"), "{out}");
        assert!(
            out.contains("first slot 0xaaaa0001/30/4 player_monitor_sensor"),
            "{out}"
        );
        assert!(out.contains("group 0xbbbb0002"), "{out}");
        assert!(out.contains("no objects"), "{out}");
        let j = json(&body).unwrap();
        assert_eq!(
            j["groups"][0]["first_slot"]["type_name"],
            "player_monitor_sensor"
        );
        assert_eq!(j["groups"][1]["first_slot"], Json::Null);
        let mut literal = body;
        literal[16] |= 0x80;
        assert!(
            text(&literal).is_err(),
            "a literal bit of 1 is not message 6"
        );
    }
}
