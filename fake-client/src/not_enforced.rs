//! The catalog rules the emulated client does not check, each with the one-line reason
//! (`vex rules`): what the pages leave out, what is a host's inside and not on the wire,
//! and what the emulated client does not do (dial peers, replicate).

use crate::rules::Rule;

/// Why the emulated client does not check `rule`, when it does not; `None` for an
/// enforced rule.
pub fn reason(rule: Rule) -> Option<&'static str> {
    if crate::rules::is_enforced(rule) {
        return None;
    }
    let listed = NOT_ENFORCED.iter().find(|(r, _)| *r == rule);
    listed.map(|(_, why)| *why)
}

const INSIDE: &str = "a host's inside: nothing on the wire shows it";
const NO_BODY: &str =
    "Vex has no body for this slot type: the pages give its fields without a wire layout";
const INHERENT: &str = "the codec itself: every body the client reads is read this way, so a breach shows as another rule";

const NO_REPLICATION: &str = "replication: the emulated client joins the group session and holds its membership, and opens no replication view (peer message 40) and owns no replicated actor, so nothing it receives carries this";

/// Every rule the emulated client does not check, with the reason.
pub const NOT_ENFORCED: &[(Rule, &str)] = &[
    (
        Rule::Peer03,
        "the transport method names the path the client takes to a peer (6 and 7 Steam relay): the emulated client takes bdNet alone. It dials the public endpoint of the group host its region's citizen record names (NetAddr::dialed), and the activity link's address when the record names Steam relay or no public endpoint, so a host's Steam path is not judged",
    ),
    (
        Rule::Peer05,
        "a NetAddr's equality and reserved bytes are the client's own reading (its member entry is found by it, PEER-02): the addresses a host sends are the peers' own bytes, echoed",
    ),
    (
        Rule::Peer06,
        "how the client dials a peer (41 bytes read, no public endpoint sent to NAT traversal): the emulated client dials no peer but the host, at the activity link's address",
    ),
    (
        Rule::Peer21,
        "the client's own reaction, which the emulated client models (it applies first, validates after and clears its tables): the host's conditions are PEER-02, PEER-18, PEER-19 and PEER-22, each judged",
    ),
    (Rule::Peer23, NO_REPLICATION),
    (Rule::Actor01, NO_REPLICATION),
    (Rule::Actor02, NO_REPLICATION),
    (
        Rule::Ws05,
        "how the client reads a status (0 and 7 complete, 16 is a soft rejection, the rest errors): a host may refuse any call, so no status is a host's breach (legal.WebServiceRefused)",
    ),
    (
        Rule::Signon07,
        "how the client reads a queued answer (a zero keeps the previous value, the cookie comes back): a host may send a zero, so nothing here is a host's breach; the emulated client reads it so (legal.QueuedZeros)",
    ),
    (
        Rule::Ws03,
        "the 115 descriptors' opcodes are not all known: which opcode the client sends is the client's side",
    ),
    (
        Rule::Ws04,
        "the emulated client makes no socket or plug action; its equip names only an item instance",
    ),
    (
        Rule::Ws06,
        "replies 1103, 2200 and 2300 answer calls the emulated client does not make",
    ),
    (
        Rule::Mm02,
        "the request's 2,624 bytes are the decoded body's size; on the wire it is protobuf, and the task id correlates the reply (BAP-05)",
    ),
    (
        Rule::Mm04,
        "the search results' fields are given in words only: no layout to check 50 results, a ping or the scores against",
    ),
    (
        Rule::Mm05,
        "the emulated client joins through the route, not a search result, so it never refuses a session id",
    ),
    (
        Rule::Qz04,
        "the store deletes what a full snapshot does not name, as the client does; what the host meant to keep cannot be seen",
    ),
    (
        Rule::Qz05,
        "encodings 1 and 2 need the slots' schemas and the diff format, which the pages do not give",
    ),
    (
        Rule::Qz07,
        "encoding 4 is Oodle, which Vex cannot expand to check the size",
    ),
    (
        Rule::Signon05,
        "the feature names are kept (at most eight, PB-01), but nothing the emulated client does yet turns on a feature",
    ),
    (
        Rule::Pb02,
        "the pages give SignOn's capacities as the bytes a field holds; no slot's declared size is known to check N - 8 against",
    ),
    (
        Rule::Bap20,
        "the empty-body answers are read by codecs that read nothing: only an answer that never comes shows, as BAP-06",
    ),
    (
        Rule::Env13,
        "message 7 goes to a method the target component bound at spawn; the emulated client models no components",
    ),
    (
        Rule::Env14,
        "the emulated client makes no reservations, so it never waits for message 45",
    ),
    (Rule::Body01, INHERENT),
    (Rule::Body02, INHERENT),
    (Rule::Body03, INHERENT),
    (
        Rule::Body06,
        "no body the host sends carries codes 13, 34 or 38 yet",
    ),
    (
        Rule::Body08,
        "no body the host sends nests deeper than the schemas declare; what a deeper one does is not documented",
    ),
    (
        Rule::Body09,
        "no body the host sends carries a nullable tag reference yet",
    ),
    (
        Rule::Body10,
        "the schemas declare each real field's width; a host that misreads params shows as another rule",
    ),
    (
        Rule::Join08,
        "the clock base is the host's to choose: 0 starts a new activity, any other value continues one",
    ),
    (
        Rule::Join10,
        "the emulated client models a patched client: it sends message 3 once service 7 arrives",
    ),
    (
        Rule::Slots03,
        "the burst's own message 0 precedes its message 12 (JOIN-02), so when a grant applies is not judged",
    ),
    (
        Rule::Slots05,
        "a 28 or 30 that decodes is answered; what makes the consumer fail is not documented",
    ),
    (
        Rule::Global05,
        "the activity time base's field in message 1 is not laid out on the pages",
    ),
    (
        Rule::Global06,
        "every message 1 is judged whole already (GLOBAL-01 to GLOBAL-04)",
    ),
    (
        Rule::Sticky01,
        "what makes a consumer of 24, 25, 28 or 30 fail is not documented",
    ),
    (
        Rule::Auth03,
        "the pages say what turns the check on (SignOn naming use_hardwipe_tokens) but not the value the token is checked against, so no token can be called wrong; with the feature off every token passes",
    ),
    (
        Rule::Auth14,
        "the pages give the heap (870,400 bytes) but not the size of one sync record, so what a roster takes of it cannot be counted; and no message tells the client which link hosts a bubble, so a bubble published on another link cannot be told apart",
    ),
    (
        Rule::Auth15,
        "how the host reads Sense is inside it; our own host's tests hold it to the rule",
    ),
    (
        Rule::Seed04,
        "the values the spawn gate accepts at +8 and +10 are not documented",
    ),
    (
        Rule::Leave03,
        "no host message ends the wait, and its length is not documented",
    ),
    (
        Rule::Link02,
        "the client's own duty: the emulated client sends messages 16 and 52 as it says",
    ),
    (Rule::T101, NO_BODY),
    (Rule::T102, NO_BODY),
    (Rule::T103, NO_BODY),
    (Rule::T104, NO_BODY),
    (Rule::T105, NO_BODY),
    (Rule::T106, NO_BODY),
    (
        Rule::T201,
        "type 2's fields .5 to .7 are given as memory records only, so Vex sends them absent and cannot count their rows on the wire",
    ),
    (
        Rule::T202,
        "whether the host means its actor to stay is not on the wire: every value of field .1 is legal, zero tears the actor down and nonzero keeps it",
    ),
    (
        Rule::T203,
        "type 2's keyed lanes (.4) are given as a memory record only: no lane generation can be read on the wire",
    ),
    (
        Rule::T204,
        "the action program (.6) is given as a memory record only, and how long a host waits on an atom is its inside",
    ),
    (Rule::T501, NO_BODY),
    (Rule::T5301, NO_BODY),
    (Rule::T3701, NO_BODY),
    (Rule::T4301, NO_BODY),
    (Rule::T4302, NO_BODY),
    (
        Rule::T6701,
        "every type-67 body replaces the whole matrix, and the pages name no value a host must not send: the identity map is not neutral but a host may mean it, and entries 17 to 28 are never read, so nothing there is wrong; the built-in scenario has no type-67 slot, since any block for one, reset-only too, replaces what content loaded",
    ),
    (Rule::T6801, NO_BODY),
    (Rule::T3801, NO_BODY),
    (
        Rule::Host02,
        "the general rule: each push the host owns has its own row",
    ),
    (Rule::Host07, INSIDE),
    (
        Rule::Host09,
        "a retry is inside the host: the client sees only the send that made it, and cannot tell a retry from a slow host. Vex's host holds a member table back for a missing host record (in a shared fleet, a region the store has not placed yet) and retries it after 250 ms (host/tests/core.rs); a push is sealed as it is built, so no send fails",
    ),
    (
        Rule::Host11,
        "the host's side of the hello; the emulated client's activity hello is answered",
    ),
    (
        Rule::Host13,
        "an acknowledgement cannot be told apart from an incident the host fires",
    ),
    (
        Rule::Host18,
        "passing an incident on is inside the host; our own host's tests hold it",
    ),
    (
        Rule::Host19,
        "which requests committed together is inside the host; our own host's tests hold it",
    ),
    (Rule::Host20, INSIDE),
    (Rule::Host21, INSIDE),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::ENFORCED;

    /// Every rule of the catalog is enforced, or has exactly one reason it is not.
    #[test]
    fn every_rule_is_enforced_or_has_a_reason() {
        for rule in Rule::ALL {
            let listed = NOT_ENFORCED.iter().filter(|(r, _)| r == rule).count();
            let enforced = ENFORCED.contains(rule);
            assert_eq!(usize::from(enforced) + listed, 1, "{rule}");
            assert_eq!(reason(*rule).is_none(), enforced, "{rule}");
        }
    }
}
