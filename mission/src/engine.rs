//! The sandboxed engine every mission runs on: Rhai's standard library without `eval`,
//! `import` or a clock, output to the host's log, and limits on every call, so a script
//! that loops forever or builds without bound is stopped with an error at its line.

use crate::api::{self, Shared};
use rhai::Engine;

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

/// The engine for the mission in `file`, its requests going into `call`.
pub fn new(file: &str, call: &Shared) -> Engine {
    let mut engine = Engine::new();
    engine
        .set_max_operations(MAX_OPERATIONS)
        .set_max_call_levels(MAX_CALL_LEVELS)
        .set_max_string_size(MAX_STRING_SIZE)
        .set_max_array_size(MAX_ARRAY_SIZE)
        .set_max_map_size(MAX_MAP_SIZE)
        .set_max_expr_depths(MAX_EXPR_DEPTHS.0, MAX_EXPR_DEPTHS.1)
        .set_strict_variables(true)
        .disable_symbol("eval");
    // Rhai's `sleep` is a function, not a symbol: these take its place and refuse
    let no_sleep = || -> Result<(), Box<rhai::EvalAltResult>> {
        Err("sleep is not available: time is the host's, and a handler does not wait".into())
    };
    engine
        .register_fn("sleep", move |_: rhai::INT| no_sleep())
        .register_fn("sleep", move |_: rhai::FLOAT| no_sleep());
    let name = file.to_string();
    engine.on_print(move |text| tracing::info!(mission = %name, "{text}"));
    let name = file.to_string();
    engine.on_debug(move |text, _, at| tracing::debug!(mission = %name, %at, "{text}"));
    api::register(&mut engine, call);
    engine
}
