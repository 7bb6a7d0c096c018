//! Deliberate misbehaviour, so conformance cases can prove the emulated client catches
//! each broken rule (design "The emulated client": a check no test can make fire is a
//! defect). Each fault names the rule of `rules.md` it breaks.

use vex_rules::Rule;

/// One way to break one client rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fault {
    /// BAP-01: the service-17 frame carries magic 2.
    BadOuterMagic,
    /// BAP-02: the join_result frame's GCM tag has a flipped bit.
    CorruptTag,
    /// BAP-02: the channel-start answer comes as an encrypted frame, before the hello.
    EncryptedBeforeHello,
    /// BAP-01: the channel-start answer has frame type 3.
    BadFrameType,
    /// BAP-03: after the join burst, one encrypted frame whose inner message is 4 bytes.
    ShortInnerHeader,
    /// BAP-03: after the join burst, one encrypted frame whose inner message is 1 byte.
    TinyInnerMessage,
    /// BAP-04: after the join burst, one frame on service 400.
    ServiceIdOutOfRange,
    /// BAP-05: the service-17 response echoes the wrong task id.
    WrongTaskEcho,
    /// BAP-05: the service-17 response carries status 500.
    ResponseStatus,
    /// BAP-06: service 16 gets no response.
    UnansweredLookup,
    /// BAP-06: service 250 gets two responses.
    DuplicateEcho,
    /// BAP-06: the service-26 envelope's HMAC has a flipped bit, so its decoder refuses it.
    HelloBadMac,
    /// BAP-12: service 17 gives address 0.0.0.0.
    ZeroLookupAddress,
    /// BAP-12: service 17 gives port 0.
    ZeroLookupPort,
    /// BAP-12: service 17 is 15 bytes.
    ShortLookupResponse,
    /// BAP-12: service 17's reserved field is 1.
    LookupReserved,
    /// BAP-12: service 17 echoes another host id.
    LookupWrongId,
    /// BAP-13: service 7 carries discriminator 1.
    Service7Discriminator,
    /// BAP-13: service 7 carries session id 0.
    ZeroSessionId,
    /// BAP-13: service 7 is 136 bytes.
    ShortService7,
    /// ENV-01: message 1 of the join burst carries discriminator 0.
    PushDiscriminator,
    /// ENV-02: message 2 of the join burst declares 0xFFFF0000 bytes, far more than follow.
    PayloadLenLarger,
    /// ENV-03: message 54 of the join burst declares payload_len 0xFFFFFF80.
    PayloadLenHuge,
    /// ENV-04: after the join burst, a push with msg_type 59.
    UnknownMessageId,
    /// ENV-05: message 4's envelope carries another session id.
    JoinResultWrongSession,
    /// ENV-05: a push on the lobby link after service 17, when no activity client exists.
    PushWithoutSession,
    /// ENV-06: a message 1 pushed right after service 7, before any join.
    PushBeforeJoin,
    /// ENV-07: keepalive pushes carry the session id plus one.
    WrongSessionAfterJoin,
    /// ENV-09: session ids are a bare counter (1, 2, ...).
    BareSessionId,
    /// ENV-10 (duty): service-9 pushes carry sequence 5.
    PushSequence,
    /// JOIN-02 (duty): the burst has no message 2.
    BurstWithoutWorldGlobals,
    /// SLOTS-02 (duty): every keepalive also sends message 0.
    SlotsOnTimer,
    /// LINK-03 (duty): the keepalive runs every 4 s.
    SlowKeepalive,
    /// JOIN-01: the burst sends message 0 before message 4.
    BurstOrder,
    /// JOIN-03: message 4 is cut to 700 bytes.
    ShortJoinResult,
    /// JOIN-04: message 4's result is -1 (wire 0).
    JoinRejected,
    /// JOIN-05: message 4 echoes a different nonce.
    NonceMismatch,
    /// JOIN-05: message 4 echoes a host id other than the join's.
    WrongHostId,
    /// JOIN-06: message 4 echoes host id 0.
    ZeroHostId,
    /// JOIN-09: the burst has no message 12.
    NoMembership,
    /// GLOBAL-01: message 1 is cut to 100 bytes.
    ShortGlobalState,
    /// GLOBAL-02: message 1's bubble count is one more than the scenario's.
    BubbleCountMismatch,
    /// GLOBAL-03: message 1's slice-set states are written without their bias of 128.
    UnbiasedBubbleStates,
    /// GLOBAL-04: message 1 of the burst carries a rebuilt descriptor (one bit differs).
    RebuiltDescriptor,
    /// WORLD-01: message 2's tick period is 0.
    ZeroTickPeriod,
    /// WORLD-02: message 2's tick period is NaN.
    NanTickPeriod,
    /// MEMBER-02: message 12's table holds another member, not the local player.
    ForeignMembership,
    /// BHS-01: message 54 declares 40 rows.
    TooManyHostRows,
    /// AUTH-01: message 5 echoes the client's epoch plus one.
    WrongEpochEcho,
    /// AUTH-02: a message 5 rides in the join burst, before any message 52.
    AuthBeforeEpoch,
    /// AUTH-04: message 5 has roster_enable 0.
    RosterDisabled,
    /// AUTH-05: message 5's first object block declares one bit more than it holds.
    WrongRemainder,
    /// AUTH-06: message 5 writes a Sense bit in the type-17 block; that slot has no Sense
    /// schema.
    SenseBitWithoutSchema,
    /// AUTH-07: message 5's first group is keyed 0x811C9DC5.
    EmptyGroupKey,
    /// AUTH-08: message 5 leaves out the block of one registered slot.
    MissingBlock,
    /// AUTH-12: message 5 grants bubble 0, which this build never applies.
    GrantBubbleZero,
    /// SLOT-01: message 5's first block names slot index -1.
    UnresolvableRef,
    /// SLOT-02: message 5 carries a block of type 12, which has no descriptor.
    DescriptorlessType,
    /// T17-01: message 5's type-17 body carries lifetime state 11.
    LifetimeStateEleven,
    /// AUTH-10: message 5 is padded past the per-tick budget of 471,859 bytes.
    OverBudgetAuthUpdate,
    /// T17-03: message 5's type-17 switch count says 51, one above the list.
    SwitchListOverflow,
    /// BODY-05: message 5's type-17 definition-ref count says 7, one above the array.
    DefinitionRefsOverflow,
    /// EPOCH-01: message 44 repeats the epoch the client holds.
    RepeatedEpoch,
    /// EPOCH-01: message 44 skips an epoch.
    SkippedEpoch,
    /// EPOCH-02: message 44 sets the abort bit.
    AbortEpoch,
    /// STICKY-02: message 44 sets the abort bit, and the whole roster follows it.
    RosterAfterAbort,
    /// INCIDENT-01: an incident names row 7,763, past the table.
    IncidentPastTable,
    /// INCIDENT-02: an incident names row 4690, whose type code is -1.
    IncidentCrashingRow,
    /// INCIDENT-03: an incident carries 26 extra targets.
    IncidentTooManyTargets,
    /// INCIDENT-04: an incident sets the compressed target selector bit.
    IncidentCompressedSelector,
    /// INCIDENT-05: an incident carries a 501-byte payload.
    IncidentPayloadTooLong,
    /// AUTH-09 (duty): message 18's roster sends every block reset-only, dropping the
    /// bodies the first roster sent.
    RosterWithoutBodies,
    /// HOST-03 (duty): message 18 gets no answer.
    RefreshIgnored,
    /// HOST-03 (duty): message 18 gets messages 1, 2 and 12 but no message 5.
    RefreshWithoutRoster,
    /// SLOTS-04: every join is granted every slot below the reserve, so a second member
    /// holds the first member's slots.
    JoinGrantIgnoresOthers,
    /// HOST-04 (duty): message 20 gets no message 0.
    SlotRequestIgnored,
    /// HOST-04 (duty): message 20 gets an empty message 0 while slots are free.
    SlotGrantEmpty,
    /// HOST-04 (duty): message 20 gets a message 0 of slots the client holds.
    SlotGrantHeld,
    /// MEMBER-03: every keepalive carries message 12 again, acknowledged or not.
    MembershipOnTimer,
    /// MEMBER-07: a changed member table goes out under the revision before the change.
    MembershipRevisionKept,
    /// MEMBER-01: every member's table names that member alone (one body per binding, as
    /// Sunrise sends a public-target link, facts 4.10).
    MembershipOnlySelf,
    /// BAP-07: after the burst the host replies on service 18, which is send-only.
    ReplyOnSendOnly,
    /// ENV-11: the keepalive also sends message 17, activity_client_keepalive_response, a
    /// name-only id.
    KeepaliveResponse,
    /// JOIN-07 (duty): join_result's keepalive interval is 0.
    ZeroKeepaliveInterval,
    /// LEAVE-01: message 15 gets no answer.
    LeaveIgnored,
    /// LEAVE-01: the message 5 answering message 15 keeps every key present.
    LeaveKeepsPresence,
    /// LEAVE-02: the leave delta is followed by the whole roster again.
    RosterAfterLeave,
    /// LINK-01: after the join burst the host never sends again.
    SilentAfterJoin,
    /// LINK-01: the host closes the activity link after the first message 5.
    CloseAfterJoin,
}

impl Fault {
    /// Every fault, in declaration order.
    pub const ALL: [Fault; 89] = [
        Fault::BadOuterMagic,
        Fault::BadFrameType,
        Fault::CorruptTag,
        Fault::EncryptedBeforeHello,
        Fault::ShortInnerHeader,
        Fault::TinyInnerMessage,
        Fault::ServiceIdOutOfRange,
        Fault::WrongTaskEcho,
        Fault::ResponseStatus,
        Fault::UnansweredLookup,
        Fault::DuplicateEcho,
        Fault::HelloBadMac,
        Fault::ZeroLookupAddress,
        Fault::ZeroLookupPort,
        Fault::ShortLookupResponse,
        Fault::LookupReserved,
        Fault::LookupWrongId,
        Fault::Service7Discriminator,
        Fault::ZeroSessionId,
        Fault::ShortService7,
        Fault::PushDiscriminator,
        Fault::PayloadLenLarger,
        Fault::PayloadLenHuge,
        Fault::UnknownMessageId,
        Fault::JoinResultWrongSession,
        Fault::PushWithoutSession,
        Fault::PushBeforeJoin,
        Fault::WrongSessionAfterJoin,
        Fault::BareSessionId,
        Fault::PushSequence,
        Fault::BurstWithoutWorldGlobals,
        Fault::SlotsOnTimer,
        Fault::SlowKeepalive,
        Fault::BurstOrder,
        Fault::ShortJoinResult,
        Fault::JoinRejected,
        Fault::NonceMismatch,
        Fault::WrongHostId,
        Fault::ZeroHostId,
        Fault::NoMembership,
        Fault::ShortGlobalState,
        Fault::BubbleCountMismatch,
        Fault::UnbiasedBubbleStates,
        Fault::RebuiltDescriptor,
        Fault::ZeroTickPeriod,
        Fault::NanTickPeriod,
        Fault::ForeignMembership,
        Fault::TooManyHostRows,
        Fault::WrongEpochEcho,
        Fault::AuthBeforeEpoch,
        Fault::RosterDisabled,
        Fault::WrongRemainder,
        Fault::SenseBitWithoutSchema,
        Fault::EmptyGroupKey,
        Fault::MissingBlock,
        Fault::GrantBubbleZero,
        Fault::UnresolvableRef,
        Fault::DescriptorlessType,
        Fault::LifetimeStateEleven,
        Fault::OverBudgetAuthUpdate,
        Fault::SwitchListOverflow,
        Fault::DefinitionRefsOverflow,
        Fault::RepeatedEpoch,
        Fault::SkippedEpoch,
        Fault::AbortEpoch,
        Fault::RosterAfterAbort,
        Fault::IncidentPastTable,
        Fault::IncidentCrashingRow,
        Fault::IncidentTooManyTargets,
        Fault::IncidentCompressedSelector,
        Fault::IncidentPayloadTooLong,
        Fault::RosterWithoutBodies,
        Fault::RefreshIgnored,
        Fault::RefreshWithoutRoster,
        Fault::JoinGrantIgnoresOthers,
        Fault::SlotRequestIgnored,
        Fault::SlotGrantEmpty,
        Fault::SlotGrantHeld,
        Fault::MembershipOnTimer,
        Fault::MembershipRevisionKept,
        Fault::MembershipOnlySelf,
        Fault::ReplyOnSendOnly,
        Fault::KeepaliveResponse,
        Fault::ZeroKeepaliveInterval,
        Fault::LeaveIgnored,
        Fault::LeaveKeepsPresence,
        Fault::RosterAfterLeave,
        Fault::SilentAfterJoin,
        Fault::CloseAfterJoin,
    ];

    /// The rule this fault breaks.
    pub fn rule(self) -> Rule {
        match self {
            Fault::BadOuterMagic | Fault::BadFrameType => Rule::Bap01,
            Fault::CorruptTag | Fault::EncryptedBeforeHello => Rule::Bap02,
            Fault::ShortInnerHeader | Fault::TinyInnerMessage => Rule::Bap03,
            Fault::ServiceIdOutOfRange => Rule::Bap04,
            Fault::WrongTaskEcho | Fault::ResponseStatus => Rule::Bap05,
            Fault::UnansweredLookup | Fault::DuplicateEcho | Fault::HelloBadMac => Rule::Bap06,
            Fault::ZeroLookupAddress
            | Fault::ZeroLookupPort
            | Fault::ShortLookupResponse
            | Fault::LookupReserved
            | Fault::LookupWrongId => Rule::Bap12,
            Fault::Service7Discriminator | Fault::ZeroSessionId | Fault::ShortService7 => {
                Rule::Bap13
            }
            Fault::PushDiscriminator => Rule::Env01,
            Fault::PayloadLenLarger => Rule::Env02,
            Fault::PayloadLenHuge => Rule::Env03,
            Fault::UnknownMessageId => Rule::Env04,
            Fault::JoinResultWrongSession | Fault::PushWithoutSession => Rule::Env05,
            Fault::PushBeforeJoin => Rule::Env06,
            Fault::WrongSessionAfterJoin => Rule::Env07,
            Fault::BareSessionId => Rule::Env09,
            Fault::PushSequence => Rule::Env10,
            Fault::BurstWithoutWorldGlobals => Rule::Join02,
            Fault::SlotsOnTimer => Rule::Slots02,
            Fault::SlowKeepalive => Rule::Link03,
            Fault::BurstOrder => Rule::Join01,
            Fault::ShortJoinResult => Rule::Join03,
            Fault::JoinRejected => Rule::Join04,
            Fault::NonceMismatch | Fault::WrongHostId => Rule::Join05,
            Fault::ZeroHostId => Rule::Join06,
            Fault::NoMembership => Rule::Join09,
            Fault::ShortGlobalState => Rule::Global01,
            Fault::BubbleCountMismatch => Rule::Global02,
            Fault::UnbiasedBubbleStates => Rule::Global03,
            Fault::RebuiltDescriptor => Rule::Global04,
            Fault::ZeroTickPeriod => Rule::World01,
            Fault::NanTickPeriod => Rule::World02,
            Fault::ForeignMembership => Rule::Member02,
            Fault::TooManyHostRows => Rule::Bhs01,
            Fault::WrongEpochEcho => Rule::Auth01,
            Fault::AuthBeforeEpoch => Rule::Auth02,
            Fault::RosterDisabled => Rule::Auth04,
            Fault::WrongRemainder => Rule::Auth05,
            Fault::SenseBitWithoutSchema => Rule::Auth06,
            Fault::EmptyGroupKey => Rule::Auth07,
            Fault::MissingBlock => Rule::Auth08,
            Fault::GrantBubbleZero => Rule::Auth12,
            Fault::UnresolvableRef => Rule::Slot01,
            Fault::DescriptorlessType => Rule::Slot02,
            Fault::LifetimeStateEleven => Rule::T1701,
            Fault::OverBudgetAuthUpdate => Rule::Auth10,
            Fault::SwitchListOverflow => Rule::T1703,
            Fault::DefinitionRefsOverflow => Rule::Body05,
            Fault::RepeatedEpoch | Fault::SkippedEpoch => Rule::Epoch01,
            Fault::AbortEpoch => Rule::Epoch02,
            Fault::RosterAfterAbort => Rule::Sticky02,
            Fault::IncidentPastTable => Rule::Incident01,
            Fault::IncidentCrashingRow => Rule::Incident02,
            Fault::IncidentTooManyTargets => Rule::Incident03,
            Fault::IncidentCompressedSelector => Rule::Incident04,
            Fault::IncidentPayloadTooLong => Rule::Incident05,
            Fault::RosterWithoutBodies => Rule::Auth09,
            Fault::RefreshIgnored | Fault::RefreshWithoutRoster => Rule::Host03,
            Fault::JoinGrantIgnoresOthers => Rule::Slots04,
            Fault::SlotRequestIgnored | Fault::SlotGrantEmpty | Fault::SlotGrantHeld => {
                Rule::Host04
            }
            Fault::MembershipOnTimer => Rule::Member03,
            Fault::MembershipRevisionKept => Rule::Member07,
            Fault::MembershipOnlySelf => Rule::Member01,
            Fault::ReplyOnSendOnly => Rule::Bap07,
            Fault::KeepaliveResponse => Rule::Env11,
            Fault::ZeroKeepaliveInterval => Rule::Join07,
            Fault::LeaveIgnored | Fault::LeaveKeepsPresence => Rule::Leave01,
            Fault::RosterAfterLeave => Rule::Leave02,
            Fault::SilentAfterJoin | Fault::CloseAfterJoin => Rule::Link01,
        }
    }
}

/// The faults a host is told to commit. Empty for a well-behaved host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultPlan(Vec<Fault>);

impl FaultPlan {
    /// A plan with one fault.
    pub fn single(fault: Fault) -> Self {
        Self(vec![fault])
    }

    /// True when the plan includes `fault`.
    pub fn has(&self, fault: Fault) -> bool {
        self.0.contains(&fault)
    }
}
