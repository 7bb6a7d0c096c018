//! The Ghost scan bar of a type-65 ghost_link slot, as the client runs it (AH "Type 65":
//! an Auth with active set and a higher generation arms the bar; the client runs it and
//! reports {active, fraction, generation} through Sense, message 6 with its trailing
//! counter; the bar can stall one frame short of the end, and the host finishes it with a
//! Sense override above 1.0; AH "Message 6: Sense").

use crate::links::Outgoing;
use std::collections::BTreeMap;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids;
use vex_wire::activity::sense_update::{SenseGroup, SenseObject, SenseUpdate};
use vex_wire::activity::slot::ClientRef;
use vex_wire::schema::tables::GHOST_LINK_SENSE;
use vex_wire::schema::{Value, encode_bits};
use vex_wire::time::Instant;

/// How far the bar runs at each report, the last one frame short of the end: where it
/// stalls (AH "Type 65").
const PROGRESS: [f32; 2] = [0.5, STALLED];
/// The fraction a stalled bar reports.
pub(crate) const STALLED: f32 = 0.99;
/// Between the bar's reports. The bar's length is package data the pages do not give.
const REPORT_EVERY_MS: u64 = 400;

/// The bar the client runs, and its per-slot Sense counters.
#[derive(Debug, Default)]
pub(crate) struct GhostScan {
    /// The slot whose bar runs, its generation, and how many reports went out.
    running: Option<(ClientRef, i128, usize)>,
    /// When the next report goes.
    next_at: Option<Instant>,
    /// The generation the client stored: only a higher one acts (AH "Type 65").
    stored: Option<i128>,
    /// Each slot's counter: the value its last report carried (AH "Message 6").
    counters: BTreeMap<ClientRef, u32>,
}

fn int(fields: &[Value], i: usize) -> Option<i128> {
    match fields.get(i) {
        Some(Value::Int(v)) => Some(*v),
        _ => None,
    }
}

impl GhostScan {
    /// After a roster applied at `now`, with `ghosts` the type-65 bodies the client holds:
    /// a generation above the stored one acts, arming the bar when active is set and
    /// destroying the Ghost when it is not (AH "Type 65"; T65-01).
    pub(super) fn on_bodies<'a>(
        &mut self,
        now: Instant,
        ghosts: impl Iterator<Item = (&'a ClientRef, &'a Value)>,
    ) {
        for (slot, body) in ghosts {
            let Value::Record(f) = body else { continue };
            let (Some(generation), Some(Value::Bool(active))) = (int(f, 0), f.get(1)) else {
                continue;
            };
            if self.stored.is_some_and(|s| generation <= s) {
                continue; // only a value above the stored one acts
            }
            self.stored = Some(generation);
            if *active {
                self.running = Some((*slot, generation, 0));
                self.next_at = Some(now + REPORT_EVERY_MS);
            } else if self.running.is_some_and(|(s, _, _)| s == *slot) {
                self.running = None; // the Ghost is destroyed
                self.next_at = None;
            }
        }
    }

    /// A Sense override of message 5: a fraction above 1.0 with the running generation
    /// finishes the bar.
    pub(super) fn on_override(&mut self, slot: &ClientRef, sense: &Value) {
        let Value::Record(f) = sense else { return };
        let fraction = match f.get(1) {
            Some(Value::Raw { bits, width: 32 }) => f32::from_bits(*bits as u32),
            _ => return,
        };
        if let Some((s, generation, _)) = self.running
            && s == *slot
            && fraction > 1.0
            && f.first() == Some(&Value::Bool(true))
            && int(f, 2) == Some(generation)
        {
            self.running = None;
            self.next_at = None;
        }
    }

    /// When the next report is due.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.next_at
    }

    /// The bar's next report, message 6 echoing `epoch`, the client's message 52; the
    /// last one leaves the bar stalled, and no report follows until the host finishes it.
    pub(crate) fn report(&mut self, now: Instant, epoch: [u64; 2]) -> Option<Outgoing> {
        self.next_at = None;
        let (slot, generation, sent) = self.running?;
        let fraction = *PROGRESS.get(sent)?;
        self.running = Some((slot, generation, sent + 1));
        if sent + 1 < PROGRESS.len() {
            self.next_at = Some(now + REPORT_EVERY_MS);
        }
        let value = Value::Record(vec![
            Value::Bool(true),
            Value::Raw {
                bits: fraction.to_bits().into(),
                width: 32,
            },
            Value::Int(generation),
        ]);
        let sense = encode_bits(&GHOST_LINK_SENSE, &value).ok()?;
        let counter = self.counters.entry(slot).or_default();
        *counter = counter.wrapping_add(1);
        let update = SenseUpdate {
            patch_epoch: epoch,
            groups: vec![SenseGroup {
                key: slot.key,
                objects: vec![SenseObject {
                    slot,
                    sense,
                    counter: *counter,
                }],
            }],
        };
        Some(Outgoing {
            message: ids::SENSOR_SENSE_UPDATE,
            body: update.encode().ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::slot::TYPE_GHOST_LINK;

    fn ghost(generation: i128, active: bool) -> Value {
        Value::Record(vec![
            Value::Int(generation),
            Value::Bool(active),
            Value::Int(0),
        ])
    }

    const SLOT: ClientRef = ClientRef {
        key: 7,
        slot_type: TYPE_GHOST_LINK,
        index: 4,
    };

    /// An armed bar reports 0.5, then stalls at 0.99 with nothing after; the host's
    /// override above 1.0 finishes it, and the same generation does not arm it again.
    #[test]
    fn the_bar_runs_stalls_and_finishes() {
        let mut g = GhostScan::default();
        let body = ghost(1, true);
        g.on_bodies(Instant::default(), std::iter::once((&SLOT, &body)));
        let first = g.due().unwrap();
        let report = g.report(first, [1, 2]).unwrap();
        let decoded = SenseUpdate::decode(&report.body).unwrap();
        assert_eq!(decoded.patch_epoch, [1, 2]);
        assert_eq!(decoded.groups[0].key, SLOT.key);
        let second = g.due().unwrap();
        assert!(g.report(second, [1, 2]).is_some());
        assert_eq!(g.due(), None, "stalled");
        let finish = |fraction: f32, generation: i128| {
            Value::Record(vec![
                Value::Bool(true),
                Value::Raw {
                    bits: fraction.to_bits().into(),
                    width: 32,
                },
                Value::Int(generation),
            ])
        };
        g.on_override(&SLOT, &finish(1.0, 1));
        assert!(g.running.is_some(), "exactly 1.0 does not finish");
        g.on_override(&SLOT, &finish(1.5, 2));
        assert!(g.running.is_some(), "another generation does not finish");
        g.on_override(&SLOT, &finish(1.5, 1));
        assert!(g.running.is_none(), "finished");
        g.on_bodies(Instant::default(), std::iter::once((&SLOT, &body)));
        assert_eq!(g.due(), None, "finished");
    }

    /// Only a generation above the stored one acts: a lower or equal one neither arms nor
    /// destroys (T65-01).
    #[test]
    fn only_a_higher_generation_acts() {
        let mut g = GhostScan::default();
        let (on, off_same, on_lower) = (ghost(5, true), ghost(5, false), ghost(4, true));
        g.on_bodies(Instant::default(), std::iter::once((&SLOT, &on)));
        assert!(g.due().is_some());
        g.on_bodies(Instant::default(), std::iter::once((&SLOT, &off_same)));
        assert!(g.running.is_some(), "the same generation does nothing");
        let mut g = GhostScan::default();
        g.on_bodies(Instant::default(), std::iter::once((&SLOT, &on)));
        g.running = None;
        g.on_bodies(Instant::default(), std::iter::once((&SLOT, &on_lower)));
        assert!(g.running.is_none(), "a lower generation does not arm");
    }
}
