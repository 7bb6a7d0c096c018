//! Issue 8's figures: event-to-handler calls a second (a Sense event through
//! `Mission::handle` into a handler that reads and changes a variable and asks for a
//! field change), and the latency of a reload (compile, then swap) while 1,000 saved
//! variables are kept.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use vex_host::LinkId;
use vex_host::event::WorldEvent;
use vex_host::mission::{Mission, MissionEvent};
use vex_mission::RhaiMission;
use vex_wire::activity::session::SessionId;
use vex_wire::activity::slot::ClientRef;
use vex_wire::time::Instant;

const SESSION: SessionId = SessionId(0x20_0001);

/// 1,000 variables made at the start; each Sense event counts, and every 4th asks for the
/// objective to move.
const SCRIPT: &str = r#"
fn init() {
    for i in 0..1000 { this[`v${i}`] = i; }
    this.sensed = 0;
}
fn on_sensed(e) {
    this.sensed += 1;
    if this.sensed % 4 == 0 {
        set_field(slot(0xBBBB0001, 3, 1), "generation", this.sensed % 1000);
    }
}
"#;

fn sensed() -> MissionEvent {
    MissionEvent::World {
        member: 0,
        event: WorldEvent::Sensed {
            link: LinkId(2),
            slot: ClientRef {
                key: 0xBBBB_0001,
                slot_type: 3,
                index: 1,
            },
            counter: 7,
        },
    }
}

fn started() -> RhaiMission {
    let mut m = RhaiMission::compile("bench.rhai", SCRIPT).unwrap();
    m.handle(Instant::default(), SESSION, &MissionEvent::Started)
        .unwrap();
    assert!(m.status()[0].1.contains("\"v999\": 999"));
    m
}

fn event_to_handler(c: &mut Criterion) {
    let mut m = started();
    let event = sensed();
    c.bench_function("event to handler, 1,000 variables", |b| {
        b.iter(|| black_box(m.handle(Instant::default(), SESSION, &event).unwrap()))
    });
}

fn reload(c: &mut Criterion) {
    let mut m = started();
    c.bench_function("reload (compile and swap), 1,000 variables kept", |b| {
        b.iter(|| {
            m.prepare(SCRIPT).unwrap();
            m.swap();
        })
    });
    assert!(
        m.status()[0].1.contains("\"v999\": 999"),
        "the variables were kept"
    );
}

criterion_group!(benches, event_to_handler, reload);
criterion_main!(benches);
