//! The sessions the links' bindings name, counted, so that whether a session is still
//! named is one lookup and not a walk over every link (issue 26: the walk was a third of a
//! shared host's core at 10,000 clients). A binding names two: the session it is bound to
//! and its own private one (SR "Service 6 and 7").

use super::Binding;
use std::collections::BTreeMap;
use vex_wire::activity::session::SessionId;

/// How many bindings name each session, once for the bound session and once for the
/// private one.
#[derive(Debug, Default)]
pub(crate) struct BoundSessions {
    named: BTreeMap<SessionId, usize>,
}

impl BoundSessions {
    /// True when a binding names `session`.
    pub(crate) fn contains(&self, session: SessionId) -> bool {
        self.named.contains_key(&session)
    }

    /// `binding` is held: its sessions are named once more.
    pub(crate) fn add(&mut self, binding: &Binding) {
        for session in [binding.session(), binding.private_session()] {
            *self.named.entry(session).or_default() += 1;
        }
    }

    /// `binding` is no longer held: its sessions are named once less.
    pub(crate) fn remove(&mut self, binding: &Binding) {
        for session in [binding.session(), binding.private_session()] {
            if let Some(count) = self.named.get_mut(&session) {
                *count -= 1;
                if *count == 0 {
                    self.named.remove(&session);
                }
            }
        }
    }
}
