#![no_main]
//! `vex replay` on arbitrary text: parsing never panics, and a transcript that parses
//! replays to the emulated client without panicking (short runs only, to keep the
//! fuzzer fast; the replay itself bounds a run at a day).

use libfuzzer_sys::fuzz_target;
use vex_fake_client::ClientConfig;
use vex_harness::replay;
use vex_harness::transcript::Transcript;

/// Longer runs are parsed but not replayed here.
const REPLAY_UP_TO_MS: u64 = 60_000;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(t) = Transcript::parse(&text) else {
        return;
    };
    if t.end().millis() > REPLAY_UP_TO_MS {
        return;
    }
    let client = ClientConfig::builtin(std::net::SocketAddrV4::new(
        std::net::Ipv4Addr::LOCALHOST,
        30974,
    ));
    let _ = replay::to_client(&t, client);
});
