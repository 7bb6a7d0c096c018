#![no_main]
//! `vex replay` on arbitrary text: parsing never panics, and a transcript that parses
//! replays to the emulated client without panicking.

use libfuzzer_sys::fuzz_target;
use vex_fake_client::ClientConfig;
use vex_harness::replay;
use vex_harness::transcript::Transcript;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(t) = Transcript::parse(&text) else {
        return;
    };
    let client = ClientConfig::builtin(std::net::SocketAddrV4::new(
        std::net::Ipv4Addr::LOCALHOST,
        30974,
    ));
    let _ = replay::to_client(&t, client);
});
