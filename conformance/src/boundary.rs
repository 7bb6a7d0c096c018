//! Where a clean case sits on an enforced rule's boundary. A rule that admits one legal
//! value or shape at the place it judges (a magic, an echo, a fixed size, "never") has no
//! freedom to vary: the legal value nearest every breach is the one our host sends in a
//! clean case, which must stay silent. A rule with a range whose legal end our host
//! already sends in a clean case (the highest service id, the smallest join_result, the
//! next revision) is met the same way. The other rules' legal cases near their boundary
//! are the `legal.*` variations (`vex_faults::Variation`). The clean cases pass with
//! `--strict`, so a duty's value is judged there too. The few rules no legal case can sit
//! near say why in [`NO_LEGAL_CASE`].

use vex_fake_client::Rule;

/// A rule, and the clean case that sends its one legal value, or the legal end of its
/// range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// The rule.
    pub rule: Rule,
    /// The clean case whose run sends it.
    pub case: &'static str,
    /// What it sends there.
    pub value: &'static str,
}

const fn edge(rule: Rule, case: &'static str, value: &'static str) -> Edge {
    Edge { rule, case, value }
}

/// Every enforced rule whose boundary a clean case sits on.
pub const EDGES: &[Edge] = &[
    edge(
        Rule::Bap02,
        "route.join",
        "each type-1 frame's 16-byte GCM tag verifies: one right tag per frame",
    ),
    edge(
        Rule::Bap03,
        "route.join",
        "a 6-byte push header and an 8-byte response header; the echo's answer is the 8-byte header alone",
    ),
    edge(
        Rule::Bap05,
        "route.join",
        "each response echoes its task id with status 200",
    ),
    edge(
        Rule::Bap06,
        "route.join",
        "exactly one response per request",
    ),
    edge(
        Rule::Bap07,
        "route.join",
        "no frame on 18, 21, 23, 32, 34, 36, 38, 40, 46 or 171",
    ),
    edge(
        Rule::Bap10,
        "route.join",
        "no push on 6 or 161 (pushes only on 9)",
    ),
    edge(
        Rule::Bap12,
        "route.join",
        "16 bytes: the id echoed, the host's own address and port, reserved 0",
    ),
    edge(
        Rule::Bap14,
        "probe.malformed-selection",
        "a malformed 6 still gets one 7, falling back to the scenario's selection",
    ),
    edge(Rule::Bap15, "lobby.services", "empty bodies"),
    edge(
        Rule::Bap16,
        "route.join",
        "request order, the only legal order",
    ),
    edge(
        Rule::Bap17,
        "route.join",
        "84 bytes: u32 80, IV, CBC(nonce, key, 04 04 04 04), HMAC over 0..51",
    ),
    edge(
        Rule::Bap19,
        "route.join",
        "service 31 is 128 bytes (an echo of 30)",
    ),
    edge(Rule::Env01, "route.join", "discriminator 1"),
    edge(
        Rule::Env02,
        "route.join",
        "payload_len equals the bytes that follow",
    ),
    edge(
        Rule::Env03,
        "route.join",
        "payload_len is the body's length (the 0xFFFFFF70 edge needs a 4 GiB body: no legal value reaches it)",
    ),
    edge(Rule::Env05, "route.join", "the joined session's id"),
    edge(Rule::Env06, "route.join", "message 4 first"),
    edge(
        Rule::Env07,
        "route.join",
        "every push carries join_result's host id",
    ),
    edge(
        Rule::Env10,
        "route.join",
        "every service-9 push has sequence 0",
    ),
    edge(
        Rule::Env11,
        "link.keepalive",
        "the client's 16s never get a 17; no name-only or client-only id is ever sent",
    ),
    edge(
        Rule::Env12,
        "route.join",
        "40, 41, 56 and 57 are never sent",
    ),
    edge(
        Rule::Body07,
        "probe.trailing-bytes",
        "a message 18 with 4 bytes past its body gets the full snapshot",
    ),
    edge(Rule::Join01, "route.join", "4 first"),
    edge(Rule::Join04, "route.join", "result wire 1 (logical 0)"),
    edge(
        Rule::Join05,
        "route.join",
        "session, nonce and host id echoed",
    ),
    edge(
        Rule::Join06,
        "route.join",
        "host id = the session id, not 0",
    ),
    edge(Rule::Join09, "route.join", "E, G and M are all set"),
    edge(
        Rule::Slots02,
        "slots.request",
        "message 0 only as the join grant and as the answer to 20",
    ),
    edge(
        Rule::Global01,
        "route.join",
        "every field is on the wire: 686 bits, the replayed descriptor, then a 103-bit tail, with no slack",
    ),
    edge(
        Rule::Global02,
        "route.join",
        "bubble count 2, the scenario's",
    ),
    edge(
        Rule::Global03,
        "route.join",
        "both legal bytes are sent: 0x80 for bubbles 0 and 1, 0x7F for 2 to 63",
    ),
    edge(
        Rule::Global04,
        "route.join",
        "the client's descriptor, bit for bit",
    ),
    edge(
        Rule::World02,
        "route.join",
        "a number, 1000 / 30 ms, where the one breach is NaN",
    ),
    edge(
        Rule::Epoch02,
        "activity.members.two",
        "message 44's abort bit is 0",
    ),
    edge(
        Rule::Sticky02,
        "activity.members.two",
        "the give-up flag is never set (abort 0), so every 5 applies",
    ),
    edge(Rule::Auth01, "route.join", "patch epoch = the latest 52"),
    edge(Rule::Auth04, "route.join", "roster_enable 1"),
    edge(
        Rule::Auth05,
        "route.join",
        "remainder = the block's exact bit length",
    ),
    edge(
        Rule::Auth06,
        "route.join",
        "reset/root and Sense bits follow the content's schemas",
    ),
    edge(Rule::Auth07, "route.join", "no group keyed 0x811C9DC5"),
    edge(
        Rule::Auth08,
        "route.join",
        "a block for every registered slot",
    ),
    edge(Rule::Auth12, "route.join", "grants only on bubble 64"),
    edge(
        Rule::Auth13,
        "route.region",
        "no 5 between the 22 and the 18; the 18 answered in full",
    ),
    edge(Rule::Auth17, "route.join", "singleton gate 0"),
    edge(
        Rule::Auth18,
        "route.join",
        "header_present 0 in the bubble-64 grant block",
    ),
    edge(
        Rule::Auth19,
        "route.join",
        "host_token_present 0 on all 65 elements",
    ),
    edge(
        Rule::Seed02,
        "route.join",
        "the roster has type-13 and type-17 slots",
    ),
    edge(
        Rule::Seed03,
        "route.join",
        "the player key on the key group's first type-13 slot only",
    ),
    edge(
        Rule::Member01,
        "route.join",
        "the masks equal the lanes present, and the host key names a member",
    ),
    edge(
        Rule::Member02,
        "route.join",
        "the table names the local player",
    ),
    edge(Rule::Member04, "route.join", "field1 and field2 are -1"),
    edge(
        Rule::Leave01,
        "route.leave",
        "the leave delta: keys and state bytes kept, presence bits clear, enable 1, no body, no grant",
    ),
    edge(Rule::Leave02, "route.leave", "no roster after it"),
    edge(
        Rule::Incident04,
        "route.join",
        "the selector bit 0 on the incident the host fires at 3.5 s",
    ),
    edge(Rule::Link03, "link.keepalive", "message 1 every 2,000 ms"),
    edge(
        Rule::Slot01,
        "route.join",
        "every ClientRef names one of the content's own slots; none is -1",
    ),
    edge(Rule::Slot02, "route.join", "none of the 12 types"),
    edge(
        Rule::T1705,
        "route.join",
        "both type-17 slots carry the same body",
    ),
    edge(Rule::T1707, "route.join", "join_flag_inverted 1"),
    edge(
        Rule::Auth16,
        "route.join",
        "the first message 5 answers the first message 52; every later one follows a commit of the host program, the one cause a host owns",
    ),
    edge(
        Rule::Host03,
        "route.refresh",
        "message 18 answered with 1, 2 and 12 on the private link, then 5: the whole snapshot, in the one order SR gives",
    ),
    edge(
        Rule::T1708,
        "route.join",
        "cycle_override_on 0 in every type-17 body: our host owns no authored phase",
    ),
    edge(
        Rule::Slot03,
        "route.join",
        "the type-18 slot reset-only: the page's safe value without a real timer (the window's units are not given, so Vex authors none)",
    ),
    edge(
        Rule::Host01,
        "probe.unknown-message",
        "recorded, no reply, link kept, the 18 after answered",
    ),
    edge(
        Rule::Host05,
        "route.region",
        "commit; 12 if the table changed; 5 held until the 18",
    ),
    edge(
        Rule::Host06,
        "probe.foreign-session",
        "recorded and dropped, frame accepted",
    ),
    edge(
        Rule::Host10,
        "probe.discriminator-two",
        "discriminator 2 taken, answered",
    ),
    edge(
        Rule::Host12,
        "route.join",
        "no BAP response to any service-8 report (3, 52, 16, 38, 6)",
    ),
    edge(
        Rule::Host14,
        "activity.members.two",
        "a public join's burst carries the private table",
    ),
    edge(
        Rule::Host15,
        "route.identity",
        "23 committed; 12 on a private link",
    ),
    edge(Rule::Host16, "route.authority", "29, 31 and 32 get nothing"),
    edge(Rule::Host17, "route.authority", "33 gets nothing"),
    edge(
        Rule::Manifest01,
        "signon.route",
        "a PSS signature that verifies under the one key (the salt is free)",
    ),
    // the legal end of a range
    edge(
        Rule::Bap04,
        "lobby.services",
        "the answer to 306 on 307, the highest service id below 308",
    ),
    edge(
        Rule::Env04,
        "route.join",
        "message 0, the lowest id, in the burst",
    ),
    edge(
        Rule::Env08,
        "activity.members.two",
        "session indexes 1 and 2: the nearest distinct ids",
    ),
    edge(
        Rule::Join03,
        "route.join",
        "a join_result of 757 bytes (6,053 bits), the minimum",
    ),
    edge(
        Rule::Slots04,
        "activity.members.two",
        "leases next to each other, no slot in common",
    ),
    edge(
        Rule::Auth02,
        "route.join",
        "the first message 5 straight after the first message 52",
    ),
    edge(
        Rule::Member06,
        "route.join",
        "ambassador slot 1 (wire 2), the lowest legal, in every record",
    ),
    edge(
        Rule::Member07,
        "activity.members.two",
        "the next revision, +1, for each change",
    ),
    edge(
        Rule::Member05,
        "activity.members.three",
        "one membership epoch in every table, through an identity change, a leave and a rejoin",
    ),
    edge(
        Rule::T6501,
        "route.join",
        "the generation 1 then 2, one above, when .1 changes",
    ),
    edge(
        Rule::Qos02,
        "qos.probe",
        "one reply to the one probe, at once: what an answered probe is",
    ),
    edge(
        Rule::Qos04,
        "qos.probe",
        "accepted 1: the one value that is not a refusal",
    ),
    edge(
        Rule::Qos05,
        "qos.probe",
        "the page's 13,184-byte block, whose header and 688-byte descriptor decode",
    ),
    edge(
        Rule::Qos06,
        "qos.probe",
        "payload type 2 and the probed session's own id: the one legal value of each",
    ),
    edge(
        Rule::Peer04,
        "lobby.services",
        "the client's own advertisement located again: its join descriptor at exactly 128 bytes",
    ),
    edge(
        Rule::Peer07,
        "peer.associate",
        "the four packets at the page's sizes, each header's sequence 0, each answered at once",
    ),
    edge(
        Rule::Peer08,
        "peer.associate",
        "the init ack to the requester's tag, the responder tag twice, the requester tag, old tags 0, the init's security id; the cookie ack to the requester's tag",
    ),
    edge(
        Rule::Peer09,
        "peer.associate",
        "every reply repeats the requester's security id: its one legal value",
    ),
    edge(
        Rule::Peer10,
        "peer.associate",
        "a point of secp224r1 in the export form, zero padded to 100 bytes",
    ),
    edge(
        Rule::Peer11,
        "peer.associate",
        "a pong record whose MAC verifies under the agreed keys",
    ),
    edge(
        Rule::Peer12,
        "peer.associate",
        "each record of the host's with a sequence of its own, from 1",
    ),
    edge(
        Rule::Peer13,
        "peer.associate",
        "the pong declared at its id's size, 24",
    ),
    edge(
        Rule::Peer15,
        "peer.associate",
        "pong and time-synchronize, ids 1 and 29: no test control, the one legal way",
    ),
    edge(
        Rule::Peer16,
        "peer.associate",
        "the request answered with three samples, the reply left unanswered: the only answer a reply gets is none",
    ),
    edge(
        Rule::Peer02,
        "peer.associate",
        "every member's address at exactly 86 bytes and machine id at exactly 8; the client's entry with its current join id",
    ),
    edge(
        Rule::Peer14,
        "peer.associate",
        "the guard at the host's channel id mod 4, the first packet and message at 1, connect-establish first",
    ),
    edge(
        Rule::Peer18,
        "peer.associate",
        "a nanopb region that decodes, each address and machine id within its slot, the body's fields at their widths",
    ),
    edge(
        Rule::Peer22,
        "peer.associate",
        "the hash over the state the client holds after applying: its one legal value",
    ),
];

/// The enforced rules no legal case can sit near, and why: what the pages and the facts
/// leave out that such a case would need.
pub const NO_LEGAL_CASE: &[(Rule, &str)] = &[
    (
        Rule::Bap21,
        "none can be built: the schemas are not given, so the smallest legal body is unknown",
    ),
    (
        Rule::Auth10,
        "none can be built: the budget is shared with every other event of the tick, whose sizes are not given, so no message 5 at 471,859 bytes is known legal (a unit test holds N silent, N+1 caught)",
    ),
    (
        Rule::Bhs01,
        "none can be built: the row layout is not documented",
    ),
    (
        Rule::Link01,
        "none can be built: a host silent for near 20.5 s breaks LINK-03's 2-second keepalive, so no legal run comes near the edge",
    ),
    (
        Rule::Manifest02,
        "none can be built: an empty manifest may miss a required field of a schema not given",
    ),
    (
        Rule::Qz03,
        "none can be built: a family at its six slots needs six slot ids, and the page names two (another id may be error 3)",
    ),
    (
        Rule::Peer20,
        "none can be built: a legal player row carries the profile block, whose layout no source gives (the pages name its contents, Sunrise sends none)",
    ),
];

/// Why no legal case can be built near `rule`, if none can.
pub fn why_no_legal_case(rule: Rule) -> Option<&'static str> {
    NO_LEGAL_CASE
        .iter()
        .find(|(r, _)| *r == rule)
        .map(|(_, why)| *why)
}

/// The clean case on the boundary of `rule`, if one sits there.
pub fn edge_of(rule: Rule) -> Option<&'static Edge> {
    EDGES.iter().find(|b| b.rule == rule)
}
