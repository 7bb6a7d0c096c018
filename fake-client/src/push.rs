//! Service-9 pushes: the envelope checks, the two routing arms, and the handlers of the
//! messages the join and the roster use (AH "The activity envelope", "join_result",
//! "global_activity_state", "Message 5").

use crate::core::{ClientCore, Outcome};
use crate::rules::Rule;
use vex_wire::activity::envelope::{
    ActivityPush, CRASHING_PAYLOAD_LEN, MAX_PAYLOAD_LEN, PUSH_DISCRIMINATOR,
};
use vex_wire::activity::global_state::{
    BUBBLE_ENABLED, BUBBLE_SKIPPED, BUBBLE_STATES_BIT, DESCRIPTOR_BIT, GlobalActivityState,
};
use vex_wire::activity::ids;
use vex_wire::activity::join::{JoinResult, KEEPALIVE_INTERVAL_BIT};
use vex_wire::activity::sensor_auth::{AuthPrefix, BODY_BUDGET};
use vex_wire::bits::{BitError, BitReader};
use vex_wire::time::Instant;

/// The byte the emulated client uses for the stale buffer bytes a too-large payload_len
/// copies (ENV-02).
const STALE_BYTE: u8 = 0xCD;
/// The most bytes a payload can take from the client's receive buffer: a larger
/// payload_len copies no more than this (it is also the largest legal payload, facts 4.0).
const RECEIVE_BUFFER: usize = MAX_PAYLOAD_LEN;

/// What the client's copy of `declared` bytes gives when the frame holds `payload`: the
/// real bytes, then stale buffer bytes, never more than the receive buffer (ENV-02).
fn copied_payload(mut payload: Vec<u8>, declared: usize) -> Vec<u8> {
    payload.resize(declared.min(RECEIVE_BUFFER), STALE_BYTE);
    payload
}

fn bit_of(e: &BitError) -> Option<usize> {
    match e {
        BitError::PastEnd { at, .. } | BitError::UnknownShape { at, .. } => Some(*at),
        _ => None,
    }
}

impl ClientCore {
    /// A service-9 body.
    pub(crate) fn handle_push(&mut self, now: Instant, idx: u64, body: &[u8]) {
        let Ok(mut push) = ActivityPush::decode(body) else {
            return tracing::warn!(len = body.len(), "service-9 body shorter than its header");
        };
        let f = Some(idx);
        if push.payload_len >= CRASHING_PAYLOAD_LEN {
            let reason = format!("payload_len {:#x} is 0xFFFFFF70 or more", push.payload_len);
            return self.violate(Rule::Env03, f, None, reason);
        }
        if push.discriminator != PUSH_DISCRIMINATOR {
            let reason = format!("discriminator {} is not 1", push.discriminator);
            return self.violate(Rule::Env01, f, None, reason);
        }
        let declared = push.payload_len as usize;
        if declared != push.payload.len() {
            let reason = format!(
                "payload_len {declared} but {} bytes follow; the client copies {declared}",
                push.payload.len()
            );
            self.violate(Rule::Env02, f, None, reason);
            push.payload = copied_payload(std::mem::take(&mut push.payload), declared);
        }
        let id = push.msg_type;
        let outbound = ids::NAME_ONLY.contains(&id) || ids::CLIENT_SENDERS.contains(&id);
        if !ids::has_inbound_handler(id) && outbound {
            let reason = format!(
                "message {id} ({}) is one the client only names or only sends: it has no inbound handler",
                ids::label(id)
            );
            return self.violate(Rule::Env11, f, None, reason);
        }
        if !ids::has_inbound_handler(id) {
            let reason = format!("message {id} has no inbound handler");
            return self.violate(Rule::Env04, f, None, reason);
        }
        let Some(slot) = &mut self.slot else {
            let reason = format!("session {:#x}: no activity client", push.session_id);
            return self.violate(Rule::Env05, f, None, reason);
        };
        if slot.established {
            if push.session_id != slot.stored_id {
                let reason = format!(
                    "message {} carries session {:#x}, the join stored {:#x}",
                    push.msg_type, push.session_id, slot.stored_id
                );
                return self.violate(Rule::Env07, f, None, reason);
            }
            return self.dispatch(now, idx, &push);
        }
        if push.session_id != slot.id {
            let reason = format!(
                "message {} carries session {:#x}, no activity client has it",
                push.msg_type, push.session_id
            );
            return self.violate(Rule::Env05, f, None, reason);
        }
        if slot.badly_shaped {
            return; // dropped in silence; ENV-09 was reported at service 7
        }
        if !slot.first_push_seen {
            slot.first_push_seen = true;
            if push.msg_type != ids::JOIN_RESULT {
                let reason = format!("the burst starts with message {}, not 4", push.msg_type);
                self.violate(Rule::Join01, f, None, reason);
            }
        }
        if push.msg_type != ids::JOIN_RESULT {
            let reason = format!("message {} before the join is accepted", push.msg_type);
            return self.violate(Rule::Env06, f, None, reason);
        }
        self.on_join_result(now, idx, &push.payload);
    }

    /// Message 4 on the pre-join arm (JOIN-03 to JOIN-06).
    fn on_join_result(&mut self, now: Instant, idx: u64, payload: &[u8]) {
        let f = Some(idx);
        let r = match JoinResult::decode(payload) {
            Ok(r) => r,
            Err(e) => {
                let reason = format!(
                    "join_result of {} bytes does not decode: {e}",
                    payload.len()
                );
                return self.violate(Rule::Join03, f, bit_of(&e), reason);
            }
        };
        if r.result != 0 {
            let reason = format!("result is {}, only 0 accepts", r.result);
            return self.violate(Rule::Join04, f, Some(570), reason);
        }
        if r.echoed_nonce() != self.config.join_nonce {
            let reason = format!(
                "echoed nonce {:#x}, sent {:#x}",
                r.echoed_nonce(),
                self.config.join_nonce
            );
            return self.violate(Rule::Join05, f, Some(0), reason);
        }
        let Some(slot) = &mut self.slot else {
            return;
        };
        let host_id = r.echoed_host_id();
        if host_id != 0 && host_id != slot.id {
            let reason = format!("echoed host id {host_id:#x}, the join named {:#x}", slot.id);
            return self.violate(Rule::Join05, f, Some(32), reason);
        }
        slot.established = true;
        slot.stored_id = host_id;
        slot.keepalive_interval_ms = u64::from(r.keepalive_interval_ms);
        slot.replication_epoch = r.initial_epoch;
        let script = self.config.script;
        slot.leave_at = script.leave_after_ms.map(|ms| now + ms);
        slot.identity_at = script.identity_after_ms.map(|ms| now + ms);
        slot.slot_request_at = script.slot_request_after_ms.map(|ms| now + ms);
        slot.refresh_at = script.refresh_after_ms.map(|ms| now + ms);
        slot.next_epoch = Some(now);
        slot.burst_owed = crate::duties::BURST_AFTER_JOIN.into_iter().collect();
        self.status.e = true;
        if host_id == 0 {
            let reason = "join_result stores host id 0: every later push is dropped".to_string();
            self.violate(Rule::Join06, f, Some(32), reason);
        }
        if r.keepalive_interval_ms == 0 {
            let reason =
                "keepalive interval 0: the client sends message 16 every tick, about 144 a second"
                    .to_string();
            self.violate(Rule::Join07, f, Some(KEEPALIVE_INTERVAL_BIT), reason);
        }
    }

    /// A push on the established arm.
    fn dispatch(&mut self, now: Instant, idx: u64, push: &ActivityPush) {
        let f = Some(idx);
        let in_burst = self.observe_push(now, idx, push.msg_type);
        match push.msg_type {
            ids::GLOBAL_ACTIVITY_STATE => self.on_global_state(idx, &push.payload),
            ids::WORLD_GLOBALS_STATE => self.on_world_globals(idx, &push.payload),
            ids::REPLICATE_MEMBERSHIP => self.on_membership(now, idx, &push.payload),
            ids::BUBBLE_HOST_STATE => self.on_bubble_host_state(idx, &push.payload),
            ids::SENSOR_AUTH_UPDATE => self.on_auth_update(idx, &push.payload),
            ids::ADVANCE_REPLICATION_EPOCH => self.on_advance_epoch(idx, &push.payload),
            ids::ENTITY_SLOTS_ALLOCATED => self.on_slots_allocated(idx, &push.payload, in_burst),
            ids::INCIDENT => self.on_incident(idx, &push.payload),
            ids::JOIN_RESULT => {
                tracing::info!(frame = f, "a second join_result on an established client")
            }
            _ => {}
        }
        self.track_refresh(push.msg_type);
    }

    /// Message 1 (GLOBAL-01, GLOBAL-02, GLOBAL-03, GLOBAL-04).
    fn on_global_state(&mut self, idx: u64, payload: &[u8]) {
        let f = Some(idx);
        let m = match GlobalActivityState::decode(payload) {
            Ok(m) => m,
            Err(e) => {
                let reason = format!("message 1 of {} bytes does not decode: {e}", payload.len());
                return self.violate(Rule::Global01, f, bit_of(&e), reason);
            }
        };
        let want = i32::from(self.config.scenario.bubble_count);
        if m.bubble_count != want {
            let reason = format!("bubble count {}, the scenario has {want}", m.bubble_count);
            self.violate(Rule::Global02, f, Some(67), reason);
        }
        let undefined: Vec<usize> = (0..m.bubble_states.len())
            .filter(|&b| ![BUBBLE_ENABLED, BUBBLE_SKIPPED].contains(&m.bubble_states[b]))
            .collect();
        if let Some(&first) = undefined.first() {
            let reason = format!(
                "slice-set state bytes for bubbles {undefined:?} are neither 0x80 (adds the bubble) nor 0x7F (skips it); the bytes carry a bias of 128"
            );
            self.violate(
                Rule::Global03,
                f,
                Some(BUBBLE_STATES_BIT + 8 * first),
                reason,
            );
        }
        let own = self.config.scenario.destination.to_bits().ok();
        if own.as_ref() != Some(&m.descriptor) {
            let reason = "the selection descriptor is not the client's own, bit for bit: \"Waiting for Other Players\" stays up".to_string();
            self.violate(Rule::Global04, f, Some(DESCRIPTOR_BIT), reason);
        }
        self.status.g = true;
    }

    /// Message 5: ignored once the give-up flag is set (STICKY-02); a body over the
    /// per-tick budget is refused and sets it (AUTH-10); then the prefix is
    /// judged (AUTH-02, AUTH-01, AUTH-04), as the client reads it whole before it looks at
    /// the epoch; then the roster is read.
    fn on_auth_update(&mut self, idx: u64, payload: &[u8]) {
        let f = Some(idx);
        if let Some(rule) = self.gave_up {
            let reason = format!(
                "message 5 ignored: the give-up flag has been set since {}",
                rule.id()
            );
            return self.violate(Rule::Sticky02, f, None, reason);
        }
        if payload.len() > BODY_BUDGET {
            let reason = format!(
                "message 5 of {} bytes is over the per-tick budget of {BODY_BUDGET}: it is refused, and message 5 is ignored for the rest of the session",
                payload.len()
            );
            return self.violate(Rule::Auth10, f, None, reason);
        }
        let Some(sent) = self.slot.as_ref().and_then(|s| s.last_epoch_sent) else {
            let reason = "message 5 before the client's first message 52".to_string();
            return self.violate(Rule::Auth02, f, None, reason);
        };
        let prefix = match AuthPrefix::read(&mut BitReader::new(payload)) {
            Ok(p) => p,
            Err(e) => {
                return tracing::warn!(%e, "message 5 prefix does not decode; dropped (BODY-04)");
            }
        };
        if prefix.patch_epoch != sent {
            let reason = format!(
                "patch epoch {:x?}, the client sent {sent:x?}",
                prefix.patch_epoch
            );
            return self.violate(Rule::Auth01, f, Some(8), reason);
        }
        if self.slot.as_ref().is_some_and(|s| s.departure.is_some()) {
            return self.on_auth_after_leave(idx, payload);
        }
        if !prefix.roster_enable {
            return self.violate(Rule::Auth04, f, None, "roster_enable is 0".to_string());
        }
        if self.read_roster(idx, payload) {
            let crashed = matches!(self.outcome, Outcome::Crashed { .. });
            if let Some(slot) = self.slot.as_mut().filter(|_| !crashed) {
                slot.rosters_applied += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the client_core fuzz target: a payload_len of 0xFFFF0000 (below the
    /// crashing range) made the emulated client allocate 4 GiB of stale bytes.
    #[test]
    fn a_huge_payload_len_copies_at_most_the_receive_buffer() {
        assert_eq!(copied_payload(vec![1], 0xFFFF_0000).len(), RECEIVE_BUFFER);
        assert_eq!(copied_payload(vec![1, 2, 3], 2), [1, 2]);
        assert_eq!(copied_payload(vec![1], 3), [1, STALE_BYTE, STALE_BYTE]);
    }
}
