//! The definition-driven codec of TD: field descriptors as data, and one walker that
//! encodes, decodes, measures and prints every documented body.

pub mod catalog;
pub mod kind;
pub mod measure;
pub mod messages;
pub mod path;
pub mod place;
#[cfg(test)]
mod round_trip;
pub mod tables;
pub mod text;
#[cfg(test)]
mod typed_agreement;
pub mod value;
pub mod walk;

pub use kind::{Field, Kind, Schema, TagMode};
pub use value::{KeyedLane, Value};
pub use walk::{SchemaError, TraceLine, decode, decode_into, decode_traced, encode, encode_bits};
