//! bdLobby BAP: framing, the secure channel and the services the activity route uses
//! (NS "bdLobby BAP"; facts sections 1 and 2).

pub mod account_translation;
pub mod deframer;
pub mod header;
pub mod matchmaking;
pub mod out_frame;
pub mod queuez;
pub mod registry_answers;
pub mod secure;
pub mod services;
pub mod web_service;
