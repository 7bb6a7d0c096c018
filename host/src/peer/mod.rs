//! The engine peer transport's host side (NS "The engine peer transport"): what the host
//! answers on its UDP port: `port.rs` routes each datagram, `responder.rs` is the
//! responder of bdNet associations, `group.rs` the group-session host above them, and
//! `foreign.rs` the group sessions a port of a shared fleet hosts for other processes.

mod foreign;
pub mod group;
pub mod port;
pub mod responder;
