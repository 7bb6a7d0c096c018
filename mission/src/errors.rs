//! Rhai's errors as [`ScriptError`]s: the script's file, line and column, and the message
//! without Rhai's own position suffix.

use rhai::{EvalAltResult, ParseError, Position};
use vex_host::mission::ScriptError;

/// A script error at `position` of `file`.
pub fn at(file: &str, position: Position, message: String) -> ScriptError {
    ScriptError {
        file: file.to_string(),
        line: position.line().unwrap_or(0),
        column: position.position().unwrap_or(0),
        message,
    }
}

/// A script that does not compile.
pub fn parse(file: &str, e: &ParseError) -> ScriptError {
    at(file, e.position(), e.err_type().to_string())
}

/// A handler that failed: the innermost error, where the script went wrong, with the
/// functions it was called through.
pub fn eval(file: &str, e: &EvalAltResult) -> ScriptError {
    let mut inner = e;
    let mut through = Vec::new();
    // the innermost place known: some errors (an empty loop's) carry none of their own
    let mut position = e.position();
    while let EvalAltResult::ErrorInFunctionCall(name, _, cause, _) = inner {
        through.push(name.clone());
        inner = cause;
        if !inner.position().is_none() {
            position = inner.position();
        }
    }
    let mut message = match inner.unwrap_inner() {
        EvalAltResult::ErrorTooManyOperations(_) => format!(
            "stopped after {} operations: a loop that does not end?",
            crate::engine::MAX_OPERATIONS
        ),
        EvalAltResult::ErrorTerminated(token, _)
            if token
                .clone()
                .into_string()
                .is_ok_and(|t| t == crate::engine::OUTPUT_SPENT) =>
        {
            format!(
                "stopped after printing {} KiB: a handler prints at most that much per call",
                crate::engine::MAX_OUTPUT / 1024
            )
        }
        other => other.to_string(),
    };
    if let Some(stripped) = message.rfind(" (line ").map(|i| message[..i].to_string()) {
        message = stripped;
    }
    if !through.is_empty() {
        message = format!("{message} (in {})", through.join(" < "));
    }
    at(file, position, message)
}
