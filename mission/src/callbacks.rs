//! `sort` and `dedup` with a callback, in place of Rhai's own. Rhai's take a callback's
//! error for "no order" or "not equal", limits included: a comparator that loops past the
//! operations limit or recurses past the call depth would leave its handler `Ok`, and the
//! handler's requests would commit (`tests/hostile.rs`). Here the first error stops the
//! sort or the dedup and is the call's error, so the handler is refused as any other that
//! breaks a limit.

use rhai::{Array, Dynamic, Engine, EvalAltResult, FnPtr, NativeCallContext};
use std::cmp::Ordering;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Registers the two in `engine`, where they take the place of Rhai's.
pub fn register(engine: &mut Engine) {
    engine
        .register_fn("sort", sort)
        .register_fn("sort_by", sort)
        .register_fn("dedup", dedup);
}

/// The first error of a run of callback calls: once a call failed, the rest are not made.
#[derive(Default)]
struct FirstError(Option<Box<EvalAltResult>>);

impl FirstError {
    /// `call`'s answer, or `instead` when it fails or one before it failed.
    fn answer<T>(&mut self, instead: T, call: impl FnOnce() -> Result<T, Box<EvalAltResult>>) -> T {
        if self.0.is_some() {
            return instead;
        }
        call().unwrap_or_else(|e| {
            self.0 = Some(e);
            instead
        })
    }
}

/// Sorts `array` by `comparer`, which answers a number (its sign orders) or a bool (`true`:
/// the first goes first), as Rhai's does.
fn sort(
    ctx: NativeCallContext,
    array: &mut Array,
    comparer: FnPtr,
) -> Result<(), Box<EvalAltResult>> {
    let mut failed = FirstError::default();
    // the sort ends as it may after an error; the error is the answer
    let mut order = |x: &Dynamic, y: &Dynamic| {
        failed.answer(Ordering::Equal, || {
            comparer
                .call_within_context::<Dynamic>(&ctx, (x.clone(), y.clone()))
                .and_then(ordering)
        })
    };
    // `sort_by` may panic on an order that is not total, which a script can write
    let sorted = catch_unwind(AssertUnwindSafe(|| array.sort_by(&mut order)));
    match (failed.0, sorted) {
        (Some(e), _) => Err(e),
        (None, Ok(())) => Ok(()),
        (None, Err(_)) => Err("the comparator of sort is not a total order".into()),
    }
}

/// What a comparator answered, as an order.
fn ordering(answer: Dynamic) -> Result<Ordering, Box<EvalAltResult>> {
    if let Ok(n) = answer.as_int() {
        return Ok(n.cmp(&0));
    }
    match answer.as_bool() {
        Ok(true) => Ok(Ordering::Less),
        Ok(false) => Ok(Ordering::Greater),
        Err(kind) => {
            Err(format!("the comparator of sort answered {kind}: a number or a bool").into())
        }
    }
}

/// Removes each element `comparer` says equals the one kept before it (`true`).
fn dedup(
    ctx: NativeCallContext,
    array: &mut Array,
    comparer: FnPtr,
) -> Result<(), Box<EvalAltResult>> {
    let mut failed = FirstError::default();
    array.dedup_by(|x, y| {
        failed.answer(false, || {
            comparer
                .call_within_context::<Dynamic>(&ctx, (y.clone(), x.clone()))
                .map(|v| v.as_bool().unwrap_or(false))
        })
    });
    failed.0.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        let mut e = Engine::new();
        e.set_max_operations(10_000);
        register(&mut e);
        e
    }

    fn ints(e: &Engine, script: &str) -> Vec<i64> {
        let a = e
            .eval::<Array>(script)
            .unwrap_or_else(|err| panic!("{script}: {err}"));
        a.into_iter().map(|v| v.as_int().unwrap_or(-99)).collect()
    }

    /// Legal callbacks sort and dedup as Rhai's do: a number's sign, a bool's first-first.
    #[test]
    fn legal_callbacks_sort_and_dedup() {
        let e = engine();
        assert_eq!(
            ints(&e, "let a = [3, 1, 2]; a.sort(|x, y| x - y); a"),
            [1, 2, 3]
        );
        assert_eq!(
            ints(&e, "let a = [3, 1, 2]; a.sort_by(|x, y| x > y); a"),
            [3, 2, 1]
        );
        let deduped = ints(&e, "let a = [1, 1, 2, 2, 1]; a.dedup(|x, y| x == y); a");
        assert_eq!(deduped, [1, 2, 1]);
        assert_eq!(
            ints(&e, "let a = [2, 1]; a.sort(); a"),
            [1, 2],
            "no callback: Rhai's"
        );
    }

    /// A callback's error is the call's: thrown, an answer that orders nothing, or a limit.
    #[test]
    fn a_callbacks_error_is_the_calls() {
        let e = engine();
        for script in [
            r#"let a = [3, 1, 2]; a.sort(|x, y| throw "no"); a"#,
            r#"let a = [3, 1, 2]; a.sort(|x, y| "up"); a"#,
            "let a = [3, 1, 2]; a.sort(|x, y| { loop { } }); a",
            r#"let a = [1, 1]; a.dedup(|x, y| throw "no"); a"#,
            "let a = [1, 1]; a.dedup(|x, y| { loop { } }); a",
        ] {
            assert!(e.eval::<Array>(script).is_err(), "{script}");
        }
    }
}
