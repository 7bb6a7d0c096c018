//! Deliberate misbehaviour, so conformance cases can prove the emulated client catches
//! each broken rule (design "The emulated client": a check no test can make fire is a
//! defect). Each fault is declared once, below: the rule of `rules.md` it breaks, what the
//! emulated client also reports because of it, what the client must do for it to show,
//! how many members it needs and how long it runs. Everything else is generated from that.
//!
//! What else a fault causes: a route that stalls never reaches E, G and M (JOIN-09) and
//! leaves its request unanswered (BAP-06), and the answer to the next request is then not
//! the head of the client's ring (BAP-16); a refused join_result leaves the rest of the
//! burst before the join (ENV-06, and JOIN-01 when the burst no longer starts with an
//! accepted message 4); a zero host id drops every later push (ENV-07); a skipped group
//! leaves its registered slots without blocks (AUTH-08); a dropped burst message breaks the
//! burst (JOIN-02); a dropped or missing keepalive leaves message 1 overdue (LINK-03); a
//! roster ignored under the give-up flag follows the abort bit that set it (EPOCH-02), and
//! the rosters after an abort bit or an over-budget roster are ignored (STICKY-02); pushes
//! the client drops leave its first message 52 unanswered, and a roster it misreads or
//! that lost its changes says what the one before said (AUTH-16); a
//! member table the client does not apply leaves it without the member that joined
//! (MEMBER-01).

use vex_rules::{Choice, Rule};

/// What the emulated client does after the join so that a fault can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAction {
    /// Stays to the end of the run.
    Stay,
    /// Leaves with message 15.
    Leave,
    /// Returns slots with message 21 and asks for more with message 20.
    RequestSlots,
    /// The activity's last member leaves with message 15; the others stay.
    LastLeaves,
    /// Reports its identity with message 23.
    ReportIdentity,
    /// Asks for the whole snapshot with message 18.
    Refresh,
    /// Moves into the next bubble with message 22, then asks for its roster.
    MoveRegion,
    /// Changes its patch epoch (message 52), then asks for the snapshot with message 18.
    ChangeEpoch,
    /// Asks to start the activity anew with message 11.
    StartActivity,
    /// Asks for a purge with message 27, then gives up authority with message 33.
    PurgeAndAbdicate,
    /// Sends a service 6 that does not decode (BAP-14).
    ProbeMalformedSelection,
    /// Asks for the snapshot with message 18 on service-8 discriminator 2 (HOST-10).
    ProbeDiscriminatorTwo,
    /// Sends a message 18 naming a session the link does not own, then a real one
    /// (HOST-06).
    ProbeForeignSession,
    /// Sends a message id outside the table, then a message 18 (HOST-01).
    ProbeUnknownMessage,
    /// Sends message 5, which only a host sends, then a message 18 (HOST-01).
    ProbeHostMessage,
    /// Sends a message 23 cut short, then a message 18 (HOST-01).
    ProbeShortBody,
    /// Asks for the snapshot with a message 18 that has 4 bytes past its body (HOST-03).
    ProbeTrailingBytes,
    /// Returns slots with message 21 and asks for all 8,192 with message 20 (HOST-04).
    ProbeLargeSlotRequest,
    /// Calls every lobby service of the registry on the lobby link before the host
    /// lookup.
    LobbyCalls,
    /// Probes the session it is in with QoS over UDP.
    ProbeQos,
    /// Opens a bdNet association with the host's UDP port and pings over it.
    Associate,
}

/// How long a fault's run lasts unless it says otherwise, in milliseconds.
pub const RUN_MS: u64 = 5_000;

macro_rules! faults {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident => $rule:ident
            $(, on $choice:ident)?
            $(, also [$($also:ident),*])?
            $(, script $script:ident)?
            $(, members $members:literal)?
            $(, runs $runs:literal)?;
    )*) => {
        /// One way to break one client rule.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Fault {
            $($(#[doc = $doc])* $name,)*
        }

        impl Fault {
            /// Every fault, in declaration order.
            pub const ALL: &'static [Fault] = &[$(Fault::$name),*];

            /// The rule this fault breaks.
            pub fn rule(self) -> Rule {
                match self { $(Fault::$name => Rule::$rule),* }
            }

            /// The choice of Vex's the finding rests on, when the pages and the facts do not
            /// say what it breaks: then the finding is advisory.
            pub fn on(self) -> Option<Choice> {
                match self { $(Fault::$name => None $(.or(Some(Choice::$choice)))?),* }
            }

            /// What the emulated client also reports because of it (see the module doc).
            pub fn also(self) -> &'static [Rule] {
                match self { $(Fault::$name => &[$($(Rule::$also),*)?]),* }
            }

            /// What the client must do for the fault to show.
            pub fn needs(self) -> ClientAction {
                match self { $(Fault::$name => faults!(@or ClientAction::Stay $(, ClientAction::$script)?)),* }
            }

            /// Members of the activity the fault needs.
            pub fn members(self) -> usize {
                match self { $(Fault::$name => faults!(@or 1 $(, $members)?)),* }
            }

            /// How long its run lasts, in milliseconds.
            pub fn runs_ms(self) -> u64 {
                match self { $(Fault::$name => faults!(@or RUN_MS $(, $runs)?)),* }
            }
        }
    };
    (@or $default:expr) => { $default };
    (@or $default:expr, $value:expr) => { $value };
}

faults! {
    /// BAP-01: the service-17 frame carries magic 2.
    BadOuterMagic => Bap01;
    /// BAP-02: the join_result frame's GCM tag has a flipped bit.
    CorruptTag => Bap02;
    /// BAP-02: the channel-start answer comes as an encrypted frame, before the hello.
    EncryptedBeforeHello => Bap02;
    /// BAP-01: the channel-start answer has frame type 3.
    BadFrameType => Bap01;
    /// BAP-03: after the join burst, one encrypted frame whose inner message is 4 bytes.
    ShortInnerHeader => Bap03;
    /// BAP-03: after the join burst, a push on service 8 whose header stops 5 bytes into
    /// the 8-byte account handle (9 of its 14 bytes).
    ShortServiceEightHeader => Bap03;
    /// BAP-03: after the join burst, one encrypted frame whose inner message is 1 byte.
    TinyInnerMessage => Bap03;
    /// BAP-04: after the join burst, one frame on service 400.
    ServiceIdOutOfRange => Bap04;
    /// BAP-05: the service-17 response echoes the wrong task id.
    WrongTaskEcho => Bap05, also [Bap06, Bap16, Join09];
    /// BAP-05: the service-17 response carries status 500.
    ResponseStatus => Bap05, also [Bap06, Bap16, Join09];
    /// BAP-06: service 16 gets no response, so the echo's answer is not the head of the
    /// client's ring either (BAP-16).
    UnansweredLookup => Bap06, also [Bap16, Join09];
    /// BAP-16: service 16's response goes out after the echo's, which the client asked
    /// for after it.
    LookupAnsweredLate => Bap16, also [Bap06];
    /// BAP-06: service 250 gets two responses.
    DuplicateEcho => Bap06;
    /// BAP-17: the service-26 envelope's HMAC has a flipped bit, so its decoder refuses it
    /// and the route stalls.
    HelloBadMac => Bap17, also [Join09];
    /// BAP-17: the service-26 envelope is 83 bytes.
    HelloShort => Bap17, also [Join09];
    /// BAP-17: the service-26 envelope's length field says 81, not 80.
    HelloLengthField => Bap17, also [Join09];
    /// BAP-12: service 17 gives address 0.0.0.0.
    ZeroLookupAddress => Bap12, also [Join09];
    /// BAP-12: service 17 gives port 0.
    ZeroLookupPort => Bap12, also [Join09];
    /// BAP-12: service 17 is 15 bytes.
    ShortLookupResponse => Bap12, also [Join09];
    /// BAP-12: service 17's reserved field is 1.
    LookupReserved => Bap12, also [Join09];
    /// BAP-12: service 17 echoes another host id.
    LookupWrongId => Bap12, also [Join09];
    /// BAP-13: service 7 carries discriminator 1.
    Service7Discriminator => Bap13, also [Join09];
    /// BAP-13: service 7 carries session id 0.
    ZeroSessionId => Bap13, also [Join09];
    /// BAP-13: service 7 is 136 bytes.
    ShortService7 => Bap13, also [Join09];
    /// ENV-01: message 1 of the join burst carries discriminator 0.
    PushDiscriminator => Env01, also [Join02, Join09];
    /// ENV-02: message 2 of the join burst declares 0xFFFF0000 bytes, far more than follow.
    PayloadLenLarger => Env02;
    /// ENV-02: the keepalive's message 1 declares one byte fewer than follow.
    PayloadLenSmaller => Env02, also [Global01];
    /// ENV-03: message 54 of the join burst declares payload_len 0xFFFFFF80.
    PayloadLenHuge => Env03;
    /// ENV-04: after the join burst, a push with msg_type 59.
    UnknownMessageId => Env04;
    /// ENV-04: after the join burst, a push of message 10, which the client makes inside
    /// its own process and has no handler for on the wire.
    LocalMessagePushed => Env04;
    /// ENV-05: message 4's envelope carries another session id.
    JoinResultWrongSession => Env05, also [Env06, Join01, Join09];
    /// ENV-05: a push on the lobby link after service 17, when no activity client exists.
    PushWithoutSession => Env05;
    /// ENV-06: a message 1 pushed right after service 7, before any join.
    PushBeforeJoin => Env06, also [Join01];
    /// ENV-07: keepalive pushes carry the session id plus one.
    WrongSessionAfterJoin => Env07, also [Link03, Auth16];
    /// ENV-08: service 7 gives every link the first session's id, so two members are told
    /// one session is theirs.
    SharedSessionId => Env08, members 2;
    /// ENV-09: session ids are a bare counter (1, 2, ...).
    BareSessionId => Env09, also [Join09];
    /// ENV-09: session ids carry class 0x0021, the account half and the index kept.
    SessionClassWrong => Env09, also [Join09];
    /// ENV-09: session ids carry another account's half, the class and the index kept.
    SessionOtherAccount => Env09, also [Join09];
    /// ENV-10 (duty): service-9 pushes carry sequence 5.
    PushSequence => Env10;
    /// JOIN-02 (duty): the burst has no message 2.
    BurstWithoutWorldGlobals => Join02;
    /// JOIN-02 (duty): the burst sends message 2 before message 1.
    BurstWorldBeforeGlobal => Join02;
    /// SLOTS-02 (duty): every keepalive also sends message 0.
    SlotsOnTimer => Slots02;
    /// SLOTS-02 (duty): a message 0 follows the first roster, answering no join and no
    /// message 20.
    GrantAfterFirstRoster => Slots02;
    /// LINK-03 (duty): the keepalive runs every 5 s, as Sunrise's does (facts 7 item 8).
    SlowKeepalive => Link03;
    /// JOIN-01: the burst sends message 0 before message 4.
    BurstOrder => Join01, also [Env06, Join02];
    /// JOIN-03: message 4 is cut to 700 bytes.
    ShortJoinResult => Join03, also [Env06, Join09];
    /// JOIN-04: message 4's result is -1 (wire 0).
    JoinRejected => Join04, also [Env06, Join09];
    /// JOIN-05: message 4 echoes a different nonce.
    NonceMismatch => Join05, also [Env06, Join09];
    /// JOIN-05: message 4 echoes a host id other than the join's.
    WrongHostId => Join05, also [Env06, Join09];
    /// JOIN-06: message 4 echoes host id 0.
    ZeroHostId => Join06, also [Env07, Join02, Join09, Auth16];
    /// JOIN-09: the burst has no message 12, and none follows.
    NoMembership => Join09;
    /// GLOBAL-01: message 1 is cut to 100 bytes.
    ShortGlobalState => Global01;
    /// GLOBAL-02: message 1's bubble count is one more than the scenario's.
    BubbleCountMismatch => Global02;
    /// GLOBAL-03: message 1's slice-set states are written without their bias of 128.
    UnbiasedBubbleStates => Global03;
    /// GLOBAL-03: message 1's state byte for bubble 1 is 0x81, every other one right.
    BubbleStateOther => Global03;
    /// GLOBAL-04: message 1 of the burst carries a rebuilt descriptor (one bit differs).
    RebuiltDescriptor => Global04;
    /// WORLD-01: message 2's tick period is 0.
    ZeroTickPeriod => World01;
    /// WORLD-01: message 2's tick period is -1000 / 30.
    NegativeTickPeriod => World01;
    /// WORLD-02: message 2's tick period is NaN.
    NanTickPeriod => World02;
    /// MEMBER-02: message 12's table holds another member, not the local player.
    ForeignMembership => Member02;
    /// BHS-01: message 54 declares 40 rows.
    TooManyHostRows => Bhs01;
    /// AUTH-01: message 5 echoes the client's epoch plus one.
    WrongEpochEcho => Auth01;
    /// AUTH-01: the host keeps the first message 52's epoch, so after the client changes
    /// its epoch every message 5 echoes the one before (facts 4.14 keeps it per link
    /// binding; the pages want the latest).
    PatchEpochLatched => Auth01, script ChangeEpoch;
    /// AUTH-02: a message 5 rides in the join burst, before any message 52.
    AuthBeforeEpoch => Auth02;
    /// AUTH-04: message 5 has roster_enable 0.
    RosterDisabled => Auth04;
    /// AUTH-05: message 5's first object block declares one bit more than it holds.
    WrongRemainder => Auth05;
    /// AUTH-05: message 5's first group carries one more block, reset-only and its
    /// remainder exact, for a slot the client's content does not have.
    UnknownSlotBlock => Auth05;
    /// AUTH-05: message 5's last object block declares 8 bits fewer than it holds (8 more
    /// when it holds fewer), more than a block written for other schemas is off by.
    WrongRemainderLast => Auth05;
    /// AUTH-06: message 5 writes a Sense bit in the type-17 block; that slot has no Sense
    /// schema.
    SenseBitWithoutSchema => Auth06, also [Auth08, Auth16];
    /// AUTH-06: the configuration slot's block (type 8, an Auth schema) leaves out its
    /// reset and root bits.
    AuthBitsLeftOut => Auth06;
    /// AUTH-06: the ghost slot's block (type 65, a Sense schema) leaves out its Sense bit.
    SenseBitLeftOut => Auth06;
    /// AUTH-07: message 5's first group is keyed 0x811C9DC5.
    EmptyGroupKey => Auth07, also [Auth08];
    /// AUTH-08: message 5 leaves out the block of one registered slot.
    MissingBlock => Auth08;
    /// AUTH-12: message 5 grants bubble 0, which this build never applies.
    GrantBubbleZero => Auth12;
    /// SLOT-01: message 5's first block names slot index -1.
    UnresolvableRef => Slot01, also [Auth08];
    /// SLOT-01: message 5's first block names slot type -1.
    UnresolvableType => Slot01, also [Auth08];
    /// SLOT-02: message 5 carries a block of type 12, which has no descriptor.
    DescriptorlessType => Slot02;
    /// SLOT-02: message 5 carries a block of type 72, the last type with no descriptor.
    DescriptorlessTypeLast => Slot02;
    /// T17-01: message 5's type-17 body carries lifetime state 11.
    LifetimeStateEleven => T1701;
    /// AUTH-10: message 5 is padded past the per-tick budget of 471,859 bytes.
    OverBudgetAuthUpdate => Auth10, also [Sticky02];
    /// AUTH-10: every message 5 is padded to 250,000 bytes, and the first roster is sent
    /// twice in the same tick: each fits the budget, the two together do not.
    TwoRostersInOneTick => Auth10, also [Sticky02];
    /// T17-03: message 5's type-17 switch count says 51, one above the list.
    SwitchListOverflow => T1703;
    /// BODY-05: message 5's type-17 definition-ref count says 7, one above the array.
    DefinitionRefsOverflow => Body05;
    /// EPOCH-01: message 44 repeats the epoch the client holds (the epoch a second
    /// member's join makes wait).
    RepeatedEpoch => Epoch01, members 2;
    /// EPOCH-01: message 44 skips an epoch (the epoch a region move makes wait).
    SkippedEpoch => Epoch01, script MoveRegion;
    /// EPOCH-02: message 44 sets the abort bit.
    AbortEpoch => Epoch02, also [Sticky02], members 2;
    /// STICKY-02: message 44 sets the abort bit, and the whole roster follows it.
    RosterAfterAbort => Sticky02, also [Epoch02], members 2;
    /// INCIDENT-01: an incident names row 7,763, past the table.
    IncidentPastTable => Incident01;
    /// INCIDENT-02: an incident names row 4690, whose type code is -1.
    IncidentCrashingRow => Incident02;
    /// INCIDENT-02: an incident names row 795, whose type code is -1.
    IncidentRow795 => Incident02;
    /// INCIDENT-02: an incident names row 5375, whose type code is -1.
    IncidentRow5375 => Incident02;
    /// INCIDENT-03: an incident carries 26 extra targets.
    IncidentTooManyTargets => Incident03;
    /// INCIDENT-04: an incident sets the compressed target selector bit.
    IncidentCompressedSelector => Incident04;
    /// INCIDENT-05: an incident carries a 501-byte payload.
    IncidentPayloadTooLong => Incident05;
    /// AUTH-09 (duty): the roster answering message 18 sends every block reset-only,
    /// leaving out the bodies the host still holds and sends again in its next roster.
    RosterWithoutBodies => Auth09, script Refresh;
    /// HOST-03 (duty): message 18 gets no answer.
    RefreshIgnored => Host03, script Refresh;
    /// HOST-03 (duty): message 11 gets no answer, as if `default_client_activation` were
    /// off while the client expects it on.
    StartActivityIgnored => Host03, script StartActivity;
    /// HOST-03 (duty): message 18 gets messages 1, 2 and 12 but no message 5.
    RefreshWithoutRoster => Host03, on SnapshotGap, script Refresh;
    /// SLOTS-04: every join is granted every slot below the reserve, so a second member
    /// holds the first member's slots.
    JoinGrantIgnoresOthers => Slots04, members 2;
    /// HOST-04 (duty): message 20 gets no message 0.
    SlotRequestIgnored => Host04, script RequestSlots;
    /// HOST-04 (duty): message 20 gets an empty message 0 while slots are free.
    SlotGrantEmpty => Host04, script RequestSlots;
    /// HOST-04 (duty): message 20 gets a message 0 of slots the client holds.
    SlotGrantHeld => Host04, script RequestSlots;
    /// MEMBER-03: every keepalive carries message 12 again, acknowledged or not.
    MembershipOnTimer => Member03, on AckCrossing;
    /// MEMBER-07: a changed member table goes out under the revision before the change.
    MembershipRevisionKept => Member07, also [Member01], members 2;
    /// MEMBER-07: member tables go out under twice their revision, so each change skips
    /// one; the client acknowledges a revision the host does not hold, which the host
    /// then sends again (MEMBER-03).
    MembershipRevisionSkips => Member07, also [Member03], members 2;
    /// MEMBER-01: message 15 leaves the member in its activity's table, so the others go
    /// on being told it is there.
    LeaverKeptInTable => Member01, script LastLeaves, members 2;
    /// HOST-15: message 23 is not committed, so no message 12 carries it.
    IdentityIgnored => Host15, script ReportIdentity;
    /// HOST-14: a public join's burst carries the activity's table, not the player's own
    /// private session's.
    PublicBurstActivityTable => Host14, members 2;
    /// HOST-12 (duty): every message 52, a one-way service-8 report, gets a response on
    /// service 9 with its task id and status 200.
    AnswerPatchEpoch => Host12;
    /// HOST-12 (duty): every message 52 gets an error response, status 500, on service 8
    /// with its task id.
    RefusePatchEpoch => Host12;
    /// BAP-07: after the burst the host replies on service 18, which is send-only.
    ReplyOnSendOnly => Bap07;
    /// BAP-07: after the burst the host replies on service 171, the last send-only id.
    ReplyOnLastSendOnly => Bap07;
    /// ENV-11: the keepalive also sends message 17, activity_client_keepalive_response, a
    /// name-only id.
    KeepaliveResponse => Env11;
    /// ENV-11: the keepalive also pushes message 16, keepalive_request, which only the
    /// client sends.
    PushClientOnlyMessage => Env11;
    /// JOIN-07 (duty): join_result's keepalive interval is 0.
    ZeroKeepaliveInterval => Join07;
    /// LEAVE-01: message 15 gets no answer.
    LeaveIgnored => Leave01, script Leave;
    /// LEAVE-01: the message 5 answering message 15 keeps every key present.
    LeaveKeepsPresence => Leave01, script Leave;
    /// LEAVE-02: the leave delta is followed by the whole roster again.
    RosterAfterLeave => Leave02, script Leave;
    /// LINK-01: after the join burst the host never sends again.
    SilentAfterJoin => Link01, also [Link03], runs 25_000;
    /// LINK-01: the host closes the activity link after the first message 5.
    CloseAfterJoin => Link01;
    /// HOST-05 (duty): message 22 is not committed, so the roster request after a move
    /// gets the old bubble's roster.
    RegionNotCommitted => Host05, script MoveRegion;
    /// HOST-05 (duty): after a move, the player's type-13 body still names the arrival
    /// slice set, not the region message 22 reported.
    StaleParticipationRegion => Host05, script MoveRegion;
    /// AUTH-13: a region move sends the new roster at once, before the client's roster
    /// request (what Sunrise does, facts 7 item 8).
    RosterOnRegionReport => Auth13, script MoveRegion;
    /// T17-06: type-17 current_bubble carries the slice set, not the bubble.
    LifetimeBubbleAsSliceSet => T1706, script MoveRegion;
    /// T17-06: type-17 current_bubble is zero bits, INT32_MIN: the bias left out.
    LifetimeBubbleZeroBits => T1706;
    /// T17-02: the type-17 body is one bit short of its fields, its remainder to match.
    LifetimeBodyShort => T1702;
    /// T17-04: type-17 spawn-point pair 1 is off by its hash but carries index 0 (wire 1).
    SpawnPairHalfOff => T1704;
    /// T17-04: type-17 spawn-point pair 1 is off by its index alone (0 on the wire), its
    /// hash a real one.
    SpawnPairIndexOffOnly => T1704;
    /// T17-07: type-17 join_flag_inverted is 0, as Sunrise sends it.
    JoinFlagZero => T1707;
    /// T17-08: type-17 cycle_override_on is 1, and the built-in scenario authors no phase.
    CycleOverrideWithoutPhase => T1708;
    /// T17-09: type-17 selection_id is zero bits, INT32_MIN.
    SelectionIdZeroBits => T1709;
    /// T17-09: type-17 selection_id is 64, past the 64 records.
    SelectionIdPast63 => T1709;
    /// T24-01: the channel body's row count says 5, one above its four rows.
    ChannelRowsOverflow => T2401;
    /// SLOT-03: the type-18 timer slot carries a body whose clock window is all zeros.
    ZeroedTimerWindow => Slot03;
    /// T3-01: the roster answering message 18 sends the objective without the byte
    /// objective 0 holds (3, set at 2.6 s), and the next roster sends it again.
    SnapshotDropsObjective => T301, script Refresh;
    /// T3-01: the roster answering message 18 sends the objective array absent (objective
    /// 0 holds 3, set at 2.6 s), and the next roster sends it again.
    SnapshotDropsObjectiveArray => T301, script Refresh;
    /// T3-02: the roster answering message 18 sends the objective without its generation,
    /// and the next roster sends it again.
    SnapshotDropsGeneration => T302, script Refresh;
    /// T3-02: every message 5 moves the objective's generation, its bytes kept, and every
    /// keepalive sends the roster again (before the objective has a body, that roster
    /// changes nothing: AUTH-16).
    GenerationOnEverySend => T302, also [Auth16], runs 12_000;
    /// T65-01: a later commit turns the ghost back on without raising its generation.
    GhostChangeWithoutGeneration => T6501;
    /// HOST-08 (duty): message 27 gets no purge notice.
    PurgeIgnored => Host08, on PurgeNoticeLayout, script PurgeAndAbdicate;
    /// HOST-08 (duty): the purge notice gives another reason.
    PurgeNoticeOtherReason => Host08, on PurgeNoticeLayout, script PurgeAndAbdicate;
    /// HOST-08 (duty): the purge notice names one slot fewer.
    PurgeNoticeOtherMask => Host08, on PurgeNoticeLayout, script PurgeAndAbdicate;
    /// HOST-08 (duty): the purge notice is AH's bare 1,024-byte mask, one slot fewer.
    PurgeNoticeBareOtherMask => Host08, script PurgeAndAbdicate;
    /// AUTH-11: the first roster sets bubble 64's authority bit with no token.
    BubbleBitWithoutToken => Auth11;
    /// AUTH-11: the first roster sends bubble 64's token with the authority bit clear.
    BubbleTokenSpent => Auth11;
    /// AUTH-11: every later roster changes bubble 64's token while the grant is held.
    BubbleGrantRenewed => Auth11;
    /// AUTH-11: the first roster grants bubble 64 with token 0.
    BubbleTokenZero => Auth11;
    /// T65-02: the Sense override that finishes a stalled Ghost bar has fraction 1.0.
    GhostFinishAtOne => T6502;
    /// T65-02: the Sense override that finishes a stalled Ghost bar names the generation
    /// before the bar's.
    GhostFinishOldGeneration => T6502;
    /// ENV-12: after the burst, a message 40 (script_state), which drives nothing.
    ScriptStatePushed => Env12;
    /// ENV-12: after the burst, a message 57 (perf_request_reflect), which drives nothing.
    PerfReflectPushed => Env12;
    /// BODY-04: after the burst, a message 24 of 10 bytes, short of its 1,024-byte mask.
    ShortClaim => Body04;
    /// BODY-04: after the burst, a message 37 of 2 bytes, short of its 66 bits.
    ShortConnectivityFailure => Body04;
    /// MEMBER-04: every member's field 1 and field 2 are 0, not -1.
    MemberFieldsZero => Member04;
    /// MEMBER-04: every member's field 2 is 0, field 1 kept at -1.
    MemberField2Only => Member04;
    /// MEMBER-05: the membership epoch follows the revision.
    MembershipEpochMoves => Member05, members 2;
    /// MEMBER-01: message 12's member mask names a lane no member holds.
    MemberMaskWrong => Member01;
    /// MEMBER-01: message 12's host key names no member.
    HostKeyForeign => Member01;
    /// MEMBER-06: region record 1 names ambassador slot 0.
    AmbassadorSlotZero => Member06;
    /// PEER-04: the citizen record of the region the member stands in is 127 bytes.
    CitizenDescriptorShort => Peer04;
    /// PEER-04: the citizen record of the region the member stands in is 129 bytes.
    CitizenDescriptorLong => Peer04;
    /// SEED-01: the first roster's first block has reset 0.
    FirstSendWithoutReset => Seed01;
    /// SEED-05: type-17 lifetime state 4, which the player spawn gate does not accept.
    LifetimeStateFour => Seed05;
    /// SEED-06: the first key's state byte moves on every roster, a per-send counter; a
    /// commit at 4.5 s gives the link a second roster past the warm-up.
    StateByteCounter => Seed06, script Refresh;
    /// AUTH-17 (duty): every message 5 sets the singleton gate bit after its groups.
    SingletonGateSet => Auth17;
    /// AUTH-18: the bubble-authority block carries its header.
    BubbleHeaderSet => Auth18;
    /// AUTH-19: bubble 64's element carries a host token.
    BubbleHostTokenSet => Auth19;
    /// T17-05: the second type-17 slot gets lifetime state 6, the first state 3.
    SecondLifetimeDiffers => T1705;
    /// GLOBAL-07: the burst's message 1 arms slice set 16, past the activity's two
    /// bubbles.
    InitialSliceSetOutside => Global07;
    /// GLOBAL-07: the burst's message 1 arms another spawn set than the selection's.
    InitialSpawnSetOther => Global07;
    /// WORLD-03: message 2's tick period is 50 ms, not 1000 / 30.
    OtherTickPeriod => World03;
    /// SEED-02: every roster leaves the top-level group's presence bit clear.
    TopGroupUnregistered => Seed02;
    /// BAP-15: service 251 answers the echo with a byte.
    EchoWithBody => Bap15;
    /// SEED-03: every type-13 slot gets the body that carries the player key: the key
    /// group's second, and bubble 1's, which shows once the client moves there (Sunrise's
    /// `rosterKeyOnAllSlots`, facts 4.8).
    KeyOnAllParticipationSlots => Seed03, script MoveRegion;
    /// SEED-03: the key group's second type-13 slot gets the player key too.
    KeyOnSecondParticipationSlot => Seed03;
    /// AUTH-16: every keepalive also sends the whole roster again, nothing changed.
    RosterOnKeepalive => Auth16;
    /// AUTH-16: every message 5 after the first leaves its roster out, and every keepalive
    /// sends the blocks again, nothing changed.
    BlocksOnKeepalive => Auth16;
    /// AUTH-16: the first message 52 gets no message 5.
    NoFirstRoster => Auth16, on FirstRosterLatency;
    /// BAP-18: after the first roster, a frame is sealed and never sent, so every later
    /// frame is sealed one nonce ahead.
    LostFrame => Bap18;
    /// BAP-19: service 31 is 127 bytes.
    ShortChannelStart => Bap19;
    /// BAP-19: service 31 is 129 bytes, one past its 128.
    LongChannelStart => Bap19;
    /// BAP-09: after the burst, a push on service 16, a request id the client sends.
    PushOnRequestService => Bap09;
    /// BAP-09: after the burst, a push on service 52, which the client never registers.
    PushOnUnregisteredService => Bap09;
    /// BAP-09: after the burst, a push on service 306, the last request id below the limit.
    PushOnLastRequestService => Bap09;
    /// BAP-10: after the burst, a 7,719-byte push on service 6, which decodes.
    PushOnService6 => Bap10;
    /// BAP-10: after the burst, a push on service 161.
    PushOnService161 => Bap10, on Service161Codec;
    /// BODY-04: after the burst, a 10-byte push on service 6, which does not decode.
    UndecodablePushOnService6 => Body04;
    /// BAP-08: after the burst, a push on service 124 (a subscription lost) of 13 bytes,
    /// one short of its 14.
    SubscriptionLostShort => Bap08;
    /// BAP-08: after the burst, a push on service 124 of 15 bytes, one past its 14.
    SubscriptionLostLong => Bap08;
    /// BODY-04: after the burst, a service-9 body of 16 bytes, one short of its envelope.
    ShortPushEnvelope => Body04;
    /// BODY-04: message 12 of the burst is one byte, so M is never set.
    ShortBurstMembership => Body04, also [Join09];
    /// BODY-04: after the first roster, a one-byte message 12.
    ShortMembership => Body04;
    /// SLOTS-01: message 0 of the burst is 1,023 bytes (dropped, so the client holds no
    /// slot).
    ShortSlotGrant => Slots01;
    /// SLOTS-01: the answer to message 20 is 1,023 bytes (dropped, so the request is not
    /// answered).
    ShortSlotAnswer => Slots01, also [Host04], script RequestSlots;
    /// BODY-04: message 2 of the burst is 4 bytes, one bit short of 33.
    ShortWorldGlobals => Body04;
    /// BODY-04: message 54 of the burst is empty.
    EmptyHostState => Body04;
    /// BODY-04: after the first roster, an empty message 44.
    EmptyEpochAdvance => Body04;
    /// BODY-04: message 5 is cut inside its epoch, at 10 bytes.
    ShortAuthPrefix => Body04;
    /// BODY-04: message 5 is cut inside its last object block.
    TruncatedRoster => Body04;
    /// BODY-04: after the first roster, a two-byte incident, short of its 29 bits.
    ShortIncident => Body04;
    /// BAP-14 (probe): a service 6 that does not decode gets no service 7.
    MalformedSelectionUnanswered => Bap14, also [Join09], script ProbeMalformedSelection, runs 6_000;
    /// HOST-10 (probe): a service-8 message on discriminator 2 is dropped.
    DiscriminatorTwoDropped => Host10, script ProbeDiscriminatorTwo, runs 6_000;
    /// HOST-06 (probe): a message naming a session the link does not own closes the link.
    CloseOnForeignSession => Host06, also [Link01], script ProbeForeignSession, runs 6_000;
    /// HOST-01 (probe): a message id outside the table gets messages 1 and 2, a snapshot's
    /// first parts, where it must be dropped.
    AnswerUnknownMessage => Host01, script ProbeUnknownMessage, runs 6_000;
    /// HOST-16: the client's message 29, the answer to the host's reset, gets messages 1
    /// and 2, a snapshot's first parts, where it gets no reply.
    AnswerResetAcknowledgement => Host16;
    /// HOST-16: the client's message 32, its whole mask answering the host's query, gets
    /// messages 1 and 2, where it gets no reply.
    AnswerFullMask => Host16;
    /// HOST-17: the client's message 33, its abdication, gets messages 1 and 2, where it
    /// gets no reply.
    AnswerAbdication => Host17, script PurgeAndAbdicate;
    /// HOST-01 (probe): a message id outside the table closes the link.
    CloseOnUnknownMessage => Host01, also [Link01], script ProbeUnknownMessage, runs 6_000;
    /// HOST-01 (probe): a message only the host sends, sent by the client, closes the link.
    CloseOnHostMessage => Host01, also [Link01], script ProbeHostMessage, runs 6_000;
    /// HOST-01 (probe): a client message whose body does not decode closes the link.
    CloseOnShortBody => Host01, also [Link01], script ProbeShortBody, runs 6_000;
    /// BODY-07 (probe): a message 18 with bytes past its body is dropped.
    TrailingBytesRefused => Body07, script ProbeTrailingBytes, runs 6_000;
    /// HOST-04 (probe): a message 20 asking for more slots than a join grant is ignored.
    LargeSlotRequestIgnored => Host04, script ProbeLargeSlotRequest, runs 6_000;
    /// BAP-11 (lobby calls): service 23 gets an empty service 24.
    AccountTranslationEmpty => Bap11, script LobbyCalls;
    /// BAP-22 (lobby calls): service 24 echoes another identity than service 23 asked for.
    AccountTranslationWrongIdentity => Bap22, script LobbyCalls;
    /// BAP-22 (lobby calls): service 24's count says 2 over its one entry.
    AccountTranslationCountMismatch => Bap22, script LobbyCalls;
    /// BAP-21 (lobby calls): service 19 (client config) is not protobuf: a length past
    /// its end.
    ClientConfigNotProtobuf => Bap21, script LobbyCalls;
    /// BAP-21 (lobby calls): service 305 (Steam certificate) is a lone field key.
    SteamCertificateNotProtobuf => Bap21, script LobbyCalls;
    /// BAP-06 (lobby calls): service 44 (clan) gets no answer, so every later answer on
    /// the lobby link is not the head of the client's ring (BAP-16) and the route stalls.
    ClanUnanswered => Bap06, also [Bap16, Join09], script LobbyCalls;
    /// BAP-15 (lobby calls): service 13, the reply to the family subscription, carries a
    /// byte.
    SubscribeReplyWithBody => Bap15, script LobbyCalls;
    /// BAP-15 (lobby calls): service 122, the reply to the queuez registration, carries
    /// 16 bytes.
    QueuezRegisterReplyWithBody => Bap15, script LobbyCalls;
    /// BAP-15 (lobby calls): service 303, the reply to the relay registration, carries a
    /// byte.
    RelayReplyWithBody => Bap15, script LobbyCalls;
    /// QZ-01 (lobby calls): the service-123 push names no family.
    QueuezNoFamily => Qz01, script LobbyCalls;
    /// QZ-01 (lobby calls): the family's version is -1.
    QueuezVersionMinusOne => Qz01, script LobbyCalls;
    /// QZ-01 (lobby calls): a second push skips a version (1, then 3).
    QueuezVersionGap => Qz01, script LobbyCalls;
    /// QZ-01 (lobby calls): the character object's key is not its payload's first qword.
    QueuezKeyNotFirstQword => Qz01, script LobbyCalls;
    /// QZ-02 (lobby calls): the service-123 body is cut one byte short.
    QueuezCutShort => Qz02, script LobbyCalls;
    /// QZ-02 (lobby calls): the service-123 family count is written little-endian.
    QueuezLittleEndianCount => Qz02, script LobbyCalls;
    /// QZ-03 (lobby calls): the push names a family the client never subscribed to.
    QueuezUnsubscribedFamily => Qz03, script LobbyCalls;
    /// QZ-03 (lobby calls): family 4's snapshot names seven objects; the family has six
    /// slots.
    QueuezSevenObjects => Qz03, script LobbyCalls;
    /// QZ-06 (lobby calls): the account object goes out raw, one byte past its slot (and
    /// so past the largest payload, QZ-01).
    QueuezRawPastSlot => Qz06, also [Qz01], script LobbyCalls;
    /// QZ-08 (lobby calls): one push of a full account object and a 50,000-byte character
    /// object, past the 143,285 bytes that end the link.
    QueuezTooLarge => Qz08, script LobbyCalls;
    /// WS-02 (lobby calls): web-service replies carry another opcode than their request's.
    WsOpcodeNotEchoed => Ws02, script LobbyCalls;
    /// WS-02 (lobby calls): web-service replies carry another transaction id than their
    /// request's.
    WsTransactionNotEchoed => Ws02, script LobbyCalls;
    /// WS-01 (lobby calls): the equip's error reply (opcode 403) names revision 0 on the
    /// wire, a revision request, where it must send -1.
    WsErrorWithRevision => Ws01, on WebServiceReplyShapes, script LobbyCalls;
    /// WS-01 (lobby calls): the equip of a held item completes naming the revision of its
    /// change, and the service-123 update that would publish it never goes out.
    WsRevisionUnpublished => Ws01, on WebServiceReplyShapes, script LobbyCalls;
    /// WS-01 (lobby calls): the equip of a held item completes naming one revision past
    /// the update that publishes it.
    WsRevisionAhead => Ws01, on WebServiceReplyShapes, script LobbyCalls;
    /// MM-01 (lobby calls): the configuration request (kind 4) gets a search reply.
    MatchmakingWrongShape => Mm01, script LobbyCalls;
    /// MM-03 (lobby calls): the configuration request gets an empty reply, no field 4.
    MatchmakingConfigurationEmpty => Mm03, script LobbyCalls;
    /// MM-01 (lobby calls): the deletes (kinds 3 and 6), whose replies are empty, get a
    /// configuration reply.
    MatchmakingDeleteAnswered => Mm01, script LobbyCalls;
    /// MM-06 (lobby calls): the advertisement replies assign id 0.
    MatchmakingZeroAdvertisementId => Mm06, on MatchmakingFields, script LobbyCalls;
    /// MM-06 (lobby calls): the advertisement's success leaves its id out.
    MatchmakingAdvertisementIdMissing => Mm06, on MatchmakingFields, script LobbyCalls;
    /// PEER-04: the located session's join descriptor is 127 bytes.
    LocatedDescriptorShort => Peer04, on MatchmakingFields, script LobbyCalls;
    /// PEER-04: the located session's join descriptor is 129 bytes.
    LocatedDescriptorLong => Peer04, on MatchmakingFields, script LobbyCalls;
    /// SIGNON-01: the SignOn success leaves out field 1, the reserved bytes.
    SignOnReservedMissing => Signon01;
    /// SIGNON-01: the SignOn success leaves out field 4, the session token.
    SignOnTokenMissing => Signon01;
    /// SIGNON-01: the SignOn success leaves out field 7, the BAP port.
    SignOnPortMissing => Signon01;
    /// SIGNON-01: the SignOn success's key-exchange block (field 12) has a 127-byte f4.
    SignOnKeyExchangeShort => Signon01;
    /// SIGNON-02: the SignOn response leaves out field 1, the outcome.
    SignOnOutcomeMissing => Signon02;
    /// SIGNON-02: the SignOn response says queued (1) without the queued sub-message.
    SignOnQueuedBare => Signon02, on SignOnLayout;
    /// SIGNON-03: the SignOn success's AES key (field 2) is 15 bytes.
    SignOnShortKey => Signon03;
    /// SIGNON-03: the SignOn success's BAP port (field 7) is 0.
    SignOnZeroPort => Signon03;
    /// SIGNON-04: the SignOn success carries field 13 true, which blocks five launch
    /// handlers.
    SignOnBlockLaunch => Signon04;
    /// SIGNON-06: SignOn answers queued without the position.
    SignOnQueuedWithoutPosition => Signon06, on SignOnLayout;
    /// SIGNON-06: SignOn answers queued without the time remaining.
    SignOnQueuedWithoutTimeRemaining => Signon06, on SignOnLayout;
    /// SIGNON-06: SignOn answers queued without the retry delay.
    SignOnQueuedWithoutRetryDelay => Signon06, on SignOnLayout;
    /// SIGNON-08: SignOn answers throttled without its message, then success.
    SignOnThrottledWithoutMessage => Signon08, on SignOnLayout;
    /// SIGNON-09: SignOn answers an error without its reason.
    SignOnErrorWithoutReason => Signon09, on SignOnLayout;
    /// SIGNON-10: SignOn answers an error with a title and no body.
    SignOnErrorTitleOnly => Signon10, on SignOnLayout;
    /// SIGNON-10: SignOn answers an error with a body and no title.
    SignOnErrorBodyOnly => Signon10, on SignOnLayout;
    /// PB-01: the SignOn success's token is 569 bytes, one past its capacity.
    SignOnTokenTooLong => Pb01;
    /// PB-01: the SignOn response names nine features, one past the array's capacity.
    SignOnNineFeatures => Pb01, on SignOnLayout;
    /// MANIFEST-01: the manifest's signature has a flipped bit.
    ManifestBadSignature => Manifest01;
    /// MANIFEST-01: the manifest is 263 bytes, short of its signature prefix.
    ManifestShort => Manifest01;
    /// MANIFEST-02: the manifest is not there (HTTP 404).
    ManifestNotFound => Manifest02;
    /// MANIFEST-02: the manifest is signed, but its body is not the manifest's protobuf.
    ManifestUndecodable => Manifest02;
    /// QOS-02: the host never answers the QoS probe.
    QosUnanswered => Qos02, on QosReplyWait, script ProbeQos, runs 8_000;
    /// QOS-03: the reply's probe id is not the request's.
    QosProbeIdWrong => Qos03, script ProbeQos;
    /// QOS-03: the reply's send time is one past the request's.
    QosSendTimeWrong => Qos03, script ProbeQos;
    /// QOS-03: the reply's security id differs from the request's in its top bit.
    QosSecurityIdWrong => Qos03, script ProbeQos;
    /// QOS-03: the reply's type is 40, the request's.
    QosReplyTypeWrong => Qos03, script ProbeQos;
    /// QOS-03: payload_len says one byte more than follows.
    QosPayloadLenLong => Qos03, script ProbeQos;
    /// QOS-03: payload_len says one byte less than follows.
    QosPayloadLenShort => Qos03, script ProbeQos;
    /// QOS-04: the probe of the running session is refused (accepted 0).
    QosRefused => Qos04, script ProbeQos;
    /// QOS-05: the reply carries no payload.
    QosPayloadEmpty => Qos05, script ProbeQos;
    /// QOS-05: the payload stops after the advertisement's header, with no descriptor.
    QosPayloadShort => Qos05, script ProbeQos;
    /// QOS-01: the advertisement's protocol version is 0xA4F7, one below the client's.
    QosVersionWrong => Qos01, script ProbeQos;
    /// QOS-01: the advertisement's kind is 4.
    QosKindWrong => Qos01, script ProbeQos;
    /// QOS-01: the advertisement's newest build is 86,656, one below this one.
    QosBuildHighOld => Qos01, script ProbeQos;
    /// QOS-01: the advertisement's oldest build is 86,658, one above this one.
    QosBuildLowNew => Qos01, script ProbeQos;
    /// QOS-06: the advertisement is payload type 1, not the group-session descriptor.
    QosPayloadTypeFull => Qos06, script ProbeQos;
    /// QOS-06: the advertisement names another session than the one probed.
    QosSessionIdWrong => Qos06, on QosSecurityId, script ProbeQos;
    /// PEER-07: the host never answers the init.
    InitAckUnanswered => Peer07, on AssociationWait, script Associate, runs 8_000;
    /// PEER-07: the init ack's header carries sequence 1, not a handshake packet's 0.
    InitAckSequenceSet => Peer07, script Associate;
    /// PEER-08: the init ack is addressed to a tag one off the requester's.
    InitAckToOtherTag => Peer08, script Associate;
    /// PEER-08: the init ack's second responder tag differs from its first.
    InitAckTagsDiffer => Peer08, script Associate;
    /// PEER-08: the init ack names a requester tag one off the init's.
    InitAckRequesterTagWrong => Peer08, script Associate;
    /// PEER-08: the init ack of a fresh association carries an old responder tag.
    InitAckOldTagsSet => Peer08, script Associate;
    /// PEER-08: the init ack's security id is not the init's.
    InitAckSecurityIdWrong => Peer08, script Associate;
    /// PEER-08: the cookie ack is addressed to a tag one off the requester's.
    CookieAckToOtherTag => Peer08, script Associate;
    /// PEER-09: the cookie ack does not repeat the requester's security id.
    CookieAckSecurityIdWrong => Peer09, script Associate;
    /// PEER-10: the cookie ack's key is not a point of the curve.
    CookieAckKeyOffCurve => Peer10, on AssociationKeyForm, script Associate;
    /// PEER-10: the cookie ack's key field is all zeros, no exported key.
    CookieAckKeyNotExported => Peer10, on AssociationKeyForm, script Associate;
    /// PEER-11: the pong's record carries a MAC with one bit flipped.
    RecordMacWrong => Peer11, on RecordCrypto, also [Peer17], script Associate;
    /// PEER-12: every record after the first reuses the sequence of the one before it.
    RecordReplayed => Peer12, script Associate;
    /// PEER-13: the pong declares struct_size 23, one below its id's.
    PongSizeWrong => Peer13, on PeerStructSizes, script Associate;
    /// PEER-15: the pong's container holds peer message 43 (test) in its place.
    PeerTestMessage => Peer15, script Associate;
    /// PEER-16: the host answers a time-synchronize reply too, echoing it as Sunrise does.
    TimeSyncReplyAnswered => Peer16, on PeerMessageBodies, script Associate;
    /// PEER-01: the host numbers its established datagrams 128 past its own, so the first
    /// is 129 ahead of the client's window.
    PacketFarAhead => Peer01, script Associate;
    /// PEER-14: the host's established datagrams carry a guard one off its channel id mod 4;
    /// no membership comes through.
    EstablishedGuardWrong => Peer14, on EstablishedLayout, also [Peer17], script Associate, runs 8_000;
    /// PEER-17: the host refuses a join-request that passes every check, with reason 27.
    JoinRefusedWrongly => Peer17, on PeerMessageBodies, script Associate;
    /// PEER-17: the host never answers a join-request.
    JoinUnanswered => Peer17, on PeerMessageBodies, script Associate, runs 8_000;
    /// PEER-02: the host's member entry holds an address of 85 bytes.
    MemberAddrShort => Peer02, script Associate;
    /// PEER-02: the host's member entry holds an address of 87 bytes.
    MemberAddrLong => Peer02, script Associate;
    /// PEER-18: the host's member entry holds an address of 89 bytes, past its 88-byte
    /// slot, which nanopb refuses.
    MemberAddrPastSlot => Peer18, script Associate;
    /// PEER-02: the host's member entry holds a machine id of 7 bytes.
    MemberMachineIdShort => Peer02, script Associate;
    /// PEER-18: the host's member entry holds a machine id of 9 bytes, past its slot.
    MemberMachineIdPastSlot => Peer18, script Associate;
    /// PEER-02: the client's member entry carries its join id plus one: a stale join.
    MemberJoinIdStale => Peer02, script Associate;
    /// PEER-19: the host's member entry owns two player slots.
    MemberTwoPlayerSlots => Peer19, script Associate;
    /// PEER-19: the host member index is the member count, past the table.
    HostIndexPastMembers => Peer19, script Associate;
    /// PEER-19: the host's connection state is 11, past 10 `_established`.
    MemberStatePast10 => Peer19, script Associate;
    /// PEER-18: the nanopb region is not a protobuf message (a field of wire type 7).
    MembershipRootUndecodable => Peer18, script Associate;
    /// PEER-20: a player delta with no profile (the joiner's, slot 0).
    PlayerWithoutProfile => Peer20, script Associate;
    /// PEER-22: the membership hash has its low bit flipped.
    MembershipHashWrong => Peer22, on SessionStateReplica, script Associate;
}
