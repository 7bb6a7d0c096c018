//! The case catalog: each case has a stable id, the rule ids it covers, a title, the host
//! it needs and what it expects (design "The harness and the CLI").

use std::net::SocketAddrV4;

use crate::gate::Gate;
use vex_fake_client::{Choice, ClientConfig, Probe, Provenance, Rule};
use vex_faults::{ClientAction, Fault, Variation};
use vex_harness::RunReport;
use vex_harness::datagram_fault::DatagramFault;
use vex_harness::hostile::Hostile;
use vex_harness::link_fault::LinkFault;
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::scenario::Scenario;

/// What a case needs from the host under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostUnderTest {
    /// Any host: runs in-process against ours and over TCP against anyone's.
    Any,
    /// Our host told to commit `Fault`: proves the emulated client catches the breach.
    /// Runs in-process only.
    Faulty(Fault),
    /// Our host taking a freedom the pages leave (`Variation`): proves the emulated client
    /// stays silent. Runs in-process only.
    Legal(Variation),
    /// Our host running a shipped mission (`missions/NAME`) in place of its built-in
    /// program: the emulated client plays it through and judges every message it causes,
    /// and each of the handlers named must run. Runs in-process only.
    Mission(&'static str, &'static [&'static str]),
    /// Member 1's link carrying a fault: of the in-process transport against our host,
    /// and of a proxy in line on that link against any host over TCP.
    Link(LinkFault),
    /// An attack beside the case's member: on our host's in-process links, or over real
    /// sockets against any host.
    Hostile(Hostile),
    /// Member 1's datagrams lost, overtaken and doubled: on the in-process transport
    /// against our host, on their way to and from any host over UDP.
    Datagrams(DatagramFault),
}

impl HostUnderTest {
    /// Whether the case runs against any host over TCP (`vex check --target`): the clean
    /// cases, those that fault the network between the host and member 1, and the
    /// attacks.
    pub fn runs_against_any_host(&self) -> bool {
        matches!(
            self,
            HostUnderTest::Any
                | HostUnderTest::Link(_)
                | HostUnderTest::Datagrams(_)
                | HostUnderTest::Hostile(_)
        )
    }
}

/// One conformance case.
#[derive(Debug, Clone)]
pub struct Case {
    /// Stable id, e.g. `route.join` or `catch.ENV-02`.
    pub id: String,
    /// One line on what it shows.
    pub title: String,
    /// Rules it covers.
    pub rules: Vec<Rule>,
    /// What host it needs.
    pub host: HostUnderTest,
    /// How long the run lasts, in milliseconds.
    pub run_for_ms: u64,
    /// What the emulated client does after the join.
    pub script: ClientScript,
    /// Emulated clients in the activity (1 to 32): member 1 joins its own session, the
    /// others join member 1's (`vex_harness::in_process::run_members`).
    pub members: usize,
    /// Judges the run.
    pub expect: Expectation,
}

impl Case {
    /// Member `m`'s client for this case, aimed at `target`.
    pub fn client(&self, target: SocketAddrV4, m: usize, keys: SignOnKeys) -> ClientConfig {
        self.client_of(target, m, keys, Scenario::builtin())
    }

    /// Member `m`'s client for this case, aimed at `target`, whose packages hold
    /// `scenario`.
    pub fn client_of(
        &self,
        target: SocketAddrV4,
        m: usize,
        keys: SignOnKeys,
        scenario: Scenario,
    ) -> ClientConfig {
        let mut client = ClientConfig::member_of(target, scenario, m as u64);
        client.signon = keys;
        self.script.apply(&mut client, m, self.members);
        client
    }

    /// The faults this case shows on any host: those whose catch case runs the same script
    /// with as many members for no longer, whose rule is not a duty (a duty fails a clean
    /// case only when the case names it for its own, or with `--strict`) and whose finding
    /// does not rest on a choice of Vex's (advisory, it fails only a strict run). Against a
    /// host that commits one, this case fails with its rule (`conformance/tests/catalog.rs`
    /// proves it for each, without `--strict`), so the case judges that rule of a
    /// third-party host.
    pub fn shows(&self) -> Vec<Fault> {
        if self.host != HostUnderTest::Any {
            return Vec::new();
        }
        Fault::ALL
            .iter()
            .copied()
            .filter(|f| {
                lobby_rule(f.rule()) == self.signs_on()
                    && ClientScript::from(f.needs()) == self.script
                    && f.rule().effect() != vex_fake_client::Effect::Duty
                    && f.on().is_none()
                    && f.members() == self.members
                    && f.runs_ms() <= self.run_for_ms
            })
            .collect()
    }

    /// Whether the case judges SignOn and the manifest: over TCP it needs the host's
    /// SignOn (`vex check --signon`); the other cases show no lobby fault.
    pub fn signs_on(&self) -> bool {
        self.rules.iter().any(|r| lobby_rule(*r))
    }

    /// The ids of the rules it covers.
    pub fn rule_ids(&self) -> Vec<&'static str> {
        self.rules.iter().map(|r| r.id()).collect()
    }

    /// Every member's client for this case, aimed at `target`.
    pub fn clients(&self, target: SocketAddrV4, keys: SignOnKeys) -> Vec<ClientConfig> {
        self.clients_of(target, keys, &Scenario::builtin())
    }

    /// Every member's client for this case, aimed at `target`, holding `scenario`.
    pub fn clients_of(
        &self,
        target: SocketAddrV4,
        keys: SignOnKeys,
        scenario: &Scenario,
    ) -> Vec<ClientConfig> {
        (0..self.members)
            .map(|m| self.client_of(target, m, keys, scenario.clone()))
            .collect()
    }
}

/// A rule of SignOn, the manifest or the protobuf they are decoded with.
fn lobby_rule(rule: Rule) -> bool {
    matches!(
        rule.family(),
        vex_fake_client::rules::Family::Signon
            | vex_fake_client::rules::Family::Manifest
            | vex_fake_client::rules::Family::Pb
    )
}

/// The ids of `rules`, in order.
/// `rules` by their ids, as a person reads them: `BAP-01, LINK-03`, or `none`.
fn ids_text(rules: &[Rule]) -> String {
    if rules.is_empty() {
        return "none".into();
    }
    let ids: Vec<&str> = rules.iter().map(|r| r.id()).collect();
    ids.join(", ")
}

/// The rules of `run`'s violations, by their ids ([`ids_text`]).
fn rule_ids(run: &RunReport) -> String {
    ids_text(&run.violations.iter().map(|v| v.rule).collect::<Vec<_>>())
}

/// What the emulated client does after the join, beyond the route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientScript {
    /// Stays to the end of the run.
    Stay,
    /// Leaves with message 15 (LEAVE-01, LEAVE-02).
    Leave,
    /// Returns slots with message 21 and asks for more with message 20 (HOST-04).
    RequestSlots,
    /// Asks for the whole snapshot with message 18 (HOST-03).
    Refresh,
    /// The last member leaves with message 15; the others stay (MEMBER-01).
    LastLeaves,
    /// Reports its identity with message 23 (HOST-15).
    ReportIdentity,
    /// Moves into the next bubble with message 22 and asks for its roster (HOST-05,
    /// AUTH-13).
    MoveRegion,
    /// Changes its patch epoch and reports it with message 52, then asks for the snapshot
    /// with message 18 a second later (AUTH-01).
    ChangeEpoch,
    /// Asks to start the activity anew with message 11 (HOST-03).
    StartActivity,
    /// Asks for a purge with message 27 (HOST-08), posts an incident (19) half a second
    /// later (HOST-18) and gives up authority with 33 a second later (HOST-17).
    PurgeAndAbdicate,
    /// Member 2 reports its identity with message 23 (HOST-15), member 3 leaves with
    /// message 15 and joins again a second later, the others stay.
    Churn,
    /// Probes the host (`vex_fake_client::Probe`): the odd message goes out after the
    /// first roster, and a message 18 half a second later must still get its snapshot.
    Probe(Probe),
    /// Calls every lobby service of the registry after the lobby hello (BAP-06, BAP-11,
    /// BAP-21, BAP-22), then takes the route.
    LobbyCalls,
    /// Member 1 advertises its session with matchmaking; the others find it with a locate
    /// and join it (NS "Matchmaking, services 42 and 43").
    MatchmakingJoin,
    /// Probes the session it is in with QoS over UDP, after its first roster.
    ProbeQos,
    /// Opens a bdNet association with the host's UDP port after its first roster, and
    /// pings over it.
    Associate,
}

/// When a scripted client acts: after its first roster.
const SCRIPT_AFTER_MS: u64 = 3_000;
/// How long after its patch epoch changes the client asks for the snapshot.
const REQUEST_AFTER_CHANGE_MS: u64 = 1_000;
/// How long after its leave a member joins again.
const REJOIN_AFTER_MS: u64 = 1_000;
/// Between a probe and the plain message 18 that shows the link goes on: the answer grace,
/// so the first request is judged when the second goes out.
const PROBE_GAP_MS: u64 = 1_000;
/// A probe case's run: the last request a grace past the script's time and the gap, and
/// room for a slow host's answer.
const PROBE_RUN_MS: u64 = 6_000;

impl From<ClientAction> for ClientScript {
    /// The script that does what a fault needs the client to do.
    fn from(action: ClientAction) -> Self {
        match action {
            ClientAction::Stay => Self::Stay,
            ClientAction::Leave => Self::Leave,
            ClientAction::RequestSlots => Self::RequestSlots,
            ClientAction::Refresh => Self::Refresh,
            ClientAction::LastLeaves => Self::LastLeaves,
            ClientAction::ReportIdentity => Self::ReportIdentity,
            ClientAction::MoveRegion => Self::MoveRegion,
            ClientAction::ChangeEpoch => Self::ChangeEpoch,
            ClientAction::StartActivity => Self::StartActivity,
            ClientAction::PurgeAndAbdicate => Self::PurgeAndAbdicate,
            ClientAction::ProbeMalformedSelection => Self::Probe(Probe::MalformedSelection),
            ClientAction::ProbeDiscriminatorTwo => Self::Probe(Probe::DiscriminatorTwo),
            ClientAction::ProbeForeignSession => Self::Probe(Probe::ForeignSession),
            ClientAction::ProbeUnknownMessage => Self::Probe(Probe::UnknownMessage),
            ClientAction::ProbeHostMessage => Self::Probe(Probe::HostMessage),
            ClientAction::ProbeShortBody => Self::Probe(Probe::ShortBody),
            ClientAction::ProbeTrailingBytes => Self::Probe(Probe::TrailingBytes),
            ClientAction::ProbeLargeSlotRequest => Self::Probe(Probe::LargeSlotRequest),
            ClientAction::LobbyCalls => Self::LobbyCalls,
            ClientAction::ProbeQos => Self::ProbeQos,
            ClientAction::Associate => Self::Associate,
        }
    }
}

impl ClientScript {
    /// Sets member `m`'s client (0 for member 1) of `members` up to follow the script.
    pub fn apply(self, client: &mut ClientConfig, m: usize, members: usize) {
        match self {
            Self::Stay => {}
            Self::LobbyCalls => client.script.lobby_calls = true,
            Self::MatchmakingJoin if m == 0 => client.script.advertise = true,
            Self::MatchmakingJoin => client.script.locate = true,
            Self::LastLeaves if m + 1 == members => {
                client.script.leave_after_ms = Some(SCRIPT_AFTER_MS);
            }
            Self::LastLeaves => {}
            Self::Churn => match m {
                1 => client.script.identity_after_ms = Some(SCRIPT_AFTER_MS - 1_000),
                2 => {
                    client.script.leave_after_ms = Some(SCRIPT_AFTER_MS);
                    client.script.rejoin_after_ms = Some(REJOIN_AFTER_MS);
                }
                _ => {}
            },
            Self::Leave => client.script.leave_after_ms = Some(SCRIPT_AFTER_MS),
            Self::ProbeQos => client.script.qos_probe_after_ms = Some(SCRIPT_AFTER_MS),
            Self::Associate => client.script.associate_after_ms = Some(SCRIPT_AFTER_MS),
            Self::ReportIdentity => client.script.identity_after_ms = Some(SCRIPT_AFTER_MS),
            Self::RequestSlots => client.script.slot_request_after_ms = Some(SCRIPT_AFTER_MS),
            Self::Refresh => client.script.refresh_after_ms = Some(SCRIPT_AFTER_MS),
            Self::MoveRegion => client.script.move_region_after_ms = Some(SCRIPT_AFTER_MS),
            Self::ChangeEpoch => {
                client.script.change_epoch_after_ms = Some(SCRIPT_AFTER_MS);
                client.script.refresh_after_ms = Some(SCRIPT_AFTER_MS + REQUEST_AFTER_CHANGE_MS);
            }
            Self::StartActivity => client.script.start_activity_after_ms = Some(SCRIPT_AFTER_MS),
            Self::PurgeAndAbdicate => {
                client.script.purge_after_ms = Some(SCRIPT_AFTER_MS);
                client.script.abdicate_after_ms = Some(SCRIPT_AFTER_MS + 1_000);
                client.script.incident_after_ms = Some(SCRIPT_AFTER_MS + 500);
            }
            // the plain message 18 comes before discriminator 2's, so that only a host that
            // answers it and not the other is blamed for HOST-10; after every other probe
            Self::Probe(Probe::DiscriminatorTwo) => {
                client.script.refresh_after_ms = Some(SCRIPT_AFTER_MS);
                client.script.probe =
                    Some((Probe::DiscriminatorTwo, SCRIPT_AFTER_MS + PROBE_GAP_MS));
            }
            Self::Probe(probe) => {
                client.script.probe = Some((probe, SCRIPT_AFTER_MS));
                client.script.refresh_after_ms = Some(SCRIPT_AFTER_MS + PROBE_GAP_MS);
            }
        }
    }
}

/// What a case expects of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expectation {
    /// In the activity (E, G and M), a roster applied, no violation, still running.
    CleanJoin,
    /// A clean join, every member in the same activity: the ones that found it on their
    /// own (with matchmaking) joined the one member 1 is in.
    CleanJoinTogether,
    /// A clean join with no finding at all: no duty, no advisory, nothing waived. A host
    /// that takes a freedom the pages leave draws no report.
    Silent,
    /// The client stopped at SignOn, a terminal state the pages give, with no finding at
    /// all.
    StopsAtSignOn,
    /// A violation of `rule` is reported, resting on `on` (a choice of Vex's) or, without
    /// one, on the pages or the facts, and no rule outside `rule` and `also` (the breaches
    /// the first one leads to) is.
    Caught {
        /// The rule the host was told to break.
        rule: Rule,
        /// The choice of Vex's the finding rests on, if any.
        on: Option<Choice>,
        /// Rules the emulated client reports as a consequence.
        also: &'static [Rule],
    },
}

/// A case's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The expectation held.
    Pass,
    /// It did not.
    Fail {
        /// What was expected.
        expected: String,
        /// What happened.
        actual: String,
    },
    /// The case cannot run on this transport.
    Skip {
        /// Why.
        reason: String,
    },
    /// It failed, and the expected results (`vex check --expect`) list it as a known
    /// failure: reported, not counted against the run.
    ExpectedFail {
        /// What was expected.
        expected: String,
        /// What happened.
        actual: String,
    },
    /// It passed, but the expected results list it as a known failure: the list is out of
    /// date, and the run fails until the case is taken off it.
    UnexpectedPass,
}

impl Expectation {
    /// Judges a run of a case that names `rules`: a clean run fails on the findings `gate`
    /// counts (a duty only when the case names it or the run is strict, an advisory finding
    /// only when strict, a waived rule never).
    pub fn judge(self, run: &RunReport, gate: &Gate, rules: &[Rule]) -> Verdict {
        match self {
            Expectation::CleanJoin => {
                let counted = run
                    .violations
                    .iter()
                    .filter(|v| gate.fails(v, rules))
                    .count();
                let ok = run.status.in_activity()
                    && counted == 0
                    && run.rosters_applied > 0
                    && run.outcome == vex_fake_client::Outcome::Running;
                if ok {
                    Verdict::Pass
                } else {
                    Verdict::Fail {
                        expected:
                            "Status:??EGM, a roster applied, no violation, still in the activity"
                                .into(),
                        actual: format!(
                            "{}, {} roster(s) applied, {} violation(s), outcome: {}",
                            run.status, run.rosters_applied, counted, run.outcome
                        ),
                    }
                }
            }
            Expectation::Silent => {
                let clean = Expectation::CleanJoin.judge(run, &crate::gate::STRICT, rules);
                match (clean, run.violations.is_empty()) {
                    (Verdict::Pass, true) => Verdict::Pass,
                    (Verdict::Pass, false) => Verdict::Fail {
                        expected: "no finding at all: the pages allow what the host did".into(),
                        actual: format!("findings: {}", rule_ids(run)),
                    },
                    (other, _) => other,
                }
            }
            Expectation::StopsAtSignOn => {
                let stopped = matches!(
                    run.outcome,
                    vex_fake_client::Outcome::StoppedAtSignOn { .. }
                );
                if stopped && run.violations.is_empty() {
                    Verdict::Pass
                } else {
                    Verdict::Fail {
                        expected: "stopped at SignOn, with no finding".into(),
                        actual: format!("outcome: {}, findings: {}", run.outcome, rule_ids(run)),
                    }
                }
            }
            Expectation::CleanJoinTogether => {
                let sessions: std::collections::BTreeSet<_> = run.sessions.iter().collect();
                match Expectation::CleanJoin.judge(run, gate, rules) {
                    Verdict::Pass if sessions.len() > 1 => Verdict::Fail {
                        expected: "every member in member 1's activity".into(),
                        actual: format!(
                            "the members joined {} activities: {}",
                            sessions.len(),
                            run.sessions
                                .iter()
                                .map(|s| s.map_or("none".into(), |s| format!("{s:#x}")))
                                .collect::<Vec<String>>()
                                .join(", ")
                        ),
                    },
                    other => other,
                }
            }
            Expectation::Caught { rule, on, also } => {
                let seen: Vec<Rule> = run.violations.iter().map(|v| v.rule).collect();
                let stray = seen.iter().any(|r| *r != rule && !also.contains(r));
                let resting = |v: &&vex_fake_client::Violation| match on {
                    Some(choice) => v.provenance == Provenance::Vex(choice),
                    None => !v.advisory(),
                };
                let caught = run
                    .violations
                    .iter()
                    .filter(|v| v.rule == rule)
                    .any(|v| resting(&v));
                if caught && !stray {
                    Verdict::Pass
                } else {
                    let basis = on.map_or("the pages or the facts", |c| c.id());
                    Verdict::Fail {
                        expected: format!(
                            "a {rule} violation resting on {basis}, and only {} besides",
                            ids_text(also)
                        ),
                        actual: format!("violations: {}", ids_text(&seen)),
                    }
                }
            }
        }
    }
}

/// Every case, in a stable order.
pub fn catalog() -> Vec<Case> {
    let mut cases = vec![
        Case {
            id: "route.join".into(),
            title: "the route completes: E, G and M set, the first roster applied, no violation"
                .into(),
            rules: vec![
                Rule::Join01,
                Rule::Join09,
                Rule::Auth01,
                Rule::Auth02,
                Rule::Auth04,
                Rule::Auth05,
                Rule::Auth07,
                Rule::Auth08,
                Rule::Env07,
                Rule::T1701,
                Rule::Epoch01,
                Rule::Epoch02,
            ],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::Stay,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "signon.route".into(),
            title: "the client signs on over SignOn, verifies the manifest, then takes the route SignOn names with its keys"
                .into(),
            rules: vec![
                Rule::Signon01,
                Rule::Signon02,
                Rule::Signon03,
                Rule::Signon04,
                Rule::Signon06,
                Rule::Signon08,
                Rule::Signon09,
                Rule::Signon10,
                Rule::Manifest01,
                Rule::Manifest02,
                Rule::Pb01,
            ],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::Stay,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "lobby.services".into(),
            title: "the client calls every lobby service of the registry, matchmaking and the web service (503, 206, 403): each gets one answer its codec reads, in order; every service-123 push is judged by its store; the route goes on"
                .into(),
            rules: vec![
                Rule::Bap06,
                Rule::Bap16,
                Rule::Bap11,
                Rule::Bap21,
                Rule::Bap22,
                Rule::Qz01,
                Rule::Qz02,
                Rule::Qz03,
                Rule::Qz06,
                Rule::Qz08,
                Rule::Mm01,
                Rule::Mm03,
                Rule::Mm06,
                Rule::Peer04,
                Rule::Ws01,
                Rule::Ws02,
            ],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::LobbyCalls,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "activity.members.matchmaking".into(),
            title: "member 1 advertises its activity with matchmaking; member 2 locates it and joins it: each in the other's member table"
                .into(),
            rules: vec![Rule::Mm01, Rule::Mm06, Rule::Member01, Rule::Member02],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::MatchmakingJoin,
            members: 2,
            expect: Expectation::CleanJoinTogether,
        },
        Case {
            id: "qos.probe".into(),
            title: "the client probes its session with QoS over UDP: the reply echoes the probe, accepts it, and carries the session's advertisement, whose header the client takes"
                .into(),
            rules: vec![
                Rule::Qos01,
                Rule::Qos02,
                Rule::Qos03,
                Rule::Qos04,
                Rule::Qos05,
                Rule::Qos06,
            ],
            host: HostUnderTest::Any,
            run_for_ms: 7_000,
            script: ClientScript::ProbeQos,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "peer.associate".into(),
            title: "the client opens a bdNet association with the host's UDP port (init, init ack, cookie echo, cookie ack), agrees its keys, and pings in the first record: the host's pong comes in a record that opens, once, with its size declared; its time-synchronize request gets a reply, and its reply nothing; then it connects, joins the group session and holds its membership, each update's hash its own state's"
                .into(),
            rules: vec![
                Rule::Peer01,
                Rule::Peer02,
                Rule::Peer07,
                Rule::Peer08,
                Rule::Peer09,
                Rule::Peer10,
                Rule::Peer11,
                Rule::Peer12,
                Rule::Peer13,
                Rule::Peer14,
                Rule::Peer15,
                Rule::Peer16,
                Rule::Peer17,
                Rule::Peer18,
                Rule::Peer19,
                Rule::Peer20,
                Rule::Peer22,
            ],
            host: HostUnderTest::Any,
            run_for_ms: 7_000,
            script: ClientScript::Associate,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "link.keepalive".into(),
            title: "the host keeps the activity link alive past 20.5 s".into(),
            rules: vec![Rule::Link01],
            host: HostUnderTest::Any,
            run_for_ms: 25_000,
            script: ClientScript::Stay,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "slots.request".into(),
            title: "the client returns slots and asks for more: message 20 gets a message 0".into(),
            rules: vec![Rule::Host04, Rule::Slots02],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::RequestSlots,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "activity.members.two".into(),
            title: "two clients join one activity: each in it, in each other's member table, no entity slot held by both".into(),
            rules: vec![Rule::Slots04, Rule::Member01, Rule::Member02, Rule::Member07, Rule::Host14],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::Stay,
            members: 2,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "activity.members.three".into(),
            title: "three members: one changes its identity (23), one leaves (15) and joins again; every table follows, one revision per change".into(),
            rules: vec![
                Rule::Member01,
                Rule::Member03,
                Rule::Member07,
                Rule::Leave01,
            ],
            host: HostUnderTest::Any,
            run_for_ms: 6_000,
            script: ClientScript::Churn,
            members: 3,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "activity.members.eight".into(),
            title: "eight members join one activity: every member in every member's table, no shared slot".into(),
            rules: vec![Rule::Member01, Rule::Member02, Rule::Member07, Rule::Slots04, Rule::Host14],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::Stay,
            members: 8,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "route.refresh".into(),
            title: "the client asks for a refresh: messages 1, 2, 12, then 5".into(),
            rules: vec![Rule::Host03, Rule::Member03, Rule::Auth09],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::Refresh,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "route.identity".into(),
            title: "the client reports its identity (23): a message 12 carries it".into(),
            rules: vec![Rule::Host15, Rule::Member03, Rule::Member07],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::ReportIdentity,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "route.start_activity".into(),
            title: "the client asks to start the activity anew (11): the whole snapshot, 1, 2, 12, then 5".into(),
            rules: vec![Rule::Host03, Rule::Auth09, Rule::Member03],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::StartActivity,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "route.authority".into(),
            title: "the host resets and queries every member's authority (28, 30) and fires an incident (19); the client asks for a purge (27), posts an incident (19) and abdicates (33): the answers carry their tokens, the notice keeps the mask and reason".into(),
            rules: vec![Rule::Host08, Rule::Auth09, Rule::Member03],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::PurgeAndAbdicate,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "route.region".into(),
            title: "the client moves into another bubble (22) and asks for its roster (18): no message 5 in between, then the new bubble's roster".into(),
            rules: vec![Rule::Host05, Rule::Auth13, Rule::T1706, Rule::Host03, Rule::Auth08],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::MoveRegion,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "route.epoch_change".into(),
            title: "the client changes its patch epoch (52) and asks for the snapshot a second later (18): the roster answering it echoes the new epoch".into(),
            rules: vec![Rule::Auth01, Rule::Host03],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::ChangeEpoch,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "route.leave".into(),
            title: "the client leaves: one leave delta retires its keys, and no roster follows"
                .into(),
            rules: vec![Rule::Leave01, Rule::Leave02],
            host: HostUnderTest::Any,
            run_for_ms: 5_000,
            script: ClientScript::Leave,
            members: 1,
            expect: Expectation::CleanJoin,
        },
    ];
    for probe in Probe::ALL {
        cases.push(Case {
            id: format!("probe.{}", probe.name()),
            title: format!(
                "the client sends {}: the host answers as the pages say, and the link goes on",
                probe.what()
            ),
            rules: if probe.rule() == Rule::Host03 {
                vec![Rule::Host03]
            } else {
                vec![probe.rule(), Rule::Host03]
            },
            host: HostUnderTest::Any,
            run_for_ms: PROBE_RUN_MS,
            script: ClientScript::Probe(probe),
            members: 1,
            expect: Expectation::CleanJoin,
        });
    }
    for case in &mut cases {
        for fault in case.shows() {
            if !case.rules.contains(&fault.rule()) {
                case.rules.push(fault.rule());
            }
        }
    }
    cases.extend([
        Case {
            id: "mission.ghost_chain".into(),
            title: "missions/ghost_chain.rhai played through: three Ghost scans move the objective, then the Ghost goes and an incident fires".into(),
            rules: vec![Rule::Host19, Rule::T301, Rule::T6501, Rule::T6502, Rule::Incident01, Rule::Incident02],
            host: HostUnderTest::Mission(
                "ghost_chain.rhai",
                &["on_started", "on_ghost_scan", "on_reported", "on_staged"],
            ),
            run_for_ms: 12_000,
            script: ClientScript::Stay,
            members: 1,
            expect: Expectation::CleanJoin,
        },
        Case {
            id: "mission.timed_phases".into(),
            title: "missions/timed_phases.rhai played through by two members: the timer, the channel, an incident and an authority query on the host's clock".into(),
            rules: vec![Rule::Host19, Rule::T2401, Rule::Incident01, Rule::Incident02],
            host: HostUnderTest::Mission("timed_phases.rhai", &["on_started", "on_timer"]),
            run_for_ms: 8_000,
            script: ClientScript::Stay,
            members: 2,
            expect: Expectation::CleanJoin,
        },
    ]);
    cases.extend(crate::network::cases());
    for &variation in Variation::ALL {
        cases.push(Case {
            id: format!("legal.{variation:?}"),
            title: format!(
                "a host that takes a freedom of the pages ({variation:?}) draws no finding: {}",
                variation.source()
            ),
            rules: variation.rules().to_vec(),
            host: HostUnderTest::Legal(variation),
            run_for_ms: variation.runs_ms(),
            script: variation.needs().into(),
            members: variation.members(),
            expect: if variation.stops_at_signon() {
                Expectation::StopsAtSignOn
            } else {
                Expectation::Silent
            },
        });
    }
    for &fault in Fault::ALL {
        let rule = fault.rule();
        cases.push(Case {
            id: format!("catch.{rule}.{fault:?}"),
            title: format!("a host that breaks {rule} ({fault:?}) is caught"),
            rules: vec![rule],
            host: HostUnderTest::Faulty(fault),
            run_for_ms: fault.runs_ms(),
            script: fault.needs().into(),
            members: fault.members(),
            expect: Expectation::Caught {
                rule,
                on: fault.on(),
                also: fault.also(),
            },
        });
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::{DEFAULT, STRICT};
    use vex_fake_client::{Effect, Outcome, StatusLine, Violation};

    /// A duty fails a clean run only in strict mode; any other violation always does.
    #[test]
    fn duties_fail_only_when_strict() {
        let mut run = RunReport {
            outcome: Outcome::Running,
            status: StatusLine {
                e: true,
                g: true,
                m: true,
            },
            violations: vec![Violation::new(
                Rule::Env10,
                Some(3),
                None,
                "sequence 5".into(),
            )],
            rosters_applied: 1,
            transcript: Default::default(),
            elapsed_ms: 0,
            member: Default::default(),
            sessions: vec![Some(1)],
            group_membership: None,
            activity_host: None,
            group_host: None,
        };
        assert_eq!(
            Expectation::CleanJoin.judge(&run, &DEFAULT, &[]),
            Verdict::Pass
        );
        assert!(matches!(
            Expectation::CleanJoin.judge(&run, &STRICT, &[]),
            Verdict::Fail { .. }
        ));
        assert!(
            matches!(
                Expectation::CleanJoin.judge(&run, &DEFAULT, &[Rule::Env10]),
                Verdict::Fail { .. }
            ),
            "a duty the case names fails it without --strict"
        );
        run.violations[0].effect = Effect::Drop;
        assert!(matches!(
            Expectation::CleanJoin.judge(&run, &DEFAULT, &[]),
            Verdict::Fail { .. }
        ));
    }

    /// A failed case's verdict reads as text: the outcome and the rules by their ids, no
    /// Rust debug form (`Ended { rule: Bap01, .. }`).
    #[test]
    fn a_failure_reads_as_text() {
        let run = RunReport {
            outcome: Outcome::Ended {
                rule: Rule::Bap01,
                reason: "primary link: bad magic 0x02".into(),
            },
            status: StatusLine::default(),
            violations: vec![Violation::new(Rule::Bap01, Some(1), None, "magic".into())],
            rosters_applied: 0,
            transcript: Default::default(),
            elapsed_ms: 0,
            member: Default::default(),
            sessions: vec![None],
            group_membership: None,
            activity_host: None,
            group_host: None,
        };
        let Verdict::Fail { actual, .. } = Expectation::StopsAtSignOn.judge(&run, &DEFAULT, &[])
        else {
            panic!("an ended run does not stop at SignOn");
        };
        assert_eq!(
            actual,
            "outcome: ended by BAP-01: primary link: bad magic 0x02, findings: BAP-01"
        );
        let Verdict::Fail { actual, .. } = Expectation::CleanJoin.judge(&run, &DEFAULT, &[]) else {
            panic!("an ended run is no clean join");
        };
        assert!(
            !actual.contains('{') && actual.contains("ended by BAP-01"),
            "{actual}"
        );
    }

    /// Members that found their activity on their own pass together only when it is
    /// member 1's: a locate that found nothing leaves member 2 in an activity of its own.
    #[test]
    fn members_apart_fail_a_together_case() {
        let mut run = RunReport::aborted(String::new(), vex_wire::time::Instant::from_millis(0));
        run.outcome = Outcome::Running;
        run.status = StatusLine {
            e: true,
            g: true,
            m: true,
        };
        run.rosters_applied = 1;
        run.sessions = vec![Some(1), Some(1)];
        assert_eq!(
            Expectation::CleanJoinTogether.judge(&run, &STRICT, &[]),
            Verdict::Pass
        );
        run.sessions = vec![Some(1), Some(2)];
        let Verdict::Fail { actual, .. } = Expectation::CleanJoinTogether.judge(&run, &STRICT, &[])
        else {
            panic!("members apart passed");
        };
        assert!(actual.contains("2 activities"), "{actual}");
    }
}
