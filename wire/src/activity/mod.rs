//! Activity messages: the envelopes, the id table and one module per body (AH).

pub mod envelope;
pub mod global_state;
pub mod ids;
pub mod join;
pub mod selection;
pub mod small;
