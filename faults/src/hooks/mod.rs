//! The plan's two hooks: [`vex_host::policy::Policy`] (`policy.rs`) and
//! [`vex_host::outbound::Outbound`] (`outbound.rs`), with what they edit, one concern a
//! file: message 5 (`sensor_auth.rs`), the host program's commits (`program.rs`),
//! incidents (`incident.rs`), the lobby services (`lobby.rs`), SignOn and the manifest
//! (`signon.rs`), the replicated objects (`queuez.rs`), the QoS reply (`qos.rs`), the
//! association's packets (`association.rs`) and the group session (`group.rs`).

mod association;
mod group;
mod incident;
mod lobby;
mod outbound;
mod policy;
mod program;
mod qos;
mod queuez;
mod sensor_auth;
mod signon;

use vex_wire::activity::small::EntitySlotMask;

/// A mask of slot `slot` alone.
fn one_slot(slot: u16) -> EntitySlotMask {
    let slot = usize::from(slot);
    EntitySlotMask::with_range(slot..slot + 1)
}
