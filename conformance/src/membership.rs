//! `vex decode replicate_membership HEX`: message 12 as its members, the regions that
//! differ from the seed, and the host tail (facts 4.10 layout).

use std::fmt::Write;
use vex_wire::activity::body::Body;
use vex_wire::activity::membership::{RegionRecord, ReplicateMembership};
use vex_wire::bits::BitError;

/// The text form of a message-12 body.
pub fn text(body: &[u8]) -> Result<String, BitError> {
    let m = ReplicateMembership::decode(body)?;
    let mut out = format!(
        "replicate_membership ({} bytes)\nrevision {} epoch {}\n",
        body.len(),
        m.revision,
        m.epoch
    );
    for (lane, member) in m.members.iter().enumerate() {
        if let Some(p) = member {
            let _ = writeln!(
                out,
                "member lane {lane}: key {:#018x} account {:#018x} character {:#018x} join {:#018x} field1 {} field2 {} field6 {:#x} leave {}",
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
    let seeded = m
        .regions
        .iter()
        .enumerate()
        .filter(|(b, r)| **r == RegionRecord::seed(*b))
        .count();
    let _ = writeln!(out, "regions: {seeded} of {} as seeded", m.regions.len());
    for (b, r) in m
        .regions
        .iter()
        .enumerate()
        .filter(|(b, r)| **r != RegionRecord::seed(*b))
    {
        let _ = writeln!(
            out,
            "region {b}: index {} ambassador state {} slot {} tokens {:?} citizen {} session {:#x}",
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
        "host: key {:#018x} spawn {} ({:#x}, {:#x}) teleport {} token {} slice set {} hash {:#x}",
        h.host_key,
        h.spawn_state,
        h.spawn_opaque_byte,
        h.spawn_opaque_value,
        h.teleport_state,
        h.teleport_token,
        h.teleport_slice_set,
        h.teleport_slice_hash
    );
    let _ = writeln!(out, "masks {:#x} {:#x}", m.member_mask, m.second_mask);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!(text(&[0; 10]).is_err());
    }
}
