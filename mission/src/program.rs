//! [`RhaiMission`]: a compiled mission script and one instance of it per started
//! activity, each with its variables (`this`) and timers, which a reload keeps.

use crate::api::{self, Call, Context, Shared, TimerOp};
use crate::convert;
use crate::engine;
use crate::errors;
use crate::timers::Timers;
use crate::variables;
use rhai::{AST, CallFnOptions, Dynamic, Engine, Map, Scope};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use vex_host::mission::{Mission, MissionEvent, ScriptError};
use vex_host::world::WorldRequest;
use vex_wire::activity::session::SessionId;
use vex_wire::scenario::Scenario;
use vex_wire::time::Instant;

/// The handler run once when an activity's instance is made, before its first event.
const INIT: &str = "init";

/// A compiled script, its text (where errors are placed) and the handlers it defines.
struct Program {
    ast: AST,
    source: String,
    handlers: Vec<&'static str>,
}

/// A mission script: its program, and per activity session its variables and timers.
pub struct RhaiMission {
    file: String,
    engine: Engine,
    call: Shared,
    printed: engine::Printed,
    program: Program,
    held: Option<Program>,
    /// Each started activity's variables, the `this` of its handlers.
    instances: BTreeMap<SessionId, Dynamic>,
    /// Every timer: due time and the order it was set, then its session and name.
    timers: Timers,
}

impl RhaiMission {
    /// Compiles `source`, the script in `file` (the name its errors carry).
    pub fn compile(file: &str, source: &str) -> Result<Self, ScriptError> {
        let call: Shared = Arc::new(Mutex::new(Context::default()));
        let printed = engine::Printed::default();
        let engine = engine::new(file, &call, &printed);
        let program = compile(&engine, file, source)?;
        Ok(Self {
            file: file.to_string(),
            engine,
            call,
            printed,
            program,
            held: None,
            instances: BTreeMap::new(),
            timers: Timers::default(),
        })
    }

    /// The handlers the program defines, in [`MissionEvent::HANDLERS`] order.
    pub fn handlers(&self) -> Vec<&'static str> {
        self.program.handlers.clone()
    }

    /// Calls `handler` with `args` in `session`'s instance (which exists), continuing
    /// `call`: the requests and timer changes go into it, to apply once every handler of
    /// the event has run.
    fn run(
        &mut self,
        session: SessionId,
        handler: &str,
        args: Vec<Dynamic>,
        call: Call,
    ) -> Result<Call, ScriptError> {
        api::lock(&self.call).call = call;
        self.printed.reset();
        let this = self
            .instances
            .entry(session)
            .or_insert_with(|| Dynamic::from_map(Map::new()));
        let options = CallFnOptions::new()
            .eval_ast(false)
            .rewind_scope(true)
            .bind_this_ptr(this);
        let result = self.engine.call_fn_with_options::<Dynamic>(
            options,
            &mut Scope::new(),
            &self.program.ast,
            handler,
            args,
        );
        let call = std::mem::take(&mut api::lock(&self.call).call);
        // output past the budget by the last statement: no operation followed to stop it
        let result = match result {
            Ok(_) if self.printed.spent() => Err(engine::output_spent()),
            other => other,
        };
        if let Some(this) = self.instances.get_mut(&session)
            && let Some(why) = variables::over_limits(this)
        {
            // what broke the limits cannot be told apart from the rest: the variables go
            *this = Dynamic::from_map(Map::new());
            let message = format!("{handler}: {why}; the activity's variables were cleared");
            return Err(at_fn(&self.file, &self.program.source, handler, message));
        }
        // what a handler returns is not used: it acts through its requests
        let _returned = result.map_err(|e| {
            let error = errors::eval(&self.file, &e);
            if error.line == 0 {
                // Rhai drops the place of a limit's error (operations, stack, sizes) at the
                // function boundary: it is placed at the handler that ran into it
                let source = &self.program.source;
                at_fn(
                    &self.file,
                    source,
                    handler,
                    format!("{handler}: {}", error.message),
                )
            } else {
                error
            }
        })?;
        Ok(call)
    }

    /// Applies a call's timer changes to `session`'s timers.
    fn apply_timers(&mut self, session: SessionId, ops: Vec<TimerOp>) {
        for op in ops {
            match op {
                TimerOp::Set(due, name) => self.timers.set(session, due, name),
                TimerOp::Cancel(name) => self.timers.cancel(session, &name),
            }
        }
    }

    /// `init` and then `handler` on `session`'s instance, as one call: the requests, or
    /// the first error, and then no request is made and no timer changes, and an instance
    /// this call made is dropped again (its `init` runs with the next event).
    fn call(
        &mut self,
        now: Instant,
        session: SessionId,
        event: &MissionEvent,
    ) -> Result<Vec<WorldRequest>, ScriptError> {
        let made = !self.instances.contains_key(&session);
        let instance_timers = self.timers.held(session);
        let call = Call {
            now,
            instance_timers,
            ..Call::default()
        };
        if made {
            self.instances
                .insert(session, Dynamic::from_map(Map::new()));
        }
        match self.init_and_handle(session, event, made, call) {
            Ok(call) => {
                self.apply_timers(session, call.timers);
                Ok(call.requests)
            }
            Err(e) => {
                if made {
                    self.instances.remove(&session);
                }
                Err(e)
            }
        }
    }

    /// The calls of [`RhaiMission::call`]: `init` on a `made` instance, then the event's
    /// handler, each where the program defines it.
    fn init_and_handle(
        &mut self,
        session: SessionId,
        event: &MissionEvent,
        made: bool,
        mut call: Call,
    ) -> Result<Call, ScriptError> {
        if made && self.defines(INIT) {
            call = self.run(session, INIT, Vec::new(), call)?;
        }
        let handler = event.handler();
        if self.defines(handler) {
            let map = Dynamic::from_map(convert::event_map(event));
            call = self.run(session, handler, vec![map], call)?;
        }
        Ok(call)
    }

    fn defines(&self, handler: &str) -> bool {
        self.program.handlers.contains(&handler)
    }
}

impl Mission for RhaiMission {
    fn serve(&mut self, scenario: &Scenario) {
        api::lock(&self.call).scenario = Some(Arc::new(scenario.clone()));
    }

    fn handle(
        &mut self,
        now: Instant,
        session: SessionId,
        event: &MissionEvent,
    ) -> Result<Vec<WorldRequest>, ScriptError> {
        if event.is_outcome() && !self.instances.contains_key(&session) {
            return Ok(Vec::new()); // an outcome of an activity that has ended
        }
        self.call(now, session, event)
    }

    fn next_timer(&self) -> Option<Instant> {
        self.timers.next()
    }

    fn take_due_timer(&mut self, now: Instant) -> Option<(SessionId, String)> {
        self.timers.take_due(now)
    }

    fn end(&mut self, session: SessionId) {
        self.instances.remove(&session);
        self.timers.end(session);
    }

    fn started(&self) -> bool {
        !self.instances.is_empty()
    }

    fn prepare(&mut self, source: &str) -> Result<(), ScriptError> {
        self.held = None;
        self.held = Some(compile(&self.engine, &self.file, source)?);
        Ok(())
    }

    fn swap(&mut self) {
        if let Some(program) = self.held.take() {
            self.program = program;
        }
    }

    fn status(&self) -> Vec<(SessionId, String)> {
        self.instances
            .iter()
            .map(|(session, this)| (*session, convert::show(this)))
            .collect()
    }
}

/// Compiles `source` and checks its handlers: a function named `init` or `on_...` must be
/// a handler of [`MissionEvent::HANDLERS`], with no parameter for `init` and one (the
/// event) for the others, so a misspelt handler is an error, not a handler never called.
fn compile(engine: &Engine, file: &str, source: &str) -> Result<Program, ScriptError> {
    let ast = engine
        .compile(source)
        .map_err(|e| errors::parse(file, &e))?;
    if let Some(stmt) = ast.statements().first() {
        return Err(errors::at(
            file,
            stmt.position(),
            "a mission is its functions: top-level code never runs; set up in fn init()".into(),
        ));
    }
    for f in ast.iter_functions() {
        let is_handler = f.name == INIT || f.name.starts_with("on_");
        if !is_handler {
            continue;
        }
        let known = MissionEvent::HANDLERS.contains(&f.name);
        let params = if f.name == INIT { 0 } else { 1 };
        let message = if !known {
            format!(
                "{} is not a handler; the handlers are {}",
                f.name,
                MissionEvent::HANDLERS.join(", ")
            )
        } else if f.params.len() != params {
            format!(
                "{} takes {params} parameter(s), not {}",
                f.name,
                f.params.len()
            )
        } else {
            continue;
        };
        return Err(at_fn(file, source, f.name, message));
    }
    Ok(Program {
        handlers: defined(&ast),
        ast,
        source: source.to_string(),
    })
}

/// An error at the definition of function `name` in `source`.
fn at_fn(file: &str, source: &str, name: &str, message: String) -> ScriptError {
    let (line, column) = definition(source, name).unwrap_or((0, 0));
    ScriptError {
        file: file.to_string(),
        line,
        column,
        message,
    }
}

/// Where `fn NAME (` starts in `source`, line and column from 1: the keyword, any
/// whitespace (line breaks too), the name, any whitespace, the parenthesis. Text after
/// `//` on a line is a comment and is skipped.
fn definition(source: &str, name: &str) -> Option<(usize, usize)> {
    let code: String = source
        .lines()
        .map(|l| l.find("//").map_or(l, |c| &l[..c]))
        .collect::<Vec<_>>()
        .join("\n");
    let mut from = 0;
    while let Some(found) = code[from..].find("fn") {
        let at = from + found;
        from = at + 2;
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + 2..];
        let named = rest.trim_start();
        if named.len() == rest.len() || !named.starts_with(name) {
            continue;
        }
        if named[name.len()..].trim_start().starts_with('(') {
            let line = code[..at].matches('\n').count() + 1;
            let column = at - code[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
            return Some((line, column));
        }
    }
    None
}

/// The handlers `program` defines.
fn defined(program: &AST) -> Vec<&'static str> {
    MissionEvent::HANDLERS
        .into_iter()
        .filter(|h| program.iter_functions().any(|f| f.name == *h))
        .collect()
}

/// Compiles the script in `file` without a host: the handlers it defines, or its first
/// error (`vex mission check`).
pub fn check(file: &str, source: &str) -> Result<Vec<&'static str>, ScriptError> {
    RhaiMission::compile(file, source).map(|m| m.handlers())
}
