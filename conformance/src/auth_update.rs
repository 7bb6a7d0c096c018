//! `vex decode sensor_auth_update HEX`: message 5 printed block by block. The wire does
//! not say which schemas a slot has (AUTH-06), so each block's content is shown raw, and
//! for a slot type with a known Auth schema it is also read as reset, root and that body,
//! which holds when the slot has an Auth schema, as roster slots do.

use serde_json::{Value as Json, json};
use std::fmt::Write;
use vex_wire::activity::body::Body;
use vex_wire::activity::sensor_auth::{AUTHORITY_BUBBLES, OBJECT_HEAD_BITS, SensorAuthUpdate};
use vex_wire::activity::slot::SlotSchemas;
use vex_wire::activity::slot_types;
use vex_wire::bits::BitError;
use vex_wire::schema::{catalog, decode_traced};

/// How a roster slot is read here: with an Auth schema; the Sense bit is left unread.
const ASSUMED: SlotSchemas = SlotSchemas {
    auth: true,
    sense: false,
};

/// The text form of a message-5 body.
pub fn text(body: &[u8]) -> Result<String, BitError> {
    let m = SensorAuthUpdate::decode(body)?;
    let p = &m.prefix;
    let mut out = format!("sensor_auth_update ({} bits)\n", body.len() * 8);
    let _ = writeln!(out, "hardwipe_token {}", p.hardwipe_token);
    let _ = writeln!(
        out,
        "patch_epoch    {:#018x} {:#018x}",
        p.patch_epoch[0], p.patch_epoch[1]
    );
    match &p.bubble_block {
        None => out.push_str("bubble_block   absent\n"),
        Some(b) => {
            let held: Vec<usize> = (0..AUTHORITY_BUBBLES)
                .filter(|&i| b.has_authority(i))
                .collect();
            let grants: Vec<String> = b.grants().iter().map(|(i, t)| format!("{i}:{t}")).collect();
            let _ = writeln!(
                out,
                "bubble_block   authority {held:?}, grants (bubble:token) {grants:?}"
            );
        }
    }
    let _ = writeln!(out, "token          {:#x}", p.token);
    let _ = writeln!(out, "roster_enable  {}", p.roster_enable);
    if let Some(d) = &m.roster {
        let keys: Vec<String> = d.keys.iter().map(|k| format!("{k:#010x}")).collect();
        let _ = writeln!(out, "roster keys    {keys:?} states {:?}", d.states);
        for s in d.sub_blocks.iter().flatten() {
            let keys: Vec<String> = s.keys.iter().map(|k| format!("{k:#010x}")).collect();
            let _ = writeln!(
                out,
                "  bubble {:>3}   keys {keys:?} states {:?}",
                s.bubble, s.states
            );
        }
    }
    for g in &m.groups {
        let _ = writeln!(out, "group {:#010x} (filler {:#x})", g.key, g.filler);
        for o in &g.objects {
            let s = o.slot;
            let type_name = slot_types::by_number(s.slot_type).map_or("", |t| t.name);
            let _ = writeln!(
                out,
                "  @{:<6} slot {:#010x}/{}/{} {type_name} remainder {} content {}",
                o.at,
                s.key,
                s.slot_type,
                s.index,
                o.remainder,
                hex::encode_upper(&o.content.bytes)
            );
            let Some(schema) = catalog::auth(s.slot_type) else {
                continue;
            };
            let Ok(parts) = o.parse(ASSUMED) else {
                continue;
            };
            let (reset, root) = (parts.reset == Some(true), parts.root == Some(true));
            let _ = writeln!(
                out,
                "           reset {reset} root {root} ({} body)",
                schema.name
            );
            let mut r = o.content.reader();
            if !root || r.skip(parts.body_at).is_err() {
                continue;
            }
            let base = o.at + OBJECT_HEAD_BITS;
            let mut lines = Vec::new();
            let result = decode_traced(schema, &mut r, &mut lines);
            for l in &lines {
                let _ = writeln!(
                    out,
                    "    {:>6} {:>4}  {:<32} {}",
                    base + l.at,
                    l.width,
                    l.path,
                    l.value
                );
            }
            match result {
                Err(e) => {
                    let _ = writeln!(out, "           body does not parse: {e}");
                }
                Ok(_) if r.remaining_bits() != 0 => {
                    let _ = writeln!(
                        out,
                        "           {} bits after the body: a Sense bit or override, or a wrong remainder",
                        r.remaining_bits()
                    );
                }
                Ok(_) => {}
            }
        }
    }
    let _ = writeln!(out, "singleton_gate {}", m.singleton_gate);
    Ok(out)
}

/// The JSON form of a message-5 body: the prefix, the roster, then each group's objects
/// with their bit offsets, raw content and, for a slot type with a known Auth schema read
/// as a roster slot, the body field by field (the form `vex decode auth:TYPE --json`
/// prints).
pub fn json(body: &[u8]) -> Result<Json, BitError> {
    let m = SensorAuthUpdate::decode(body)?;
    let p = &m.prefix;
    let bubble_block = p.bubble_block.as_ref().map(|b| {
        let grants: Vec<Json> = b
            .grants()
            .iter()
            .map(|(i, t)| json!({ "bubble": i, "token": t }))
            .collect();
        json!({
            "authority": (0..AUTHORITY_BUBBLES).filter(|&i| b.has_authority(i)).collect::<Vec<_>>(),
            "grants": grants,
        })
    });
    let roster = m.roster.as_ref().map(|d| {
        let sub_blocks: Vec<Json> = d
            .sub_blocks
            .iter()
            .flatten()
            .map(|s| json!({ "bubble": s.bubble, "keys": s.keys, "states": s.states }))
            .collect();
        json!({ "keys": d.keys, "states": d.states, "sub_blocks": sub_blocks })
    });
    let groups: Vec<Json> = m
        .groups
        .iter()
        .map(|g| {
            let objects: Vec<Json> = g.objects.iter().map(object_json).collect();
            json!({ "key": g.key, "filler": g.filler, "objects": objects })
        })
        .collect();
    Ok(json!({
        "message": "sensor_auth_update",
        "bits": body.len() * 8,
        "hardwipe_token": p.hardwipe_token,
        "patch_epoch": p.patch_epoch.to_vec(),
        "bubble_block": bubble_block,
        "token": p.token,
        "roster_enable": p.roster_enable,
        "roster": roster,
        "groups": groups,
        "singleton_gate": m.singleton_gate,
    }))
}

/// One object of a group: its place, slot and content, and its body when it reads.
fn object_json(o: &vex_wire::activity::sensor_auth::DecodedObject) -> Json {
    let s = o.slot;
    let body = catalog::auth(s.slot_type).and_then(|schema| {
        let parts = o.parse(ASSUMED).ok()?;
        let mut r = o.content.reader();
        if parts.root != Some(true) || r.skip(parts.body_at).is_err() {
            return None;
        }
        let value = vex_wire::schema::decode(schema, &mut r).ok()?;
        Some(json!({
            "schema": schema.name,
            "reset": parts.reset == Some(true),
            "fields": crate::codec::to_json(schema, &value),
        }))
    });
    json!({
        "at": o.at,
        "slot": {
            "key": s.key, "slot_type": s.slot_type, "index": s.index,
            "type_name": slot_types::by_number(s.slot_type).map(|t| t.name),
        },
        "remainder": o.remainder,
        "content": hex::encode_upper(&o.content.bytes),
        "body": body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Facts 10.1's full message-5 example, printed block by block.
    #[test]
    fn the_full_example_prints_its_blocks_and_bodies() {
        let out = text(&hex::decode(vex_wire::vectors::SENSOR_AUTH_FULL_EXAMPLE).unwrap()).unwrap();
        for want in [
            "@1059   slot 0xaaaa0001/13/0  remainder 227",
            "@1374   slot 0xaaaa0001/17/1 activity_lifetime_sensor remainder 522",
            "slot 0xbbbb0001/8/0 hud_sensor remainder 37",
            "(participation body)",
            "1237   64  player_key",
            "(activity_lifetime_sensor body)",
            "grants (bubble:token) [\"0:1\"]",
        ] {
            assert!(out.contains(want), "missing {want:?} in\n{out}");
        }
        assert!(text(&[0; 10]).is_err());
    }

    /// The same example as JSON: offsets, slots and a body's fields.
    #[test]
    fn the_full_example_as_json() {
        let body = hex::decode(vex_wire::vectors::SENSOR_AUTH_FULL_EXAMPLE).unwrap();
        let j = json(&body).unwrap();
        let objects = &j["groups"][0]["objects"];
        assert_eq!(objects[0]["at"], 1059);
        assert_eq!(objects[0]["remainder"], 227);
        assert_eq!(objects[1]["slot"]["type_name"], "activity_lifetime_sensor");
        assert_eq!(objects[0]["body"]["schema"], "participation");
        assert_eq!(j["bubble_block"]["grants"][0]["token"], 1);
        assert!(json(&[0; 10]).is_err());
    }
}
