//! The two keepalives of an activity client: its own message 16 after a keepalive
//! interval with nothing sent (AH "join_result"; LINK-02, JOIN-07), and the host's,
//! which carries message 1 every 2 s (SR "Timed sends that remain"; LINK-03).

use crate::config::{CLIENT_TICK_MS, HOST_KEEPALIVE_MS};
use crate::links::Outgoing;
use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::ids;
use vex_wire::activity::join::KEEPALIVE_INTERVAL_BIT;
use vex_wire::activity::small::KEEPALIVE_BODY;
use vex_wire::time::Instant;

/// Slack on the host keepalive for scheduling and the network.
const KEEPALIVE_SLACK_MS: u64 = 500;

/// The client's keepalive interval and the watch on the host's (AH "join_result"; SR
/// "Timed sends that remain").
#[derive(Debug, Default)]
pub(crate) struct Keepalive {
    /// join_result field 9.
    interval_ms: u64,
    /// When the last message 1 arrived after the join (LINK-03).
    last_global_state: Option<Instant>,
    /// LINK-03 was reported once already.
    overdue_reported: bool,
}

impl Keepalive {
    /// join_result's keepalive interval; at 0 the client sends message 16 every tick
    /// (JOIN-07).
    pub(super) fn start(&mut self, verdict: &mut Verdict, idx: u64, interval_ms: u16) {
        self.interval_ms = u64::from(interval_ms);
        if interval_ms == 0 {
            let reason =
                "keepalive interval 0: the client sends message 16 every tick, about 144 a second"
                    .to_string();
            verdict.violate(
                Rule::Join07,
                Some(idx),
                Some(KEEPALIVE_INTERVAL_BIT),
                reason,
            );
        }
    }

    /// Message 16 is due a keepalive interval after the client's last send on the link,
    /// `last_sent`; never sooner than one tick.
    pub(crate) fn send_due(&self, last_sent: Instant) -> Instant {
        last_sent + self.interval_ms.max(CLIENT_TICK_MS)
    }

    /// Message 16.
    pub(crate) fn send(&self) -> Outgoing {
        Outgoing {
            message: ids::KEEPALIVE_REQUEST,
            body: KEEPALIVE_BODY.to_vec(),
        }
    }

    /// A push on the established arm at `now`: message 1 restarts the host's clock.
    pub(super) fn observe(&mut self, now: Instant, msg: u32) {
        if msg == ids::GLOBAL_ACTIVITY_STATE {
            self.last_global_state = Some(now);
        }
    }

    /// When the host keepalive is overdue, until that was reported (LINK-03).
    pub(crate) fn host_overdue_at(&self) -> Option<Instant> {
        if self.overdue_reported {
            return None;
        }
        Some(self.last_global_state? + HOST_KEEPALIVE_MS + KEEPALIVE_SLACK_MS)
    }

    /// Reports the overdue host keepalive, once (LINK-03).
    pub(crate) fn report_host_overdue(&mut self, verdict: &mut Verdict) {
        self.overdue_reported = true;
        let reason = format!("no message 1 for over {HOST_KEEPALIVE_MS} ms after the join");
        verdict.violate(Rule::Link03, None, None, reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activity_client::{ActivityClient, Context};
    use crate::config::ClientConfig;
    use crate::links::Links;
    use crate::rules::Rule;
    use crate::status::StatusLine;
    use std::net::{Ipv4Addr, SocketAddrV4};
    use vex_wire::activity::body::Body;
    use vex_wire::activity::envelope::PushHeader;
    use vex_wire::activity::join::{JoinRequest, JoinResult};
    use vex_wire::bits::BitReader;

    const SESSION: u64 = 0x9EAA_3001_0020_0001;

    /// The rules and bits a fresh activity client reports for a join_result accepting its
    /// join with keepalive interval `interval_ms`, and whether the join was accepted.
    fn joined_with(interval_ms: u16) -> (Vec<(Rule, Option<usize>)>, bool) {
        let config = ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1));
        let p = config.scenario.player;
        let request = JoinRequest::new(config.join_nonce, SESSION, p.member_key, p.character_id);
        let mut result = JoinResult::accept(&request, SESSION);
        result.keepalive_interval_ms = interval_ms;
        let body = result.encode().unwrap();
        let mut r = BitReader::new(&body);
        r.skip(KEEPALIVE_INTERVAL_BIT).unwrap();
        assert_eq!(r.read(16).unwrap(), u64::from(interval_ms), "field 9's bit");
        let (mut status, mut verdict) = (StatusLine::default(), Verdict::new());
        let mut links = Links::new(config.target);
        let mut client = ActivityClient::new(SESSION, false, false, 0);
        let mut cx = Context {
            now: Instant::default(),
            config: &config,
            status: &mut status,
            verdict: &mut verdict,
            links: &mut links,
        };
        let push = PushHeader::new(SESSION, ids::JOIN_RESULT, body.len());
        client.on_push(&mut cx, 1, push, &body);
        let got = verdict
            .violations()
            .iter()
            .map(|v| (v.rule, v.bit))
            .collect();
        (got, status.e)
    }

    /// JOIN-07: join_result field 9, the keepalive interval, of 0 is reported at its bit
    /// (1,781), and the join is still accepted; 1 ms, Sunrise's 5,000 ms and the field's
    /// largest, 65,535 ms, pass. At 0 message 16 is due every tick, about 144 a second;
    /// at 2,000 ms, 2,000 ms after the client's last send.
    #[test]
    fn a_keepalive_interval_of_zero_sends_every_tick() {
        assert_eq!(
            joined_with(0),
            (vec![(Rule::Join07, Some(KEEPALIVE_INTERVAL_BIT))], true)
        );
        for interval in [1, 5000, u16::MAX] {
            assert_eq!(joined_with(interval), (vec![], true), "{interval} ms");
        }
        let due = |interval_ms| {
            let (mut k, mut v) = (Keepalive::default(), Verdict::new());
            k.start(&mut v, 1, interval_ms);
            k.send_due(Instant::from_millis(1_000))
                .since(Instant::from_millis(1_000))
        };
        assert_eq!(due(0), CLIENT_TICK_MS);
        assert!((140..=145).contains(&(1000 / due(0))), "about 144 a second");
        assert_eq!(due(2000), 2000);
    }

    /// LINK-03: the host keepalive carries message 1 every 2 s. Before the first message
    /// 1 after the join nothing is due (the burst owes it: JOIN-02). Each message 1 puts
    /// the deadline 2,000 ms after it, with 500 ms of slack for scheduling and the network:
    /// the next 2,000 ms later, or 2,499 ms later, keeps the host on time. Only message 1
    /// moves it: a keepalive that carries message 44, 2, 12 or 5 without it is no
    /// keepalive. An overdue host is reported once, with no frame, and not again.
    #[test]
    fn the_host_keepalive_carries_message_1_every_2_s() {
        let at = Instant::from_millis;
        let others = [
            ids::ADVANCE_REPLICATION_EPOCH,
            ids::WORLD_GLOBALS_STATE,
            ids::REPLICATE_MEMBERSHIP,
            ids::SENSOR_AUTH_UPDATE,
        ];
        let mut k = Keepalive::default();
        for msg in others {
            k.observe(at(0), msg);
        }
        assert_eq!(k.host_overdue_at(), None, "no message 1 yet");
        for (last, due) in [(0, 2_500), (2_000, 4_500), (4_499, 6_999)] {
            k.observe(at(last), ids::GLOBAL_ACTIVITY_STATE);
            assert_eq!(k.host_overdue_at(), Some(at(due)), "message 1 at {last} ms");
        }
        for msg in others {
            k.observe(at(6_000), msg);
            assert_eq!(k.host_overdue_at(), Some(at(6_999)), "message {msg} alone");
        }
        let mut v = Verdict::new();
        k.report_host_overdue(&mut v);
        let got: Vec<_> = v
            .violations()
            .iter()
            .map(|x| (x.rule, x.frame, x.bit))
            .collect();
        assert_eq!(got, [(Rule::Link03, None, None)]);
        assert_eq!(k.host_overdue_at(), None, "reported");
        k.observe(at(7_000), ids::GLOBAL_ACTIVITY_STATE);
        assert_eq!(k.host_overdue_at(), None, "reported once");
    }
}
