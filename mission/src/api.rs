//! What a script can call. Each request function checks what it is given at once, so a
//! bad request fails at its script line with the client rule it would break, never sent
//! (rules.md's guards, the same the encoder keeps); what it asks for commits when the
//! handler returns.

use crate::convert::{self, Slot};
use rhai::{Dynamic, Engine, EvalAltResult, INT, Map};
use std::sync::{Arc, Mutex, MutexGuard};
use vex_host::world::WorldRequest;
use vex_wire::activity::incident::Incident;
use vex_wire::bits::BitWriter;
use vex_wire::scenario::Scenario;
use vex_wire::schema::walk::check_guards;
use vex_wire::schema::{Schema, catalog, encode, path};
use vex_wire::time::Instant;

/// How far ahead a timer may be set: a day.
const LONGEST_TIMER_MS: INT = 86_400_000;
/// The shortest timer: the transport's poll (SR "What the host pushes on its own": 50
/// ms). A timer set by a timer's handler is never due in the run that set it, and timers
/// that set timers cannot fire faster than the host pushes.
const SHORTEST_TIMER_MS: INT = 50;
/// Requests one handler call may make: the host's queues stay bounded.
pub const MAX_REQUESTS: usize = 256;
/// Timers one handler call may set or cancel.
pub const MAX_TIMER_OPS: usize = 256;
/// Timers one activity's instance may hold.
pub const MAX_TIMERS: usize = 1_024;
/// The longest timer name, in bytes.
const MAX_TIMER_NAME: usize = 64;

/// What every registered function shares: the scenario and the call in progress.
#[derive(Debug, Default)]
pub struct Context {
    /// The scenario the host serves, once it said: a slot it does not place is refused at
    /// the request.
    pub scenario: Option<Arc<Scenario>>,
    /// The call in progress.
    pub call: Call,
}

/// What one handler call asked for, committed when it returns and dropped when it fails.
#[derive(Debug, Default)]
pub struct Call {
    /// The host's time of the call.
    pub now: Instant,
    /// The requests, in the order asked.
    pub requests: Vec<WorldRequest>,
    /// Timers set and cancelled, in the order asked.
    pub timers: Vec<TimerOp>,
    /// Timers the instance held when the call began.
    pub instance_timers: usize,
}

/// A change to the instance's timers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimerOp {
    /// `after(ms, name)`: a timer due then.
    Set(Instant, String),
    /// `cancel(name)`: every timer of that name goes.
    Cancel(String),
}

/// The context, shared by every registered function.
pub type Shared = Arc<Mutex<Context>>;

/// The context, also after a panic elsewhere poisoned it (it holds plain data).
pub fn lock(call: &Shared) -> MutexGuard<'_, Context> {
    call.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

type Result<T> = std::result::Result<T, Box<EvalAltResult>>;

fn fail<T>(message: String) -> Result<T> {
    Err(message.into())
}

/// Adds `request` to the call, up to [`MAX_REQUESTS`].
fn ask(call: &Shared, request: WorldRequest) -> Result<()> {
    let mut context = lock(call);
    let call = &mut context.call;
    if call.requests.len() == MAX_REQUESTS {
        return fail(format!(
            "a handler makes at most {MAX_REQUESTS} requests (a loop that does not end?)"
        ));
    }
    call.requests.push(request);
    Ok(())
}

/// Adds a timer change to the call, up to [`MAX_TIMER_OPS`] a call and [`MAX_TIMERS`] an
/// instance, with a name of at most [`MAX_TIMER_NAME`] bytes.
fn time(call: &Shared, op: TimerOp) -> Result<()> {
    let (TimerOp::Set(_, name) | TimerOp::Cancel(name)) = &op;
    if name.len() > MAX_TIMER_NAME {
        return fail(format!("a timer name is at most {MAX_TIMER_NAME} bytes"));
    }
    let mut context = lock(call);
    let call = &mut context.call;
    if call.timers.len() == MAX_TIMER_OPS {
        return fail(format!(
            "a handler sets or cancels at most {MAX_TIMER_OPS} timers (a loop that does not end?)"
        ));
    }
    let sets = call
        .timers
        .iter()
        .filter(|t| matches!(t, TimerOp::Set(..)))
        .count();
    if matches!(op, TimerOp::Set(..)) && call.instance_timers + sets >= MAX_TIMERS {
        return fail(format!("an activity holds at most {MAX_TIMERS} timers"));
    }
    call.timers.push(op);
    Ok(())
}

fn narrow<T: TryFrom<INT>>(what: &str, v: INT) -> Result<T> {
    T::try_from(v).or_else(|_| fail(format!("{what} {v} is out of range")))
}

/// The Auth schema of `slot`'s type, once the scenario (when known) places the slot with
/// an Auth body (AUTH-06).
fn auth_schema(call: &Shared, slot: &Slot) -> Result<&'static Schema> {
    if let Some(scenario) = lock(call).scenario.clone() {
        match scenario.schemas_of(slot) {
            None => {
                return fail(format!(
                    "{} is not in scenario {}",
                    text(slot),
                    scenario.name
                ));
            }
            Some((_, decl)) if !decl.schemas.auth => {
                return fail(format!("{} has no Auth body (AUTH-06)", text(slot)));
            }
            Some(_) => {}
        }
    }
    catalog::auth(slot.slot_type).map_or_else(
        || {
            fail(format!(
                "slot type {} has no Auth schema Vex knows",
                slot.slot_type
            ))
        },
        Ok,
    )
}

/// Registers the mission API on `engine`, every request going into `call`.
pub fn register(engine: &mut Engine, call: &Shared) {
    engine
        .register_type_with_name::<Slot>("Slot")
        .register_get("key", |s: &mut Slot| INT::from(s.key))
        .register_get("type", |s: &mut Slot| INT::from(s.slot_type))
        .register_get("index", |s: &mut Slot| INT::from(s.index))
        .register_fn("==", |a: Slot, b: Slot| a == b)
        .register_fn("!=", |a: Slot, b: Slot| a != b)
        .register_fn("to_string", slot_text)
        .register_fn("to_debug", slot_text)
        .register_fn(
            "slot",
            |key: INT, slot_type: INT, index: INT| -> Result<Slot> {
                Ok(Slot {
                    key: narrow("slot key", key)?,
                    slot_type: narrow("slot type", slot_type)?,
                    index: narrow("slot index", index)?,
                })
            },
        );

    let c = call.clone();
    engine.register_fn("slot", move |name: &str| -> Result<Slot> {
        let Some(scenario) = lock(&c).scenario.clone() else {
            return fail(format!("slot({name:?}): no scenario is served yet"));
        };
        match scenario.slot_names.get(name) {
            Some(slot) => Ok(*slot),
            None => {
                let names: Vec<&str> = scenario.slot_names.keys().map(String::as_str).collect();
                fail(format!(
                    "scenario {} names no slot {name:?}; it names {}",
                    scenario.name,
                    names.join(", ")
                ))
            }
        }
    });
    let c = call.clone();
    engine.register_fn("now", move || -> INT {
        INT::try_from(lock(&c).call.now.millis()).unwrap_or(INT::MAX)
    });
    let c = call.clone();
    engine.register_fn("set_auth", move |slot: Slot, body: Map| -> Result<()> {
        let schema = auth_schema(&c, &slot)?;
        let body = convert::record(schema, &Dynamic::from_map(body), "").or_else(fail)?;
        encode(schema, &body, &mut BitWriter::measuring()).or_else(|e| fail(e.to_string()))?;
        ask(&c, WorldRequest::SetAuth { slot, body })
    });
    let c = call.clone();
    engine.register_fn(
        "set_field",
        move |slot: Slot, field: &str, value: Dynamic| -> Result<()> {
            let schema = auth_schema(&c, &slot)?;
            let part = path::part_at(schema, field).or_else(|e| fail(e.to_string()))?;
            let value =
                convert::to_value(&part.kind, part.optional(), &value, field).or_else(fail)?;
            if let Some(descriptor) = part.field {
                // the field's own rules (T17-01's state range, say), as the encoder keeps them
                check_guards(descriptor, &value, field).or_else(|e| fail(e.to_string()))?;
            }
            let field = field.to_string();
            ask(&c, WorldRequest::SetAuthField { slot, field, value })
        },
    );
    let c = call.clone();
    engine.register_fn("clear_auth", move |slot: Slot| -> Result<()> {
        auth_schema(&c, &slot)?;
        ask(&c, WorldRequest::ClearAuth { slot })
    });
    let c = call.clone();
    engine.register_fn("retire", move |key: INT| -> Result<()> {
        let key: u32 = narrow("group key", key)?;
        ask(&c, WorldRequest::Retire { key })
    });
    let c = call.clone();
    engine.register_fn("fire_incident", move |definition: INT| -> Result<()> {
        let incident = Incident {
            definition: narrow("incident definition", definition)?,
            targets: Vec::new(),
            payload: Vec::new(),
        };
        incident.check().or_else(|e| fail(e.to_string()))?;
        ask(&c, WorldRequest::FireIncident(incident))
    });
    let c = call.clone();
    engine.register_fn(
        "arm_teleport",
        move |state: INT, slice_set: INT, hash: INT| -> Result<()> {
            let state: i8 = narrow("teleport state", state)?;
            if !(-1..=6).contains(&state) {
                return fail(format!(
                    "teleport state {state} does not fit 3 bits with bias 1"
                ));
            }
            ask(
                &c,
                WorldRequest::ArmTeleport {
                    state,
                    slice_set: narrow("slice set", slice_set)?,
                    slice_hash: narrow("slice hash", hash)?,
                },
            )
        },
    );
    let c = call.clone();
    engine.register_fn("reset_authority", move || {
        ask(&c, WorldRequest::ResetAuthority)
    });
    let c = call.clone();
    engine.register_fn("query_authority", move || {
        ask(&c, WorldRequest::QueryAuthority)
    });
    let c = call.clone();
    engine.register_fn("after", move |ms: INT, name: &str| -> Result<()> {
        if !(SHORTEST_TIMER_MS..=LONGEST_TIMER_MS).contains(&ms) {
            return fail(format!(
                "a timer runs {SHORTEST_TIMER_MS} to {LONGEST_TIMER_MS} ms, not {ms}"
            ));
        }
        let due = lock(&c).call.now + ms.unsigned_abs();
        time(&c, TimerOp::Set(due, name.to_string()))
    });
    let c = call.clone();
    engine.register_fn("cancel", move |name: &str| {
        time(&c, TimerOp::Cancel(name.to_string()))
    });
}

fn slot_text(s: &mut Slot) -> String {
    text(s)
}

/// A slot as scripts print it.
fn text(s: &Slot) -> String {
    convert::show(&Dynamic::from(*s))
}
