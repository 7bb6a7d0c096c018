#![no_main]
//! The emulated client's whole life against arbitrary host pushes: a real join with our
//! host, then any activity message with any body on the client's session, between the
//! host's own traffic and the client's scripted reports: no input may panic either side.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use vex_harness::pair::Pair;

#[derive(Arbitrary, Debug)]
enum Op {
    Push { msg: u8, payload: Vec<u8> },
    Wait(u16),
}

fuzz_target!(|ops: Vec<Op>| {
    let mut p = Pair::joined();
    for op in ops {
        match op {
            Op::Push { msg, payload } => {
                p.host
                    .push_raw(Pair::activity_link(), u32::from(msg % 64), &payload);
                p.pump();
            }
            Op::Wait(ms) => p.advance(u64::from(ms % 2_000)),
        }
    }
    let now = p.now;
    p.client().finish(now);
});
