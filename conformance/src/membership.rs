//! `vex decode replicate_membership HEX`: message 12 as its members, the regions that
//! differ from the seed, and the host tail (facts 4.10 layout).

use serde_json::{Value as Json, json};
use std::fmt::Write;
use vex_wire::activity::membership::{RegionRecord, ReplicateMembership};
use vex_wire::bits::BitError;

/// The text form of a message-12 body; each part starts with its bit offset.
pub fn text(body: &[u8]) -> Result<String, BitError> {
    let (m, at) = ReplicateMembership::decode_with_offsets(body)?;
    let mut out = format!(
        "replicate_membership ({} bytes)\n@1      revision {}\n@33     epoch {}\n",
        body.len(),
        m.revision,
        m.epoch
    );
    for (lane, member) in m.members.iter().enumerate() {
        if let Some(p) = member {
            let _ = writeln!(
                out,
                "@{:<6} member lane {lane}: key {:#018x} account {:#018x} character {:#018x} join {:#018x} field1 {} field2 {} field6 {:#x} leave {}",
                at.lanes[lane],
                p.member_key,
                p.account_soid,
                p.character_soid,
                p.join_identity,
                p.field1,
                p.field2,
                p.field6,
                p.leave_reason
            );
        }
    }
    let _ = writeln!(
        out,
        "regions: {} of {} as seeded",
        m.regions.len() - changed_regions(&m).count(),
        m.regions.len()
    );
    for (b, r) in changed_regions(&m) {
        let _ = writeln!(
            out,
            "@{:<6} region {b}: index {} ambassador state {} slot {} tokens {:?} citizen {} session {:#x}",
            at.regions[b],
            r.region_index,
            r.ambassador_state,
            r.ambassador_slot,
            r.transition_tokens,
            r.citizen_descriptor
                .as_ref()
                .map_or("none".into(), |d| format!("{} bytes", d.len())),
            r.online_session_id
        );
    }
    let h = &m.host;
    let _ = writeln!(
        out,
        "@{:<6} host: key {:#018x} spawn {} ({:#x}, {:#x}) teleport {} token {} slice set {} hash {:#x}",
        at.host,
        h.host_key,
        h.spawn_state,
        h.spawn_opaque_byte,
        h.spawn_opaque_value,
        h.teleport_state,
        h.teleport_token,
        h.teleport_slice_set,
        h.teleport_slice_hash
    );
    let _ = writeln!(
        out,
        "@{:<6} masks {:#x} {:#x}",
        at.masks, m.member_mask, m.second_mask
    );
    Ok(out)
}

/// The JSON form of a message-12 body: every present lane, the regions that differ from
/// the seed, the host tail and the masks, each with its bit offset.
pub fn json(body: &[u8]) -> Result<Json, BitError> {
    let (m, at) = ReplicateMembership::decode_with_offsets(body)?;
    let members: Vec<Json> = m
        .members
        .iter()
        .enumerate()
        .filter_map(|(lane, p)| p.map(|p| (lane, p)))
        .map(|(lane, p)| {
            json!({
                "lane": lane, "at": at.lanes[lane],
                "member_key": p.member_key, "account_soid": p.account_soid,
                "character_soid": p.character_soid, "join_identity": p.join_identity,
                "field1": p.field1, "field2": p.field2, "field6": p.field6,
                "leave_reason": p.leave_reason,
            })
        })
        .collect();
    let regions: Vec<Json> = changed_regions(&m)
        .map(|(b, r)| {
            json!({
                "bubble": b, "at": at.regions[b], "region_index": r.region_index,
                "ambassador_state": r.ambassador_state, "ambassador_slot": r.ambassador_slot,
                "transition_tokens": r.transition_tokens.to_vec(),
                "citizen_descriptor": r.citizen_descriptor.as_ref().map(hex::encode),
                "online_session_id": r.online_session_id,
            })
        })
        .collect();
    let h = &m.host;
    Ok(json!({
        "message": "replicate_membership",
        "bytes": body.len(),
        "revision": m.revision,
        "epoch": m.epoch,
        "members": members,
        "changed_regions": regions,
        "host": {
            "at": at.host, "host_key": h.host_key, "spawn_state": h.spawn_state,
            "spawn_opaque_byte": h.spawn_opaque_byte, "spawn_opaque_value": h.spawn_opaque_value,
            "teleport_state": h.teleport_state, "teleport_token": h.teleport_token,
            "teleport_slice_set": h.teleport_slice_set,
            "teleport_slice_hash": h.teleport_slice_hash,
        },
        "masks": { "at": at.masks, "member_mask": m.member_mask, "second_mask": m.second_mask },
    }))
}

/// The region records that differ from the seed, with their bubble.
fn changed_regions(m: &ReplicateMembership) -> impl Iterator<Item = (usize, &RegionRecord)> {
    m.regions
        .iter()
        .enumerate()
        .filter(|(b, r)| **r != RegionRecord::seed(*b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::body::Body;
    use vex_wire::activity::membership::Member;

    #[test]
    fn the_seed_prints_its_member_and_seeded_regions() {
        let m = ReplicateMembership::for_local_member(
            Member::seed(0x1122, 0x9EAA_3001_0000_0001, 7),
            1,
        );
        let out = text(&m.encode().unwrap()).unwrap();
        assert!(
            out.contains("member lane 0: key 0x0000000000001122"),
            "{out}"
        );
        assert!(out.contains("regions: 64 of 64 as seeded"), "{out}");
        assert!(out.contains("@65     member lane 0"), "{out}");
        assert!(out.contains("@29699  host"), "{out}");
        assert!(text(&[0; 10]).is_err());
        let j = json(&m.encode().unwrap()).unwrap();
        assert_eq!(j["members"][0]["member_key"], 0x1122);
        assert_eq!(j["members"][0]["at"], 65);
        assert_eq!(j["masks"]["at"], 29_899);
        assert!(json(&[0; 10]).is_err());
    }
}
