#![no_main]
//! The host after a real join against arbitrary client reports: any activity message with
//! any body on the member's session, between the client's own traffic and the host's
//! program: no input may panic either side.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use vex_harness::pair::Pair;

#[derive(Arbitrary, Debug)]
enum Op {
    Report { msg: u8, payload: Vec<u8> },
    Wait(u16),
}

fuzz_target!(|ops: Vec<Op>| {
    let mut p = Pair::joined();
    for op in ops {
        match op {
            Op::Report { msg, payload } => {
                let now = p.now;
                p.client().send_raw(now, u32::from(msg % 64), payload);
                p.pump();
            }
            Op::Wait(ms) => p.advance(u64::from(ms % 2_000)),
        }
    }
});
