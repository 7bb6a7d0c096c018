#![no_main]
//! The lobby's decoders and both sides' judges on arbitrary bytes: the host's SignOn
//! (request in), the client's SignOn judge and manifest check (answers in), the account
//! id translation, the family subscription, the service-123 update, the web-service
//! envelope and replies. None may panic.

use getrandom::SysRng;
use libfuzzer_sys::fuzz_target;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::OnceLock;
use vex_fake_client::signon::SignOnClient;
use vex_host::lobby::signon::SignOnService;
use vex_wire::bap::account_translation::{TranslationRequest, TranslationResponse};
use vex_wire::bap::queuez::{Subscription, Update};
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::bap::web_service::{Shape, WsReply, WsRequest, read_subscribe};
use vex_wire::lobby::manifest;
use vex_wire::scenario_lobby::Lobby;

fn key() -> &'static rsa::PrivateKey {
    static KEY: OnceLock<rsa::PrivateKey> = OnceLock::new();
    KEY.get_or_init(|| manifest::new_key(&mut SysRng).unwrap_or_else(|e| panic!("{e}")))
}

fuzz_target!(|data: &[u8]| {
    let bap = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974);
    let mut host = SignOnService::new(Lobby::default(), SignOnKeys::DEVELOPMENT, bap, [1; 32]);
    let _ = host.answer(0, "build=86657&platform=steam", data, Ipv4Addr::LOCALHOST);
    let mut client = SignOnClient::new(1, Some(key().to_public_key()));
    let _ = client.on_response(200, data);
    let _ = client.on_manifest(200, data);
    let _ = manifest::verify(&key().to_public_key(), data);
    let _ = TranslationRequest::decode(data);
    let _ = TranslationResponse::decode(data);
    let _ = Subscription::decode(data);
    let _ = Update::decode(data);
    let _ = WsRequest::decode(data);
    for shape in [
        Shape::StatusOnly,
        Shape::StatusPair,
        Shape::StatusPairBool,
        Shape::Generic,
    ] {
        let _ = WsReply::decode(data, shape);
    }
    let _ = read_subscribe(data);
});
