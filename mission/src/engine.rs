//! The sandboxed engine every mission runs on: Rhai's standard library without `eval`,
//! `import` or a clock, output to the host's log, and limits on every call, so a script
//! that loops forever or builds without bound is stopped with an error at its line.

use crate::api::{self, Shared};
use rhai::Engine;

/// Operations one handler call may take: a runaway loop stops here (about 10 ms).
pub const MAX_OPERATIONS: u64 = 500_000;
/// How deep handlers may call functions.
const MAX_CALL_LEVELS: usize = 32;
/// The largest string a script may build, in bytes.
const MAX_STRING_SIZE: usize = 64 * 1024;
/// The largest array a script may build.
const MAX_ARRAY_SIZE: usize = 10_000;
/// The largest map a script may build, the mission's variables included.
const MAX_MAP_SIZE: usize = 10_000;
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
    let name = file.to_string();
    engine.on_print(move |text| tracing::info!(mission = %name, "{text}"));
    let name = file.to_string();
    engine.on_debug(move |text, _, at| tracing::debug!(mission = %name, %at, "{text}"));
    api::register(&mut engine, call);
    engine
}
