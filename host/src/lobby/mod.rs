//! The lobby, sans-IO. Over HTTPS, [`Lobby`] serves SignOn's answers and the signed content
//! manifest, each through the outbound hook (NS "SignOn", "The content manifest"); the
//! HTTPS server (`vex_server::lobby_http`) and the in-process harness both drive it. On a
//! BAP link, the lobby services answer the client's calls (NS "The service registry"):
//! `services.rs` (the other services of the registry, the account translation among them),
//! `web_service.rs` (services 10 and 11, the calls that change an account waiting for the
//! store in `changes.rs`), `matchmaking.rs` (42 and 43, with the advertisements in
//! `advertisements.rs`) and `queuez.rs` (the replicated objects). What the lobby stores is
//! `stored.rs`; what it asks a store to keep, `write.rs`; when several processes share the
//! store, which one holds an activity, `placement.rs`, and the advertisements,
//! `listing.rs`, their answers waiting in `pending.rs`.

mod advertisements;
mod changes;
pub mod listing;
mod matchmaking;
pub(crate) mod pending;
pub mod placement;
pub mod queuez;
mod services;
pub mod signon;
pub mod stored;
mod web_service;
pub mod write;

use advertisements::Advertisements;
pub use listing::{Listed, Listing};
pub use placement::{Lookup, Placed};
pub(crate) use services::LobbyServices;
pub use stored::{StoredAccount, StoredLobby, StoredObject};
pub use write::{Change, Write, Written};

use crate::hooks::Hooks;
use crate::outbound::Outbound;
use prost::Message;
use rsa::rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};
use signon::{SignOnRefusal, SignOnReply, SignOnService};
use std::net::Ipv4Addr;
use vex_wire::lobby::manifest::{self, ContentConfig};

/// SignOn, and the manifest signed under the host's key, both through the outbound hook.
#[derive(Debug)]
pub struct Lobby {
    signon: SignOnService,
    manifest: Vec<u8>,
    hooks: Hooks,
}

impl Lobby {
    /// The lobby answering with `signon` and serving `body` signed under `key` (with
    /// `rng` for the signature's salt); `hooks` may edit both.
    pub fn new<R: TryCryptoRng + ?Sized>(
        signon: SignOnService,
        key: &rsa::PrivateKey,
        body: &[u8],
        hooks: Hooks,
        rng: &mut R,
    ) -> Result<Self, rsa::signature::Error> {
        let mut body = body.to_vec();
        hooks.outbound().manifest_body(&mut body);
        Ok(Self {
            signon,
            manifest: manifest::sign(key, &body, rng)?,
            hooks,
        })
    }

    /// Answers a SignOn POST (see [`SignOnService::answer`]).
    pub fn sign_on(
        &mut self,
        now_s: u64,
        query: &str,
        body: &[u8],
        peer: Ipv4Addr,
    ) -> Result<SignOnReply, SignOnRefusal> {
        let mut reply = self.signon.answer(now_s, query, body, peer)?;
        self.outbound().signon(reply.attempt, &mut reply.response);
        Ok(reply)
    }

    /// The manifest: HTTP status and body.
    pub fn manifest(&self) -> (u16, Vec<u8>) {
        let (mut status, mut body) = (200, self.manifest.clone());
        self.outbound().manifest(&mut status, &mut body);
        (status, body)
    }

    /// The one outbound hook, as the host core has it (`HostCore::outbound`).
    fn outbound(&self) -> &dyn Outbound {
        self.hooks.outbound()
    }
}

/// The manifest body our host serves for the scenario named `scenario`: no packages (the
/// pages do not describe the rows a client needs), and a fetch id, a canonical lowercase
/// UUID made from the name.
pub fn content(scenario: &str) -> Vec<u8> {
    let hex: String = Sha256::digest(scenario.as_bytes())
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect();
    let id = format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    );
    ContentConfig {
        fetch_id: Some(id),
        ..ContentConfig::default()
    }
    .encode_to_vec()
}
