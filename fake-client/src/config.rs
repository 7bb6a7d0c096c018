//! What the emulated client knows before it starts: its content, its SignOn material and
//! its own choices (nonce, epoch).

use crate::script::Script;
use std::net::SocketAddrV4;
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::scenario::Scenario;

/// Silence on the Activity Host link that ends the activity: 20,000 + 500 ms (LINK-01).
pub const LINK_SILENCE_MS: u64 = 20_500;
/// One client tick: about 144 a second (JOIN-07).
pub const CLIENT_TICK_MS: u64 = 7;
/// The host keepalive carries message 1 every 2 s (SR "Timed sends that remain"; LINK-03).
pub const HOST_KEEPALIVE_MS: u64 = 2000;
/// The client sends message 52 every second (LINK-02).
pub const PATCH_EPOCH_INTERVAL_MS: u64 = 1000;
/// Body length of service 30 (NS: 128 bytes back, not inspected).
pub const CHANNEL_START_LEN: usize = 128;
/// The SignOn token length Sunrise uses (facts 1.1).
pub const TOKEN_LEN: usize = 32;

/// The emulated client's configuration.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The lobby (primary) link's address.
    pub target: SocketAddrV4,
    /// SignOn success fields 2 and 3.
    pub signon: SignOnKeys,
    /// SignOn field 4, sent in the hello: [`TOKEN_LEN`] zero bytes until a SignOn gives
    /// one (at most 568).
    pub token: Vec<u8>,
    /// The content the client's packages hold.
    pub scenario: Scenario,
    /// The correlation nonce of join_request.
    pub join_nonce: u32,
    /// The patch epoch the client reports in message 52.
    pub patch_epoch: [u64; 2],
    /// What the client does after the join, beyond the route.
    pub script: Script,
    /// The session message 3 names: none for the client's own (a private join), or a
    /// session another member hosts (a public join; SR "The join burst").
    pub join_session: Option<u64>,
    /// Whether the client keeps what a report of its run is made of: each received frame's
    /// bytes and its activity message's, copied into its [`crate::Received`] (a transcript
    /// records them), and every member table it applied (the checks between members,
    /// [`crate::activity::MemberView`]). The load generator judges each client alone and
    /// keeps neither, so a client's memory does not grow with the length of its life.
    pub keep_for_report: bool,
}

impl ClientConfig {
    /// Member `m` of the built-in scenario's activity aimed at `target`: member 0 is the
    /// built-in player, and every other has a member key, character and join nonce of its
    /// own (the account is the scenario's: no message the client sends carries it).
    pub fn member(target: SocketAddrV4, m: u64) -> Self {
        Self::member_of(target, Scenario::builtin(), m)
    }

    /// Member `m`'s client of `scenario`, as [`ClientConfig::member`] makes it of the
    /// built-in one.
    pub fn member_of(target: SocketAddrV4, scenario: Scenario, m: u64) -> Self {
        let mut config = Self::builtin(target);
        config.scenario = scenario;
        let player = &mut config.scenario.player;
        player.member_key = player.member_key.wrapping_add(m);
        player.character_id = player.character_id.wrapping_add(m);
        config.join_nonce = config.join_nonce.wrapping_add(m as u32);
        config
    }

    /// A client of the built-in scenario aimed at `target`.
    pub fn builtin(target: SocketAddrV4) -> Self {
        Self {
            target,
            signon: SignOnKeys::DEVELOPMENT,
            token: vec![0; TOKEN_LEN],
            scenario: Scenario::builtin(),
            join_nonce: 0x1122_3344,
            patch_epoch: [0x0102_0304_0506_0708, 0x1112_1314_1516_1718],
            script: Script::default(),
            join_session: None,
            keep_for_report: true,
        }
    }
}
