//! A scenario file both sides load: the host serves it and the emulated client, whose
//! packages hold the same content, joins it cleanly.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use vex_fake_client::ClientConfig;
use vex_harness::in_process;
use vex_host::HostConfig;
use vex_wire::activity::body::Body;
use vex_wire::activity::sensor_auth::SensorAuthUpdate;
use vex_wire::scenario_file::{BUILTIN, parse};

#[test]
fn a_scenario_from_a_file_is_served_and_joined() {
    let text = format!(
        "{BUILTIN}\n[[object]]\nkey = \"0xDDDD0001\"\nbubble = 0\nslots = [\n    {{ type = 3, index = 0, auth = true, sense = true }},\n    {{ type = 24, index = 7, auth = true, sense = false }},\n]\n"
    );
    let scenario = parse(&text).unwrap();
    assert_eq!(scenario.objects.len(), 5);
    let address = HostConfig::default_address();
    let mut host = HostConfig::builtin(address);
    host.scenario = scenario.clone();
    let mut client = ClientConfig::builtin(address);
    client.scenario = scenario;
    let report = in_process::run(host, client, 5_000);
    assert!(report.violations.is_empty(), "{:#?}", report.violations);
    assert!(report.status.in_activity() && report.rosters_applied >= 1);
    let registered = report
        .transcript
        .lines
        .iter()
        .filter(|l| l.message == Some(5))
        .filter_map(|l| SensorAuthUpdate::decode(l.payload.as_ref()?).ok())
        .any(|m| {
            m.roster
                .and_then(|r| r.sub_blocks)
                .is_some_and(|s| s.iter().any(|b| b.keys.contains(&0xDDDD_0001)))
        });
    assert!(registered, "the file's own object is in the roster");
}
