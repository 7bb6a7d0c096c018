//! Why the host dropped input or closed a link: one variant per reason, wrapping the wire
//! crate's errors, so tests and tools match variants, not text (design "Style": after
//! rustls's `PeerMisbehaved`). Untrusted input never panics the host: it is dropped with
//! one of these, logged, and the link goes on unless its byte stream cannot be framed.

use crate::activity::AdmitError;
use crate::limits::Limit;
use vex_wire::activity::envelope::EnvelopeError;
use vex_wire::activity::selection::SelectionError;
use vex_wire::activity::session::SessionId;
use vex_wire::bap::account_translation::TranslationError;
use vex_wire::bap::deframer::DeframeError;
use vex_wire::bap::header::HeaderError;
use vex_wire::bap::secure::OpenError;
use vex_wire::bap::services::FixedBodyError;
use vex_wire::bap::web_service::WsError;
use vex_wire::bits::BitError;
use vex_wire::schema::SchemaError;

/// Why input was dropped; the link goes on (SR "Client reports come in": the frame is
/// still accepted).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Dropped {
    /// An encrypted frame whose tag does not verify (BAP-02).
    #[error("encrypted frame: {0}")]
    Open(OpenError),
    /// An encrypted frame before the hello armed the channel.
    #[error("encrypted frame before the hello")]
    EncryptedBeforeHello,
    /// The inner header is cut short (BAP-03).
    #[error("inner header: {0}")]
    InnerHeader(HeaderError),
    /// Service 8 in a plaintext frame.
    #[error("plaintext service 8: activity messages need the secure channel")]
    PlaintextActivity,
    /// A service the host has no handler for.
    #[error("service {0} has no handler")]
    NoHandler(u16),
    /// A web-service request shorter than its header: answered with an empty reply.
    #[error("service 10: {0}")]
    WebService(WsError),
    /// Service 42 that does not decode or names no kind: answered with the empty reply.
    #[error("service 42: {0}")]
    Matchmaking(String),
    /// Service 23 that does not decode: answered with the empty list (facts 2.2).
    #[error("service 23: {0}")]
    Translation(TranslationError),
    /// Service 16 of the wrong size: answered with an empty service 17 (facts 5.3).
    #[error("service 16: {0}")]
    Lookup(FixedBodyError),
    /// Service 6 that does not decode: answered with the default selection (BAP-14).
    #[error("service 6 falls back to the default selection: {0}")]
    Selection(SelectionError),
    /// Service 6 in a plaintext frame: answered, no session committed (facts 1.5).
    #[error("plaintext service 6: answered, no session committed")]
    PlaintextHostRequest,
    /// A service-8 envelope that does not decode.
    #[error("service 8: {0}")]
    Envelope(EnvelopeError),
    /// A message with bytes past its body, which the policy refuses (HOST-03 says the
    /// request is still answered: only a host told to break it refuses it).
    #[error("message {msg} has bytes past its body; refused")]
    TrailingBytes {
        /// The activity message id.
        msg: u32,
    },
    /// A service-8 message on discriminator 2, which the policy refuses (HOST-10 says it is
    /// legal: only a host told to break it refuses it).
    #[error("service 8 on discriminator 2 refused")]
    DiscriminatorTwo,
    /// A message id the client never sends: a host-to-client, name-only or local id, or
    /// one past the table's 59 (AH "Message ids": the client sender set).
    #[error("message {0} is not one the client sends")]
    NotClientSent(u32),
    /// A message naming a session the link does not own (HOST-06).
    #[error("message {msg} names session {session:#x}, which this link does not own")]
    Unowned {
        /// The activity message id.
        msg: u32,
        /// The session it names.
        session: SessionId,
    },
    /// A message body that does not decode.
    #[error("message {msg} does not decode: {error}")]
    Body {
        /// The activity message id.
        msg: u32,
        /// Why.
        error: BitError,
    },
    /// A join whose record names another session than its envelope (facts 4.1).
    #[error(
        "join names session {named:#x} in a message for {handle:#x} (facts 4.1: they are equal)"
    )]
    JoinMismatch {
        /// The session the join_request record names.
        named: u64,
        /// The session the envelope names.
        handle: SessionId,
    },
    /// A join naming a session with no activity.
    #[error("session {0:#x} has no activity")]
    NoActivity(SessionId),
    /// A join the activity cannot take.
    #[error("join refused: {0}")]
    Admit(AdmitError),
    /// A body the schema walker refuses.
    #[error("message {msg} does not decode: {error}")]
    Schema {
        /// The activity message id.
        msg: u32,
        /// Why.
        error: SchemaError,
    },
    /// An authority answer with a token the host has no reset or query outstanding for.
    #[error("message {msg}: token {token} answers nothing the host asked")]
    UnknownToken {
        /// The activity message id.
        msg: u32,
        /// The token.
        token: u32,
    },
    /// A message 6 whose patch epoch is not the link's message 52.
    #[error("sensor_sense_update: the patch epoch is not the link's message 52")]
    SenseEpoch,
    /// A Sense group that cannot be read; the message's other groups still count.
    #[error("sensor_sense_update: group {key:#010x} is not read: {error}")]
    SenseGroup {
        /// The group's registry key.
        key: u32,
        /// Why.
        error: BitError,
    },
    /// A message that needs a joined client, on a link with none.
    #[error("message {0} with no joined client")]
    NotJoined(u32),
    /// A snapshot request while the activity's table is held back and already owes
    /// [`crate::activity::SNAPSHOTS_OWED_MAX`] snapshots.
    #[error("message {0}: the activity owes too many snapshots already")]
    SnapshotsOwed(u32),
    /// Message 22 reports a slice set whose bubble the activity does not have.
    #[error("client_authoritative_data_update: slice set {0} is outside the activity's bubbles")]
    RegionOutside(i16),
    /// Message 20 asking for no slot (facts 4.4).
    #[error("allocate_entity_indices: a count of {0} is refused")]
    SlotCount(i32),
    /// Message 21 shorter than its 1,024-byte mask.
    #[error("free_entity_indices: {0} bytes, not 1,024")]
    SlotMaskLength(usize),
}

/// Why the host closes a link.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Closed {
    /// The byte stream cannot be framed (BAP-01).
    #[error("framing: {0}")]
    Framing(DeframeError),
    /// The fault plan closes it.
    #[error("fault plan: {0}")]
    Plan(&'static str),
    /// A frame opened only with a nonce this many past the one due: frames were lost or
    /// tampered with on the way, and no later frame of the link can open (BAP-18).
    #[error(
        "secure channel out of step: the frame is sealed {0} nonce(s) ahead of the one due; frames were lost on the way"
    )]
    OutOfStep(i16),
    /// The link went over one of the host's [`crate::limits::Limits`].
    #[error("limit: {0}")]
    Limit(Limit),
}
