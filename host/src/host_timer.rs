//! The timers of a link (SR "Timed sends that remain"; the limits of a link).

/// Everything the host does on its own clock (SR "Timed sends that remain"). The order of
/// the variants is the order a link's timers due at one instant fire in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum HostTimer {
    /// The keepalive of a joined link: message 1, message 44 when an epoch waits, message
    /// 12 while unacknowledged (LINK-03).
    Keepalive,
    /// A roster that did not fit the client's tick beside the ones before it, sent in the
    /// next tick (AUTH-10).
    DeferredRoster,
    /// No hello within [`crate::Limits::hello_within_ms`] of opening: the link is closed.
    Hello,
    /// A frame not whole within [`crate::Limits::frame_within_ms`]: the link is closed.
    SlowFrame,
}

impl HostTimer {
    /// How many timers a link has.
    pub(crate) const COUNT: usize = 4;
}
