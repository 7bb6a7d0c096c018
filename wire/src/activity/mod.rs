//! Activity messages: the envelopes, the id table and one module per body (AH).

pub mod auth;
pub mod envelope;
pub mod global_state;
pub mod identity;
pub mod ids;
pub mod join;
pub mod join_template;
pub mod membership;
pub mod selection;
pub mod sense_update;
pub mod sensor_auth;
pub mod slot;
pub mod slot_types;
pub mod small;
