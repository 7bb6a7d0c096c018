//! The sandboxed engine every mission runs on: Rhai's standard library without `eval`,
//! `import` or a clock, output to the host's log, and limits on every call, so a script
//! that loops forever or builds without bound is stopped with an error at its line.

use crate::api::{self, Shared};
use crate::callbacks;
use rhai::{Dynamic, Engine};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Operations one handler call may take: a runaway loop stops here. A native call counts
/// one however long it runs (a sort of a full array), so this and the sizes below bound a
/// call's time together: well under a second at worst, a millisecond or so for a loop of
/// simple steps. Setting up 1,000 variables takes about 5,000.
pub const MAX_OPERATIONS: u64 = 10_000;
/// How deep handlers may call functions.
const MAX_CALL_LEVELS: usize = 32;
/// The largest string a script may build, in bytes.
pub const MAX_STRING_SIZE: usize = 16 * 1024;
/// The largest array a script may build, nested arrays counted in: it also bounds how
/// deep values nest, which the stack must hold.
pub const MAX_ARRAY_SIZE: usize = 1_000;
/// The largest map a script may build, nested maps counted in, the mission's variables
/// included.
pub const MAX_MAP_SIZE: usize = 1_200;
/// How deep expressions may nest, at top level and in functions.
const MAX_EXPR_DEPTHS: (usize, usize) = (64, 32);
/// The most functions a script defines: a mission is a few handlers and their helpers,
/// and parsing thousands costs seconds (a hostile script of 20,000 took most of a
/// minute in a debug build).
const MAX_FUNCTIONS: usize = 1_000;
/// What one handler call may `print` and `debug`, in bytes: a loop printing the largest
/// values would otherwise spend its operations formatting them (each print counts one)
/// and flood the host's log.
pub const MAX_OUTPUT: usize = 64 * 1024;
/// The token the progress check stops a call with once it printed past [`MAX_OUTPUT`].
pub const OUTPUT_SPENT: &str = "output spent";

/// The bytes the handler call in progress has printed, counted by the engine's output
/// callbacks and checked at each operation.
#[derive(Debug, Clone, Default)]
pub struct Printed(Arc<AtomicUsize>);

impl Printed {
    /// A new handler call: nothing printed yet.
    pub fn reset(&self) {
        self.0.store(0, Ordering::Relaxed);
    }

    /// Counts `text`; whether it is within the call's [`MAX_OUTPUT`].
    fn count(&self, text: &str) -> bool {
        self.0.fetch_add(text.len(), Ordering::Relaxed) + text.len() <= MAX_OUTPUT
    }

    /// Whether the call printed past [`MAX_OUTPUT`].
    pub fn spent(&self) -> bool {
        self.0.load(Ordering::Relaxed) > MAX_OUTPUT
    }
}

/// The error of a call that printed past [`MAX_OUTPUT`].
pub fn output_spent() -> Box<rhai::EvalAltResult> {
    rhai::EvalAltResult::ErrorTerminated(OUTPUT_SPENT.into(), rhai::Position::NONE).into()
}

/// The engine for the mission in `file`, its requests going into `call` and its output,
/// counted in `printed`, to the host's log.
pub fn new(file: &str, call: &Shared, printed: &Printed) -> Engine {
    let mut engine = Engine::new();
    engine
        .set_max_operations(MAX_OPERATIONS)
        .set_max_call_levels(MAX_CALL_LEVELS)
        .set_max_string_size(MAX_STRING_SIZE)
        .set_max_array_size(MAX_ARRAY_SIZE)
        .set_max_map_size(MAX_MAP_SIZE)
        .set_max_expr_depths(MAX_EXPR_DEPTHS.0, MAX_EXPR_DEPTHS.1)
        .set_max_functions(MAX_FUNCTIONS)
        .set_strict_variables(true)
        .disable_symbol("eval");
    // Rhai's `sleep` is a function, not a symbol: these take its place and refuse
    let no_sleep = || -> Result<(), Box<rhai::EvalAltResult>> {
        Err("sleep is not available: time is the host's, and a handler does not wait".into())
    };
    engine
        .register_fn("sleep", move |_: rhai::INT| no_sleep())
        .register_fn("sleep", move |_: rhai::FLOAT| no_sleep());
    let (name, count) = (file.to_string(), printed.clone());
    engine.on_print(move |text| {
        if count.count(text) {
            tracing::info!(mission = %name, "{text}");
        }
    });
    let (name, count) = (file.to_string(), printed.clone());
    engine.on_debug(move |text, _, at| {
        if count.count(text) {
            tracing::debug!(mission = %name, %at, "{text}");
        }
    });
    let check = printed.clone();
    engine.on_progress(move |_| check.spent().then(|| Dynamic::from(OUTPUT_SPENT)));
    callbacks::register(&mut engine);
    api::register(&mut engine, call);
    engine
}
