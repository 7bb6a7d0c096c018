//! A reload of the same script changes nothing: any sequence of events, with the reload
//! swapped in at any point, gives the same requests and leaves the same variables and
//! timers as the run without it (SR "Where mission scripts plug in": the swap keeps saved
//! variables and timers).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
use proptest::prelude::*;
use vex_host::LinkId;
use vex_host::event::WorldEvent;
use vex_host::mission::{Mission, MissionEvent};
use vex_host::world::WorldRequest;
use vex_mission::RhaiMission;
use vex_wire::activity::session::SessionId;
use vex_wire::activity::slot::ClientRef;
use vex_wire::time::Instant;

const SESSIONS: [SessionId; 2] = [SessionId(0x20_0001), SessionId(0x20_0002)];

fn shipped(name: &str) -> String {
    let path = format!("{}/../missions/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

fn ghost() -> ClientRef {
    ClientRef {
        key: 0xBBBB_0001,
        slot_type: 65,
        index: 4,
    }
}

/// One generated event: which kind, with small numbers that reach every branch of the
/// shipped missions.
fn event() -> impl Strategy<Value = MissionEvent> {
    let link = LinkId(2);
    prop_oneof![
        Just(MissionEvent::Started),
        (0usize..4).prop_map(|member| MissionEvent::MemberJoined { member }),
        (0usize..4).prop_map(|member| MissionEvent::MemberLeft { member }),
        (any::<bool>(), 0u8..=10, 1i32..5).prop_map(move |(active, tenths, generation)| {
            MissionEvent::World {
                member: 0,
                event: WorldEvent::GhostScan {
                    link,
                    slot: ghost(),
                    active,
                    fraction: f32::from(tenths) / 10.0,
                    generation,
                },
            }
        }),
        (0i16..16, 0i16..16).prop_map(move |(from, to)| MissionEvent::World {
            member: 1,
            event: WorldEvent::RegionChanged { link, from, to },
        }),
        prop_oneof![Just("phase 2"), Just("phase 3"), Just("other")]
            .prop_map(|name| MissionEvent::Timer { name: name.into() }),
    ]
}

/// What a run gave: each call's requests (or its error), the variables and the timers.
type Outcome = (
    Vec<Result<Vec<WorldRequest>, String>>,
    Vec<(SessionId, String)>,
    Vec<(SessionId, String)>,
);

/// Runs `events` through `source`, reloading the same script before event `reload_at`
/// (none past the end); due timers fire between events, 700 ms apart.
fn run(source: &str, events: &[(usize, MissionEvent)], reload_at: Option<usize>) -> Outcome {
    let mut m = RhaiMission::compile("m.rhai", source).unwrap();
    m.serve(&vex_wire::scenario::Scenario::builtin());
    let mut calls = Vec::new();
    for (i, (session, event)) in events.iter().enumerate() {
        if reload_at == Some(i) {
            m.prepare(source).unwrap();
            m.swap();
        }
        let now = Instant::from_millis(700 * i as u64);
        while let Some((s, name)) = m.take_due_timer(now) {
            let timer = MissionEvent::Timer { name };
            calls.push(m.handle(now, s, &timer).map_err(|e| e.to_string()));
        }
        let session = SESSIONS[*session];
        calls.push(m.handle(now, session, event).map_err(|e| e.to_string()));
    }
    let mut timers = Vec::new();
    let end = Instant::from_millis(u64::MAX / 2);
    while let Some(t) = m.take_due_timer(end) {
        timers.push(t);
    }
    (calls, m.status(), timers)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_reload_of_the_same_script_changes_no_request(
        events in prop::collection::vec((0usize..2, event()), 1..40),
        reload in any::<prop::sample::Index>(),
        mission in prop_oneof![Just("ghost_chain.rhai"), Just("timed_phases.rhai")],
    ) {
        let source = shipped(mission);
        let at = reload.index(events.len());
        let plain = run(&source, &events, None);
        let reloaded = run(&source, &events, Some(at));
        prop_assert_eq!(&plain, &reloaded);
        // the runs do something: some event made a request
        prop_assume!(plain.0.iter().any(|c| c.as_ref().is_ok_and(|r| !r.is_empty())));
    }
}
