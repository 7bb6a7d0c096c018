//! Activity messages: the envelopes, the message table, the body trait and one module per
//! body (AH).

pub mod auth;
pub mod authority;
pub mod body;
pub mod client_state;
pub mod envelope;
pub mod global_state;
pub mod identity;
pub mod ids;
pub mod incident;
pub mod join;
pub mod join_template;
pub mod membership;
pub mod selection;
pub mod sense_update;
pub mod sensor_auth;
pub mod session;
pub mod slot;
pub mod slot_types;
pub mod small;
pub mod table;
