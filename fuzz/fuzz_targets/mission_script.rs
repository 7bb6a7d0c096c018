#![no_main]
//! A mission script of any text, then any events and any passing of time: compiling,
//! handling and reloading may fail with a script error, and must never panic.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use vex_host::LinkId;
use vex_host::event::WorldEvent;
use vex_host::mission::{Mission, MissionEvent};
use vex_mission::RhaiMission;
use vex_wire::activity::session::SessionId;
use vex_wire::activity::slot::ClientRef;
use vex_wire::scenario::Scenario;
use vex_wire::time::Instant;

#[derive(Arbitrary, Debug)]
enum Op {
    Started,
    Joined(u8),
    Left(u8),
    Scan {
        active: bool,
        fraction: f32,
        generation: i32,
    },
    Region {
        from: i16,
        to: i16,
    },
    Incident(u16),
    Wait(u16),
    Reload(String),
    End,
}

fuzz_target!(|input: (String, Vec<Op>)| {
    let (source, ops) = input;
    let Ok(mut m) = RhaiMission::compile("fuzz.rhai", &source) else {
        return;
    };
    m.serve(&Scenario::builtin());
    let (session, link, mut now) = (SessionId(0x20_0001), LinkId(2), 0u64);
    let ghost = ClientRef {
        key: 0xBBBB_0001,
        slot_type: 65,
        index: 4,
    };
    for op in ops {
        let world = |event| MissionEvent::World { member: 0, event };
        let event = match op {
            Op::Started => MissionEvent::Started,
            Op::Joined(m) => MissionEvent::MemberJoined {
                member: usize::from(m % 32),
            },
            Op::Left(m) => MissionEvent::MemberLeft {
                member: usize::from(m % 32),
            },
            Op::Scan {
                active,
                fraction,
                generation,
            } => world(WorldEvent::GhostScan {
                link,
                slot: ghost,
                active,
                fraction,
                generation,
            }),
            Op::Region { from, to } => world(WorldEvent::RegionChanged { link, from, to }),
            Op::Incident(definition) => world(WorldEvent::Incident {
                link,
                definition,
                targets: 0,
                payload: 0,
            }),
            Op::Wait(ms) => {
                now += u64::from(ms);
                while let Some((s, name)) = m.take_due_timer(Instant::from_millis(now)) {
                    let _ = m.handle(Instant::from_millis(now), s, &MissionEvent::Timer { name });
                }
                continue;
            }
            Op::Reload(source) => {
                if m.prepare(&source).is_ok() {
                    m.swap();
                }
                continue;
            }
            Op::End => {
                m.end(session);
                continue;
            }
        };
        let _ = m.handle(Instant::from_millis(now), session, &event);
    }
});
