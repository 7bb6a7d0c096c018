//! A joined emulated client for unit tests of one check at a time.

use crate::config::ClientConfig;
use crate::core::ClientCore;
use crate::rules::Rule;
use crate::session::ActivitySlot;
use std::net::{Ipv4Addr, SocketAddrV4};

/// A client of the built-in scenario whose join_result was accepted.
pub fn joined() -> ClientCore {
    let target = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1);
    let mut c = ClientCore::new(ClientConfig::builtin(target));
    let mut slot = ActivitySlot::new(1, false, false);
    slot.established = true;
    slot.stored_id = 1;
    c.slot = Some(slot);
    c
}

/// The rules of every violation so far, in order.
pub fn rules(c: &ClientCore) -> Vec<Rule> {
    c.violations().iter().map(|v| v.rule).collect()
}
