//! The client checks the emulated client enforces. The catalog itself, every rule of
//! `rules.md` with its id, effect, source and summary, is `vex-rules`; this is the client's
//! own list of the rules it checks.

pub use vex_rules::{Choice, Effect, Family, Provenance, Rule};

/// Every rule the emulated client enforces, in the order it lists them (`vex rules`).
pub const ENFORCED: &[Rule] = &[
    Rule::Bap01,
    Rule::Bap02,
    Rule::Bap03,
    Rule::Bap04,
    Rule::Bap05,
    Rule::Bap06,
    Rule::Bap07,
    Rule::Bap08,
    Rule::Bap09,
    Rule::Bap10,
    Rule::Bap11,
    Rule::Bap12,
    Rule::Bap13,
    Rule::Bap14,
    Rule::Bap15,
    Rule::Bap16,
    Rule::Bap17,
    Rule::Bap18,
    Rule::Bap19,
    Rule::Bap21,
    Rule::Bap22,
    Rule::Body07,
    Rule::Env01,
    Rule::Env02,
    Rule::Env03,
    Rule::Env04,
    Rule::Env11,
    Rule::Env12,
    Rule::Env05,
    Rule::Env06,
    Rule::Env07,
    Rule::Env08,
    Rule::Env09,
    Rule::Env10,
    Rule::Join01,
    Rule::Join02,
    Rule::Slots01,
    Rule::Slots02,
    Rule::Join03,
    Rule::Join04,
    Rule::Join05,
    Rule::Join06,
    Rule::Join07,
    Rule::Join09,
    Rule::Global01,
    Rule::Global02,
    Rule::Global03,
    Rule::Global04,
    Rule::Global07,
    Rule::World01,
    Rule::World02,
    Rule::World03,
    Rule::Member01,
    Rule::Member02,
    Rule::Member07,
    Rule::Member04,
    Rule::Member05,
    Rule::Member06,
    Rule::Seed01,
    Rule::Seed02,
    Rule::Seed05,
    Rule::Seed06,
    Rule::Auth17,
    Rule::Auth18,
    Rule::Auth19,
    Rule::Bhs01,
    Rule::Auth01,
    Rule::Auth02,
    Rule::Auth04,
    Rule::Auth05,
    Rule::Auth06,
    Rule::Auth07,
    Rule::Auth08,
    Rule::Auth09,
    Rule::Auth10,
    Rule::Auth16,
    Rule::Auth11,
    Rule::Auth12,
    Rule::Slots04,
    Rule::Slot01,
    Rule::Slot02,
    Rule::Slot03,
    Rule::T1701,
    Rule::T1703,
    Rule::T1702,
    Rule::T1704,
    Rule::T1705,
    Rule::T1706,
    Rule::T1707,
    Rule::T1708,
    Rule::T1709,
    Rule::T301,
    Rule::T302,
    Rule::T6501,
    Rule::T6502,
    Rule::T2401,
    Rule::Auth13,
    Rule::Host05,
    Rule::Host08,
    Rule::Body04,
    Rule::Body05,
    Rule::Epoch01,
    Rule::Sticky02,
    Rule::Epoch02,
    Rule::Incident01,
    Rule::Incident02,
    Rule::Incident03,
    Rule::Incident04,
    Rule::Incident05,
    Rule::Host03,
    Rule::Host04,
    Rule::Host14,
    Rule::Host15,
    Rule::Host01,
    Rule::Host06,
    Rule::Host10,
    Rule::Host12,
    Rule::Seed03,
    Rule::Host16,
    Rule::Host17,
    Rule::Member03,
    Rule::Leave01,
    Rule::Leave02,
    Rule::Link01,
    Rule::Link03,
    Rule::Signon01,
    Rule::Signon02,
    Rule::Signon03,
    Rule::Signon04,
    Rule::Signon06,
    Rule::Signon08,
    Rule::Signon09,
    Rule::Signon10,
    Rule::Manifest01,
    Rule::Manifest02,
    Rule::Pb01,
    Rule::Qz01,
    Rule::Qz02,
    Rule::Qz03,
    Rule::Qz06,
    Rule::Qz08,
    Rule::Mm01,
    Rule::Mm03,
    Rule::Mm06,
    Rule::Ws01,
    Rule::Ws02,
    Rule::Qos01,
    Rule::Qos02,
    Rule::Qos03,
    Rule::Qos04,
    Rule::Qos05,
    Rule::Qos06,
    Rule::Peer01,
    Rule::Peer02,
    Rule::Peer04,
    Rule::Peer07,
    Rule::Peer08,
    Rule::Peer09,
    Rule::Peer10,
    Rule::Peer11,
    Rule::Peer12,
    Rule::Peer13,
    Rule::Peer14,
    Rule::Peer15,
    Rule::Peer16,
    Rule::Peer17,
    Rule::Peer18,
    Rule::Peer19,
    Rule::Peer20,
    Rule::Peer22,
];

/// True when the emulated client enforces `rule`.
pub fn is_enforced(rule: Rule) -> bool {
    ENFORCED.contains(&rule)
}

/// Every rule a check of the emulated client judges through a choice of Vex's, with the
/// choice: its findings there are advisory (design "Verdicts: provenance and legal
/// variations"). A rule may have checks on the pages beside them.
pub const JUDGED_ON_CHOICES: &[(Rule, Choice)] = &[
    (Rule::Bap10, Choice::Service161Codec),
    (Rule::Bap21, Choice::MatchmakingFields),
    (Rule::Auth16, Choice::FirstRosterLatency),
    (Rule::Member03, Choice::AckCrossing),
    (Rule::Host03, Choice::SnapshotGap),
    (Rule::Host08, Choice::PurgeNoticeLayout),
    (Rule::Signon02, Choice::SignOnHttpStatus),
    (Rule::Signon02, Choice::SignOnLayout),
    (Rule::Signon06, Choice::SignOnLayout),
    (Rule::Signon08, Choice::SignOnLayout),
    (Rule::Signon09, Choice::SignOnLayout),
    (Rule::Signon10, Choice::SignOnLayout),
    (Rule::Pb01, Choice::SignOnLayout),
    (Rule::Mm01, Choice::MatchmakingFields),
    (Rule::Mm06, Choice::MatchmakingFields),
    (Rule::Ws01, Choice::WebServiceReplyShapes),
    (Rule::Ws02, Choice::WebServiceReplyShapes),
    (Rule::Qos02, Choice::QosReplyWait),
    (Rule::Qos06, Choice::QosSecurityId),
    (Rule::Peer07, Choice::AssociationWait),
    (Rule::Peer10, Choice::AssociationKeyForm),
    (Rule::Peer11, Choice::RecordCrypto),
    (Rule::Peer13, Choice::PeerStructSizes),
    (Rule::Peer04, Choice::MatchmakingFields),
    (Rule::Peer14, Choice::EstablishedLayout),
    (Rule::Peer14, Choice::PeerMessageBodies),
    (Rule::Peer16, Choice::PeerMessageBodies),
    (Rule::Peer17, Choice::PeerMessageBodies),
    (Rule::Peer22, Choice::SessionStateReplica),
];

/// The choices of Vex's a check of `rule` rests on, in the order listed.
pub fn choices_of(rule: Rule) -> impl Iterator<Item = Choice> {
    JUDGED_ON_CHOICES
        .iter()
        .filter(move |(r, _)| *r == rule)
        .map(|(_, c)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every choice a check rests on is listed with an enforced rule, and every choice of
    /// the catalog is one some check rests on.
    #[test]
    fn every_choice_is_used_by_an_enforced_rule() {
        for (rule, _) in JUDGED_ON_CHOICES {
            assert!(is_enforced(*rule), "{rule}");
        }
        for choice in Choice::ALL {
            assert!(
                JUDGED_ON_CHOICES.iter().any(|(_, c)| c == choice),
                "{choice:?} rests no check"
            );
        }
    }

    #[test]
    fn enforced_rules_are_listed_once() {
        let mut ids: Vec<_> = ENFORCED.iter().map(|r| r.id()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), ENFORCED.len());
    }
}
