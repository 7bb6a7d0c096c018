//! The two hooks the host core asks, [`Policy`] (its decisions) and [`Outbound`] (every
//! message on its way out), in one value. Their defaults are what the pages ask: the host
//! a user runs is [`ByThePages`]. Conformance self-tests give the core another (the fault
//! plan of `vex-faults`, which breaks one rule on purpose or takes a freedom of the pages),
//! and so can a test that drives our host as one it did not write.

use crate::outbound::Outbound;
use crate::policy::Policy;
use std::fmt;
use std::sync::Arc;

/// Both hooks the host core asks.
pub trait Hook: Policy + Outbound + Send + Sync {}

impl<T: Policy + Outbound + Send + Sync> Hook for T {}

/// Every default of [`Policy`] and [`Outbound`]: the host the pages describe.
#[derive(Debug, Clone, Copy, Default)]
pub struct ByThePages;

impl Policy for ByThePages {}

impl Outbound for ByThePages {}

/// The hooks a host is built with, shared by every clone of its configuration.
#[derive(Clone)]
pub struct Hooks(Arc<dyn Hook>);

impl Hooks {
    /// `hook` in place of the defaults.
    pub fn new(hook: impl Hook + 'static) -> Self {
        Self(Arc::new(hook))
    }

    /// The policy.
    pub fn policy(&self) -> &dyn Policy {
        self.0.as_ref()
    }

    /// The outbound hook.
    pub fn outbound(&self) -> &dyn Outbound {
        self.0.as_ref()
    }
}

impl Default for Hooks {
    fn default() -> Self {
        Self::new(ByThePages)
    }
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Hooks")
    }
}
