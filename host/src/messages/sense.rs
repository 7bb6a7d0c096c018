//! Message 6, Sense: what the client measured for its slots, read against the identity map
//! of the last complete message 5 on the same link, in order, and turned into typed events
//! (SR "Client reports come in"; AH "Message 6: Sense"; AUTH-15, HOST-07). A stalled Ghost
//! scan bar is finished with a Sense override (AH "Type 65").

use crate::activities::Activities;
use crate::event::WorldEvent;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::reason::Dropped;
use std::collections::BTreeSet;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::SENSOR_SENSE_UPDATE;
use vex_wire::activity::sense_update::{SenseObject, SenseUpdate};
use vex_wire::activity::slot::{ClientRef, TYPE_GHOST_LINK};
use vex_wire::bits::{BitError, BitReader, Bits};
use vex_wire::schema::tables::GHOST_LINK_SENSE;
use vex_wire::schema::{Value, catalog, decode, encode_bits};

/// The fraction from which the host takes a running Ghost bar as stalled one frame short
/// of its end. The bar's length is package data; this is Vex's threshold.
pub const GHOST_STALLED: f32 = 0.99;
/// The fraction of the override that finishes a Ghost bar: above 1.0 (T65-02).
pub const GHOST_FINISHED: f32 = 1.5;

impl Activities {
    /// One message 6: each group's objects read by their Sense schemas, against the slots
    /// the last message 5 on `link` registered. A group that cannot be read is dropped
    /// with its reason; the others still count, in order.
    pub(crate) fn sense_update(&mut self, links: &mut Links, link: LinkId, payload: &[u8]) {
        let Some(binding) = links.binding(link) else {
            return;
        };
        let epoch = binding.epoch().map(|e| e.0);
        let read = read_reports(binding.roster().identity_map(), epoch, payload);
        match read {
            Err(reason) => links.drop_input(link, reason),
            Ok(groups) => {
                for group in groups {
                    match group {
                        Ok(objects) => objects
                            .into_iter()
                            .for_each(|o| self.sensed(links, link, o)),
                        Err(reason) => links.drop_input(link, reason),
                    }
                }
            }
        }
    }

    /// One slot's report, as events.
    fn sensed(&mut self, links: &mut Links, link: LinkId, o: SenseObject) {
        for event in report_events(link, &o) {
            self.world_event(links, event);
            if let WorldEvent::GhostScan {
                slot,
                active: true,
                fraction,
                generation,
                ..
            } = event
                && fraction >= GHOST_STALLED
            {
                self.finish_ghost(links, link, slot, generation);
            }
        }
    }

    /// The Ghost bar of `slot` stalled: one message 5 with its Auth unchanged and a Sense
    /// override, active, above 1.0, at the current generation, the Auth's the host holds
    /// (else the `reported` one) (AH "Type 65"; T65-02).
    fn finish_ghost(&mut self, links: &mut Links, link: LinkId, slot: ClientRef, reported: i32) {
        let held = self
            .joined_session(links, link)
            .and_then(|s| self.map.get(&s))
            .and_then(|a| match a.world().body(&slot) {
                Some(Value::Record(f)) => match f.first() {
                    Some(Value::Int(g)) => i32::try_from(*g).ok(),
                    _ => None,
                },
                _ => None,
            });
        let generation = held.unwrap_or(reported);
        let value = Value::Record(vec![
            Value::Bool(true),
            Value::Raw {
                bits: self.policy().ghost_finish(GHOST_FINISHED).to_bits().into(),
                width: 32,
            },
            Value::Int(self.policy().ghost_finish_generation(generation).into()),
        ]);
        let Ok(bits) = encode_bits(&GHOST_LINK_SENSE, &value) else {
            return;
        };
        if let Some(b) = links.binding_mut(link) {
            b.roster_mut().override_sense(slot, bits);
        }
        self.push_current_roster(links, link);
    }
}

/// The events one slot's report raises: [`WorldEvent::Sensed`], and for a ghost link its
/// bar as [`WorldEvent::GhostScan`] (AH "Type 65").
pub fn report_events(link: LinkId, o: &SenseObject) -> Vec<WorldEvent> {
    let (slot, counter) = (o.slot, o.counter);
    let mut events = vec![WorldEvent::Sensed {
        link,
        slot,
        counter,
    }];
    if slot.slot_type != TYPE_GHOST_LINK {
        return events;
    }
    let Ok(Value::Record(f)) = decode(&GHOST_LINK_SENSE, &mut o.sense.reader()) else {
        return events;
    };
    if let (Some(Value::Bool(active)), Some(Value::Raw { bits, .. }), Some(Value::Int(g))) =
        (f.first(), f.get(1), f.get(2))
    {
        events.push(WorldEvent::GhostScan {
            link,
            slot,
            active: *active,
            fraction: f32::from_bits(*bits as u32),
            generation: i32::try_from(*g).unwrap_or_default(),
        });
    }
    events
}

/// The reports of a message 6, group by group, read against `map`, the slots the last
/// message 5 on the link registered (AUTH-15), the link's message 52 being `epoch`. The
/// message is refused whole when it does not decode or carries another epoch; a group
/// that cannot be read is refused alone.
pub fn read_reports(
    map: &BTreeSet<ClientRef>,
    epoch: Option<[u64; 2]>,
    payload: &[u8],
) -> Result<Vec<Result<Vec<SenseObject>, Dropped>>, Dropped> {
    let msg = SENSOR_SENSE_UPDATE;
    let m = SenseUpdate::decode(payload).map_err(|error| Dropped::Body { msg, error })?;
    if epoch != Some(m.patch_epoch) {
        return Err(Dropped::SenseEpoch);
    }
    Ok(m.groups
        .iter()
        .map(|group| {
            group
                .objects(|slot, r| read_sense(map, slot, r))
                .map_err(|error| Dropped::SenseGroup {
                    key: group.key,
                    error,
                })
        })
        .collect())
}

/// One Sense body at `r`, for a slot the identity map `map` holds and whose Sense schema
/// Vex knows (AUTH-15).
fn read_sense(
    map: &BTreeSet<ClientRef>,
    slot: &ClientRef,
    r: &mut BitReader<'_>,
) -> Result<Bits, BitError> {
    let at = r.position();
    if !map.contains(slot) {
        return Err(BitError::UnknownShape {
            at,
            what: "a slot the last message 5 on the link did not register",
        });
    }
    let schema = catalog::sense(slot.slot_type).ok_or(BitError::UnknownShape {
        at,
        what: "a Sense body of a slot type whose Sense schema Vex does not know",
    })?;
    let mut probe = r.clone();
    decode(schema, &mut probe).map_err(|_| BitError::UnknownShape {
        at,
        what: "a Sense body its schema does not read",
    })?;
    r.read_bits(probe.position() - at)
}
