//! vex-server: the IO around the sans-IO host core (design "Sans-IO cores"): the tokio TCP
//! server that feeds BAP links and timers into a [`vex_host::HostCore`] ([`bap`]), and the
//! lobby's HTTPS endpoint that serves SignOn and the content manifest from a
//! [`vex_host::lobby::Lobby`] ([`lobby_http`]).

pub mod bap;
pub mod lobby_http;
