//! The sans-IO emulated client: its links, its one activity client, its status line and
//! its verdict, behind the API the IO layer drives (design "Sans-IO cores", "The emulated
//! client"). Frames come in through `receive`, time through `timer`; the route into an
//! activity is `route`, service 9 is `push`, and what an activity client does is
//! [`crate::activity_client`].

use crate::activity::MemberView;
use crate::activity_client::ActivityClient;
use crate::config::ClientConfig;
use crate::link::LinkKind;
use crate::links::{ClientTransmit, Links};
use crate::probe::Probe;
use crate::receive::Received;
use crate::rules::Rule;
use crate::status::StatusLine;
use crate::verdict::{Outcome, Verdict};
use crate::violation::Violation;
use std::collections::VecDeque;
use std::net::SocketAddrV4;
use vex_wire::bap::services::HOST_REQUEST;
use vex_wire::peer::association::{COOKIE_ACK, COOKIE_ECHO, DATA, INIT, INIT_ACK, NAT_TRAVERSAL};
use vex_wire::time::Instant;

/// The emulated client.
#[derive(Debug)]
pub struct ClientCore {
    pub(crate) config: ClientConfig,
    pub(crate) links: Links,
    /// The activity client service 7 made, once it did.
    pub(crate) activity: Option<ActivityClient>,
    /// The session the last service 7 named the client's own (ENV-08).
    pub(crate) own_session: Option<u64>,
    /// The first tag generation the next activity's association takes: the UDP socket
    /// outlives each activity, and what the host of an association left still sends must
    /// be told apart from the next one's.
    pub(crate) next_association: u16,
    pub(crate) status: StatusLine,
    pub(crate) verdict: Verdict,
    /// Frames received so far, both links.
    pub(crate) frames_in: u64,
    pub(crate) received: VecDeque<Received>,
    /// The replicated object store service 123 fills.
    pub(crate) store: crate::queuez::Store,
    /// Web-service operations parked on a family-4 revision.
    pub(crate) barrier: crate::version_barrier::Barrier,
    /// The matchmaking requests not answered yet.
    pub(crate) matchmaking: crate::lobby_calls::Asked<vex_wire::bap::matchmaking::Kind>,
    /// The web-service calls not answered yet.
    pub(crate) web_service: crate::lobby_calls::Asked<(u16, u32)>,
}

impl ClientCore {
    /// A client that will first open its primary link to `config.target`.
    pub fn new(config: ClientConfig) -> Self {
        let links = Links::new(config.target);
        Self {
            config,
            links,
            activity: None,
            own_session: None,
            next_association: 0,
            status: StatusLine::default(),
            verdict: Verdict::new(),
            frames_in: 0,
            received: VecDeque::new(),
            store: crate::queuez::Store::default(),
            barrier: crate::version_barrier::Barrier::default(),
            matchmaking: crate::lobby_calls::Asked::default(),
            web_service: crate::lobby_calls::Asked::default(),
        }
    }

    /// The activity client ends (a rejoin, or a new service 7): the tags of its
    /// association are left.
    pub(crate) fn end_activity(&mut self) {
        if let Some(a) = self.activity.take() {
            self.next_association = a.association.next_generation();
        }
    }

    /// The status line.
    pub fn status(&self) -> StatusLine {
        self.status
    }

    /// What the run has come to.
    pub fn outcome(&self) -> &Outcome {
        self.verdict.outcome()
    }

    /// Message-5 bodies applied so far.
    pub fn rosters_applied(&self) -> u32 {
        self.activity.as_ref().map_or(0, |a| a.roster.applied())
    }

    /// The session every push carries, once a join_result was accepted: what another
    /// member names to join the same activity (SR "The join burst": a public join).
    pub fn session(&self) -> Option<u64> {
        self.activity.as_ref().and_then(|a| a.join.session())
    }

    /// What the client knows of its activity's members, for the checks between members.
    pub fn member_view(&self) -> MemberView {
        let activity = self.activity.as_ref().filter(|a| a.join.established());
        MemberView {
            member_key: self.config.scenario.player.member_key,
            lease: activity.map(|a| a.slots.lease().clone()),
            tables: activity
                .map(|a| a.membership.history().to_vec())
                .unwrap_or_default(),
            left: activity.is_some_and(|a| a.leave.left()),
            present: activity.is_some_and(|a| !a.leave.left()) && self.verdict.running(),
            session: self.session(),
            own_session: self.own_session,
        }
    }

    /// Every violation so far.
    pub fn violations(&self) -> &[Violation] {
        self.verdict.violations()
    }

    /// Violations recorded since the last call.
    pub fn poll_violations(&mut self) -> Vec<Violation> {
        self.verdict.poll_violations()
    }

    /// A link the IO layer should open.
    pub fn poll_connect(&mut self) -> Option<(LinkKind, SocketAddrV4)> {
        self.links.poll_connect()
    }

    /// The next frame to send.
    pub fn poll_transmit(&mut self) -> Option<ClientTransmit> {
        self.links.poll_transmit()
    }

    /// Where service 17 sent the Activity Host link, once it did.
    pub fn activity_address(&self) -> Option<SocketAddrV4> {
        self.links.activity_address()
    }

    /// The next datagram to send, and where: the Activity Host's UDP port.
    pub fn poll_datagram(&mut self) -> Option<(SocketAddrV4, Vec<u8>)> {
        self.links.poll_datagram()
    }

    /// A datagram arrived on the client's UDP socket at `now`: a packet type of the
    /// association port goes to the association, any other to the QoS probe (which judges
    /// one that is not a reply).
    pub fn handle_datagram(&mut self, now: Instant, bytes: &[u8]) {
        let Some(activity) = self.activity.as_mut() else {
            return;
        };
        let association = [INIT, INIT_ACK, COOKIE_ECHO, COOKIE_ACK, DATA];
        let kind = bytes.first().copied().unwrap_or_default();
        if !association.contains(&kind) && !NAT_TRAVERSAL.contains(&kind) {
            let session = activity.join.session().unwrap_or_default();
            return activity.qos.on_reply(&mut self.verdict, bytes, session);
        }
        let answers = activity
            .association
            .on_datagram(&mut self.verdict, now, bytes);
        let to = activity.association.peer();
        self.links.send_datagrams_to(to, &answers);
    }

    /// The group session's membership as the client holds it: how many updates it
    /// applied and validated, hash included, and the revision it holds.
    pub fn group_membership(&self) -> Option<(u32, u32)> {
        let group = self.activity.as_ref()?.association.group();
        Some((group.accepted(), group.revision()))
    }

    /// The group host the association went to last, once the client opened one: the one
    /// the citizen record of its region names.
    pub fn group_host(&self) -> Option<SocketAddrV4> {
        self.activity.as_ref()?.association.peer()
    }

    /// The next received frame report.
    pub fn poll_received(&mut self) -> Option<Received> {
        self.received.pop_front()
    }

    /// Sends activity message `msg` with `body` on the activity link at `now`, as it is: no
    /// check of the body, for experiments and fuzzing. Nothing is sent before a session
    /// exists.
    pub fn send_raw(&mut self, now: Instant, msg: u32, body: Vec<u8>) {
        let Some(session) = self.session() else {
            return;
        };
        let out = crate::links::Outgoing { message: msg, body };
        self.links.send_activity(now, session, out);
    }

    /// The IO layer opened `link`: start channel setup and the hello (facts 1.5).
    pub fn handle_connected(&mut self, now: Instant, link: LinkKind) {
        self.links.open(now, link, &self.config.token);
    }

    /// The link closed under the client. Losing the Activity Host link of a joined activity
    /// ends it as the link timeout does (LINK-01, `error_host_crashed`); closed just after a
    /// probe, it breaks the probe's rule first.
    pub fn handle_closed(&mut self, now: Instant, link: LinkKind) {
        let was_open = self.links.close(link);
        let joined = self.activity.as_ref().filter(|a| a.join.established());
        if was_open
            && link == LinkKind::Activity
            && self.verdict.running()
            && let Some(a) = joined
        {
            if let Some((rule, reason)) = a.probe.blame_close(now) {
                self.verdict.violate(rule, None, None, reason);
            }
            let reason = "error_host_crashed: the host closed the Activity Host link".to_string();
            self.verdict.violate(Rule::Link01, None, None, reason);
        }
    }

    /// The run's deadline passed: every check whose effect is a hang is judged now.
    pub fn finish(&mut self, now: Instant) {
        if !self.verdict.running() {
            return;
        }
        self.judge_unanswered(now);
        if !self.status.in_activity() {
            let reason = format!("the run ended at {} without E, G and M", self.status);
            self.verdict.violate(Rule::Join09, None, None, reason);
        }
    }

    /// True while the host owes the client an answer that [`ClientCore::finish`] would
    /// judge once the grace for it passed (`ANSWER_GRACE_MS`): a link request, the join's
    /// burst, a leave's delta, a grant, a snapshot, a parked operation's update. A driver
    /// ending a run over a real network takes input until nothing is owed, up to a limit
    /// of its own, before it judges: an answer still on its way is not one never sent.
    /// The checks are `finish`'s own, run on a verdict thrown away that logs nothing.
    pub fn owes_answers(&mut self, now: Instant) -> bool {
        if !self.verdict.running() {
            return false;
        }
        let kept = std::mem::replace(&mut self.verdict, Verdict::unlogged());
        self.judge_unanswered(now + crate::ANSWER_GRACE_MS);
        let owed = !self.verdict.violations().is_empty();
        self.verdict = kept;
        owed
    }

    /// At the run's end `now`: every answer the host owes and had time to send.
    fn judge_unanswered(&mut self, now: Instant) {
        let malformed = self.config.script.probe.map(|(p, _)| p) == Some(Probe::MalformedSelection);
        for (link, task, service) in self.links.unanswered(now) {
            let (rule, what) = if malformed && service == HOST_REQUEST {
                (
                    Rule::Bap14,
                    "malformed service 6 (the host falls back to a default selection)",
                )
            } else {
                (Rule::Bap06, "")
            };
            let reason = format!(
                "{link} link: service {service} request{what} (task {task}) was never answered"
            );
            self.verdict.violate(rule, None, None, reason);
        }
        self.judge_barrier(now);
        if let Some(activity) = &self.activity {
            activity.finish(&mut self.verdict, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CHANNEL_START_LEN;
    use std::net::Ipv4Addr;
    use vex_wire::activity::body::Body;
    use vex_wire::activity::envelope::ActivityPush;
    use vex_wire::activity::ids;
    use vex_wire::activity::join::{JoinRequest, JoinResult};
    use vex_wire::activity::membership::{Member, ReplicateMembership};
    use vex_wire::bap::header::{FrameType, InnerHeader};
    use vex_wire::bap::secure::{ChannelSecrets, Role, SecureChannel, seal_hello};
    use vex_wire::bap::services::{
        CHANNEL_START, ECHO, HELLO, HOST_LOOKUP, HostLookupResponse, HostResponse,
    };

    /// A session id of the built-in account's shape (ENV-09).
    const SESSION: u64 = 0x9EAA_3001_0020_0001;
    const SECRETS: ChannelSecrets = ChannelSecrets {
        base_nonce: [0xA0; 12],
        session_key: [0xB0; 16],
    };

    fn client(probe: Option<Probe>) -> ClientCore {
        let mut config = ClientConfig::builtin(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1));
        config.script.probe = probe.map(|p| (p, 0));
        ClientCore::new(config)
    }

    /// The response on `service` to `task` with `body`, on `link`.
    fn answer(c: &mut ClientCore, link: LinkKind, task: u32, service: u16, body: &[u8]) {
        let header = InnerHeader::response(service, task);
        c.handle_response(Instant::default(), link, 1, header, body);
    }

    /// Opens `link` and answers its channel start (task 1) and hello (task 2).
    fn hello(c: &mut ClientCore, link: LinkKind) {
        c.handle_connected(Instant::default(), link);
        answer(c, link, 1, CHANNEL_START + 1, &[0; CHANNEL_START_LEN]);
        let body = seal_hello(&c.config.signon, [0xC0; 16], &SECRETS);
        answer(c, link, 2, HELLO + 1, &body);
    }

    /// `link`'s pending requests, task and service.
    fn pending(c: &mut ClientCore, link: LinkKind) -> Vec<(u32, u16)> {
        let l = c.links.get_mut(link).unwrap();
        l.pending.iter().map(|(t, p)| (*t, p.service)).collect()
    }

    /// The rules the run's end adds, JOIN-09 aside.
    fn at_the_end(c: &mut ClientCore) -> Vec<Rule> {
        let before = c.verdict.violations().len();
        c.finish(Instant::from_millis(60_000));
        let added = c.verdict.violations()[before..].iter().map(|v| v.rule);
        added.filter(|r| *r != Rule::Join09).collect()
    }

    /// BAP-06: every request gets its response; one left unanswered jams the link and is
    /// reported at the run's end, one per request: both of a fresh link's, then the hello
    /// alone, then the lookup and the echo the hello led to; all answered, nothing.
    #[test]
    fn an_unanswered_request_is_caught_at_the_end() {
        let primary = LinkKind::Primary;
        let mut c = client(None);
        c.handle_connected(Instant::default(), primary);
        assert_eq!(at_the_end(&mut c), [Rule::Bap06; 2], "30 and 25");
        let mut c = client(None);
        c.handle_connected(Instant::default(), primary);
        answer(
            &mut c,
            primary,
            1,
            CHANNEL_START + 1,
            &[0; CHANNEL_START_LEN],
        );
        assert_eq!(at_the_end(&mut c), [Rule::Bap06], "25");
        let mut c = client(None);
        hello(&mut c, primary);
        assert_eq!(pending(&mut c, primary), [(3, HOST_LOOKUP), (4, ECHO)]);
        let lookup = lookup_answer(&c);
        answer(&mut c, primary, 3, HOST_LOOKUP + 1, &lookup);
        assert_eq!(at_the_end(&mut c), [Rule::Bap06], "250");
        let mut c = client(None);
        hello(&mut c, primary);
        answer(&mut c, primary, 3, HOST_LOOKUP + 1, &lookup);
        answer(&mut c, primary, 4, ECHO + 1, &[]);
        assert_eq!(c.verdict.rules(), []);
        assert_eq!(at_the_end(&mut c), [], "all answered");
    }

    /// Service 17's body answering `c`'s host lookup: its own activity host id, here.
    fn lookup_answer(c: &ClientCore) -> Vec<u8> {
        HostLookupResponse {
            host_id: c.config.scenario.activity_host_id,
            address: Ipv4Addr::LOCALHOST,
            reserved: 0,
            port: 30974,
        }
        .encode()
    }

    /// BAP-06 at a run's end: a request sent less than [`crate::ANSWER_GRACE_MS`] before
    /// the deadline may have its answer on the wire and is not judged; one sent that long
    /// before is. The run's end often cuts a life short (`vex load` ends every member's
    /// life at its deadline, rejoins included), so the boundary is where a run stops.
    #[test]
    fn a_request_sent_just_before_the_end_is_not_judged() {
        let end = Instant::from_millis(60_000);
        let unanswered_at_end = |sent: u64| {
            let mut c = client(None);
            c.handle_connected(Instant::from_millis(sent), LinkKind::Primary);
            c.finish(end);
            let rules = c.verdict.rules().into_iter();
            rules.filter(|r| *r != Rule::Join09).collect::<Vec<_>>()
        };
        let grace = crate::ANSWER_GRACE_MS;
        assert_eq!(
            unanswered_at_end(60_000 - grace + 1),
            [],
            "within the grace"
        );
        assert_eq!(unanswered_at_end(60_000), [], "sent at the deadline");
        assert_eq!(
            unanswered_at_end(60_000 - grace),
            [Rule::Bap06; 2],
            "sent the grace before the deadline: 30 and 25"
        );
    }

    /// A run's driver asks whether the host still owes an answer before it judges: a
    /// request just sent is owed (its grace has not passed, and `finish` would not judge
    /// it yet), an answered one is not, and asking records nothing.
    #[test]
    fn the_answers_owed_are_what_the_end_would_judge_and_asking_records_nothing() {
        let primary = LinkKind::Primary;
        let mut c = client(None);
        c.handle_connected(Instant::from_millis(60_000), primary);
        assert!(
            c.owes_answers(Instant::from_millis(60_000)),
            "30 and 25, just sent"
        );
        assert_eq!(c.verdict.rules(), [], "asking records nothing");
        let mut c = client(None);
        hello(&mut c, primary);
        assert!(
            c.owes_answers(Instant::default()),
            "the lookup and the echo"
        );
        let lookup = lookup_answer(&c);
        answer(&mut c, primary, 3, HOST_LOOKUP + 1, &lookup);
        assert!(c.owes_answers(Instant::default()), "the echo");
        answer(&mut c, primary, 4, ECHO + 1, &[]);
        assert!(!c.owes_answers(Instant::default()), "all answered");
        c.finish(Instant::from_millis(60_000));
        let rules = c.verdict.rules().into_iter();
        assert_eq!(rules.filter(|r| *r != Rule::Join09).count(), 0);
    }

    /// BAP-14: under the malformed-selection probe the client's service 6 is 3 bytes no
    /// selection decoder takes; left unanswered it is caught under BAP-14 at the run's end,
    /// and answered with service 7 nothing is. The client's own well-formed selection left
    /// unanswered is BAP-06's.
    #[test]
    fn a_malformed_service_6_still_gets_service_7() {
        let activity = LinkKind::Activity;
        let mut c = client(Some(Probe::MalformedSelection));
        hello(&mut c, activity);
        assert_eq!(pending(&mut c, activity), [(3, HOST_REQUEST)]);
        let mut host = SecureChannel::new(&SECRETS, Role::Host);
        let sent: Vec<ClientTransmit> = std::iter::from_fn(|| c.poll_transmit()).collect();
        let last = sent.last().unwrap();
        assert_eq!(
            (last.service, last.bytes[1]),
            (HOST_REQUEST, FrameType::Encrypted.byte())
        );
        let inner = host.open(&last.bytes[6..]).unwrap();
        assert_eq!(inner.len(), 6 + 3, "a 3-byte service 6");
        assert_eq!(at_the_end(&mut c), [Rule::Bap14], "unanswered");
        let mut c = client(Some(Probe::MalformedSelection));
        hello(&mut c, activity);
        answer(
            &mut c,
            activity,
            3,
            HOST_REQUEST + 1,
            &HostResponse::new(SESSION).encode(),
        );
        assert_eq!(c.verdict.rules(), []);
        assert_eq!(at_the_end(&mut c), [], "answered with 7");
        let mut c = client(None);
        hello(&mut c, activity);
        assert_eq!(pending(&mut c, activity), [(3, HOST_REQUEST)]);
        assert_eq!(
            at_the_end(&mut c),
            [Rule::Bap06],
            "its own selection unanswered"
        );
    }

    /// The push `msg` names for `c`'s join of [`SESSION`]: "4" an accepting join_result,
    /// "4 refused" one with result 1; "1" a message 1 that decodes (146 bytes), "1 short"
    /// one that does not (145); "12" a message 12 with the player alone, "12 empty" one
    /// that does not decode.
    fn pushes(c: &ClientCore, msg: &str) -> ActivityPush {
        let p = c.config.scenario.player;
        let request = JoinRequest::new(c.config.join_nonce, SESSION, p.member_key, p.character_id);
        let global = vex_wire::vectors::global_state_example().encode().unwrap();
        let me = Member::seed(p.member_key, p.account_soid, p.character_id);
        let (id, body) = match msg {
            "4" => (
                ids::JOIN_RESULT,
                JoinResult::accept(&request, SESSION).encode().unwrap(),
            ),
            "4 refused" => {
                let mut r = JoinResult::accept(&request, SESSION);
                r.result = 1;
                (ids::JOIN_RESULT, r.encode().unwrap())
            }
            "1" => (ids::GLOBAL_ACTIVITY_STATE, global),
            "1 short" => (
                ids::GLOBAL_ACTIVITY_STATE,
                global[..global.len() - 1].to_vec(),
            ),
            "12" => {
                let table = ReplicateMembership::for_local_member(me, 1);
                (ids::REPLICATE_MEMBERSHIP, table.encode().unwrap())
            }
            "12 empty" => (ids::REPLICATE_MEMBERSHIP, vec![]),
            _ => unreachable!("{msg}"),
        };
        ActivityPush::new(SESSION, id, body)
    }

    /// The status line after `msgs` are pushed, and whether the run's end reports JOIN-09.
    fn status_after(msgs: &[&str]) -> (String, bool) {
        let mut c = client(None);
        c.activity = Some(ActivityClient::new(SESSION, false, false, 0));
        for (i, msg) in msgs.iter().enumerate() {
            let push = pushes(&c, msg);
            c.handle_push(Instant::default(), i as u64, &push.encode());
        }
        c.finish(Instant::from_millis(60_000));
        let join_09 = c.verdict.rules().contains(&Rule::Join09);
        (c.status().to_string(), join_09)
    }

    /// JOIN-09: the client is in the activity only with E (an accepted message 4), G
    /// (message 1) and M (message 12): 4, 1 and 12, in either order of 1 and 12, pass.
    /// Each letter missing is caught at the run's end: no message 1, no 12, neither, no
    /// push at all; a refused message 4 (no E, and 1 and 12 dropped before the join); 1
    /// and 12 before message 4 (dropped); a message 1 or 12 that does not decode.
    #[test]
    fn the_client_is_in_the_activity_only_with_e_g_and_m() {
        let egm = ("Status:??EGM".to_string(), false);
        assert_eq!(status_after(&["4", "1", "12"]), egm);
        assert_eq!(status_after(&["4", "12", "1"]), egm);
        for (msgs, status) in [
            (vec!["4", "12"], "Status:??E-M"),
            (vec!["4", "1"], "Status:??EG-"),
            (vec!["4"], "Status:??E--"),
            (vec![], "Status:??---"),
            (vec!["4 refused", "1", "12"], "Status:??---"),
            (vec!["1", "12", "4"], "Status:??E--"),
            (vec!["4", "1 short", "12"], "Status:??E-M"),
            (vec!["4", "1", "12 empty"], "Status:??EG-"),
        ] {
            assert_eq!(status_after(&msgs), (status.to_string(), true), "{msgs:?}");
        }
    }
}
