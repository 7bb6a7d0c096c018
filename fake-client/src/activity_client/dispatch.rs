//! A push that names this activity client, routed by the join's arms to the feature state
//! that applies it (AH "The activity envelope", "join_result", "Message 5").

use super::authority::Authority;
use super::join::Arm;
use super::membership::Membership;
use super::player_key::player_region;
use super::{ActivityClient, Context, incident, world};
use crate::probe::Probe;
use crate::rules::Rule;
use vex_wire::activity::body::Body;
use vex_wire::activity::envelope::PushHeader;
use vex_wire::activity::ids;
use vex_wire::activity::sensor_auth::{BODY_BUDGET, SensorAuthUpdate};
use vex_wire::activity::slot::{TYPE_GHOST_LINK, TYPE_PARTICIPATION};
use vex_wire::time::Instant;

impl ActivityClient {
    /// A push naming this activity client: the join's routing arms, then message 4 on the
    /// pre-join arm or the push's handler on the established one.
    pub(crate) fn on_push(
        &mut self,
        cx: &mut Context<'_>,
        idx: u64,
        push: PushHeader,
        payload: &[u8],
    ) {
        match self.join.arm(cx.verdict, idx, &push) {
            Some(Arm::JoinResult) => self.on_join_result(cx, idx, payload),
            Some(Arm::Established) => self.dispatch(cx, idx, push.msg_type, payload),
            None => {}
        }
    }

    /// Message 4 on the pre-join arm: once accepted, the epochs, the keepalive and the
    /// scripted actions start, and the status line gets its E.
    fn on_join_result(&mut self, cx: &mut Context<'_>, idx: u64, payload: &[u8]) {
        let Some(r) = self
            .join
            .accept(cx.verdict, (idx, cx.now), payload, cx.config.join_nonce)
        else {
            return;
        };
        let (now, script) = (cx.now, cx.config.script);
        let at = |after: Option<u64>| after.map(|ms| now + ms);
        self.leave
            .schedule(at(script.leave_after_ms), script.rejoin_after_ms);
        self.identity.schedule(at(script.identity_after_ms));
        self.slots.schedule(at(script.slot_request_after_ms));
        self.refresh.schedule(
            at(script.refresh_after_ms),
            at(script.start_activity_after_ms),
        );
        self.region.schedule(at(script.move_region_after_ms));
        self.authority
            .schedule(at(script.purge_after_ms), at(script.abdicate_after_ms));
        self.reports.schedule(at(script.incident_after_ms));
        self.qos.schedule(at(script.qos_probe_after_ms));
        self.association.schedule(at(script.associate_after_ms));
        self.probe
            .schedule(script.probe.map(|(p, ms)| (p, now + ms)));
        let change = at(script.change_epoch_after_ms);
        self.epochs.start(now, r.initial_epoch, change);
        cx.status.e = true;
        self.keepalive
            .start(cx.verdict, idx, r.keepalive_interval_ms);
    }

    /// Message 2, `owed` or not: one no request owes that answers the client's last
    /// message (`unasked`).
    fn check_unasked(&mut self, cx: &mut Context<'_>, idx: u64, payload: &[u8], owed: bool) {
        let sent = (cx.links.last_sent(), self.join.handle());
        self.unasked
            .check(cx.verdict, (cx.now, idx), payload, owed, sent);
    }

    /// A push on the established arm.
    fn dispatch(&mut self, cx: &mut Context<'_>, idx: u64, msg: u32, payload: &[u8]) {
        let in_burst = self.join.observe(cx.verdict, idx, msg);
        self.keepalive.observe(cx.now, msg);
        let scenario = &cx.config.scenario;
        match msg {
            ids::GLOBAL_ACTIVITY_STATE => {
                let own = cx.config.script.probe.map(|(p, _)| p) != Some(Probe::MalformedSelection);
                let g = world::check_global_state(cx.verdict, scenario, own, idx, payload);
                cx.status.g |= g;
            }
            ids::WORLD_GLOBALS_STATE => {
                world::check_world_globals(cx.verdict, idx, payload);
                let owed = in_burst || self.refresh.answers(msg);
                self.check_unasked(cx, idx, payload, owed);
            }
            ids::REPLICATE_MEMBERSHIP => self.on_membership(cx, idx, payload),
            ids::BUBBLE_HOST_STATE => world::check_bubble_host_state(cx.verdict, idx, payload),
            ids::SENSOR_AUTH_UPDATE => self.on_auth_update(cx, idx, payload),
            ids::ADVANCE_REPLICATION_EPOCH => self.epochs.on_advance(cx.verdict, idx, payload),
            ids::ENTITY_SLOTS_ALLOCATED => {
                self.slots.on_allocated(cx.verdict, idx, payload, in_burst)
            }
            ids::INCIDENT => incident::check_incident(cx.verdict, idx, payload),
            ids::RESET_AUTHORITY => {
                if let Some(out) = Authority::on_reset(cx.verdict, idx, payload) {
                    cx.send(self.join.handle(), out);
                }
            }
            ids::QUERY_AUTHORITY => {
                let (lease, bubble) = (self.slots.lease(), self.region.bubble());
                for out in Authority::on_query(cx.verdict, idx, payload, lease, bubble) {
                    cx.send(self.join.handle(), out);
                }
            }
            ids::PURGE_NOTICE => self.authority.on_purge_notice(cx.verdict, idx, payload),
            ids::CLAIM_AUTHORITY => world::check_claim(cx.verdict, idx, payload),
            ids::CONNECTIVITY_FAILURE => {
                world::check_connectivity_failure(cx.verdict, idx, payload)
            }
            ids::SCRIPT_STATE
            | ids::SCRIPT_EVENT
            | ids::PERF_REQUEST_KILL
            | ids::PERF_REQUEST_REFLECT => {
                let reason = format!(
                    "message {msg} is decoded and discarded in this build: it drives nothing"
                );
                cx.verdict.violate(Rule::Env12, Some(idx), None, reason);
            }
            ids::JOIN_RESULT => {
                tracing::info!(frame = idx, "a second join_result on an established client")
            }
            // 7 goes to a method the target component bound at spawn, and 45 ends a wait on
            // reservations: the emulated client models neither (`vex rules`: ENV-13, ENV-14)
            _ => {}
        }
        self.refresh.track(cx.verdict, cx.now, idx, msg);
    }

    /// Message 12: once it decodes, the status line gets its M, the table is applied, and a new revision
    /// is acknowledged with message 38.
    fn on_membership(&mut self, cx: &mut Context<'_>, idx: u64, payload: &[u8]) {
        let Some(table) = Membership::decode(cx.verdict, idx, payload) else {
            return;
        };
        cx.status.m = true;
        let me = cx.config.scenario.player.member_key;
        let in_snapshot = self.refresh.answers(ids::REPLICATE_MEMBERSHIP);
        let applied_before = self.membership.applied();
        let first = applied_before == 0;
        let from_private = self.join.public() && applied_before == 1;
        let ack =
            self.membership
                .apply(cx.verdict, cx.now, &table, me, (in_snapshot, from_private));
        if self.membership.applied() > applied_before && cx.config.keep_for_report {
            self.membership.keep_last();
        }
        if first && self.join.public() {
            self.membership.check_private_table(cx.verdict, idx, me);
        }
        if let Some(ack) = ack {
            cx.send(self.join.handle(), ack);
        }
        if let Some((_, members)) = self.membership.last_table() {
            self.identity.on_table(members, me);
        }
        self.follow_group_host(cx.now);
    }

    /// The table names another group host for the region the client stands in than the
    /// one its association went to (the advertised host changed, SR "What the host pushes
    /// on its own"): the association moves to it at `now`.
    fn follow_group_host(&mut self, now: Instant) {
        let named = self.membership.group_host(self.region.bubble());
        if let (Some(peer), Some(named)) = (self.association.peer(), named)
            && peer != named
        {
            tracing::info!(%peer, %named, "the region's group host changed: the association moves");
            self.association.move_on(now);
        }
    }

    /// Message 5: the first must answer the first message 52 (AUTH-16); ignored once the
    /// give-up flag is set (STICKY-02); a body that does not fit the tick beside the ones
    /// before it is refused and sets it (AUTH-10); then the prefix is judged against the
    /// patch epoch (AUTH-02, AUTH-01); after the leave it is the leave's answer; between a
    /// region report and the roster request it lands while no slice set is current
    /// (AUTH-13); else roster enable must be set (AUTH-04), and the roster of the bubble
    /// the client stands in is read (one that says what the last said, unasked, follows no
    /// change: AUTH-16), the first after a move judged as its answer (HOST-05), and the
    /// Ghost bar it arms or finishes runs.
    fn on_auth_update(&mut self, cx: &mut Context<'_>, idx: u64, payload: &[u8]) {
        let f = Some(idx);
        let asked_at = self.refresh.answering(ids::SENSOR_AUTH_UPDATE);
        let asked = asked_at.is_some();
        self.auth_cause.on_read(cx.verdict, cx.now, idx);
        if let Some(rule) = cx.verdict.gave_up() {
            let reason = format!(
                "message 5 ignored: the give-up flag has been set since {}",
                rule.id()
            );
            return cx.verdict.violate(Rule::Sticky02, f, None, reason);
        }
        if let Err(before) = self.tick_budget.take(cx.now, payload.len()) {
            let reason = format!(
                "message 5 of {} bytes, with the {before} bytes of message 5 before it in this tick, is over the per-tick budget of {BODY_BUDGET}: it is refused, and message 5 is ignored for the rest of the session",
                payload.len()
            );
            return cx.verdict.violate(Rule::Auth10, f, None, reason);
        }
        let grants = &mut self.grants;
        let roster = &mut self.roster;
        let Some(prefix_bits) =
            self.epochs
                .check_auth_prefix(cx.verdict, (idx, asked_at), payload, grants, roster)
        else {
            return;
        };
        let scenario = &cx.config.scenario;
        if self.leave.left() {
            return self.leave.on_auth(cx.verdict, scenario, idx, payload);
        }
        if self.region.between_report_and_request() {
            let built_after =
                SensorAuthUpdate::decode(payload).is_ok_and(|m| self.region.built_after_move(&m));
            if !built_after {
                // it may have crossed message 22 on the wire: the real client applies it
                // with no slice set current, registering nothing, and no host can hold it
                return;
            }
            let reason = "message 5 between the region report (message 22) and the roster request, built for the region reported: applied while no slice set is current, it registers nothing and its rows outlive their objects".to_string();
            return cx.verdict.violate(Rule::Auth13, f, None, reason);
        }
        if !self.roster.prefix().is_some_and(|p| p.roster_enable) {
            let reason = "roster_enable is 0".to_string();
            return cx.verdict.violate(Rule::Auth04, f, None, reason);
        }
        let bubble = self.region.bubble();
        let read = self.roster.read(
            cx.verdict,
            scenario,
            (bubble, asked),
            (idx, cx.now),
            payload,
            prefix_bits,
        );
        if read && !cx.verdict.crashed() {
            self.roster.count_applied();
            let caused = asked | self.grants.take_moved();
            if let Some(said) = self.roster.said() {
                self.auth_cause.on_applied(cx.verdict, idx, said, caused);
            }
            let roster = self.roster.last();
            let region = player_region(self.roster.held_of(TYPE_PARTICIPATION));
            self.region
                .on_roster(cx.verdict, scenario, idx, (roster, region));
            self.ghost
                .on_bodies(cx.now, self.roster.held_of(TYPE_GHOST_LINK));
            for (slot, sense) in self.roster.overrides() {
                self.ghost.on_override(slot, sense);
            }
        }
    }
}
