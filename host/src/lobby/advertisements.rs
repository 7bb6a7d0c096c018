//! The matchmaking advertisements the host holds (NS "Matchmaking, services 42 and 43"):
//! each under an id that is never 0 and never reused (MM-05, MM-06).

use crate::link_id::LinkId;
use std::collections::BTreeMap;
use vex_wire::bap::matchmaking::DESCRIPTOR_LEN;

/// The advertisements the host holds: by id, the link that made it and its descriptor.
#[derive(Debug, Default)]
pub(crate) struct Advertisements {
    by_id: BTreeMap<u64, (LinkId, Vec<u8>)>,
    last_id: u64,
}

impl Advertisements {
    /// Keeps `descriptor` for `link` under `existing` when the link holds that id, else a
    /// new id; the id.
    pub(crate) fn advertise(
        &mut self,
        link: LinkId,
        existing: Option<u64>,
        descriptor: Vec<u8>,
    ) -> u64 {
        let held = existing.filter(|id| self.by_id.get(id).is_some_and(|(l, _)| *l == link));
        let id = held.unwrap_or_else(|| {
            self.last_id += 1;
            self.last_id
        });
        self.by_id.insert(id, (link, descriptor));
        id
    }

    /// Drops `link`'s advertisements.
    pub(crate) fn delete(&mut self, link: LinkId) {
        self.by_id.retain(|_, (l, _)| *l != link);
    }

    /// The latest advertisement with a whole descriptor.
    pub(crate) fn latest(&self) -> Option<(u64, &[u8])> {
        self.by_id
            .iter()
            .rev()
            .find(|(_, (_, d))| d.len() == DESCRIPTOR_LEN)
            .map(|(id, (_, d))| (*id, d.as_slice()))
    }
}
