//! What the adversary does in one run: a breach of a rule of `rules.md`, or a freedom the
//! pages leave a host. Each family of modes is carried out by the module of its concept.

pub use crate::mode_link::{Answer, Envelope, Hello, Incident, Leave, Reply};

/// One run's behaviour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// Every default: what the pages ask.
    Honest,
    /// Message 5's prefix and structure (AH "Message 5", "The bubble-authority block").
    Roster(Roster),
    /// The type-17 body (AH "Type 17, activity_lifetime_sensor").
    Lifetime(Lifetime),
    /// The Auth bodies the host retains (AH "How the client applies an Auth body", types
    /// 3 and 65).
    Held(Held),
    /// Messages 0, 1, 2, 4, 44 and 54 and the join burst.
    Small(Small),
    /// Message 12 (facts 4.10; MEMBER-*).
    Member(Member),
    /// What the host answers, and when (SR "Answer what was asked").
    Answer(Answer),
    /// The service-9 envelope, the BAP services around it.
    Envelope(Envelope),
    /// Message 19 (AH "incident, message 19").
    Incident(Incident),
}

/// Message 5's prefix and structure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Roster {
    /// Adds `1` (wrapping) to patch-epoch word `0` in every message 5 (AUTH-01).
    EpochWord(usize, i64),
    /// Flips bit `0` (0 = the top bit of word 0, 127 the low bit of word 1) (AUTH-01).
    EpochBit(usize),
    /// Sends the two epoch words swapped (AUTH-01).
    EpochSwapped,
    /// Keeps the first epoch the client reported after it changed it (AUTH-01).
    EpochStale,
    /// roster_enable 0 on every message 5 from this send on (AUTH-04).
    EnableOffFrom(u32),
    /// A message 5 in the join burst, before the first message 52: echoing zeros, or the
    /// epoch the client will report, guessed (AUTH-02).
    InBurst {
        /// The guessed epoch rather than zeros.
        guessed: bool,
    },
    /// A block of the object of bubble 1 (the client stands in bubble 0, so it skips it)
    /// with its remainder off by this much (AUTH-05).
    RemainderSkipped(i32),
    /// The ghost-link block, which the client applies, with its remainder off (AUTH-05).
    RemainderApplied(i32),
    /// A block whose ClientRef does not resolve (AUTH-05).
    Unresolved(Unresolved),
    /// One registered object's block left out (AUTH-08).
    Missing(Missing),
    /// The singleton gate bit set, on every message 5 or from this send on (AUTH-17).
    GateFrom(u32),
    /// The bubble block's header_present set (AUTH-18).
    BubbleHeader,
    /// A bubble element's host_token_present set (AUTH-19).
    HostToken,
    /// The top-level (or per-bubble, `sub`) state byte moves on this send, and stays
    /// (SEED-06).
    StateBump {
        /// The 0-based message 5 of the link it moves on.
        send: u32,
        /// The per-bubble sub-block's state byte rather than the top-level one.
        sub: bool,
    },
    /// Legal: the state bytes move on each of the first three sends, from this sequence
    /// and mod 128, then hold (facts 4.7 "stateSequence": "It moves (mod 128) on each of
    /// the first 3 sends per link").
    StateWarmUp(i8),
    /// Legal: a hardwipe token the client does not check (AUTH-03: "checked only when
    /// SignOn named use_hardwipe_tokens").
    Hardwipe(u8),
    /// Legal: the 64-bit token, "stored, not validated" (AH "Message 5").
    Token(u64),
    /// Legal: every group's filler, "read and discarded" (AH "Message 5").
    Filler(u32),
}

/// A ClientRef that does not resolve (AH "How the client applies an Auth body").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unresolved {
    /// A registry key no placed object has.
    Key,
    /// A slot index the object does not declare.
    Index,
    /// A slot type the object does not declare at that index.
    Type,
}

/// A registered object whose block is left out (AUTH-08).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// The ghost link's block, on every message 5.
    Ghost,
    /// The ghost link's block, on message 5s after the first.
    GhostLater,
    /// Every block of the second object of bubble 0, its key still registered.
    Group,
}

/// The type-17 body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lifetime {
    /// The lifetime state on every send (SEED-05; T17-01 for 11 to 14).
    State(i8),
    /// Legal: 1 on the first send, 2 on the second, 3 after (AH "Type 17": states 1 and 2
    /// hide the HUD; "Send 3 for the live case").
    LoadingThenLive,
    /// current_bubble this value whatever the bubble (T17-06).
    CurrentBubble(i32),
    /// current_bubble the member's slice-set index, not its bubble (T17-06).
    CurrentBubbleIsSliceSet,
    /// cycle_override_on 1, with this phase (T17-08).
    CycleOverride(u32),
    /// selection_id this value (T17-09).
    SelectionId(i32),
    /// The body cut to this many bits, its remainder matching (T17-02).
    Cut(usize),
    /// The switch list this long, each an i32 switch (T17-03; 50 legal).
    Switches(usize),
    /// The second type-17 slot's body with this state, the first's kept (T17-05).
    SecondSlotState(i8),
}

/// The Auth bodies the host holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Held {
    /// The first snapshot after 4 s sends objective 0 (held at 3) absent; the next sends
    /// it again (T3-01).
    ObjectiveDropped,
    /// The first snapshot after 4 s sends the objective array absent (T3-01).
    ObjectiveArrayDropped,
    /// The generation changes on every message 5, its objectives kept (T3-02).
    GenerationEverySend,
    /// Each snapshot after 4 s sends the generation one higher than the last message 5,
    /// the objective bytes unchanged (T3-02).
    GenerationOnSnapshots,
    /// The first snapshot after 4 s sends the generation absent, the next again (T3-02).
    GenerationDropped,
    /// The first snapshot after 4 s sends the channel and ghost-link blocks reset-only;
    /// the next sends their bodies again (AUTH-09).
    ResetOnlyOnce,
    /// Re-sends after 4 s carry the channel body as reset 0, root 0: not repeated
    /// (AUTH-09).
    NotRepeated,
    /// The 4-s ghost change (active to false) keeps generation 1 (T65-01).
    GhostGenerationKept,
    /// The 4-s ghost change lowers the generation to 0 (T65-01).
    GhostGenerationLowered,
    /// The ghost-finishing Sense override's fraction (T65-02; above 1.0 legal).
    GhostFinish(f32),
    /// The finishing override's generation, off the bar's by this much (T65-02).
    GhostFinishGeneration(i32),
    /// Legal: at 5 s a commit sends objective 0 absent for good (AH "Type 3": "A clear
    /// presence bit hands the applier a zero").
    ObjectiveResetByCommit,
    /// Legal: at 5 s a commit sends the generation absent for good (AH "Type 3").
    GenerationAbsentByCommit,
    /// Legal: at 5 s a commit clears the channel body; it goes reset-only from then on (AH
    /// "reset = 1, root = 0 installs the schema's defaults").
    ClearedByCommit,
    /// Legal: the objective published at 2.5 s with every optional field absent (AH "Type
    /// 3": the array and each objective and the generation have a presence bit).
    ObjectiveAllAbsent,
    /// Legal: the 4-s ghost change raises the generation from 1 to 7 (AH "Type 65": "only a
    /// value above the stored one acts").
    GhostGenerationLeap,
}

/// Messages 0, 1, 2, 4, 44, 54 and the join burst.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Small {
    /// Message 0 cut or grown to this many bytes (SLOTS-01; 1,025 legal).
    SlotMaskLen(usize),
    /// A message 0 grant on every keepalive (SLOTS-02).
    GrantOnKeepalive,
    /// Message 1's slice-set arming (GLOBAL-07).
    Arm(Arm),
    /// Message 1's bubble count (GLOBAL-02).
    BubbleCount(i32),
    /// Message 1's state byte of bubble `0` set to `1` (GLOBAL-03).
    BubbleState(usize, u8),
    /// A bit of the replayed descriptor flipped, at this offset into it (GLOBAL-04).
    DescriptorBit(usize),
    /// Message 1 cut or grown to this many bytes (GLOBAL-01; a trailing byte is legal).
    GlobalLen(usize),
    /// Message 2's tick period, as f32 bits (WORLD-01 to WORLD-03).
    Tick(u32),
    /// Message 54's 6-bit row count (BHS-01; 32 legal).
    BhsRows(u8),
    /// Message 44 after a region move (EPOCH-01, EPOCH-02).
    Epoch(Epoch),
    /// join_result's logical result (JOIN-04).
    JoinResult(i8),
    /// join_result's echoed request, broken (JOIN-05, JOIN-06).
    Echo(Echo),
    /// Message 4's envelope names another session (JOIN-05).
    JoinEnvelopeSession,
    /// join_result's keepalive interval 0 (JOIN-07).
    KeepaliveZero,
    /// The burst with message 0 before message 4 (JOIN-01).
    BurstZeroFirst,
    /// The burst without message 2 (JOIN-02).
    BurstWithoutTwo,
    /// Legal: join_result's keepalive interval this value (AH "join_result": "Any value
    /// above 1,000 ms silences them").
    KeepaliveInterval(u16),
    /// Legal: join_result's clock base this many ticks (AH "join_result": "Field 6 counts
    /// 673,200 ticks per second; 0 starts a new activity at zero").
    ClockBase(u64),
    /// Legal: message 2's bool set (AH "world_globals_state": "No reader of the bool is
    /// known").
    WorldFlag,
}

/// Message 1's initial slice set (GLOBAL-07; facts 4.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arm {
    /// The arm bit clear in the burst's message 1 (listed legal by the brief).
    Off,
    /// Armed with no slice set (index -1, wire 0).
    NoSliceSet,
    /// Armed with this slice set.
    SliceSet(i16),
    /// Armed with this spawn-set hash.
    SpawnHash(u32),
}

/// Message 44.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Epoch {
    /// The epoch the client holds, again.
    Repeat,
    /// Two past it.
    Skip,
    /// The next one with the abort bit.
    Abort,
    /// Legal: join_result starts at 255, so the first 44 wraps to 0 (EPOCH-01: "the
    /// previous epoch plus one (8-bit)").
    Wraps,
}

/// The request record join_result echoes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Echo {
    /// Bits 0 to 31, the nonce, off by one.
    Nonce,
    /// Bits 32 to 95, the host id, off by one.
    HostId,
    /// The host id zero.
    HostIdZero,
}

/// Message 12.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Member {
    /// The local player's lane emptied (MEMBER-02).
    WithoutLocal,
    /// Field 1 this logical value (MEMBER-04).
    Field1(i16),
    /// Field 2 this logical value (MEMBER-04).
    Field2(i32),
    /// The epoch this value from the second table on (MEMBER-05).
    EpochLater(u32),
    /// Region 0's ambassador slot 0 (MEMBER-06).
    AmbassadorZero,
    /// A changed table under the revision already sent (MEMBER-07).
    RevisionKept,
    /// A changed table two revisions on (MEMBER-07).
    RevisionSkips,
    /// Legal: every lane of the table filled (facts 4.10: members 0 to 31).
    Full,
}
