//! Why a commit of world requests was refused (SR "Where mission scripts plug in": a
//! refused commit applies none of its requests).

use crate::world::RequestError;
use thiserror::Error;
use vex_wire::activity::session::SessionId;

/// Why a commit was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommitError {
    /// No activity has the session.
    #[error("session {0:#x} has no activity")]
    NoActivity(SessionId),
    /// A request was refused, and with it the whole commit.
    #[error(transparent)]
    Request(#[from] RequestError),
}
