//! Freedoms the pages leave a host, taken on purpose (design "Verdicts: provenance and
//! legal variations"): the mirror of a caught fault. In a `legal.*` case our host takes
//! one, and every client must report nothing; a check that fires on one judges what the
//! pages allow, the worst bug a conformance tool can have. Each variation is declared once,
//! below: the rules whose boundary it sits near, the page sentence that makes it legal,
//! what the emulated client must do for it to show, how many members it needs and how
//! long it runs. The host takes it through its [`crate::HostPlan`], outside the handlers.

use crate::fault::{ClientAction, RUN_MS};
use vex_rules::Rule;

macro_rules! variations {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident => [$($rule:ident),+], $source:literal
            $(, script $script:ident)?
            $(, members $members:literal)?
            $(, runs $runs:literal)?;
    )*) => {
        /// One freedom the pages leave a host.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Variation {
            $($(#[doc = $doc])* $name,)*
        }

        impl Variation {
            /// Every variation, in declaration order.
            pub const ALL: &'static [Variation] = &[$(Variation::$name),*];

            /// The rules whose boundary the variation sits near: each must stay silent.
            pub fn rules(self) -> &'static [Rule] {
                match self { $(Variation::$name => &[$(Rule::$rule),+]),* }
            }

            /// The page (or facts) sentence that makes it legal, with where it is.
            pub fn source(self) -> &'static str {
                match self { $(Variation::$name => $source),* }
            }

            /// What the client must do for the variation to show.
            pub fn needs(self) -> ClientAction {
                match self { $(Variation::$name => variations!(@or ClientAction::Stay $(, ClientAction::$script)?)),* }
            }

            /// Members of the activity it needs.
            pub fn members(self) -> usize {
                match self { $(Variation::$name => variations!(@or 1 $(, $members)?)),* }
            }

            /// How long its run lasts, in milliseconds.
            pub fn runs_ms(self) -> u64 {
                match self { $(Variation::$name => variations!(@or RUN_MS $(, $runs)?)),* }
            }
        }
    };
    (@or $default:expr) => { $default };
    (@or $default:expr, $value:expr) => { $value };
}

variations! {
    /// Type-17 current_bubble stays the arrival bubble after the member moves into the
    /// other one: the activity's current bubble, not the member's.
    CurrentBubbleKept => [T1706],
        "AH \"Type 17, activity_lifetime_sensor\": current_bubble is \"the bubble the activity treats as current\"",
        script MoveRegion;
    /// The lifetime state is 1 (loading, HUD hidden) until 1.5 s after the join, then 3.
    LoadingStateFirst => [Seed05, T1701],
        "AH \"Type 17, activity_lifetime_sensor\": states 1 and 2 hide the HUD; the spawn gate waits for 3, 6 or 10, and holding it while loading is not a breach";
    /// The roster state byte moves on each of the link's first three message 5s, as
    /// Sunrise's warm-up does.
    StateByteWarmUp => [Seed06],
        "facts 4.7: the state sequence \"moves (mod 128) on each of the first 3 sends per link\"",
        script Refresh;
    /// A later commit leaves objective 0 and the reset generation absent: zeros, a reset
    /// the host means.
    ObjectiveReset => [T301, T302],
        "AH \"Type 3, objective_sensor\": \"A clear presence bit hands the applier a zero\", and a change resets the objective";
    /// A later commit clears the channel slot's body: it goes out reset-only, the schema's
    /// defaults.
    AuthCleared => [Auth09],
        "AH \"How the client applies an Auth body\": \"reset = 1, root = 0 installs the schema's defaults\"; a host repeats only the bodies it still holds";
    /// Message 2's tick period is 33.3333 ms, the default written to four places.
    TickPeriodRounded => [World03, World01],
        "AH \"world_globals_state, message 2\": send the client's own default, 1000 / 30; 33.3333 skews no stat";
    /// The burst's message 1 leaves the initial slice-set bit clear.
    InitialSliceSetUnarmed => [Global07],
        "facts 4.5: the client reads the slice set and spawn hash \"only if set\"; nothing asks a host to arm them";
    /// Message 0 of the burst carries one byte past its 1,024-byte mask.
    SlotMaskTrailingByte => [Slots01, Body04],
        "AH \"Body encoding\": \"A body with unread bits or a trailing byte decodes fine\"";
    /// The purge notice answering message 27 is AH's bare 1,024-byte mask, the request's
    /// own: no reason, which AH's layout has no place for.
    PurgeNoticeBareMask => [Host08],
        "AH \"The main messages\": 25, purge_abandoned_entity_slots, carries a \"1,024-byte per-bubble authority mask\"; SR: the notice \"keeps the client's mask\"",
        script PurgeAndAbdicate;
    /// Message 4's initial replication epoch is 255, so the first message 44 (a second
    /// member joins) wraps to 0.
    EpochWraps => [Epoch01],
        "AH \"Hazards for a host\": \"Message 44's epoch must be the previous epoch plus one\", an 8-bit epoch (AH \"The main messages\"): after 255 comes 0",
        members 2;
    /// Message 4's keepalive interval is 1 ms, the least that is not 0.
    KeepaliveIntervalOne => [Join07],
        "AH \"join_result, message 4\": \"At 0 the client sends one on every tick\"; any other interval is the host's to choose";
    /// Message 4's keepalive interval is 5,000 ms and its peer-heard window 0, as Sunrise
    /// sends them.
    SunriseJoinTimings => [Join07],
        "facts 9, \"join_result keepalive / peer-heard window\": 5,000 / 0; AH: \"Any value above 1,000 ms silences them\", and \"With that window at 0 the mask is always 0\"";
    /// The type-17 body carries 50 gameplay switches, the list's capacity.
    SwitchListFull => [T1703, Body05],
        "AH \"Values that crash the client\": an array count lane is safe \"at most the array's size\"; AH \"Type 17\": \"a list of up to 50 gameplay switches\"";
    /// The type-17 body at its edges: no gameplay switch (its 423-bit minimum), the first
    /// spawn-point pair on at the arrival slice set with the selection's spawn set, and
    /// selection_id 63, the last that installs a record.
    LifetimeEdges => [T1702, T1704, T1709],
        "AH \"Type 17\": \"The minimum body is 423 bits\", \"count (6 bits) + up to 50 gameplay switches\", \"three {index, hash} spawn-point pairs\" (off only with index 0 on the wire and hash 0x811C9DC5), \"selection_id ... 0 to 63 installs a record\"";
    /// Every message 5 after the link's first, a snapshot's aside, sends its bodies with
    /// reset 0: deltas on what the client holds, the seeding done.
    DeltasAfterSeed => [Seed01],
        "AH \"Message 5\": the reset bit is \"1 on a first send\", and with reset 0 root 1 \"decode_delta\" applies the body over the one the client last received";
    /// Service 7's session id carries the index 0xFFFF, the last of its 16 bits.
    SessionIndexTop => [Env09],
        "AH \"The activity envelope\": \"the account half in the high 32 bits, class 0x0020 next, then an index\"";
    /// The channel body carries four rows, its capacity.
    ChannelRowsFull => [T2401, Body05],
        "AH \"Type 24, channel_sensor\": \"A 3-bit count and up to four rows\"";
    /// An incident names the table's last row, 7,762, with 25 extra targets and a
    /// 500-byte payload.
    IncidentAtLimits => [Incident01, Incident02, Incident03, Incident05],
        "AH \"incident, message 19\": a table of 7763 rows; \"at most 25\" extra targets; \"at most 500\" payload bytes";
    /// SignOn's success carries every optional field (9, 11, 12 with a 128-byte f4, 14 to
    /// 16) and eight feature names, the list's capacity.
    SignOnFull => [Signon01, Signon03, Pb01],
        "NS \"The success fields\": fields 9, 11, 12 and 14 to 16 beside the required 1 to 7, \"Field 12's f4 must be exactly 128 bytes\"; NS \"SignOn\": \"up to eight feature names\"";
    /// After the burst, a push on service 124 (a subscription lost) of its 14 bytes.
    SubscriptionLostPushed => [Bap08, Bap09],
        "NS \"The service registry\": 124, qz->c sub lost, S->C, 14 bytes; NS \"Pushes\": 124 is one of the 15 push ids";
    /// SignOn answers queued (5, 40 s, 1 s), then queued with every number 0, then success.
    QueuedZeros => [Signon06, Signon07],
        "NS \"The other outcomes\": \"A zero in any of them keeps the previous value\"";
    /// The family subscription (web-service opcode 206) is refused: status 2, and -1 for
    /// the revision.
    WebServiceRefused => [Ws01, Ws02],
        "NS \"The reply's version barrier\": \"Anything else is an error\"; \"A reply to anything else sends -1, including an error reply\"",
        script LobbyCalls;
    /// Service 24 answers with its smallest body, the empty list `00 00 FF FF`.
    AccountTranslationSmallest => [Bap11, Bap22],
        "facts 2.2: service 24's \"empty form 00 00 FF FF (4 bytes)\"; only \"a truly empty body\" overruns the client (BAP-11)",
        script LobbyCalls;
    /// SignOn answers throttled twice in a row, each with a message and an explicit retry
    /// delay of 0, then success.
    ThrottledNoWait => [Signon02, Signon08],
        "NS \"The other outcomes\": throttled carries \"a message and an optional retry delay\", and \"an explicit zero means zero\"";
    /// The advertisement (matchmaking kind 2) is refused: no field 1, no id.
    AdvertisementRefused => [Mm01, Mm06],
        "NS \"Matchmaking, services 42 and 43\": \"A success reply sets field 1 to 2 and assigns a non-zero advertisement id\"; a refusal is not a success",
        script LobbyCalls;
    /// The search (matchmaking kind 1) found nothing and leaves its empty result list out.
    SearchResultsOmitted => [Mm01],
        "NS \"Matchmaking, services 42 and 43\": \"Field 3 holds up to 50 results\": none is a number of them, and protobuf omits an empty list",
        script LobbyCalls;
    /// The family-4 snapshot's raw character object keeps its key little-endian, as the
    /// object stores it, and the account object goes out packed (encoding 4).
    QueuezEncodings => [Qz01],
        "NS \"Replicated objects, service 123\": the header is big-endian; \"The account object is exactly 96,280 bytes, so it goes out compressed or as a delta\", whose bytes are not the object's",
        script LobbyCalls;
    /// The family-4 first snapshot is preceded by the same family one version earlier
    /// with no object.
    QueuezEmptyFirst => [Qz02],
        "NS \"Replicated objects, service 123\": a family's \"u32 object count, 0 legal\", and its version \"the previous version plus one\"",
        script LobbyCalls;
    /// SignOn's success carries field 13 as false.
    BlockLaunchFalse => [Signon04],
        "NS \"The success fields\": field 13, a bool, \"blocks five UI launch handlers\": a false one blocks none";
    /// The join burst ends at message 54; message 12 follows on the first keepalive, while
    /// the client has not acknowledged the table.
    MembershipAfterBurst => [Join02, Member03],
        "SR \"The join burst\": message 12 carries \"the member table, when it is ready\"; SR \"Timed sends that remain\": the keepalive \"carries message 12 only when the table changed, the client moved region, or the client has not acknowledged the current revision yet\"";
    /// SignOn answers with an error: reason 1 (suspended), a title and a body. The client
    /// stops at SignOn, as the page says, and nothing else is owed.
    SignOnDenied => [Signon09, Signon10],
        "NS \"The other outcomes\": an error's \"reason picks a terminal state\" (1, suspended); \"The denial screen shows the error's title and body only when both are present\"";
    /// Message 20 is answered with a grant of one free slot, the fewest that grants any.
    SlotGrantOne => [Host04],
        "SR \"The Activity Host\": the host \"answers message 20 with a message 0 grant\"; AH: message 0 is \"a 1,024-byte mask, one bit per entity slot\", ORed into the lease: no count is owed",
        script RequestSlots;
    /// The first roster grants bubble 64 on token 0xFFFF, the last before the wrap.
    BubbleTokenTop => [Auth11],
        "AH \"The bubble-authority block\": a u16 grant_token; the client \"compares the wire token with its own mirror, which starts at zero, and grants on a difference\"";
    /// A stalled Ghost bar is finished with the least fraction above 1.0 (1.0000001).
    GhostFinishJustAbove => [T6502],
        "AH \"Type 65, ghost_link_sensor\": the host finishes the bar with \"a fraction above 1.0 and the current generation\"";
    /// Service 7's 128 opaque bytes are 0xA5, not the zeros Sunrise sends.
    Service7OpaqueFilled => [Bap13],
        "NS \"The service registry\": service 7 is \"discriminator 2, a non-zero u64 session id, 128 opaque bytes\"; SR \"Service 6 and 7\": \"Sunrise sends zeros\", a choice, not a rule";
    /// Service 26's base nonce is 0xFF in bytes 0 to 10, so the host's second sealed frame
    /// (and the client's) takes a nonce whose increment carried across all 12 bytes.
    NonceCarries => [Bap18],
        "facts 1.4: the counter increment is \"little-endian over all 12 bytes\"; the base nonce is the host's to draw";
    /// Plaintext frames go out as the other plaintext type: 0 answering 2, 2 answering 0.
    PlainTypeSwapped => [Bap01],
        "NS \"The frame\": frame_type \"0 or 2 plaintext, 1 encrypted\"; facts 1.5: Sunrise answers with \"the same type byte\", a choice of its own";
    /// Family 4's snapshot also carries the account object raw at exactly its 96,280
    /// bytes, keyed by its first qword.
    AccountRawWhole => [Qz06, Qz08],
        "NS \"Replicated objects, service 123\": \"The account object is exactly 96,280 bytes\", and raw bytes are copied with no clamp to the slot size, so a payload of the slot's own size writes nothing past it; the message sits between the 46,973 bytes that work and the 143,285 that end the link, a size the page leaves unverified",
        script LobbyCalls;
    /// The configuration reply (matchmaking kind 4) holds field 4 with no fair queue base.
    ConfigurationBare => [Mm03],
        "NS \"Matchmaking, services 42 and 43\": configuration is \"Accepted on field 4's presence alone\"; a fair queue base is what \"A useful reply also sets\"",
        script LobbyCalls;
    /// The QoS reply reports a hold time of a quarter second.
    QosHeld => [Qos03],
        "NS \"QoS probe and the session advertisement\": hold_time is \"seconds, subtracted from the round trip\", any value",
        script ProbeQos;
    /// The advertisement takes every build from 1 to 2^31 - 1.
    QosBuildsWide => [Qos01],
        "NS \"The session advertisement\": the high bound \"must be at least 86657\", the low \"at most 86657\"",
        script ProbeQos;
    /// The host numbers its established datagrams 127 past its own: the first is 128
    /// ahead of the client's window, the most the window takes.
    PacketsAtWindowEdge => [Peer01],
        "NS \"The peer message channel\": a packet is dropped when it is \"more than 128 ahead\"",
        script Associate;
    /// The host's admission refuses the join with 26 rejected-by-host.
    JoinRejectedByHost => [Peer17],
        "NS \"What a host checks in a join request\": \"Admission can still refuse with 4, 6 not-joinable, 7 session-full or 26 rejected-by-host\"",
        script Associate;
    /// The host's member entry owns one player slot, the most a member owns.
    MemberOwnsOneSlot => [Peer19],
        "NS \"The member record\": player_slot_count is \"at most 1\"",
        script Associate;
    /// The host is the last member of the table, not the first.
    HostIsLastMember => [Peer19],
        "NS \"Root fields\": tag 2 is the host member index, any member's",
        script Associate;
}

impl Variation {
    /// Whether the client stops at SignOn under it, as the page's terminal state asks:
    /// its run ends there, with no finding.
    pub fn stops_at_signon(self) -> bool {
        self == Variation::SignOnDenied
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variation names a page or the facts, and a rule.
    #[test]
    fn every_variation_says_why_it_is_legal() {
        for v in Variation::ALL {
            let source = v.source();
            assert!(
                ["AH ", "SR ", "NS ", "AI ", "TD ", "facts "]
                    .iter()
                    .any(|p| source.starts_with(p)),
                "{v:?}: {source}"
            );
            assert!(!v.rules().is_empty());
        }
    }
}
