//! The authority exchanges the host starts with a member (SR "What the host pushes on its
//! own": an authority reset or query; HOST-16).

/// Which exchange a host-started token belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exchange {
    /// Message 28: the client rebuilds its mask and echoes the token in 29.
    Reset,
    /// Message 30: the client answers 31 per bubble, then 32 with its whole mask.
    Query,
}
