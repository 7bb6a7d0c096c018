#![no_main]
//! Drives the BAP deframer with arbitrary bytes in arbitrary splits: it must never panic.

use libfuzzer_sys::fuzz_target;
use vex_wire::bap::deframer::Deframer;

fuzz_target!(|data: &[u8]| {
    let (cuts, stream) = data.split_at(data.len().min(4));
    let mut d = Deframer::new(4096);
    let mut at = 0;
    for &c in cuts {
        let end = (at + usize::from(c)).min(stream.len());
        d.push(&stream[at..end]);
        at = end;
        while let Ok(Some(_)) = d.next_frame() {}
    }
    d.push(&stream[at..]);
    while let Ok(Some(_)) = d.next_frame() {}
});
