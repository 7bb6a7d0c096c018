//! Hostile mission scripts: each test is an attack on the sandbox, the limits, the request
//! checks or the host, and asserts what the crate promises (lib.rs, engine.rs, api.rs): no
//! file, network, process or wall-clock access; a handler that loops, allocates or recurses
//! without bound, or throws, is stopped with a `ScriptError` at a line (> 0), never a panic
//! or a hang, and the instance goes on; a request that breaks a client rule is refused with
//! the rule; compile never panics.
//!
//! Every attack runs in a child process of this test binary (one case each), on a thread of
//! 2 MiB stack (Rust's default for spawned threads and tokio's workers), under a 4 GiB
//! address-space cap and a wall-clock limit: a stack overflow, an abort on allocation
//! failure or a hang fails that case only, with the child's output, instead of taking the
//! whole run down. Cases marked `// FINDING:` assert the safe behaviour the crate does not
//! (yet) have; they live in `finding_*` tests marked `#[ignore]`, so CI stays green while
//! `cargo test -- --ignored` shows them failing.
//!
//! The limits these attacks probe (engine.rs, api.rs, variables.rs): 10,000 operations a
//! handler call, arrays of 1,000, maps of 1,200, strings of 16 KiB, 32 call levels; timers
//! of 50 ms to a day, names of 64 bytes, 256 timer changes and 256 requests a call, 1,024
//! timers an activity; `this` a map of at most 20,000 values, 1 MiB of text, 64 levels deep
//! (else the call fails and the variables are cleared). Closures cannot capture
//! (`no_closure`): such a script does not compile, which counts as refused.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::fs;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant as Clock};
use vex_fake_client::ClientConfig;
use vex_harness::in_process::run_host;
use vex_host::mission::{Mission, MissionEvent, MissionReport, ScriptError};
use vex_host::world::WorldRequest;
use vex_host::{HostConfig, HostCore, HostEvent};
use vex_mission::RhaiMission;
use vex_wire::activity::session::SessionId;
use vex_wire::schema::Value;
use vex_wire::time::Instant;

// ---------------------------------------------------------------------------------------
// isolation

/// The environment variable that makes this binary run one case: `test/case`.
const CHILD: &str = "VEX_HOSTILE_CASE";
/// The stack of the thread an attack runs on.
const STACK: usize = 2 << 20;
/// The address space a child may take, in KiB.
const MEMORY_KB: u64 = 4 << 20;
/// The wall-clock limit of a case that must not hang.
const HANG: Duration = Duration::from_secs(10);
/// The limit of a case whose setup is heavy by design (millions of values).
const HEAVY: Duration = Duration::from_secs(40);

type Attack = Box<dyn FnOnce() + Send + 'static>;

fn case(name: &str, attack: impl FnOnce() + Send + 'static) -> (String, Attack) {
    (name.to_string(), Box::new(attack))
}

/// Runs every case of `test` in a child of its own, and fails with each case that failed,
/// died or hung. In the child, runs the one case named.
fn attacks(test: &str, limit: Duration, list: Vec<(String, Attack)>) {
    if let Ok(tag) = std::env::var(CHILD) {
        for (name, attack) in list {
            if tag == format!("{test}/{name}") {
                let host = std::thread::Builder::new()
                    .name("host".into())
                    .stack_size(STACK)
                    .spawn(attack)
                    .unwrap();
                if let Err(p) = host.join() {
                    std::panic::resume_unwind(p);
                }
                println!("HOSTILE-CASE-DONE {tag}");
            }
        }
        return;
    }
    let total = list.len();
    let names: Vec<String> = list.into_iter().map(|(n, _)| n).collect();
    let mut failed = Vec::new();
    for name in names {
        if let Err(why) = in_child(test, &name, limit) {
            failed.push(format!("--- case {name}: {why}"));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {total} case(s) failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

fn attack(test: &str, limit: Duration, f: impl FnOnce() + Send + 'static) {
    attacks(test, limit, vec![case("main", f)]);
}

fn in_child(test: &str, name: &str, limit: Duration) -> Result<(), String> {
    let tag = format!("{test}/{name}");
    let file: String = tag
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let log = std::env::temp_dir().join(format!("vex-hostile-{}-{file}.log", std::process::id()));
    let out = fs::File::create(&log).unwrap();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KB}; exec \"$0\" \"$@\""))
        .arg(std::env::current_exe().unwrap())
        // the `finding_*` tests are ignored: the child runs its case all the same
        .args([
            test,
            "--exact",
            "--include-ignored",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(CHILD, &tag)
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap();
    let start = Clock::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = start.elapsed();
    let text = fs::read_to_string(&log).unwrap_or_default();
    fs::remove_file(&log).ok();
    match status {
        Some(s) if s.success() && text.contains(&format!("HOSTILE-CASE-DONE {tag}")) => Ok(()),
        Some(s) if s.success() => Err(format!("the case never ran\n{}", excerpt(&text))),
        Some(s) => Err(format!(
            "the host process failed or died ({s}) after {took:.1?}\n{}",
            excerpt(&text)
        )),
        None => Err(format!(
            "HUNG: still running after {limit:?}, killed\n{}",
            excerpt(&text)
        )),
    }
}

/// The part of a child's output that says what went wrong.
fn excerpt(text: &str) -> String {
    let keys = [
        "panicked at",
        "has overflowed",
        "memory allocation",
        "fatal runtime",
    ];
    let from = keys.iter().filter_map(|k| text.find(k)).min().map(|i| {
        // with the few lines before, which say how far the case got
        let mut from = i;
        for _ in 0..4 {
            from = text[..from].rfind('\n').unwrap_or(0);
        }
        from
    });
    let body = match from {
        Some(i) => &text[i..],
        None => {
            let n = text.chars().count();
            let skip = n.saturating_sub(1200);
            let (i, _) = text.char_indices().nth(skip).unwrap_or((0, ' '));
            &text[i..]
        }
    };
    let kept: String = body
        .lines()
        .filter(|l| !l.starts_with("note: run with") && !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    short(&kept, 1500)
}

fn short(s: &str, most: usize) -> String {
    if s.chars().count() <= most {
        s.to_string()
    } else {
        let kept: String = s.chars().take(most).collect();
        format!("{kept}... ({} bytes in all)", s.len())
    }
}

// ---------------------------------------------------------------------------------------
// missions

const SESSION: SessionId = SessionId(0x20_0001);
/// The normal handler every attack mission carries, called after the attack.
const NORMAL: &str = "fn on_member_joined(e) { this.ok = e.member; }";

fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

fn started() -> MissionEvent {
    MissionEvent::Started
}

fn joined(member: usize) -> MissionEvent {
    MissionEvent::MemberJoined { member }
}

fn timer(name: &str) -> MissionEvent {
    MissionEvent::Timer { name: name.into() }
}

/// The attack `source` with the normal handler after it (lines of `source` keep their
/// numbers).
fn with_normal(source: &str) -> String {
    format!("{source}\n{NORMAL}\n")
}

fn mission(source: &str) -> RhaiMission {
    RhaiMission::compile("hostile.rhai", &with_normal(source))
        .unwrap_or_else(|e| panic!("the attack does not compile: {e}\n{}", short(source, 400)))
}

/// A normal handler call on `m` after an attack works, and its variable shows.
fn goes_on(m: &mut RhaiMission) {
    let r = m.handle(at(99), SESSION, &joined(7));
    assert!(
        r.is_ok(),
        "a normal handler after the attack fails: {}",
        short(&format!("{r:?}"), 600)
    );
    let status = m.status();
    assert!(
        status
            .iter()
            .any(|(s, v)| *s == SESSION && v.contains("\"ok\": 7")),
        "the normal handler's variable does not show: {}",
        short(&format!("{status:?}"), 600)
    );
}

/// `r` is an error at a line that says one of `says` (any, when empty).
fn refused(r: Result<Vec<WorldRequest>, ScriptError>, says: &[&str], what: &str) -> ScriptError {
    let e = match r {
        Ok(requests) => panic!(
            "{what}: succeeded with {} request(s); it should have been stopped",
            requests.len()
        ),
        Err(e) => e,
    };
    assert!(e.line > 0, "{what}: the error has no line: {e}");
    let lower = e.message.to_lowercase();
    assert!(
        says.is_empty() || says.iter().any(|s| lower.contains(&s.to_lowercase())),
        "{what}: the error does not say why (one of {says:?}): {}",
        short(&e.to_string(), 600)
    );
    e
}

fn status_of(m: &RhaiMission) -> String {
    m.status()
        .into_iter()
        .find(|(s, _)| *s == SESSION)
        .map(|(_, v)| v)
        .unwrap_or_default()
}

const LIMIT_WORDS: [&str; 5] = ["too large", "exceeds", "stack", "operations", "levels"];
/// What the check of `this` after a call says (variables.rs).
const THIS_WORDS: [&str; 3] = ["hold more than", "nest deeper", "must stay a map"];

/// A script that must be refused: by compile (at a line), or by its handler.
fn refused_or_not_compiled(source: &str, what: &str, says: &[&str]) -> Option<RhaiMission> {
    match RhaiMission::compile("hostile.rhai", &with_normal(source)) {
        Err(e) => {
            assert!(e.line > 0, "{what}: no line: {e}");
            None
        }
        Ok(mut m) => {
            refused(m.handle(at(0), SESSION, &started()), says, what);
            goes_on(&mut m);
            Some(m)
        }
    }
}

/// After a failed first call (no instance is left), reloads `source` so the normal
/// handler can run.
fn fixed(m: &mut RhaiMission, source: &str) {
    assert!(!m.started(), "a failed first call leaves no instance");
    m.prepare(&with_normal(source)).unwrap();
    m.swap();
}

// ---------------------------------------------------------------------------------------
// arithmetic

#[test]
fn arithmetic_faults_are_errors_at_their_line() {
    attack("arithmetic_faults_are_errors_at_their_line", HANG, || {
        let cases = [
            ("let x = 9223372036854775807; x + 1", "overflow"),
            ("let x = 9223372036854775807; x * 2", "overflow"),
            ("let x = 9223372036854775807; x += 1", "overflow"),
            ("let x = -9223372036854775807 - 1; x - 1", "overflow"),
            ("let x = -9223372036854775807 - 1; x / -1", "overflow"),
            ("let x = -9223372036854775807 - 1; x % -1", "overflow"),
            ("let x = -9223372036854775807 - 1; -x", "overflow"),
            ("let x = -9223372036854775807 - 1; abs(x)", "overflow"),
            ("let x = 2; x ** 64", "overflow"),
            ("let x = 2; x ** -1", "negative"),
            ("let x = 0; 1 / x", "zero"),
            ("let x = 0; 1 % x", "zero"),
            ("let x = 1e300; x.to_int()", "overflow"),
            (
                "let s = 0; for i in 0..10 { s += 4611686018427387904; }",
                "overflow",
            ),
            ("let x = \"99999999999999999999\"; parse_int(x)", ""),
        ];
        for (code, says) in cases {
            let mut m = mission(&format!("fn on_started(e) {{\n  {code};\n}}"));
            let e = refused(m.handle(at(0), SESSION, &started()), &[says], code);
            assert_eq!(e.line, 2, "{code}: {e}");
            goes_on(&mut m);
        }
        // shifts past the width are defined (0 or the sign), never a panic
        let mut m = mission(
            "fn on_started(e) {\n  let one = 1; let big = 9223372036854775807;\n  \
             this.a = one << 64; this.b = one << -1; this.c = -one >> 64;\n  \
             this.d = one << big; this.f = one >> (-big - 1); this.g = one.get_bit(63);\n}",
        );
        let r = m.handle(at(0), SESSION, &started());
        assert!(r.is_ok(), "{r:?}");
        goes_on(&mut m);
    });
}

// ---------------------------------------------------------------------------------------
// loops, recursion, the native stack

#[test]
fn runaway_loops_of_every_shape_are_stopped() {
    let cases = table(
        r#"
    loop               | loop { }
    while              | while true { }
    do_while           | do { } while true;
    huge_range         | for i in 0..9223372036854775807 { let y = i; }
    huge_stepped_range | for i in range(0, 9223372036854775807, 1) { let y = i; }
    busy_counter       | let n = 0; loop { n += 1; if n < 0 { break; } }
    modular_forever    | let i = 0; while i >= 0 { i = (i + 1) % 100; }
    in_map_callback    | [1, 2, 3].map(|x| { loop { } });
    in_closure         | let f = || { loop { } }; f.call();
    in_switch          | switch 1 { 1 => { loop { } } }
    over_the_event     | while e.len() >= 0 { }
    zero_step          | for i in range(0, 10, 0) { }
"#,
    );
    let list = cases
        .into_iter()
        .map(|(name, code)| {
            let code = code.to_string();
            case(name, move || {
                let mut m = mission(&format!("fn on_started(e) {{\n  {code}\n}}"));
                let says: &[&str] = if code.contains("range(0, 10, 0)") {
                    &["step", "zero"]
                } else {
                    &["operations"]
                };
                refused(m.handle(at(0), SESSION, &started()), says, &code);
                goes_on(&mut m);
            })
        })
        .chain(std::iter::once(case("in_init", || {
            let mut m = mission("fn init() {\n  loop { }\n}\nfn on_started(e) {\n  this.s = 1;\n}");
            refused(
                m.handle(at(0), SESSION, &started()),
                &["operations"],
                "init",
            );
            // a failed first call leaves no instance; a fixed init starts it
            assert!(!m.started());
            m.prepare(&with_normal("fn init() { }")).unwrap();
            m.swap();
            goes_on(&mut m);
        })))
        .collect();
    attacks("runaway_loops_of_every_shape_are_stopped", HANG, list);
}

#[test]
fn recursion_by_any_route_is_stopped() {
    let cases = table(
        r#"
    direct                   | fn f(n) { f(n + 1) }\nfn on_started(e) {\n  f(0);\n}
    mutual                   | fn a(n) { b(n + 1) }\nfn b(n) { a(n + 1) }\nfn on_started(e) {\n  a(0);\n}
    fn_pointer_call          | fn f(n) { Fn("f").call(n + 1) }\nfn on_started(e) {\n  f(0);\n}
    call_function            | fn f(n) { call(Fn("f"), n + 1) }\nfn on_started(e) {\n  f(0);\n}
    curry                    | fn f(n) { let g = Fn("f").curry(n + 1); g.call() }\nfn on_started(e) {\n  f(0);\n}
    map_callback             | fn f(n) { [n].map(Fn("f")) }\nfn on_started(e) {\n  f(0);\n}
    method_on_this           | fn f() { this.f() }\nfn on_started(e) {\n  this.f();\n}
    closure_self_application | fn on_started(e) {\n  let w = |g| g.call(g);\n  w.call(w);\n}
    init                     | fn init() { init() }\nfn on_started(e) {\n  this.x = 1;\n}
"#,
    );
    let list = cases
        .into_iter()
        .map(|(name, source)| {
            let source = source.to_string();
            case(name, move || {
                let mut m = mission(&source);
                refused(m.handle(at(0), SESSION, &started()), &LIMIT_WORDS, &source);
                if !m.started() {
                    // a failed first call leaves no instance; a fixed init starts it
                    m.prepare(&with_normal("fn init() { }")).unwrap();
                    m.swap();
                }
                goes_on(&mut m);
            })
        })
        .collect();
    attacks("recursion_by_any_route_is_stopped", HANG, list);
}

/// The deepest nesting `shape` (of k) that compiles.
fn deepest(shape: impl Fn(usize) -> String) -> (usize, String) {
    for k in (1..=80).rev() {
        let source = shape(k);
        if RhaiMission::compile("d.rhai", &with_normal(&source)).is_ok() {
            return (k, source);
        }
    }
    panic!("no depth compiles: {}", shape(1));
}

#[test]
fn deep_expressions_inside_deep_recursion_fit_the_native_stack() {
    // Each limit holds on its own (32 call levels, 32 expression levels in a function);
    // together they multiply on the host's native stack.
    fn recursive(open: &str, inner: &str, close: &str, k: usize) -> String {
        format!(
            "fn id(x) {{ x }}\nfn f(n) {{\n  if n > 1000 {{ return 0; }}\n  {}{inner}{}\n}}\nfn on_started(e) {{\n  f(0);\n}}",
            open.repeat(k),
            close.repeat(k)
        )
    }
    let shapes: Vec<(&str, &str, &str, &str)> = vec![
        ("calls", "id(", "f(n + 1)", ")"),
        ("arrays", "[", "f(n + 1)", "]"),
        ("sums", "(1 + ", "f(n + 1)", ")"),
        ("ifs", "if true { ", "f(n + 1);", " }"),
        ("maps", "#{a: ", "f(n + 1)", "}"),
    ];
    let list = shapes
        .into_iter()
        .map(|(name, open, inner, close)| {
            case(name, move || {
                let (k, source) = deepest(|k| recursive(open, inner, close, k));
                let mut m = mission(&source);
                let e = refused(
                    m.handle(at(0), SESSION, &started()),
                    &LIMIT_WORDS,
                    &format!("nesting {k} deep"),
                );
                println!("nesting {k}: {e}");
                goes_on(&mut m);
            })
        })
        .collect();
    attacks(
        "deep_expressions_inside_deep_recursion_fit_the_native_stack",
        HANG,
        list,
    );
}

// ---------------------------------------------------------------------------------------
// allocation

#[test]
fn multiplied_nesting_is_refused_by_the_size_limits() {
    let cases = table(
        r#"
    array_of_arrays       | let a = []; for i in 0..600 { a.push(i); }\n  let b = []; for i in 0..600 { b.push(a); }
    doubling_array        | let a = [1]; for i in 0..30 { a += a; }
    doubling_concat       | let a = [1]; for i in 0..30 { a = a + a; }
    doubling_append       | let a = [1]; for i in 0..30 { a.append(a); }
    binary_tree_of_arrays | let a = [1]; for i in 0..30 { a = [a, a]; }
    binary_tree_of_maps   | let m = #{a: 1}; for i in 0..30 { m = #{a: m, b: m}; }
    padded_array          | let a = []; a.pad(1001, 0);
    blob                  | let b = blob(1001);
    blobs_in_an_array     | let b = blob(600); let a = [b, b];
    strings_in_an_array   | let s = "x"; s.pad(10000, "y"); let a = [s, s];
    string_of_an_array    | let s = [1, 2, 3].to_string(); for i in 0..30 { s = [s, s].to_string(); }
    array_split_up        | let s = "x"; s.pad(600, "y"); let a = []; for i in 0..10 { a += s.split(""); }
"#,
    );
    let list = cases
        .into_iter()
        .map(|(name, code)| {
            let code = code.to_string();
            case(name, move || {
                let mut m = mission(&format!("fn on_started(e) {{\n  {code}\n}}"));
                // a size error is placed at its handler (program.rs): a line, not line 2
                refused(
                    m.handle(at(0), SESSION, &started()),
                    &["too large", "exceeds"],
                    &code,
                );
                goes_on(&mut m);
            })
        })
        .collect();
    attacks(
        "multiplied_nesting_is_refused_by_the_size_limits",
        HANG,
        list,
    );
}

#[test]
fn string_growth_is_refused() {
    let cases = table(
        r#"
    self_append          | let s = "x"; loop { s += s; }
    pad                  | let s = "x"; s.pad(16385, "y");
    pad_with_long_filler | let s = "x"; for i in 0..30 { s.pad(s.len() * 2, s); }
    concat               | let s = "x"; for i in 0..30 { s = s + s; }
    interpolation        | let s = "x"; for i in 0..30 { s = `${s}${s}`; }
    append               | let s = "x"; for i in 0..30 { s.append(s); }
    debug_text           | let s = "x"; for i in 0..30 { s += s.to_debug(); }
    # 16 KiB a character at a time takes more than 10,000 operations: either limit stops it
    char_by_char         | let s = ""; for i in 0..17000 { s += 'x'; }
    chunk_by_chunk       | let s = ""; for i in 0..1100 { s += "0123456789abcdef"; }
    four_byte_chars      | let s = "😀"; for i in 0..30 { s += s; }
    replace              | let s = "x"; for i in 0..30 { s.replace("x", "xx"); }
    map_key_too_long     | let k = "k"; k.pad(16385, "k"); let m = #{}; m[k] = 1;
"#,
    );
    let list = cases
        .into_iter()
        .map(|(name, code)| {
            let code = code.to_string();
            case(name, move || {
                let mut m = mission(&format!("fn on_started(e) {{\n  {code}\n}}"));
                let says: &[&str] = if code.contains("'x'") {
                    &["too large", "exceeds", "operations"]
                } else {
                    &["too large", "exceeds"]
                };
                refused(m.handle(at(0), SESSION, &started()), says, &code);
                goes_on(&mut m);
            })
        })
        .collect();
    attacks("string_growth_is_refused", HANG, list);
}

#[test]
fn distinct_strings_pushed_are_refused() {
    // 900 distinct strings of 16 KB are 14 MB in one call (the string limit is 16 KiB),
    // in a local or in `this`.
    let cases = [
        (
            "distinct_strings_pushed",
            "let a = []; let s = \"x\"; s.pad(16000, \"y\"); for i in 0..900 { a.push(s + i); }",
        ),
        (
            "distinct_strings_pushed_into_this",
            "this.a = []; let s = \"x\"; s.pad(16000, \"y\"); for i in 0..900 { this.a.push(s + i); }",
        ),
    ];
    let list = cases
        .into_iter()
        .map(|(name, code)| {
            case(name, move || {
                let mut m = mission(&format!("fn on_started(e) {{\n  {code}\n}}"));
                let mut says = vec!["too large", "exceeds"];
                says.extend(THIS_WORDS);
                refused(m.handle(at(0), SESSION, &started()), &says, code);
                goes_on(&mut m);
            })
        })
        .collect();
    attacks("distinct_strings_pushed_are_refused", HANG, list);
}

#[test]
fn a_refused_store_does_not_leave_variables_over_the_limit() {
    // Was a finding (fixed: `this` is checked after each call, mission/src/variables.rs):
    // the call that crosses Rhai's limit in `this` is refused but its value stays
    // (`this` is checked only against 20,000 values and 1 MiB): 24 KiB of strings, and
    // every later handler that sets a variable fails ("Length of string too large").
    // Rhai checks a value's size after it is stored, and a failed handler's changes to
    // `this` stay: the call that crosses the 1,000-element limit is refused; its array must
    // not stay in `this` over the limit and brick every later handler (a reload keeps the
    // variables). Each call stores 300 integers and 8 KiB of text, within the limits.
    attack(
        "a_refused_store_does_not_leave_variables_over_the_limit",
        HANG,
        || {
            let mut m = mission(
                "fn on_started(e) {\n  if !(\"n\" in this) { this.n = 0; }\n  this.n += 1;\n  \
             let s = \"x\";\n  for i in 0..13 { s += s; }\n  let a = [];\n  \
             for i in 0..300 { a.push(i); }\n  this[\"s\" + this.n] = s;\n  this[\"a\" + this.n] = a;\n}",
            );
            let mut refusals = 0;
            for call in 0..100 {
                let r = m.handle(at(call), SESSION, &started());
                if r.is_err() {
                    let mut says = vec!["too large"];
                    says.extend(THIS_WORDS);
                    refused(r, &says, "growing this");
                    refusals += 1;
                }
            }
            let held = status_of(&m).len();
            assert!(
                refusals > 0,
                "100 calls grew `this` to {held} bytes unrefused"
            );
            // 1,000 integers and 16 KiB of text print in well under 256 KiB
            assert!(
                held < 256 << 10,
                "after {refusals} refused calls `this` prints {held} bytes: the refused calls' \
             values stayed"
            );
            goes_on(&mut m);
        },
    );
}

/// The cases of a table, one a line: `name | code`, `\n` in the code a line break; a line
/// starting `#` is a comment.
fn table(text: &str) -> Vec<(&str, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, code) = l.split_once(" | ").expect("a case is `name | code`");
            (name.trim(), code.replace("\\n", "\n"))
        })
        .collect()
}

/// The cases of `list` named in `names`.
fn only(list: Vec<(String, Attack)>, names: &[&str]) -> Vec<(String, Attack)> {
    list.into_iter()
        .filter(|(n, _)| names.contains(&n.as_str()))
        .collect()
}

/// The cases of `list` not named in `names`.
fn except(list: Vec<(String, Attack)>, names: &[&str]) -> Vec<(String, Attack)> {
    list.into_iter()
        .filter(|(n, _)| !names.contains(&n.as_str()))
        .collect()
}

/// Rhai checks the value stored by `m[k] = v` / `a[i] = v`, not the map or array it goes
/// into (eval/chaining.rs): a map could take any number of keys, and each slot a copy of
/// a value at the limit (100 copies of a 1,000-entry map are 100,000 entries; the limits
/// are 1,200 and 1,000). Every setup stays within 10,000 operations.
fn index_assignment_cases() -> Vec<(String, Attack)> {
    // a map literal of 1,200 keys (the limit), built without a loop
    let full: Vec<String> = (0..1200).map(|i| format!("k{i}: {i}")).collect();
    let full = format!("#{{{}}}", full.join(", "));
    let local_map_keys = format!("let m = {full};\n  for i in 0..10 {{ m[\"x\" + i] = i; }}");
    let into_this = format!("this.m = {full};\n  for i in 0..10 {{ this.m[\"x\" + i] = i; }}");
    let cases: Vec<(&str, &str)> = vec![
        ("local_map_keys", &local_map_keys),
        (
            "map_of_maps",
            "let m = #{}; for i in 0..1000 { m[\"k\" + i] = i; }\n  let n = #{}; for i in 0..100 { n[\"k\" + i] = m; }",
        ),
        (
            "array_slots",
            "let b = []; for i in 0..999 { b.push(i); }\n  let a = []; a.pad(100, 0); for i in 0..100 { a[i] = b; }",
        ),
        ("into_this", &into_this),
        (
            "map_of_maps_into_this",
            "let m = #{}; for i in 0..1000 { m[\"k\" + i] = i; }\n  this.n = #{}; for i in 0..100 { this.n[\"k\" + i] = m; }",
        ),
    ];
    cases
        .into_iter()
        .map(|(name, code)| {
            let code = code.to_string();
            case(name, move || {
                let mut m = mission(&format!("fn on_started(e) {{\n  {code}\n}}"));
                let clock = Clock::now();
                let r = m.handle(at(0), SESSION, &started());
                println!(
                    "{}: {} in {:?}",
                    short(&code, 100),
                    short(&format!("{r:?}"), 200),
                    clock.elapsed()
                );
                let mut says = vec!["too large"];
                says.extend(THIS_WORDS);
                refused(r, &says, &short(&code, 200));
                goes_on(&mut m);
            })
        })
        .collect()
}

/// The index assignment cases the crate does not refuse yet.
// FINDING: a local map takes keys past 1,200 by index, and a local map or array takes
// copies of a value at the limit by index (100,000 entries or elements in one call); only
// `this` is checked after the call.
const INDEX_ASSIGNMENT_FINDINGS: [&str; 3] = ["local_map_keys", "map_of_maps", "array_slots"];

#[test]
fn index_assignment_grows_values_past_the_limits() {
    attacks(
        "index_assignment_grows_values_past_the_limits",
        HEAVY,
        except(index_assignment_cases(), &INDEX_ASSIGNMENT_FINDINGS),
    );
}

#[test]
#[ignore = "FINDING: index assignment grows a local map past 1,200 keys, or to 100,000 entries by copies"]
fn finding_index_assignment_grows_local_values_past_the_limits() {
    attacks(
        "finding_index_assignment_grows_local_values_past_the_limits",
        HEAVY,
        only(index_assignment_cases(), &INDEX_ASSIGNMENT_FINDINGS),
    );
}

#[test]
fn curried_function_pointers_do_not_smuggle_data_past_the_limits() {
    // Was a finding (fixed: the `this` check walks curried pointers): the size limits
    // count arrays, maps and strings but never look inside a function
    // pointer's curried arguments, and cloning a pointer clones them: 999 copies of a
    // pointer curried with a 999-element array (`pad` clones it, one operation) hold
    // 998,001 values in `this` (the array limit is 1,000, `this` holds at most 20,000
    // values), across calls. Each level multiplies by up to 1,000, so a few more lines
    // exhaust the host's memory.
    attack(
        "curried_function_pointers_do_not_smuggle_data_past_the_limits",
        HEAVY,
        || {
            let mut m = mission(
                "fn count(a) { a.len() }\nfn on_started(e) {\n  let a = [];\n  \
                 a.pad(999, 7);\n  let f = Fn(\"count\").curry(a);\n  \
                 let b = [];\n  b.pad(999, f);\n  this.b = b;\n}\n\
                 fn on_timer(e) {\n  let n = 0;\n  for f in this.b { n += f.call(); }\n  this.held = n;\n}",
            );
            let r = m.handle(at(0), SESSION, &started());
            if r.is_ok() {
                let counted = m.handle(at(1), SESSION, &timer("count"));
                let status = status_of(&m);
                let held = status
                    .split("\"held\": ")
                    .nth(1)
                    .and_then(|s| s.split([',', '}']).next())
                    .unwrap_or("?");
                panic!(
                    "accepted: `this` holds {held} integers behind curried pointers \
                     (counting call: {:?})",
                    counted.map(|r| r.len())
                );
            }
            let mut says = vec!["too large"];
            says.extend(THIS_WORDS);
            refused(r, &says, "curried pointers");
            goes_on(&mut m);
        },
    );
}

#[test]
fn map_keys_do_not_smuggle_data_past_the_string_limit() {
    // Rhai's string limit sums the text of values, never of map keys: 1,000 keys of 16 KB
    // each are 16 MB in `this` (the limit is 16 KiB). The check of `this` after the call
    // counts keys (1 MiB in all): refused, and the variables cleared.
    attack(
        "map_keys_do_not_smuggle_data_past_the_string_limit",
        HEAVY,
        || {
            let mut m = mission(
                "fn on_started(e) {\n  let s = \"k\"; s.pad(16000, \"k\");\n  \
                 for i in 0..1000 { this[s + i] = i; }\n}",
            );
            let r = m.handle(at(0), SESSION, &started());
            if r.is_ok() {
                panic!(
                    "accepted: `this` holds keys of {} bytes, status() prints {} bytes",
                    1000 * 16_004,
                    status_of(&m).len()
                );
            }
            let e = refused(r, &["hold more than"], "long map keys");
            assert!(
                e.message.contains("on_started") && e.message.contains("cleared"),
                "{e}"
            );
            assert_eq!(e.line, 1, "{e}");
            goes_on(&mut m);
            assert!(status_of(&m).len() < 1000, "{}", short(&status_of(&m), 200));
        },
    );
}

/// Rhai's own `sort` and `dedup` with a callback turn a callback's error into "not less"
/// (`.ok()`, `.unwrap_or`), limits included, so a handler whose comparator loops forever or
/// recurses past the call depth returned Ok and its requests committed. The mission's own
/// (`callbacks.rs`) make the first error the call's.
#[test]
fn limits_inside_sort_and_dedup_callbacks_are_not_swallowed() {
    let cases = table(
        r#"
    sort_loop      | fn on_started(e) {\n  reset_authority();\n  let a = [3, 1, 2]; a.sort(|x, y| { loop { } });\n}
    dedup_loop     | fn on_started(e) {\n  reset_authority();\n  let a = [1, 1, 2]; a.dedup(|x, y| { loop { } });\n}
    sort_recursion | fn cmp(a, b) { [2, 1].sort(Fn("cmp")); 0 }\nfn on_started(e) {\n  reset_authority();\n  [2, 1].sort(Fn("cmp"));\n}
"#,
    );
    let list = cases
        .into_iter()
        .map(|(name, source)| {
            let source = source.to_string();
            case(name, move || {
                let mut m = mission(&source);
                refused(m.handle(at(0), SESSION, &started()), &LIMIT_WORDS, &source);
                goes_on(&mut m);
            })
        })
        .collect();
    attacks(
        "limits_inside_sort_and_dedup_callbacks_are_not_swallowed",
        HANG,
        list,
    );
}

// ---------------------------------------------------------------------------------------
// the sandbox

#[test]
fn the_sandbox_has_no_eval_import_clock_or_io_by_any_route() {
    let cases = table(
        r#"
    eval              | eval("this.pwned = 1");
    eval_pointer      | Fn("eval").call("this.pwned = 1");
    eval_built_name   | let name = "ev" + "al";\n  call(Fn(name), "this.pwned = 1");
    eval_curried      | Fn("ev" + "al").curry("this.pwned = 1").call();
    eval_in_map       | ["this.pwned = 1"].map(Fn("ev" + "al"));
    import            | import "std" as s;
    global_module     | this.pwned = global::x;
    timestamp         | this.pwned = timestamp();
    timestamp_pointer | this.pwned = Fn("timestamp").call();
    open_file         | this.pwned = open_file("/etc/passwd");
    read_file         | this.pwned = read_file("/etc/passwd");
    system            | this.pwned = system("id");
    env               | this.pwned = env("HOME");
    exec              | this.pwned = exec("id");
    socket            | this.pwned = connect("127.0.0.1:80");
"#,
    );
    let mut list: Vec<(String, Attack)> = cases
        .into_iter()
        .map(|(name, code)| sandbox_case(name, &code))
        .collect();
    // exit() ends the handler, never the host process
    list.push(case("exit", || {
        let mut m =
            mission("fn on_started(e) {\n  fire_incident(2);\n  exit(1);\n  this.after = 1;\n}");
        let r = m.handle(at(0), SESSION, &started());
        assert!(!status_of(&m).contains("after"), "{r:?}");
        goes_on(&mut m);
    }));
    attacks(
        "the_sandbox_has_no_eval_import_clock_or_io_by_any_route",
        HANG,
        list,
    );
}

#[test]
fn the_sandbox_has_no_sleep() {
    // Was a finding (fixed: engine.rs puts a refusing `sleep` in place of Rhai's): engine.rs
    // disabled the symbol `sleep`, yet `sleep(n)` still compiled and
    // runs Rhai's core `sleep`: a script blocks the host's thread on the wall clock
    // (sleep(1)), for an hour (sleep(3600)), and `sleep(1e300)` panics in
    // Duration::from_secs_f64. Refused at compile (a line) or at the handler is safe.
    let cases = [
        ("sleep_one_second", "sleep(1);\n  this.pwned = 1;"),
        ("sleep_an_hour", "sleep(3600);\n  this.pwned = 1;"),
        ("sleep_forever_float", "sleep(1e300);\n  this.pwned = 1;"),
        (
            "sleep_pointer",
            "Fn(\"sleep\").call(3600);\n  this.pwned = 1;",
        ),
    ];
    let list = cases
        .into_iter()
        .map(|(name, code)| sandbox_case(name, code))
        .collect();
    attacks("the_sandbox_has_no_sleep", HANG, list);
}

/// `code` in a handler: refused at compile (at a line), or by the handler at once, and
/// what it did never shows.
fn sandbox_case(name: &str, code: &str) -> (String, Attack) {
    let code = code.to_string();
    case(name, move || {
        let source = with_normal(&format!("fn on_started(e) {{\n  {code}\n}}"));
        let clock = Clock::now();
        match RhaiMission::compile("hostile.rhai", &source) {
            Err(e) => assert!(e.line > 0, "{code}: {e}"),
            Ok(mut m) => {
                let r = m.handle(at(0), SESSION, &started());
                let took = clock.elapsed();
                assert!(
                    took < Duration::from_millis(500),
                    "{code}: the handler held the host for {took:?}"
                );
                assert!(r.is_err(), "{code}: ran, {:?}", status_of(&m));
                refused(r, &[], &code);
                assert!(!status_of(&m).contains("pwned"), "{code}");
                goes_on(&mut m);
            }
        }
    })
}

#[test]
fn try_catch_cannot_swallow_a_limit() {
    let cases = table(
        r#"
    loop             | fn on_started(e) {\n  try { loop { } } catch { this.caught = true; }\n}
    array            | fn on_started(e) {\n  try { let a = []; loop { a.push(1); } } catch { this.caught = true; }\n}
    helper_loop      | fn spin() { loop { } }\nfn on_started(e) {\n  try { spin(); } catch { this.caught = true; }\n}
    helper_recursion | fn deep(n) { deep(n + 1) }\nfn on_started(e) {\n  try { deep(0); } catch { this.caught = true; }\n}
    retry_forever    | fn on_started(e) {\n  loop { try { loop { } } catch { this.caught = true; } }\n}
"#,
    );
    let list = cases
        .into_iter()
        .map(|(name, source)| {
            let source = source.to_string();
            case(name, move || {
                let mut m = mission(&source);
                refused(m.handle(at(0), SESSION, &started()), &LIMIT_WORDS, &source);
                assert!(!status_of(&m).contains("caught"), "{source}");
                goes_on(&mut m);
            })
        })
        .collect();
    attacks("try_catch_cannot_swallow_a_limit", HANG, list);
}

#[test]
fn data_race_retries_do_not_stall_the_host() {
    // With the `sync` feature a shared value Rhai found locked was retried five times
    // with a 10 ms sleep each, outside the operation count; a closure reading the array
    // its `map` runs over was such a race, and `try` made it repeatable (most of an hour
    // in one handler). With `no_closure` a closure cannot capture: the script does not
    // compile. A closure given the array as an argument shares nothing.
    attacks(
        "data_race_retries_do_not_stall_the_host",
        HANG,
        vec![
            case("once", || {
                let source = "fn on_started(e) {\n  let x = [1];\n  x.map(|v| x.len());\n}";
                refused_or_not_compiled(source, "one race", &[]);
            }),
            case("retried", || {
                let source = "fn on_started(e) {\n  let x = [1];\n  \
                              loop { try { x.map(|v| x.len()); } catch { } }\n}";
                let clock = Clock::now();
                refused_or_not_compiled(source, "retried race", &["operations"]);
                let took = clock.elapsed();
                assert!(
                    took < Duration::from_secs(2),
                    "the handler held the host {took:?}"
                );
            }),
            case("argument_not_capture", || {
                let mut m = mission(
                    "fn on_started(e) {\n  let x = [1, 2];\n  \
                     loop { try { x.map(|v, i| v + i); this.x = x; } catch { } }\n}",
                );
                let clock = Clock::now();
                refused(
                    m.handle(at(0), SESSION, &started()),
                    &["operations"],
                    "map in a loop",
                );
                let took = clock.elapsed();
                assert!(
                    took < Duration::from_secs(2),
                    "the handler held the host {took:?}"
                );
                fixed(&mut m, "fn init() { }");
                goes_on(&mut m);
            }),
        ],
    );
}

#[test]
fn cheap_operations_on_big_values_do_not_stall_the_host() {
    // The operation limit bounds a call's time with the sizes (engine.rs: "well under a
    // second at worst"); a native call on a value at the size limits (1,000 elements, 16
    // KiB) counts as one operation however long it takes.
    let cases = table(
        r#"
    sort        | let b = [];\n  for i in 0..1000 { b.push((i * 7919) % 10007); }\n  loop { let c = b; c.sort(); }
    debug_print | let a = [];\n  for i in 0..700 { a.push(-9223372036854775807); }\n  loop { debug(a); }
    print_flood | let s = "x"; s.pad(16000, "y");\n  loop { print(s); }
    replace     | let s = "x"; s.pad(16000, "x");\n  loop { let t = s; t.replace("x", "y"); }
    contains    | let a = [];\n  for i in 0..900 { a.push("s" + i); }\n  loop { a.contains("nope"); }
"#,
    );
    let list = cases
        .into_iter()
        .map(|(name, code)| {
            let code = code.to_string();
            case(name, move || {
                let mut m = mission(&format!("fn on_started(e) {{\n  {code}\n}}"));
                let clock = Clock::now();
                // a print formats its value before it counts: output has its own budget
                let says = if name.contains("print") {
                    "printing"
                } else {
                    "operations"
                };
                refused(m.handle(at(0), SESSION, &started()), &[says], &code);
                let took = clock.elapsed();
                println!("{code}: stopped after {took:?}");
                assert!(
                    took < Duration::from_secs(1),
                    "{code}: held the host {took:?}"
                );
                goes_on(&mut m);
            })
        })
        .collect();
    attacks(
        "cheap_operations_on_big_values_do_not_stall_the_host",
        HANG,
        list,
    );
}

#[test]
fn throwing_any_value_is_an_error_at_its_line() {
    attack("throwing_any_value_is_an_error_at_its_line", HANG, || {
        let cases = [
            "throw;",
            "throw ();",
            "throw #{a: [1, 2, #{b: 3}]};",
            "throw Fn(\"x\");",
            "throw slot(1, 3, 1);",
            "let s = \"x\"; s.pad(5000, \"\u{202E}\"); throw s;",
            "throw this;",
            "throw || 1;",
            "let a = []; for i in 0..900 { a.push(i); } throw a;",
        ];
        let mut m =
            mission("fn on_timer(e) {\n  throw e.name;\n}\nfn on_started(e) {\n  this.x = 1;\n}");
        m.handle(at(0), SESSION, &started()).unwrap();
        for code in cases {
            let mut m = mission(&format!("fn on_started(e) {{\n  {code}\n}}"));
            let e = refused(m.handle(at(0), SESSION, &started()), &[], code);
            assert_eq!(e.line, 2, "{code}: {e}");
            goes_on(&mut m);
        }
        let e = refused(
            m.handle(at(0), SESSION, &timer("\n\0")),
            &[],
            "a timer's name",
        );
        assert_eq!(e.line, 2, "{e}");
        goes_on(&mut m);
    });
}

// ---------------------------------------------------------------------------------------
// source text

/// A pseudo-random source of `len` tokens that mission scripts use, from `seed`.
fn garbage(seed: u64, len: usize) -> String {
    const TOKENS: [&str; 40] = [
        "fn ",
        "on_started",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "#{",
        "e",
        ",",
        ";",
        "\"",
        "`",
        "${",
        "'",
        "\\",
        "/*",
        "*/",
        "//",
        "\n",
        "let ",
        "x",
        "=",
        "+",
        "-",
        "..",
        "|",
        "||",
        "if ",
        "loop ",
        "this",
        ".",
        "::",
        "0x",
        "9223372036854775808",
        "1e309",
        "\u{0}",
        "é",
        " ",
    ];
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut out = String::new();
    for _ in 0..len {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        out.push_str(TOKENS[(state >> 33) as usize % TOKENS.len()]);
    }
    out
}

#[test]
fn hostile_source_text_never_panics_or_hangs_compile() {
    // (name, text, must fail)
    let n = 1 << 20;
    let mut texts: Vec<(String, String, bool)> = vec![
        ("empty".into(), String::new(), false),
        (
            "long_identifier".into(),
            format!("fn on_started(e) {{\n  let {} = 1;\n}}", "a".repeat(n)),
            false,
        ),
        (
            "long_string_literal".into(),
            format!("fn on_started(e) {{\n  let s = \"{}\";\n}}", "x".repeat(n)),
            true,
        ),
        (
            "huge_int_literal".into(),
            format!(
                "fn on_started(e) {{\n  let x = {};\n}}",
                "9".repeat(100_000)
            ),
            false,
        ),
        (
            "many_functions".into(),
            (0..20_000)
                .map(|i| format!("fn f{i}(a) {{ a }}\n"))
                .collect(),
            false,
        ),
        (
            "unterminated_nested_comments".into(),
            format!("fn on_started(e) {{ }}\n{}", "/* ".repeat(100_000)),
            false,
        ),
        (
            "nested_comments".into(),
            format!(
                "{}{}\nfn on_started(e) {{ }}",
                "/*".repeat(100_000),
                "*/".repeat(100_000)
            ),
            false,
        ),
        ("nul".into(), "fn on_started(e) {\0}".into(), true),
        ("bom".into(), "\u{FEFF}fn on_started(e) { }".into(), false),
        (
            "bad_escapes".into(),
            "fn on_started(e) {\n  let s = \"\\u{D800}\\u{110000}\";\n}".into(),
            true,
        ),
        (
            "rtl_override".into(),
            "fn on_started(e) { let s = \"\u{202E}\"; }".into(),
            false,
        ),
        (
            "long_line".into(),
            format!("{}fn on_started(e) {{ let x = ; }}", " ".repeat(n)),
            true,
        ),
        (
            "continued_string".into(),
            "fn on_started(e) {\n  let s = \"a\\\n\n\";\n}".into(),
            true,
        ),
    ];
    // a name ending `!`: the text must not compile
    let plain = table(
        r#"
        int_one_past_max     | fn on_started(e) {\n  let x = 9223372036854775808;\n}
        huge_float           | fn on_started(e) {\n  let x = 1e99999;\n}
        duplicate_handler    | fn on_started(e) { }\nfn on_started(e) { }
        unterminated_string! | fn on_started(e) {\n  let s = "abc\n}
        unicode_names        | fn on_started(é) { let ü = 1; }
        shebang              | #!/bin/sh\nfn on_started(e) { }
        private_handler      | private fn on_started(e) { }
        handler_named_this!  | fn on_started(this) { }
        two_params!          | fn on_started(e, e) { }
        nested_fn!           | fn on_started(e) { fn inner() { } }
        export!              | fn on_started(e) { export const x = 1; }
        top_level_const!     | const X = 1;\nfn on_started(e) { }
        backtick_newlines!   | fn on_started(e) {\n  let s = `${`\n`}\n
"#,
    );
    for (name, text) in plain {
        let must_fail = name.ends_with('!');
        texts.push((name.trim_end_matches('!').into(), text, must_fail));
    }
    for seed in 0..8 {
        let batch: Vec<String> = (0..50).map(|i| garbage(seed * 50 + i, 400)).collect();
        texts.push((format!("garbage_{seed}"), batch.join("\u{1}"), false));
    }
    for (file, source) in vex_mission::SHIPPED {
        let cuts: Vec<usize> = (0..source.len())
            .step_by(7)
            .filter(|i| source.is_char_boundary(*i))
            .collect();
        let prefixes: Vec<String> = cuts.iter().map(|i| source[..*i].to_string()).collect();
        texts.push((format!("prefixes_of_{file}"), prefixes.join("\u{1}"), false));
    }
    let list = texts
        .into_iter()
        .map(|(name, text, must_fail)| {
            case(&name, move || {
                // a batch is joined by \u{1}: each part compiles on its own
                for part in text.split('\u{1}') {
                    let r = RhaiMission::compile("hostile.rhai", part);
                    if must_fail {
                        let e = r.err().expect("compiles, but must not");
                        assert!(e.line > 0, "no line: {}", short(&e.to_string(), 300));
                    }
                    if let Ok(mut m) = RhaiMission::compile("hostile.rhai", part) {
                        let _ = m.handle(at(0), SESSION, &started());
                        let _ = m.status();
                    }
                    let mut m = mission("fn on_started(e) { this.v = 1; }");
                    let _ = m.prepare(part);
                    m.swap();
                    let _ = m.handle(at(0), SESSION, &started());
                }
            })
        })
        .collect();
    attacks(
        "hostile_source_text_never_panics_or_hangs_compile",
        HEAVY,
        list,
    );
}

#[test]
fn deep_source_nesting_is_refused_without_overflowing_the_stack() {
    let n = 100_000;
    let r = |s: &str| s.repeat(n);
    let bodies: Vec<(&str, String)> = vec![
        ("parens", format!("let x = {}1{};", r("("), r(")"))),
        ("arrays", format!("let x = {}{};", r("["), r("]"))),
        ("maps", format!("let x = {}1{};", r("#{a: "), r("}"))),
        ("blocks", format!("{}{}", r("{ "), r("} "))),
        ("ifs", format!("{}{}", r("if true { "), r("} "))),
        ("whiles", format!("{}{}", r("while false { "), r("} "))),
        ("not", format!("let x = {}true;", r("!"))),
        ("minus", format!("let x = {}1;", r("- "))),
        (
            "plus_chain",
            format!("let x = e.member{};", r(" + e.member")),
        ),
        ("and_chain", format!("let x = true{};", r(" && true"))),
        ("coalesce_chain", format!("let x = e.a{};", r(" ?? e.a"))),
        ("dot_chain", format!("let x = e{};", r(".a"))),
        ("index_chain", format!("let x = e{};", r("[0]"))),
        ("method_chain", format!("let x = e{};", r(".len()"))),
        ("call_nesting", format!("let x = {}1{};", r("abs("), r(")"))),
        ("closures", format!("let x = {}1;", r("|| "))),
        (
            "interpolation",
            format!("let x = {}1{};", r("`${"), r("}`")),
        ),
        (
            "switches",
            format!("let x = {}1{};", r("switch 1 { _ => "), r(" }")),
        ),
        (
            "else_if_chain",
            format!("if e.member == 0 {{ }}{}", r(" else if e.member == 1 { }")),
        ),
        ("unclosed_parens", format!("let x = {}", r("("))),
        ("unclosed_blocks", r("{ ")),
        ("unclosed_interpolation", format!("let x = {}", r("`${"))),
        ("returns", format!("{}1;", r("return "))),
    ];
    let list = bodies
        .into_iter()
        .map(|(name, body)| {
            case(name, move || {
                let source = format!("fn on_started(e) {{\n  {body}\n}}");
                match RhaiMission::compile("hostile.rhai", &with_normal(&source)) {
                    Err(e) => assert!(e.line > 0, "{e}"),
                    Ok(mut m) => {
                        let r = m.handle(at(0), SESSION, &started());
                        println!("compiled; handler: {}", short(&format!("{r:?}"), 300));
                        goes_on(&mut m);
                    }
                }
                // the same text as a reload leaves the running program
                let mut m = mission("fn on_started(e) { this.v = 1; }");
                let _ = m.prepare(&source);
                m.swap();
                let _ = m.handle(at(0), SESSION, &started());
            })
        })
        .collect();
    attacks(
        "deep_source_nesting_is_refused_without_overflowing_the_stack",
        HANG,
        list,
    );
}

#[test]
fn a_stopped_handler_is_placed_at_its_own_line() {
    // Rhai drops the place of a limit's error; the crate then looks for `fn <handler> (`
    // in the source (program.rs `at_fn`), whatever the whitespace, skipping `//` comments
    // and helpers whose names start with the handler's (`fn init_all`).
    let cases: Vec<(&str, String, Vec<usize>)> = vec![
        ("plain", "fn on_started(e) {\n  loop { }\n}".into(), vec![1, 2]),
        ("two_spaces", "fn  on_started(e) {\n  loop { }\n}".into(), vec![1, 2]),
        ("tab", "fn\ton_started(e) {\n  loop { }\n}".into(), vec![1, 2]),
        ("line_break", "fn\non_started(e) {\n  loop { }\n}".into(), vec![1, 2, 3]),
        (
            "comment_before",
            "// fn on_started(e) starts it all\nfn on_started(e) {\n  loop { }\n}".into(),
            vec![2, 3],
        ),
        (
            "helper_with_a_longer_name",
            "fn init_all() { }\nfn init() {\n  let a = []; loop { a.push(1); }\n}\nfn on_started(e) { }"
                .into(),
            vec![2, 3],
        ),
        (
            "loop_after_line_65535",
            format!("{}fn on_started(e) {{\n  loop {{ }}\n}}", "\n".repeat(70_000)),
            vec![70_001, 70_002],
        ),
    ];
    let list = cases
        .into_iter()
        .map(|(name, source, lines)| {
            case(name, move || {
                let mut m = mission(&source);
                let says: &[&str] = if name.starts_with("throw") {
                    &[]
                } else {
                    &LIMIT_WORDS
                };
                let e = refused(m.handle(at(0), SESSION, &started()), says, name);
                assert!(
                    lines.contains(&e.line),
                    "placed at line {} (expected one of {lines:?}): {}",
                    e.line,
                    short(&e.to_string(), 200)
                );
                if !m.started() {
                    fixed(&mut m, "fn init() { }");
                }
                goes_on(&mut m);
            })
        })
        .chain(std::iter::once(case("wrong_arity_two_spaces", || {
            let e = RhaiMission::compile("hostile.rhai", "// a mission\nfn  on_timer() { }")
                .err()
                .expect("a handler without its parameter does not compile");
            assert_eq!(e.line, 2, "{e}");
        })))
        .collect();
    attacks("a_stopped_handler_is_placed_at_its_own_line", HANG, list);
}

#[test]
#[ignore = "FINDING: an error past line 65,535 is reported at line 65,535 (Rhai's u16 positions)"]
fn finding_an_error_past_line_65535_is_placed_at_its_line() {
    // FINDING: Rhai keeps u16 positions: a `throw` at line 70,002 is reported at 65,535,
    // a line that says nothing (a limit's error is placed textually and is right).
    attack(
        "finding_an_error_past_line_65535_is_placed_at_its_line",
        HANG,
        || {
            let source = format!(
                "{}fn on_started(e) {{\n  throw \"x\";\n}}",
                "\n".repeat(70_000)
            );
            let mut m = mission(&source);
            let e = refused(m.handle(at(0), SESSION, &started()), &[], "throw at 70,002");
            assert_eq!(e.line, 70_002, "{e}");
            goes_on(&mut m);
        },
    );
}

#[test]
fn hostile_reloads_keep_the_running_program() {
    attack("hostile_reloads_keep_the_running_program", HEAVY, || {
        let mut m = mission("fn on_started(e) { this.v = 1; }");
        m.handle(at(0), SESSION, &started()).unwrap();
        let texts = [
            format!(
                "fn on_started(e) {{ let x = {}1{}; }}",
                "(".repeat(100_000),
                ")".repeat(100_000)
            ),
            garbage(7, 5_000),
            "fn on_started(e) {".into(),
            "let x = 1;\nfn on_started(e) { }".into(),
            "fn on_strated(e) { }".into(),
            format!(
                "fn on_started(e) {{ let s = \"{}\"; }}",
                "x".repeat(1 << 20)
            ),
            "fn on_started(e) { eval(\"1\"); }".into(),
            "fn on_started(e) { let a = 1; this.f = || a; }".into(),
            "\0".into(),
        ];
        for text in &texts {
            let e = m.prepare(text).err();
            assert!(
                e.is_some(),
                "a hostile reload compiled: {}",
                short(text, 100)
            );
            assert!(e.unwrap().line > 0, "{}", short(text, 100));
            m.swap();
            goes_on(&mut m);
            assert!(status_of(&m).contains("\"v\": 1"));
        }
        // a reload that compiles but misbehaves: stopped, then replaced
        m.prepare("fn on_member_joined(e) {\n  loop { }\n}")
            .unwrap();
        m.swap();
        refused(
            m.handle(at(5), SESSION, &joined(1)),
            &["operations"],
            "reloaded loop",
        );
        // a good reload held, then a bad one: the held one is dropped, the running stays
        m.prepare(NORMAL).unwrap();
        assert!(m.prepare("fn on_started(e) {").is_err());
        m.swap();
        refused(
            m.handle(at(6), SESSION, &joined(1)),
            &["operations"],
            "still the loop",
        );
        m.prepare(NORMAL).unwrap();
        m.swap();
        goes_on(&mut m);
        // a closure kept in the variables outlives the program that made it
        m.prepare(&with_normal("fn on_started(e) { this.f = |x| x + 1; }"))
            .unwrap();
        m.swap();
        m.handle(at(7), SESSION, &started()).unwrap();
        m.prepare(&with_normal("fn on_timer(e) { this.y = this.f.call(1); }"))
            .unwrap();
        m.swap();
        let r = m.handle(at(8), SESSION, &timer("t"));
        assert!(r.is_ok() || r.as_ref().unwrap_err().line > 0, "{r:?}");
        goes_on(&mut m);
    });
}

// ---------------------------------------------------------------------------------------
// timers

#[test]
fn timers_cannot_hold_unbounded_memory() {
    // Timers are the host's memory, not the script's: names of 8 KiB, or thousands of
    // timers over a few calls, must be refused (the crate bounds names to 64 bytes, 256
    // changes a call, 1,024 timers an activity).
    attacks(
        "timers_cannot_hold_unbounded_memory",
        HEAVY,
        vec![
            case("long_names", || {
                // 200 timers named by 8 KiB strings per call: 1.6 MB a call
                let mut m = mission(
                    "fn on_started(e) {\n  let s = \"t\";\n  for i in 0..13 { s += s; }\n  \
                     for i in 0..200 { after(86400000, s + i); }\n}",
                );
                let mut accepted = 0;
                for call in 0..10 {
                    if m.handle(at(call), SESSION, &started()).is_ok() {
                        accepted += 1;
                    }
                }
                let (mut count, mut bytes) = (0usize, 0usize);
                while let Some((_, name)) = m.take_due_timer(at(u64::MAX)) {
                    count += 1;
                    bytes += name.len();
                }
                assert!(
                    accepted == 0 && count == 0,
                    "{accepted} calls accepted: the mission held {count} timers with {bytes} \
                     bytes of names (a name is at most 64 bytes)"
                );
                fixed(&mut m, "fn init() { }");
                goes_on(&mut m);
            }),
            case("many_in_one_call", || {
                let mut m = mission(
                    "fn on_started(e) {\n  for i in 0..5000 { after(86400000, \"t\"); }\n}",
                );
                refused(
                    m.handle(at(0), SESSION, &started()),
                    &["at most"],
                    "5,000 timers",
                );
                assert_eq!(m.next_timer(), None, "a failed call sets no timer");
                fixed(&mut m, "fn init() { }");
                goes_on(&mut m);
            }),
            case("many_over_calls", || {
                let mut m =
                    mission("fn on_started(e) {\n  for i in 0..250 { after(86400000, \"t\"); }\n}");
                let mut refusals = 0;
                for call in 0..10 {
                    if let Err(e) = m.handle(at(call), SESSION, &started()) {
                        assert!(e.message.contains("1024 timers"), "{e}");
                        assert_eq!(e.line, 2, "{e}");
                        refusals += 1;
                    }
                }
                let mut count = 0usize;
                while m.take_due_timer(at(u64::MAX)).is_some() {
                    count += 1;
                }
                assert!(
                    refusals > 0 && count <= 1024,
                    "10 calls set {count} timers, {refusals} refused"
                );
                goes_on(&mut m);
            }),
        ],
    );
}

#[test]
fn cancelling_in_a_loop_does_not_stall_the_host() {
    // Each `cancel` is a pass over every timer of every instance once the handler returns,
    // outside the operation count. Within the bounds (256 timer changes a call, 1,024
    // timers an activity) 200 activities hold 204,800 timers, and one call's 256 cancels
    // are 5e7 steps.
    attack("cancelling_in_a_loop_does_not_stall_the_host", HANG, || {
        let mut m = mission(
            "fn on_started(e) {\n  for i in 0..256 { after(86400000, \"t\"); }\n}\n\
             fn on_timer(e) {\n  for i in 0..256 { cancel(\"nope\"); }\n}",
        );
        for session in 0..200 {
            for call in 0..4 {
                m.handle(at(call), SessionId(SESSION.0 + session), &started())
                    .unwrap();
            }
        }
        let clock = Clock::now();
        let r = m.handle(at(10), SESSION, &timer("x"));
        let took = clock.elapsed();
        assert!(r.is_ok(), "{r:?}");
        assert!(
            took < Duration::from_secs(1),
            "one handler held the host {took:?}"
        );
        // a loop of cancels past the bound is refused at its line
        let mut m = mission("fn on_started(e) {\n  for i in 0..100000 { cancel(\"nope\"); }\n}");
        refused(
            m.handle(at(0), SESSION, &started()),
            &["at most"],
            "100,000 cancels",
        );
        goes_on(&mut m);
    });
}

#[test]
fn timer_names_round_trip_unicode_and_bounds_hold() {
    attack(
        "timer_names_round_trip_unicode_and_bounds_hold",
        HANG,
        || {
            let mut m = mission(
                "fn on_started(e) {\n  let s = \"\u{202E}\\x00\\n\u{1F600}\";\n  s += s; s += s;\n  \
             after(50, s);\n  after(86400000, \"\");\n  after(86400000, \"late\");\n  \
             cancel(\"late\");\n  cancel(\"never set\");\n}\n\
             fn on_timer(e) {\n  this.got = e.name.len();\n}",
            );
            m.handle(at(u64::MAX - 100), SESSION, &started()).unwrap();
            assert_eq!(m.take_due_timer(at(u64::MAX - 51)), None);
            let (session, name) = m.take_due_timer(at(u64::MAX - 50)).unwrap();
            assert_eq!(session, SESSION);
            assert_eq!(name, "\u{202E}\0\n\u{1F600}".repeat(4));
            // a day past u64::MAX - 100 saturates: due at the end of time, never before
            assert_eq!(m.next_timer(), Some(at(u64::MAX)));
            m.handle(at(u64::MAX - 50), SESSION, &timer(&name)).unwrap();
            assert!(status_of(&m).contains(&format!("\"got\": {}", name.chars().count())));
            assert_eq!(
                m.take_due_timer(at(u64::MAX)),
                Some((SESSION, String::new()))
            );
            assert_eq!(
                m.take_due_timer(at(u64::MAX)),
                None,
                "\"late\" was cancelled"
            );
            // out of bounds: refused at the line
            for (call, says) in [
                ("after(0, \"x\")", "50 to 86400000 ms"),
                ("after(1, \"x\")", "50 to 86400000 ms"),
                ("after(49, \"x\")", "50 to 86400000 ms"),
                ("after(86400001, \"x\")", "50 to 86400000 ms"),
                (
                    "after(-9223372036854775807 - 1, \"x\")",
                    "50 to 86400000 ms",
                ),
                ("let n = \"x\"; n.pad(65, \"x\"); after(50, n)", "64 bytes"),
                ("let n = \"x\"; n.pad(65, \"x\"); cancel(n)", "64 bytes"),
                ("for i in 0..257 { after(50, \"x\"); }", "at most 256"),
                ("for i in 0..257 { cancel(\"x\"); }", "at most 256"),
                (
                    "for i in 0..257 { reset_authority(); }",
                    "at most 256 requests",
                ),
            ] {
                let mut m = mission(&format!("fn on_started(e) {{\n  {call};\n}}"));
                let e = refused(m.handle(at(0), SESSION, &started()), &[says], call);
                assert_eq!(e.line, 2, "{call}: {e}");
                assert_eq!(m.next_timer(), None, "{call}: a failed call sets no timer");
                goes_on(&mut m);
            }
        },
    );
}

#[test]
fn timer_fan_out_does_not_saturate_the_host() {
    // Each timer handler sets two timers at the shortest, 50 ms; within the bounds (1,024
    // timers an activity) one activity keeps ~1,000 timers due every 50 ms: ~20,000 handler
    // calls a second of host time at most (it was ~1,000,000 with 1-ms timers).
    attack("timer_fan_out_does_not_saturate_the_host", HANG, || {
        let address = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30_976);
        let mut config = HostConfig::builtin(address);
        config.timeline.clear();
        let mission = RhaiMission::compile(
            "fan_out.rhai",
            "fn on_started(e) { after(50, \"t\"); }\nfn on_timer(e) { after(50, \"t\"); after(50, \"t\"); }",
        )
        .unwrap();
        let host = HostCore::with_mission(config, Box::new(mission));
        let clock = Clock::now();
        let run = run_host(
            host,
            vec![ClientConfig::builtin(address)],
            2_000,
            Vec::new(),
        );
        let calls = run
            .events
            .iter()
            .filter(|(_, e)| {
                matches!(
                    e,
                    HostEvent::Mission(
                        MissionReport::Handled { .. } | MissionReport::Failed { .. }
                    )
                )
            })
            .count();
        let took = clock.elapsed();
        println!("2 s of host time: {calls} handler calls in {took:?}");
        assert!(calls > 100, "the fan-out never ran: {calls} handler calls");
        assert!(
            calls < 50_000,
            "2 s of host time took {calls} handler calls ({took:?} of real time)"
        );
    });
}

#[test]
fn a_timer_that_rearms_at_zero_does_not_hang_the_host() {
    // The host's mission stage runs due timers until none is due at `now`
    // (host/src/mission.rs run_mission); a timer handler that set `after(0, ..)` made a
    // timer due at `now` again and the stage never returned. `after(0)` is refused now, and
    // a timer re-armed at the shortest, 50 ms, ticks at most once per 50 ms of host time.
    attack(
        "a_timer_that_rearms_at_zero_does_not_hang_the_host",
        HANG,
        || {
            let address = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30_975);
            let mut config = HostConfig::builtin(address);
            config.timeline.clear();
            let mission = RhaiMission::compile(
            "rearm.rhai",
            "fn on_started(e) { after(0, \"tick\"); }\nfn on_member_joined(e) { after(50, \"tick\"); }\n\
             fn on_timer(e) { try { after(0, \"tick\"); } catch { } after(50, \"tick\"); }",
        )
        .unwrap();
            let host = HostCore::with_mission(config, Box::new(mission));
            let run = run_host(
                host,
                vec![ClientConfig::builtin(address)],
                3_000,
                Vec::new(),
            );
            let ticks = run
                .events
                .iter()
                .filter(|(_, e)| {
                    matches!(
                        e,
                        HostEvent::Mission(MissionReport::Handled {
                            handler: "on_timer",
                            ..
                        })
                    )
                })
                .count();
            println!("the run ended after {ticks} ticks");
            assert!(ticks <= 3_000 / 50 + 1, "{ticks} ticks in 3 s of host time");
        },
    );
}

// ---------------------------------------------------------------------------------------
// requests

const OBJECTIVE: &str = "slot(0xBBBB0001, 3, 1)";
const CHANNEL: &str = "slot(0xBBBB0001, 24, 3)";

#[test]
fn set_field_with_hostile_paths_is_refused() {
    attack("set_field_with_hostile_paths_is_refused", HANG, || {
        let paths: Vec<String> = vec![
            "a".repeat(10_000),
            format!("objective[0]{}", ".value".repeat(5_000)),
            format!("objective{}", "[0]".repeat(10_000)),
            "objective[99999999999999999999999999].value".into(),
            "objective[18446744073709551615].value".into(),
            "objective[-1].value".into(),
            "objective[0x1].value".into(),
            "objective[\u{0663}].value".into(),
            "objectiv\u{E9}[0].value".into(),
            "objective[0].value\0".into(),
            "objective[0] .value".into(),
            "objective[0]..value".into(),
            "objective[0].".into(),
            ".objective".into(),
            "objective[0]]".into(),
            "objective[[0]].value".into(),
            "objective.value".into(),
            "generation.generation".into(),
            "generation[0]".into(),
            "\u{202E}generation".into(),
            String::new(),
            "[".into(),
            "]".into(),
        ];
        let mut m = mission(&format!(
            "fn on_timer(e) {{\n  set_field({OBJECTIVE}, e.name, 1);\n}}"
        ));
        for path in &paths {
            let r = m.handle(at(0), SESSION, &timer(path));
            let e = refused(r, &[], &short(path, 60));
            assert_eq!(e.line, 2, "{}: {e}", short(path, 60));
        }
        goes_on(&mut m);
    });
}

/// Each `call` (one line of a handler) must be refused at line 2, with `rule` in its
/// message; the ones accepted at the line are listed in the panic.
fn refused_at_the_line(cases: &[(&str, &str)]) {
    let mut accepted = Vec::new();
    for (call, rule) in cases {
        let mut m = mission(&format!("fn on_started(e) {{\n  {call}\n}}"));
        match m.handle(at(0), SESSION, &started()) {
            Ok(requests) => accepted.push(format!("{call} -> {requests:?}")),
            Err(e) => {
                assert_eq!(e.line, 2, "{call}: {e}");
                assert!(e.message.contains(rule), "{call}: {e}");
            }
        }
        goes_on(&mut m);
    }
    assert!(
        accepted.is_empty(),
        "accepted at the script line:\n{}",
        accepted.join("\n")
    );
}

#[test]
fn set_field_breaking_a_field_width_is_refused_at_its_line() {
    // `set_field` checks the value fits its field's bits (BODY-02), as set_auth and the
    // encoder do, at the script line.
    attack(
        "set_field_breaking_a_field_width_is_refused_at_its_line",
        HANG,
        || {
            let mut m = mission(&format!(
                "fn on_started(e) {{\n  set_auth({OBJECTIVE}, #{{ generation: -1 }});\n}}"
            ));
            refused(
                m.handle(at(0), SESSION, &started()),
                &[],
                "set_auth generation -1",
            );
            refused_at_the_line(&[
                // below the lifetime state's bias: not 4 bits
                ("set_field(slot(0xBBBB0001, 17, 1), \"state\", -2);", "bits"),
                // 7 bits
                (
                    "set_field(slot(0xBBBB0001, 3, 1), \"objective[0].value\", 128);",
                    "bits",
                ),
                // 31 bits, unsigned
                (
                    "set_field(slot(0xBBBB0001, 3, 1), \"generation\", -1);",
                    "bits",
                ),
                (
                    "set_field(slot(0xBBBB0001, 3, 1), \"generation\", 9223372036854775807);",
                    "bits",
                ),
            ]);
        },
    );
}

#[test]
fn set_field_breaking_a_field_rule_is_refused_at_its_line() {
    // Was a finding (fixed: set_field checks the field's guards too): `set_field` checked
    // the field's width, not its rules: a lifetime state of 11
    // fits the bits but breaks T17-01 (-1 to 10); it passes the script line and is refused
    // only at commit, though api.rs promises "a bad request fails at its script line with
    // the client rule it would break".
    attack(
        "set_field_breaking_a_field_rule_is_refused_at_its_line",
        HANG,
        || {
            refused_at_the_line(&[(
                "set_field(slot(0xBBBB0001, 17, 1), \"state\", 11);",
                "T17-01",
            )]);
        },
    );
}

#[test]
fn set_auth_with_hostile_bodies_is_refused() {
    attack("set_auth_with_hostile_bodies_is_refused", HANG, || {
        // `says | code`, `any` for any reason; OBJECTIVE and CHANNEL are the slots
        let cases = table(
            r#"
            no field | let m = #{}; for i in 0..1000 { m["k" + i] = i; }\n  set_auth(OBJECTIVE, m);
            any      | let x = []; for i in 0..900 { x = [x]; }\n  set_auth(OBJECTIVE, #{ objective: x });
            BODY-05  | let rows = []; for i in 0..300 { rows.push(#{revision: 1, target: 1.0, blend_seconds: 0.0}); }\n  set_auth(CHANNEL, #{ rows: rows });
            integer  | set_auth(OBJECTIVE, #{ generation: Fn("x") });
            integer  | set_auth(OBJECTIVE, #{ generation: OBJECTIVE });
            integer  | set_auth(OBJECTIVE, #{ generation: || 1 });
            integer  | set_auth(OBJECTIVE, #{ generation: 1.5 });
            integer  | set_auth(OBJECTIVE, #{ generation: "1" });
            any      | set_auth(OBJECTIVE, #{ objective: [#{ value: 1, extra: 2 }] });
            any      | set_auth(OBJECTIVE, this);
            array    | set_auth(CHANNEL, #{ rows: #{} });
            any      | set_auth(CHANNEL, #{ rows: [#{revision: 9223372036854775807, target: 1.0, blend_seconds: 0.0}] });
"#,
        );
        for (says, code) in &cases {
            let code = code
                .replace("OBJECTIVE", OBJECTIVE)
                .replace("CHANNEL", CHANNEL);
            let says = if *says == "any" { "" } else { says };
            let mut m = mission(&format!(
                "fn on_started(e) {{\n  this.junk = [1, 2, 3];\n  {code}\n}}"
            ));
            let e = refused(m.handle(at(0), SESSION, &started()), &[says], &code);
            assert!(e.line == 3 || e.line == 4, "{code}: {e}");
            goes_on(&mut m);
        }
    });
}

#[test]
fn non_finite_and_unrepresentable_reals_are_not_changed_silently() {
    // A Real is a float32. NaN and infinities may be asked for (no client rule forbids
    // them) but must reach the request as asked; a finite float64 past float32's range
    // must not silently become an infinity.
    // Was a finding (fixed in convert.rs): "1e300" became +inf without a word.
    attack(
        "non_finite_and_unrepresentable_reals_are_not_changed_silently",
        HANG,
        || {
            let cases: [(&str, Option<f32>); 7] = [
                ("parse_float(\"NaN\")", Some(f32::NAN)),
                ("parse_float(\"inf\")", Some(f32::INFINITY)),
                ("parse_float(\"-inf\")", Some(f32::NEG_INFINITY)),
                ("1.0 / 0.0", Some(f32::INFINITY)),
                ("1e300", None),
                ("-1e300", None),
                ("9223372036854775807", Some(2f32.powi(63))),
            ];
            let mut silent = Vec::new();
            for (value, expected) in cases {
                let mut m = mission(&format!(
                    "fn on_started(e) {{\n  set_field({CHANNEL}, \"rows[0].target\", {value});\n}}"
                ));
                let r = m.handle(at(0), SESSION, &started());
                match (r, expected) {
                    (Ok(requests), Some(want)) => {
                        let got = match &requests[..] {
                            [
                                WorldRequest::SetAuthField {
                                    value: Value::Raw { bits, width: 32 },
                                    ..
                                },
                            ] => f32::from_bits(*bits as u32),
                            other => panic!("{value}: {other:?}"),
                        };
                        assert!(
                            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                            "{value}: asked {want}, requested {got}"
                        );
                    }
                    (Ok(requests), None) => silent.push(format!("{value} -> {requests:?}")),
                    (Err(e), _) => assert_eq!(e.line, 2, "{value}: {e}"),
                }
                goes_on(&mut m);
            }
            assert!(silent.is_empty(), "changed silently: {silent:?}");
        },
    );
}

// ---------------------------------------------------------------------------------------
// the variables

#[test]
fn replacing_this_with_a_non_map_does_not_brick_the_instance() {
    // `this = 5;` once bricked the instance (every later handler that set a variable
    // failed, across reloads). Now the call fails at its handler, naming it, and the
    // variables are cleared.
    let cases = [
        "this = 5;",
        "this = ();",
        "this = [1, 2];",
        "this = \"s\";",
        "this = || 1;",
    ];
    let list = cases
        .into_iter()
        .map(|code| {
            case(code, move || {
                let source = format!(
                    "fn on_timer(e) {{\n  this.before = 1;\n}}\nfn on_started(e) {{\n  {code}\n}}"
                );
                let mut m = mission(&source);
                m.handle(at(0), SESSION, &timer("t")).unwrap();
                let e = refused(
                    m.handle(at(0), SESSION, &started()),
                    &["must stay a map"],
                    code,
                );
                assert_eq!(e.line, 4, "{e}");
                assert!(e.message.starts_with("on_started: "), "{e}");
                assert!(e.message.contains("cleared"), "{e}");
                assert!(!status_of(&m).contains("before"), "{}", status_of(&m));
                goes_on(&mut m);
            })
        })
        .collect();
    attacks(
        "replacing_this_with_a_non_map_does_not_brick_the_instance",
        HANG,
        list,
    );
}

#[test]
fn closures_and_shared_values_in_variables_do_not_panic() {
    attacks(
        "closures_and_shared_values_in_variables_do_not_panic",
        HANG,
        vec![
            case("capturing", || {
                // closures that capture (shared values, cycles through a map) do not
                // compile with `no_closure`
                let source = "fn on_started(e) {\n  let a = [1, 2];\n  let f = || a.len();\n  \
                              a.push(f);\n  this.a = a;\n  let m = #{};\n  let g = || m;\n  \
                              m.g = g;\n  this.m = m;\n}";
                let e = RhaiMission::compile("hostile.rhai", &with_normal(source))
                    .err()
                    .expect("a capturing closure compiles");
                assert_eq!(e.line, 3, "{e}");
            }),
            case("stored", || {
                // closures and pointers that capture nothing, kept in the variables,
                // called, printed, compared, copied
                let mut m = mission(
                    "fn on_started(e) {\n  let a = [1, 2];\n  let f = |x| x.len();\n  \
                     a.push(f);\n  this.a = a;\n  this.f = f;\n  let m = #{};\n  \
                     let g = |x| x;\n  m.g = g;\n  this.m = m;\n  this.list = [a, f, m, g];\n  \
                     this.copy = this.list;\n}\n\
                     fn on_timer(e) {\n  this.n = this.f.call(this.a);\n  this.a.push(1);\n  \
                     this.a += this.a;\n  this.text = this.to_string();\n  debug(this);\n  \
                     this.same = this.list == this.copy;\n  this.g2 = this.m.g.call(this.m);\n}",
                );
                let r = m.handle(at(0), SESSION, &started());
                assert!(r.is_ok(), "{r:?}");
                for i in 0..3 {
                    let r = m.handle(at(i), SESSION, &timer("t"));
                    assert!(r.is_ok() || r.as_ref().unwrap_err().line > 0, "{r:?}");
                }
                let _ = m.status();
                goes_on(&mut m);
                m.end(SESSION);
                assert!(!m.started());
            }),
        ],
    );
}

#[test]
fn deeply_nested_variables_do_not_overflow_status_or_drop() {
    // Within the limits (1,000 array elements, 1,200 map entries in all) one value nests
    // ~1,000 deep; Rhai clones, sizes, prints, compares and drops it recursively, on the
    // host's 2 MiB stack. Stored in `this` past 64 levels, the call fails and the variables
    // are cleared; a local one is built, printed, compared and dropped within the call.
    let builds = [
        ("arrays_990", "let x = []; for i in 0..990 { x = [x]; }"),
        (
            "maps_1190",
            "let x = #{}; for i in 0..1190 { x = #{a: x}; }",
        ),
        (
            "mixed_590",
            "let x = []; for i in 0..590 { x = #{a: [x]}; }",
        ),
    ];
    let list = builds
        .into_iter()
        .map(|(name, build)| {
            case(name, move || {
                let mut m = mission(&format!(
                    "fn on_started(e) {{\n  {build}\n  this.deep = x;\n}}\n\
                     fn on_timer(e) {{\n  {build}\n  switch e.name {{\n    \"text\" => {{ let s = x.to_string(); }}\n    \
                     \"debug\" => {{ debug(x); }}\n    \"compare\" => {{ let c = x; this.same = c == x; }}\n  }}\n}}"
                ));
                let e = refused(m.handle(at(0), SESSION, &started()), &["nest deeper"], name);
                assert_eq!(e.line, 1, "{e}");
                println!("step: refused in this");
                for step in ["text", "debug", "compare"] {
                    let r = m.handle(at(1), SESSION, &timer(step));
                    assert!(r.is_ok() || r.as_ref().unwrap_err().line > 0, "{r:?}");
                    println!("step: {step}: {}", short(&format!("{r:?}"), 200));
                }
                let _ = m.status();
                goes_on(&mut m);
                m.end(SESSION);
                assert!(!m.started());
                println!("step: dropped");
            })
        })
        .chain(std::iter::once(case("within_64_in_this", || {
            let mut m = mission(
                "fn on_started(e) {\n  let x = []; for i in 0..30 { x = [#{a: x}]; }\n  this.deep = x;\n}",
            );
            let r = m.handle(at(0), SESSION, &started());
            assert!(r.is_ok(), "within the limits: {r:?}");
            let status = status_of(&m);
            assert!(status.starts_with("#{\"deep\": "), "{}", short(&status, 100));
            goes_on(&mut m);
            m.end(SESSION);
        })))
        .collect();
    attacks(
        "deeply_nested_variables_do_not_overflow_status_or_drop",
        HEAVY,
        list,
    );
}

#[test]
fn extreme_arguments_to_the_standard_library_do_not_panic() {
    let calls = [
        "let a = [1, 2, 3]; a.extract(MIN, MAX)",
        "let a = [1, 2, 3]; a.extract(MAX, MAX)",
        "let a = [1, 2, 3]; a.splice(MAX, MAX, [4])",
        "let a = [1, 2, 3]; a.splice(MIN, MAX, [4])",
        "let a = [1, 2, 3]; a.drain(MIN, MAX)",
        "let a = [1, 2, 3]; a.retain(MAX, MIN)",
        "let a = [1, 2, 3]; a.split(MIN)",
        "let a = [1, 2, 3]; a.truncate(MIN)",
        "let a = [1, 2, 3]; a.chop(MIN)",
        "let a = [1, 2, 3]; a.insert(MIN, 1)",
        "let a = [1, 2, 3]; a.insert(MAX, 1)",
        "let a = [1, 2, 3]; a[MIN]",
        "let a = [1, 2, 3]; a.get(MIN)",
        "let a = [1, 2, 3]; a.pad(MAX, 0)",
        "let a = [1, 2, 3]; a.index_of(1, MIN)",
        "let a = [1, 2, 3]; a.index_of(1, MAX)",
        "let s = \"abc\"; s.sub_string(MAX, MAX)",
        "let s = \"abc\"; s.sub_string(MIN, MAX)",
        "let s = \"abc\"; s.crop(MIN, MAX)",
        "let s = \"abc\"; s.crop(MAX, MIN)",
        "let s = \"abc\"; s[MIN]",
        "let s = \"abc\"; s.get(MIN)",
        "let s = \"abc\"; s.index_of(\"b\", MIN)",
        "let s = \"abc\"; s.split(MAX)",
        "let s = \"abc\"; s.split(MIN)",
        "let s = \"abc\"; s.truncate(MIN)",
        "let s = \"abc\"; s.pad(MAX, \"x\")",
        "let s = \"abc\"; s.chars(MIN, MAX)",
        "let s = \"abc\"; s.to_chars()",
        "let b = blob(3); b.parse_le_int(MIN, MAX)",
        "let b = blob(3); b.write_le(MAX, MAX, 1)",
        "let b = blob(3); b.get(MIN)",
        "let b = blob(MAX)",
        "let b = blob(MIN)",
        "let x = 1; x.get_bit(MIN)",
        "let x = 1; x.get_bits(MIN, MAX)",
        "let x = 1; x.set_bits(MAX, MAX, 1)",
        "let x = 1; for b in x.bits(MIN, MAX) { }",
        "for i in range(MIN, MAX, MAX) { }",
        "for i in range(MAX, MIN, MIN) { }",
        "for i in MAX - 1..=MAX { }",
        "let r = MIN..MAX; r.contains(0)",
        "parse_json(\"{\\\"a\\\": 1e999}\")",
        "let s = \"\"; for i in 0..9000 { s += \"{\\\"a\\\":\"; } parse_json(s)",
        "to_float(MAX).to_int()",
        "(1.0 / 0.0).to_int()",
        "parse_float(\"NaN\").to_int()",
        "parse_float(\"NaN\").floor().to_int()",
        "MAX.to_string().len()",
        "char(MAX)",
        "let c = 'x'; c.to_int() + MAX",
        "sign(MIN)",
        "MIN.to_hex()",
        "MIN.to_binary()",
        "parse_int(\"zz\", MAX)",
        "parse_int(\"zz\", 1)",
        "\"abc\".to_blob()",
        "let m = #{a: 1}; m.fill_with(m)",
        "Fn(\"\")",
        "Fn(\"1abc\")",
        "Fn(\"x\").curry(1).curry(2).curry(3).call()",
        "let f = Fn(\"on_member_joined\"); f.call(#{member: MIN})",
        "slot(MAX, MAX, MAX)",
        "slot(\"\")",
        "now() + MAX",
        "is_def_fn(\"on_started\", MAX)",
    ];
    let list = calls
        .into_iter()
        .enumerate()
        .map(|(i, call)| {
            case(&format!("call_{i}"), move || {
                let mut m = mission(&format!(
                    "fn on_started(e) {{\n  let MAX = 9223372036854775807; let MIN = -MAX - 1;\n  this.r = {{ {call} }};\n}}"
                ));
                let r = m.handle(at(0), SESSION, &started());
                if let Err(e) = &r {
                    assert!(e.line > 0, "{call}: {e}");
                }
                goes_on(&mut m);
            })
        })
        .collect();
    attacks(
        "extreme_arguments_to_the_standard_library_do_not_panic",
        HANG,
        list,
    );
}
