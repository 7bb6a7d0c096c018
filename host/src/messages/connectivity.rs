//! Message 37, connectivity_failure, from a member: it lost a peer. The pages call it
//! diagnostic only (AH "Message ids": "records one peer key"): the host reports it as a
//! typed event, answers nothing and changes nothing.

use crate::event::HostEvent;
use crate::link::Links;
use crate::link_id::LinkId;
use vex_wire::activity::small::ConnectivityFailure;

/// Reports `failure` from `link`.
pub(crate) fn connectivity_failure(links: &mut Links, link: LinkId, failure: ConnectivityFailure) {
    let ConnectivityFailure { peer_key, reason } = failure;
    tracing::info!(%link, peer_key = format_args!("{peer_key:#x}"), reason, "connectivity failure");
    links.event(HostEvent::ConnectivityFailure {
        link,
        peer_key,
        reason,
    });
}
