//! What leaves the host core: the frames it sends, each through the outbound hook once
//! sealed, and the events it reports (design "Sans-IO cores": frames and events out).

use crate::event::{HostEvent, Transmit};
use crate::hooks::Hooks;
use crate::link_id::LinkId;
use crate::outbound::Outbound;
use crate::policy::Policy;
use crate::reason::{Closed, Dropped};
use std::collections::VecDeque;
use vex_wire::bits::BitError;

/// The frames and events the host core has queued, in the order they happened.
#[derive(Debug)]
pub(crate) struct Outbox {
    hooks: Hooks,
    transmits: VecDeque<Transmit>,
    events: VecDeque<HostEvent>,
}

impl Outbox {
    /// An empty outbox whose frames pass `hooks`.
    pub(crate) fn new(hooks: Hooks) -> Self {
        Self {
            hooks,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
        }
    }

    /// The host's decisions (design "The emulated client": a policy trait whose defaults
    /// are the correct behaviour).
    pub(crate) fn policy(&self) -> &dyn Policy {
        self.hooks.policy()
    }

    /// The one outbound hook every frame passes.
    pub(crate) fn outbound(&self) -> &dyn Outbound {
        self.hooks.outbound()
    }

    /// Queues a frame after the outbound hook has seen it sealed.
    pub(crate) fn send(&mut self, mut t: Transmit) {
        self.outbound().sealed(t.service, t.message, &mut t.bytes);
        tracing::info!(link = %t.link, service = t.service, message = t.message, len = t.bytes.len(), "frame out");
        self.transmits.push_back(t);
    }

    /// A frame arrived on `link` and was understood.
    pub(crate) fn record(&mut self, link: LinkId, service: u16, task: u32, message: Option<u32>) {
        tracing::info!(%link, service, task, message, "frame in");
        self.event(HostEvent::Received {
            link,
            service,
            task,
            message,
        });
    }

    /// Input on `link` was dropped for `reason`; the link goes on.
    pub(crate) fn drop_input(&mut self, link: LinkId, reason: Dropped) {
        tracing::warn!(%link, %reason, "input dropped");
        let close = self.policy().close_after_drop(&reason);
        self.event(HostEvent::Dropped { link, reason });
        if close {
            self.close(link, Closed::Plan("closes the link after a dropped input"));
        }
    }

    /// The host could not build its own message `msg` for `link`: an internal error,
    /// reported as one; nothing is sent and the link goes on.
    pub(crate) fn not_built(&mut self, link: LinkId, msg: u32, error: BitError) {
        tracing::error!(%link, msg, %error, "message not built");
        self.event(HostEvent::NotBuilt { link, msg, error });
    }

    /// The IO layer is to close `link` for `reason`.
    pub(crate) fn close(&mut self, link: LinkId, reason: Closed) {
        tracing::warn!(%link, %reason, "link closed by host");
        self.event(HostEvent::Close { link, reason });
    }

    /// Reports `event`.
    pub(crate) fn event(&mut self, event: HostEvent) {
        self.events.push_back(event);
    }

    /// The next frame to send.
    pub(crate) fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// The next event.
    pub(crate) fn poll_event(&mut self) -> Option<HostEvent> {
        self.events.pop_front()
    }
}
