//! The modes of what the host answers and when, and of the envelope and services around
//! the activity messages (SR "Answer what was asked"; AH "The activity envelope",
//! "incident, message 19"; NS "The service registry").

use vex_fake_client::Probe;

/// What the host answers, and when.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Answer {
    /// A push after every client message `0` (HOST-01, HOST-16, HOST-17).
    Report(u32, Reply),
    /// A push answering the probe's message, which the host must drop (HOST-01, HOST-06).
    Probe(Probe, Reply),
    /// The link closed after input is dropped (HOST-01, HOST-06).
    CloseOnDrop,
    /// A BAP response to the first message 52's service 8: this response service id and
    /// status, the 52's task id, an empty body (HOST-12).
    Bap8Response(u16, u16),
    /// The whole roster again on every keepalive (AUTH-16).
    RosterOnKeepalive,
    /// No first message 5 (AUTH-16); the program's change at 2.5 s sends one.
    NoFirstRoster,
    /// No first message 5 and no program: no message 5 at all (AUTH-16, SEED-02).
    NoRosterAtAll,
    /// The first message 5 answers the second message 52 (AUTH-16).
    FirstRosterLate,
    /// Message 18 unanswered (HOST-03).
    NoRefresh,
    /// Message 18 answered without message 5 (HOST-03).
    RefreshWithoutRoster,
    /// Message 20 unanswered (HOST-04).
    SlotRequestIgnored,
    /// Message 20 answered with an empty grant (HOST-04).
    EmptySlotGrant,
    /// Message 23 not committed (HOST-15).
    NoIdentityCommit,
    /// Message 22 not committed (HOST-05).
    NoClientStateCommit,
    /// The moved roster at once after message 22 (AUTH-13).
    RosterAtMove,
    /// The keepalive interval, none for none (LINK-01, LINK-03).
    Keepalive(Option<u64>),
    /// The answer to message 15 (LEAVE-01, LEAVE-02).
    Leave(Leave),
    /// A message 18 with trailing bytes refused (BODY-07).
    TrailingRefused,
    /// The roster answering a region move's request is the one from before the move
    /// (HOST-05, AUTH-13).
    StaleRosterAfterMove,
    /// Legal, slow: message 18 answered whole at the next keepalive, up to 2 s later (SR
    /// gives the snapshot no deadline).
    SnapshotAtKeepalive,
    /// Legal, slow: the first message 5 at the first keepalive, 2 s after the first 52
    /// (no page gives it a deadline).
    FirstRosterAtKeepalive,
}

/// A push the adversary adds as an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Message 1.
    Global,
    /// Message 2.
    World,
    /// The whole message 5.
    Roster,
    /// Message 12 as last sent.
    Membership,
    /// Message 0, granting nothing new.
    Grant,
    /// The whole snapshot a message 18 gets: 1, 2, 12, then 5.
    Snapshot,
}

/// The leave answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leave {
    /// No leave delta.
    NoAnswer,
    /// The presence bits left set.
    PresenceKept,
    /// roster_enable 0.
    EnableOff,
    /// An Auth body in it.
    WithBody,
    /// A grant in it.
    WithGrant,
    /// A state byte changed in it.
    StateChanged,
    /// The roster again after it (LEAVE-02).
    RosterAfter,
}

/// The envelope and BAP services.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Envelope {
    /// Every push's discriminator (ENV-01).
    Discriminator(u8),
    /// payload_len off by this much on message 1 keepalives (ENV-02).
    PayloadLen(i32),
    /// payload_len this value on message 1 keepalives (ENV-03).
    PayloadLenRaw(u32),
    /// A push of this message id on the first keepalive (ENV-04).
    MsgType(u32),
    /// A message 1 naming a session no client has, on the first keepalive (ENV-05).
    Unbound,
    /// Message 1 right after service 7, before the join (ENV-06).
    BeforeJoin,
    /// Keepalive message 1s name another session (ENV-07).
    SessionAfterJoin,
    /// Every service 7 names the first session made (ENV-08).
    SharedSession,
    /// Session ids this value (ENV-09).
    SessionId(u64),
    /// Pushes carry this sequence (ENV-10).
    Sequence(u32),
    /// The service-26 hello reply (BAP-17).
    Hello(Hello),
    /// A service-124 push of this many bytes after the join burst (BAP-08; 14 legal).
    SubLost(usize),
    /// Service 123 made this many bytes (QZ-08; 46,973 legal).
    Queuez(usize),
}

/// The service-26 reply (facts 1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hello {
    /// The u32 length field this value.
    LengthField(u32),
    /// One MAC bit flipped.
    Mac,
    /// The CBC plaintext's last padding byte 05, not 04, under a MAC that verifies (the
    /// first block garbled with it: CBC).
    Padding,
    /// The body this many bytes.
    Size(usize),
}

/// Message 19, in place of the host's own at 3.5 s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Incident {
    /// Field 0 this row (INCIDENT-01, INCIDENT-02).
    Definition(u16),
    /// One extra target of this row (INCIDENT-01).
    Target(u16),
    /// This many extra targets (INCIDENT-03).
    Targets(usize),
    /// The selector bit set, as AH gives it: one bit (INCIDENT-04).
    SelectorBit,
    /// The selector set as facts 4.13 reads it: the bit, a 9-bit byte length, the bytes.
    SelectorBytes(u16),
    /// A payload of this many bytes (INCIDENT-05).
    Payload(usize),
    /// Legal: 25 targets, a 500-byte payload, row 7762 (AH "incident").
    AtLimits,
}
