//! What our host is told to do other than its defaults: faults that break a rule on
//! purpose (`fault.rs`, the `catch.*` cases) and variations that take a freedom the pages
//! leave (`variation.rs`, the `legal.*` cases). The policy and the outbound hook the
//! handlers ask are implemented on it, outside the handlers (`hooks/policy.rs`,
//! `hooks/outbound.rs`); an empty plan keeps every default.

use crate::fault::Fault;
use crate::variation::Variation;

/// The faults and variations a host is told to commit. Empty for the default host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostPlan {
    faults: Vec<Fault>,
    variations: Vec<Variation>,
}

impl HostPlan {
    /// A plan with these faults and variations.
    pub fn new(faults: Vec<Fault>, variations: Vec<Variation>) -> Self {
        Self { faults, variations }
    }

    /// A plan with one fault.
    pub fn single(fault: Fault) -> Self {
        Self {
            faults: vec![fault],
            variations: Vec::new(),
        }
    }

    /// A plan that takes one freedom of the pages.
    pub fn varying(variation: Variation) -> Self {
        Self {
            faults: Vec::new(),
            variations: vec![variation],
        }
    }

    /// True when the plan includes `fault`.
    pub fn has(&self, fault: Fault) -> bool {
        self.faults.contains(&fault)
    }

    /// True when the plan takes `variation`.
    pub fn varies(&self, variation: Variation) -> bool {
        self.variations.contains(&variation)
    }

    /// The plan's faults.
    pub fn iter(&self) -> impl Iterator<Item = Fault> + '_ {
        self.faults.iter().copied()
    }
}
