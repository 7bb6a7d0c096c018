//! Where a check's condition comes from (design "Verdicts: provenance and legal
//! variations"): the pages, the facts sheet where the pages are silent, or a choice of
//! Vex's own where neither gives a layout, number or deadline. A finding is worth what its
//! source is worth: one that rests on Vex's choice is advisory.

use crate::Rule;
use std::fmt;

/// What a check's condition rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provenance {
    /// One of the five pages says it: the page and its section, as `rules.md` cites it
    /// (`AH The activity envelope`).
    Pages(&'static str),
    /// The facts sheet says it, the pages being silent: its section (`facts 4.7`).
    Facts(&'static str),
    /// Vex chose it: a layout, number or deadline neither the pages nor the facts give.
    Vex(Choice),
}

impl Provenance {
    /// The kind, as reports name it: `pages`, `facts` or `vex`.
    pub const fn kind(self) -> &'static str {
        match self {
            Provenance::Pages(_) => "pages",
            Provenance::Facts(_) => "facts",
            Provenance::Vex(_) => "vex",
        }
    }

    /// The section it cites, or for a choice of Vex's what was chosen.
    pub const fn section(self) -> &'static str {
        match self {
            Provenance::Pages(section) | Provenance::Facts(section) => section,
            Provenance::Vex(choice) => choice.what(),
        }
    }

    /// Whether a finding on it is advisory: printed and counted, failing a run only when
    /// the user asks (`vex check --strict`, or `strict RULE` in the expected results).
    pub const fn advisory(self) -> bool {
        matches!(self, Provenance::Vex(_))
    }
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provenance::Pages(section) => f.write_str(section),
            Provenance::Facts(section) => f.write_str(section),
            Provenance::Vex(choice) => write!(f, "Vex's choice: {}", choice.what()),
        }
    }
}

impl Rule {
    /// Where the rule's own condition comes from: its `rules.md` source, a page (`AH`,
    /// `SR`, `NS`, `AI`, `TD`) or the facts sheet (`facts`). A check that judges the rule
    /// through a choice of Vex's reports [`Provenance::Vex`] on its finding instead.
    pub fn provenance(self) -> Provenance {
        let source = self.source();
        if source.starts_with("facts") {
            Provenance::Facts(source)
        } else {
            Provenance::Pages(source)
        }
    }
}

macro_rules! choices {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident => $id:literal, $what:literal;
    )*) => {
        /// A layout, number or deadline neither the pages nor the facts give, which a check
        /// needs and Vex chose. Each is named where a finding rests on it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Choice {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Choice {
            /// Every choice, in declaration order.
            pub const ALL: &'static [Choice] = &[$(Choice::$variant),*];

            /// A stable name, e.g. `signon-arm-fields`.
            pub const fn id(self) -> &'static str {
                match self { $(Choice::$variant => $id,)* }
            }

            /// What was chosen, and why the pages do not settle it.
            pub const fn what(self) -> &'static str {
                match self { $(Choice::$variant => $what,)* }
            }
        }
    };
}

choices! {
    /// NS "SignOn" describes the response's sub-messages and the feature list in words;
    /// the facts give the success message's own fields, not where it sits.
    SignOnLayout => "signon-layout",
        "the root field numbers of SignOn's success (2), queued (3), error (7) and throttled (9) sub-messages and of the feature list (11), and the fields inside the last three: NS names their contents, not their numbers";
    /// SR says a snapshot is never answered in part, not how close its parts come.
    SnapshotGap => "snapshot-gap",
        "a snapshot's parts come within 100 ms of each other: SR says a request is never answered in part, not how close together its parts go out";
    /// AH gives the first message 5 as the answer to the first message 52, with no time.
    FirstRosterLatency => "first-roster-latency",
        "the first message 5 comes within 1,000 ms of the client's first message 52, or it answers something else: SR gives the answer, not how soon";
    /// SR has a table go out while the client has not acknowledged it, and gives no time
    /// for the acknowledgement to reach the host.
    AckCrossing => "ack-crossing",
        "an acknowledgement (message 38) reaches the host within 1,000 ms of the client sending it, so a table repeated later unchanged was sent once the host had it: SR says a table goes out while unacknowledged, not how long an acknowledgement takes to arrive";
    /// NS says an unanswered probe marks the session unsuitable, with no time.
    QosReplyWait => "qos-reply-wait",
        "a QoS reply comes within 3,000 ms of its probe, or the session is unanswered: NS says an unanswered session is marked unsuitable, not how long the client waits";
    /// NS says nothing above runs until the handshake completes, with no time.
    AssociationWait => "association-wait",
        "each answer of the association handshake (the init ack, the cookie ack) comes within 3,000 ms, or the association is unanswered: NS says nothing above runs until the four packets complete, not how long a requester waits";
    /// NS names ECDH with LibTomCrypt and an exported key, not the export's form.
    AssociationKeyForm => "association-key-form",
        "the public key field holds LibTomCrypt's legacy ecc_export DER (a one-bit BIT STRING, the size 28, x and y), zero padded, as Sunrise reads it: NS says each side exports its key, not in which form";
    /// NS gives AES-128-CBC and an 8-byte truncated MAC, not the keys, IV or MAC hash.
    RecordCrypto => "record-crypto",
        "a record's keys are Tiger/192 of the ECDH secret, the join key and a suffix, its IV Tiger of its sequence and tag, its pad 0x01 (Sunrise's), and its MAC HMAC-SHA256 (Vex's: Sunrise tries three hashes): NS gives the cipher, the MAC's coverage and its length";
    /// NS gives the struct_size field and its rule, not the table of sizes.
    PeerStructSizes => "peer-struct-sizes",
        "each peer message id's fixed struct_size is Sunrise's (ping and pong 24): NS says the size is a constant per id, not what each is";
    /// NS names what ping, pong and time-synchronize carry, not their layouts.
    PeerMessageBodies => "peer-message-bodies",
        "the bodies of ping, pong and time-synchronize (a sequence and timestamp; a raw session id, a flag, one sample or three) are Sunrise's: NS names what each carries, not its fields' widths";
    /// NS gives the established datagram's order, not its fields' widths.
    EstablishedLayout => "established-layout",
        "an established datagram's fields are Sunrise's (the guard its sender's channel id mod 4, a 10-bit packet sequence, a 7-bit ACK base and its status forms, 13-bit message sequences, 32-byte fragments in queue A), the first packet and the first message are sequence 1 and the first message is connect-establish: NS gives the order of the head, the ACK, the two queues and the external handlers, and the 128-ahead rule";
    /// NS gives the hash's coverage and the nanopb region, not the rest of the state.
    SessionStateReplica => "session-state-replica",
        "the session state the membership hash covers is the pages' member records with their has_ bytes set as nanopb sets them, then Sunrise's peer table at +5968 and player table at +15192, hashed with lookup3 from 0xFFFFFFFF (Sunrise's): NS gives the 28,768 bytes and the hash, not the layout past the nanopb region or the start value";
    /// NS gives the probe's security id a place, not a source.
    QosSecurityId => "qos-security-id",
        "a QoS probe's security id is the low 32 bits of the session it probes, and the host answers with that session's advertisement: NS gives the id's place in the probe (echoed back), not where the client gets it";
    /// NS gives no codec for service 161.
    Service161Codec => "service-161-codec",
        "every push on service 161 is taken as one that decodes: NS says a push that decodes there crashes the client, and gives no codec to tell";
    /// NS does not say how the client reads an HTTP status other than 200.
    SignOnHttpStatus => "signon-http-status",
        "a SignOn answer with an HTTP status other than 200 carries no response: NS gives the body, not how the client reads the status";
    /// AH gives messages 24 and 25 as masks; facts 4.14 give message 27's layout only.
    PurgeNoticeLayout => "purge-notice-layout",
        "the purge notice is message 25 in message 27's layout (3-bit reason, then the mask): SR names the notice, not its id or layout";
    /// The reply shapes of the web-service opcodes come from a Sunrise newer than the facts
    /// sheet's snapshot.
    WebServiceReplyShapes => "web-service-reply-shapes",
        "which web-service replies open with the status pair, taken from a newer Sunrise than the facts sheet's: NS says 75 of 115 do, not which";
    /// The matchmaking reply fields beyond 1, 3 and 4 come from a newer Sunrise.
    MatchmakingFields => "matchmaking-fields",
        "matchmaking reply fields 5 (advertisement id), 7 (located session) and 8 (live stats), taken from a newer Sunrise than the facts sheet's: NS gives fields 1, 3 and 4";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_traces_to_a_page_or_the_facts() {
        for &rule in Rule::ALL {
            let p = rule.provenance();
            assert!(!p.advisory(), "{rule}: a rule's own source is never Vex's");
            assert!(
                p.section()
                    .starts_with(|c: char| c.is_ascii_uppercase() || c == 'f')
            );
        }
        assert_eq!(Rule::Bap16.provenance(), Provenance::Facts("facts 2.2"));
        assert_eq!(Rule::Env01.provenance().kind(), "pages");
    }

    #[test]
    fn choice_ids_are_unique_and_say_what() {
        let mut ids: Vec<_> = Choice::ALL.iter().map(|c| c.id()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Choice::ALL.len());
        for c in Choice::ALL {
            assert!(Provenance::Vex(*c).advisory());
            assert!(
                c.what().contains(':'),
                "{c:?} says why the pages do not settle it"
            );
        }
    }
}
