//! One emulated client of a load run, life after life: the whole route into an activity,
//! then the activity (keepalives, message 52 every second, Sense, a region change, a slot
//! request, an identity report, an incident; a member of a shared activity also leaves
//! and joins again), then its links close and the next life starts (issue "Under load and
//! faults": load).

use crate::load_figures::Tally;
use crate::tcp::{Observer, Run, drive_observed};
use crate::transcript::Direction;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::net::SocketAddrV4;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::sync::{oneshot, watch};
use vex_fake_client::config::HOST_KEEPALIVE_MS;
use vex_fake_client::{ClientConfig, ClientCore, ClientTransmit, LinkKind, Script, Violation};
use vex_wire::activity::ids;
use vex_wire::bap::services::{
    ACTIVITY_PUSH, ACTIVITY_TO_HOST, HELLO, HELLO_RESPONSE, HOST_LOOKUP, HOST_LOOKUP_RESPONSE,
    HOST_REQUEST, HOST_RESPONSE,
};
use vex_wire::peer::association::{COOKIE_ACK, INIT};
use vex_wire::time::Instant;

/// What a client's frame is, for the latency table: a BAP service, or an activity message
/// on service 8 or 9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Service(u16),
    Message(u32),
}

impl Kind {
    fn of(service: Option<u16>, message: Option<u32>) -> Option<Kind> {
        match (service?, message) {
            (ACTIVITY_TO_HOST | ACTIVITY_PUSH, Some(m)) => Some(Kind::Message(m)),
            (ACTIVITY_TO_HOST | ACTIVITY_PUSH, None) => None,
            (s, _) => Some(Kind::Service(s)),
        }
    }
}

/// Each request the host answers, the answer, and the latency series' name (SR "What each
/// client message gets"; NS "The service registry").
const ANSWERS: [(Kind, Kind, &str); 6] = [
    (Kind::Service(HELLO), Kind::Service(HELLO_RESPONSE), "hello"),
    (
        Kind::Service(HOST_LOOKUP),
        Kind::Service(HOST_LOOKUP_RESPONSE),
        "host_lookup",
    ),
    (
        Kind::Service(HOST_REQUEST),
        Kind::Service(HOST_RESPONSE),
        "session",
    ),
    (
        Kind::Message(ids::JOIN_REQUEST),
        Kind::Message(ids::JOIN_RESULT),
        "join_result",
    ),
    (
        Kind::Message(ids::ALLOCATE_ENTITY_INDICES),
        Kind::Message(ids::ENTITY_SLOTS_ALLOCATED),
        "entity_slots",
    ),
    (
        Kind::Message(ids::STATE_REFRESH),
        Kind::Message(ids::SENSOR_AUTH_UPDATE),
        "roster_request",
    ),
];

/// The figures of one life, as its frames pass. The client's own times are in
/// milliseconds; the latencies are read off the monotonic clock in microseconds as each
/// frame is handed over.
struct LifeWatch {
    tally: Arc<Tally>,
    /// When the life's first link was asked for, or a rejoin's service 6 went out: the
    /// route's latency counts from it.
    began: Clock,
    /// Join results in this life.
    joins: u32,
    /// The requests waiting for their answer, by link and series name.
    asked: BTreeMap<(LinkKind, &'static str), Clock>,
    /// The last message 1, while the client is in an activity.
    last_keepalive: Option<Clock>,
    /// The client sent its leave and no join request since.
    left: bool,
    /// The host process service 17 sent the life to.
    process: Option<SocketAddrV4>,
    /// When the association's init went out, until its cookie ack comes.
    init_at: Option<Clock>,
    /// What the client sent last, and when: the context of a late keepalive.
    last_sent: Option<(Option<Kind>, Clock)>,
    /// What the client read last before the frame being read, and when.
    last_read: Option<(Option<Kind>, Clock)>,
    /// The requests of the route under way that got their answer: name, link, and how
    /// long the answer took in microseconds (the context of a slow join).
    steps: Vec<(&'static str, LinkKind, u64)>,
}

/// A keepalive this late is logged with what the client sent and read before it.
const LATE_KEEPALIVE_LOGGED_US: u64 = 250_000;
/// A join whose route took this long is logged with the time of each of its steps.
const SLOW_JOIN_LOGGED_US: u64 = 250_000;

type Clock = std::time::Instant;

impl LifeWatch {
    fn new(tally: Arc<Tally>) -> Self {
        tally.add(|s| s.lives += 1);
        Self {
            tally,
            began: Clock::now(),
            joins: 0,
            asked: BTreeMap::new(),
            last_keepalive: None,
            left: false,
            process: None,
            init_at: None,
            last_sent: None,
            last_read: None,
            steps: Vec::new(),
        }
    }

    /// A join whose route took `route_us` is logged when slow ([`slow_join`]); the
    /// route's steps start again.
    fn log_if_slow(&mut self, route_us: u64) {
        let steps = std::mem::take(&mut self.steps);
        if let Some((unanswered_ms, steps)) = slow_join(route_us, &steps) {
            let join_ms = route_us / 1000;
            let process = self.process;
            tracing::warn!(join_ms, unanswered_ms, ?process, "a slow join: {steps}");
        }
    }
}

fn micros(from: Clock, to: Clock) -> u64 {
    to.duration_since(from).as_micros() as u64
}

/// For a route of `route_us` at least [`SLOW_JOIN_LOGGED_US`] long, the milliseconds no
/// answer accounts for (connecting, and the client's own turns between steps) and each
/// answered step with its time, in the order they came.
fn slow_join(route_us: u64, steps: &[(&str, LinkKind, u64)]) -> Option<(u64, String)> {
    if route_us < SLOW_JOIN_LOGGED_US {
        return None;
    }
    let answered: u64 = steps.iter().map(|(_, _, us)| us).sum();
    let listed: Vec<String> = steps
        .iter()
        .map(|(name, link, us)| format!("{name} on {link} {} ms", us / 1000))
        .collect();
    Some((route_us.saturating_sub(answered) / 1000, listed.join(", ")))
}

impl Observer for LifeWatch {
    fn opened(&mut self, _at: Instant, _link: LinkKind) {}

    fn closed(&mut self, _at: Instant, _link: LinkKind) {}

    fn sent(&mut self, _at: Instant, t: &ClientTransmit) {
        let at = Clock::now();
        self.tally.add(|s| s.frames_sent += 1);
        let kind = Kind::of(Some(t.service), t.message);
        self.last_sent = Some((kind, at));
        // a rejoin's route starts at its service 6
        if kind == Some(Kind::Service(HOST_REQUEST)) && self.joins > 0 {
            self.began = at;
            self.steps.clear();
        }
        // the keepalive's clock stops at a leave and starts again with the burst of the next
        // join: a message 1 the host sent before it read the leave, read after it, is no
        // keepalive of the session joined next (issue 26: the one late keepalive of every
        // 10-minute run was a rejoin's burst measured from it)
        let ends_cadence = [ids::PEER_LEAVE_REQUEST, ids::JOIN_REQUEST].map(Kind::Message);
        if kind.is_some_and(|k| ends_cadence.contains(&k)) {
            self.last_keepalive = None;
            self.left = kind == Some(Kind::Message(ids::PEER_LEAVE_REQUEST));
        }
        if let Some((_, _, name)) = ANSWERS.iter().find(|(ask, _, _)| Some(*ask) == kind) {
            self.asked.entry((t.link, name)).or_insert(at);
        }
    }

    fn received(&mut self, _at: Instant, client: &mut ClientCore) {
        let (at, wall) = (Clock::now(), SystemTime::now());
        while let Some(r) = client.poll_received() {
            let kind = Kind::of(r.service, r.message);
            let answered = ANSWERS
                .iter()
                .find(|(_, ans, _)| Some(*ans) == kind)
                .and_then(|(_, _, name)| Some((*name, self.asked.remove(&(r.link, *name))?)));
            let joined = kind == Some(Kind::Message(ids::JOIN_RESULT));
            let placed = kind == Some(Kind::Service(HOST_LOOKUP_RESPONSE));
            if placed {
                self.process = client.activity_address();
            }
            let process = self.process;
            // a message 1 that comes later than 2 s after the one before: how much later
            // (other pushes carry message 1 too, so an early one is no jitter)
            let keepalive = kind == Some(Kind::Message(ids::GLOBAL_ACTIVITY_STATE));
            let after_leave = keepalive && self.left;
            let late = keepalive
                .then(|| self.last_keepalive.replace(at))
                .flatten()
                .map(|last| micros(last, at).saturating_sub(HOST_KEEPALIVE_MS * 1000));
            if let Some(late) = late.filter(|l| *l >= LATE_KEEPALIVE_LOGGED_US) {
                let before = |last: Option<(Option<Kind>, Clock)>| match last {
                    Some((kind, then)) => format!("{kind:?} {} ms before", micros(then, at) / 1000),
                    None => "nothing".to_string(),
                };
                tracing::warn!(
                    late_ms = late / 1000,
                    process = ?process,
                    "a keepalive (message 1) came late: the client last sent {}, and last read {}",
                    before(self.last_sent),
                    before(self.last_read),
                );
            }
            self.last_read = Some((kind, at));
            let answered = answered.map(|(name, asked)| (name, micros(asked, at)));
            if let Some((name, us)) = answered {
                self.steps.push((name, r.link, us));
            }
            let route = micros(self.began, at);
            if joined {
                self.log_if_slow(route);
            }
            self.joins += u32::from(joined);
            self.tally.add(|s| {
                s.frames_received += 1;
                if let Some((name, us)) = answered {
                    s.latency.entry(Cow::Borrowed(name)).or_default().record(us);
                }
                if joined {
                    s.joins += 1;
                    s.latency
                        .entry(Cow::Borrowed("join"))
                        .or_default()
                        .record(route);
                }
                if let Some(p) = process.filter(|_| placed || joined) {
                    let p = s.per_process.entry(p).or_default();
                    p.lives += u64::from(placed);
                    if joined {
                        p.joins += 1;
                        p.join.record(route);
                    }
                }
                if let Some(late) = late {
                    s.keepalive(late, wall);
                }
                s.message_1_after_leave += u64::from(after_leave);
            });
        }
    }

    fn tick(&mut self, _at: Instant, late: Duration) {
        let late = late.as_micros() as u64;
        self.tally.add(|s| s.client_timer_late.record(late));
    }

    /// The association's handshake: from its first init to the cookie ack that opens it.
    fn datagram(&mut self, _at: Instant, direction: Direction, bytes: &[u8]) {
        let at = Clock::now();
        match (direction, bytes.first().copied()) {
            (Direction::ToHost, Some(INIT)) => {
                self.init_at.get_or_insert(at);
            }
            (Direction::ToClient, Some(COOKIE_ACK)) => {
                if let Some(init) = self.init_at.take() {
                    self.tally.add(|s| {
                        s.peer_associated += 1;
                        let handshake = s.latency.entry(Cow::Borrowed("association")).or_default();
                        handshake.record(micros(init, at));
                    });
                }
            }
            _ => {}
        }
    }
}

/// A client's place in the run.
pub(crate) struct Member {
    /// Its index, 0-based: its member key and its seed.
    pub(crate) index: usize,
    /// Its client, before its script and session are set.
    pub(crate) config: ClientConfig,
    /// The activity it makes or joins.
    pub(crate) session: Session,
    /// When its first life begins.
    pub(crate) first_at: tokio::time::Instant,
    /// Each life also associates with its group host and joins the group session.
    pub(crate) peer: bool,
    /// No life begins after this: the last ones have the time to join and be judged.
    pub(crate) last_start: tokio::time::Instant,
    /// When the run ends.
    pub(crate) end: tokio::time::Instant,
    /// The run's origin.
    pub(crate) start: tokio::time::Instant,
}

/// The activity a member is in: it makes it (and tells the others), or joins the one made.
pub(crate) enum Session {
    /// Member 1: its own session, told here once it is in.
    Makes(watch::Sender<Option<u64>>),
    /// Another member: the session to name in its join.
    Joins(watch::Receiver<Option<u64>>),
}

/// How long a joining member's life lasts: between these, in milliseconds.
const LIFE_MS: (u64, u64) = (30_000, 90_000);

impl Member {
    /// Runs lives until the run ends, adding what they record to `tally`.
    pub(crate) async fn live(self, tally: Arc<Tally>) {
        let mut rng = ChaCha8Rng::seed_from_u64(self.index as u64);
        tokio::time::sleep_until(self.first_at).await;
        while tokio::time::Instant::now() < self.last_start {
            let mut config = self.config.clone();
            let life_end = match &self.session {
                Session::Makes(_) => self.end,
                Session::Joins(made) => {
                    let mut made = made.clone();
                    let made = made.wait_for(Option::is_some);
                    let waited = tokio::time::timeout_at(self.last_start, made).await;
                    let Ok(Ok(session)) = waited.map(|r| r.map(|s| *s)) else {
                        break;
                    };
                    config.join_session = session;
                    let ms = LIFE_MS.0 + rng.next_u64() % (LIFE_MS.1 - LIFE_MS.0);
                    (tokio::time::Instant::now() + Duration::from_millis(ms)).min(self.end)
                }
            };
            let joins = matches!(self.session, Session::Joins(_));
            config.script = script(&mut rng, joins, self.peer);
            let mut watch = LifeWatch::new(tally.clone());
            let (tell, told) = oneshot::channel();
            let run = Run {
                joined: Some(tell),
                ..Run::between(self.start, life_end)
            };
            let on_violation = |v: &Violation| {
                let line = format!("client {}: {v}", self.index);
                tally.add(|s| s.violation(v.rule, line));
            };
            let tell_session = async {
                if let (Session::Makes(to), Ok(session)) = (&self.session, told.await) {
                    let _ = to.send(Some(session));
                }
            };
            let client = ClientCore::new(config);
            let ((client, links, _), ()) = tokio::join!(
                drive_observed(client, &mut watch, run, on_violation),
                tell_session
            );
            drop(links);
            if client
                .group_membership()
                .is_some_and(|(applied, _)| applied > 0)
            {
                tally.add(|s| s.peer_in_group_session += 1);
            }
            // a check that fired again on the same thing was reported once: count the rest
            for v in client.violations() {
                let times = v.again.map_or(0, |a| a.times);
                tally.add(|s| s.violated_again(v.rule, times));
            }
        }
    }
}

/// A life's actions, each at a time of its own after the join; one that joins another's
/// activity also leaves and joins again; with `peer`, it associates with its group host.
fn script(rng: &mut ChaCha8Rng, joins: bool, peer: bool) -> Script {
    let mut at = |from: u64, to: u64| Some(from + rng.next_u64() % (to - from));
    Script {
        associate_after_ms: if peer { at(500, 3_000) } else { None },
        slot_request_after_ms: at(2_000, 10_000),
        move_region_after_ms: at(5_000, 20_000),
        identity_after_ms: at(1_000, 5_000),
        incident_after_ms: at(3_000, 15_000),
        leave_after_ms: if joins { at(20_000, 25_000) } else { None },
        rejoin_after_ms: if joins { at(1_000, 3_000) } else { None },
        ..Script::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(watch: &mut LifeWatch, message: u32) {
        let t = ClientTransmit {
            link: LinkKind::Activity,
            bytes: Vec::new(),
            service: ACTIVITY_TO_HOST,
            message: Some(message),
            payload: None,
        };
        watch.sent(Instant::default(), &t);
    }

    /// A join request and a leave stop the keepalive's clock, so a message 1 read after
    /// either (one in flight at the leave, or the next join's burst) starts it again;
    /// the client's own keepalive does not. A message 1 counts as after the leave from the
    /// leave to the next join request.
    #[test]
    fn a_leave_or_a_join_starts_the_keepalive_clock_again() {
        let mut watch = LifeWatch::new(Arc::new(Tally::default()));
        for (message, stops) in [
            (ids::JOIN_REQUEST, true),
            (ids::PEER_LEAVE_REQUEST, true),
            (ids::KEEPALIVE_REQUEST, false),
        ] {
            watch.last_keepalive = Some(Clock::now());
            sent(&mut watch, message);
            assert_eq!(watch.last_keepalive.is_none(), stops, "message {message}");
        }
        sent(&mut watch, ids::PEER_LEAVE_REQUEST);
        assert!(watch.left, "a leave");
        sent(&mut watch, ids::KEEPALIVE_REQUEST);
        assert!(watch.left, "still left");
        sent(&mut watch, ids::JOIN_REQUEST);
        assert!(!watch.left, "joined again");
    }

    /// A join is logged from 250 ms of route, not below, with each answered step in turn
    /// and the time no answer accounts for.
    #[test]
    fn a_slow_join_names_its_steps() {
        let steps = [
            ("hello", LinkKind::Primary, 40_000),
            ("host_lookup", LinkKind::Primary, 150_000),
            ("join_result", LinkKind::Activity, 9_999),
        ];
        assert_eq!(slow_join(249_999, &steps), None);
        assert_eq!(
            slow_join(250_000, &steps),
            Some((
                50,
                "hello on primary 40 ms, host_lookup on primary 150 ms, join_result on activity 9 ms"
                    .to_string()
            ))
        );
        assert_eq!(slow_join(300_000, &[]), Some((300, String::new())));
    }
}
