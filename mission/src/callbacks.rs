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

/// Sorts `array` by `comparer`, which answers a number (its sign orders) or a bool (`true`:
/// the first goes first), as Rhai's does.
fn sort(
    ctx: NativeCallContext,
    array: &mut Array,
    comparer: FnPtr,
) -> Result<(), Box<EvalAltResult>> {
    let mut failed: Option<Box<EvalAltResult>> = None;
    let mut order = |x: &Dynamic, y: &Dynamic| {
        if failed.is_some() {
            return Ordering::Equal; // the sort ends as it may; the error is the answer
        }
        match comparer
            .call_within_context::<Dynamic>(&ctx, (x.clone(), y.clone()))
            .and_then(ordering)
        {
            Ok(o) => o,
            Err(e) => {
                failed = Some(e);
                Ordering::Equal
            }
        }
    };
    // `sort_by` may panic on an order that is not total, which a script can write
    let sorted = catch_unwind(AssertUnwindSafe(|| array.sort_by(&mut order)));
    match (failed, sorted) {
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
    let mut failed: Option<Box<EvalAltResult>> = None;
    array.dedup_by(|x, y| {
        if failed.is_some() {
            return false;
        }
        let same = comparer
            .call_within_context::<Dynamic>(&ctx, (y.clone(), x.clone()))
            .map(|v| v.as_bool().unwrap_or(false));
        same.unwrap_or_else(|e| {
            failed = Some(e);
            false
        })
    });
    failed.map_or(Ok(()), Err)
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
