//! Host configuration.

use crate::hooks::Hooks;
use crate::limits::Limits;
use crate::lobby::StoredLobby;
use crate::program::builtin_timeline;
use std::net::{Ipv4Addr, SocketAddrV4};
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::scenario::Scenario;

pub use crate::schedule::{KEEPALIVE_INTERVAL_MS, TimedCommit};

/// Everything a [`crate::HostCore`] needs to know before the first byte.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// The address service 17 advertises: the host's own listener (BAP-12).
    pub advertised: SocketAddrV4,
    /// SignOn success fields 2 and 3, the keys of the service-26 envelope.
    pub signon: SignOnKeys,
    /// Seed for per-link key material and session ids; fixed in tests, random in service.
    pub seed: [u8; 32],
    /// The activity content the host serves.
    pub scenario: Scenario,
    /// The policy and outbound hook its handlers ask: the pages' own by default; a
    /// conformance self-test's fault plan, or a test's own host, otherwise.
    pub hooks: Hooks,
    /// Sunrise's `server.activation.default_client_activation`: message 11 gets the
    /// snapshot when on, is recorded only when off (SR "What each client message gets").
    /// On by default, as in Sunrise's default settings.
    pub default_client_activation: bool,
    /// What the host program changes in every activity's world, and when: each commit
    /// this long after the activity's first member joined (the door mission scripts use,
    /// SR "Where mission scripts plug in"). The built-in host runs
    /// [`builtin_timeline`].
    pub timeline: Vec<TimedCommit>,
    /// What one link may cost the host.
    pub limits: Limits,
    /// What the lobby's store holds at start; none: what the scenario seeds
    /// ([`StoredLobby::seed`]).
    pub stored: Option<StoredLobby>,
    /// One of several host processes sharing the lobby's database: service 16 names the
    /// process the store places the activity on (`lobby::placement`), not this one.
    pub shared: bool,
}

impl HostConfig {
    /// A configuration for the built-in scenario with a fixed seed and no faults.
    pub fn builtin(advertised: SocketAddrV4) -> Self {
        Self {
            advertised,
            signon: SignOnKeys::DEVELOPMENT,
            seed: [7; 32],
            scenario: Scenario::builtin(),
            hooks: Hooks::default(),
            default_client_activation: true,
            timeline: builtin_timeline(),
            limits: Limits::default(),
            stored: None,
            shared: false,
        }
    }

    /// The loopback address and the default BAP port of Sunrise (facts 1.1).
    pub fn default_address() -> SocketAddrV4 {
        SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974)
    }
}
