#![no_main]
//! Two sides of a reliable peer connection (`vex_wire::peer::reliable`) driven by
//! arbitrary sends, time, losses and forged datagrams: no input may panic either side, and
//! what one side builds the other reads.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use vex_wire::peer::established::EstablishedPacket;
use vex_wire::peer::message::PeerMessage;
use vex_wire::peer::reliable::Connection;
use vex_wire::time::Instant;

#[derive(Arbitrary, Debug)]
enum Op {
    /// Side `a` (else b) sends a ping carrying `n`, declared `size`.
    Send { a: bool, n: u16, size: u32 },
    /// Time passes; each side's due packets go, each lost when its bit in `lost` is set.
    Wait { ms: u16, lost: u8 },
    /// Bytes arrive at side `a` (else b) as an established datagram.
    Forged { a: bool, bytes: Vec<u8> },
}

fuzz_target!(|input: (u32, u32, Vec<Op>)| {
    let (seq_a, seq_b, ops) = input;
    let mut a = Connection::new(1, 2, seq_b & !0x3FF);
    let mut b = Connection::new(2, 1, seq_a & !0x3FF);
    let mut now = Instant::default();
    for op in ops.into_iter().take(256) {
        match op {
            Op::Send { a: on_a, n, size } => {
                let ping = PeerMessage::Ping {
                    sequence: n,
                    timestamp: 0,
                    flag: false,
                };
                let side = if on_a { &mut a } else { &mut b };
                let _ = side.send(&ping, size % (1 << 18));
            }
            Op::Wait { ms, lost } => {
                now = now + u64::from(ms);
                let mut bit = 0;
                for a_sends in [true, false] {
                    let (from, to) = if a_sends {
                        (&mut a, &mut b)
                    } else {
                        (&mut b, &mut a)
                    };
                    while let Some(packet) = from.poll(now) {
                        bit = (bit + 1) % 8;
                        if lost >> bit & 1 == 1 {
                            continue;
                        }
                        let bytes = packet.write().expect("what a side builds is written");
                        let read = EstablishedPacket::read(&bytes).expect("and read back");
                        let _ = to.receive(&read);
                    }
                }
            }
            Op::Forged { a: on_a, bytes } => {
                if let Ok(packet) = EstablishedPacket::read(&bytes) {
                    let side = if on_a { &mut a } else { &mut b };
                    let _ = side.receive(&packet);
                }
            }
        }
        let _ = (a.next_due(), b.next_due(), a.unacknowledged());
    }
});
