//! A policy and outbound hook of the caller's own, in place of the plan's: how a test
//! drives our host as a host it did not write, such as an adversary written from the pages
//! apart from our fault list (issue 21). The lobby keeps the plan's hooks.

use crate::outbound::Outbound;
use crate::policy::Policy;
use std::fmt;
use std::sync::Arc;

/// Both hooks the host core asks, in one value.
pub trait Hook: Policy + Outbound + Send + Sync {}

impl<T: Policy + Outbound + Send + Sync> Hook for T {}

/// A caller's [`Hook`], shared by every clone of the configuration.
#[derive(Clone)]
pub struct CustomHook(pub Arc<dyn Hook>);

impl fmt::Debug for CustomHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CustomHook")
    }
}
