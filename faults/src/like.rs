//! Hosts that behave as another host is documented to (`vex host --like sunrise`): a
//! [`HostPlan`] of the faults and variations that make our host do what that host does
//! where it departs from the pages, each traced to the line of `facts/sunrise.md` that
//! records it. Run against one, `vex check` must report exactly the rules those
//! departures break: what Vex says of the reference host, and why.

use crate::fault::Fault;
use crate::plan::HostPlan;
use crate::variation::Variation;
use vex_rules::Rule;

/// A documented host our host can behave as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Like {
    /// Sunrise, the older C++ host the facts sheet was read from.
    Sunrise,
}

/// One way a documented host departs from the pages, or takes a freedom they leave.
#[derive(Debug, Clone, Copy)]
pub struct Departure {
    /// What the host does.
    pub what: &'static str,
    /// Where the facts sheet records it.
    pub facts: &'static str,
    /// The rules it breaks; none for a freedom the pages leave.
    pub breaks: &'static [Rule],
    /// How our host does the same: a fault, or a variation.
    pub how: How,
}

/// How our host reproduces a departure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// A fault that breaks a rule.
    Fault(Fault),
    /// A freedom the pages leave.
    Variation(Variation),
}

/// What Sunrise does that the pages either forbid or leave free, as the facts sheet
/// records it (facts 7 and 9).
const SUNRISE: &[Departure] = &[
    Departure {
        what: "the join burst is 4, 0, 1, 54: no message 2",
        facts: "facts 9, \"join burst\": 4, 0, 1, 54; no msg 2 exists (and 7 item 10)",
        breaks: &[Rule::Join02],
        how: How::Fault(Fault::BurstWithoutWorldGlobals),
    },
    Departure {
        what: "the activity keepalive runs every 5 s, not 2 s",
        facts: "facts 9, \"activity keepalive push interval\": 5 s (and 7 item 8: due 5,000 ms after the last delivered frame)",
        breaks: &[Rule::Link03],
        how: How::Fault(Fault::SlowKeepalive),
    },
    Departure {
        what: "every keepalive carries message 5 once an epoch is known",
        facts: "facts 7 item 8: the keepalive carries msg 1, then msg 12 (if owed), then msg 5 (if an epoch is known)",
        breaks: &[Rule::Auth16],
        how: How::Fault(Fault::RosterOnKeepalive),
    },
    Departure {
        what: "service 8 on discriminator 2 is rejected",
        facts: "facts 9, \"svc 8 discriminator 2\": rejected (and 4.0)",
        breaks: &[Rule::Host10],
        how: How::Fault(Fault::DiscriminatorTwoDropped),
    },
    Departure {
        what: "type-17 join_flag_inverted is sent as 0",
        facts: "facts 4.8, type 17 at offset 7: join_flag_inverted 0",
        breaks: &[Rule::T1707],
        how: How::Fault(Fault::JoinFlagZero),
    },
    Departure {
        what: "bubble authority is granted for the slice set's bubble (0 to 63), never bubble 64",
        facts: "facts 4.7, \"Sunrise's rules\": it grants bubble sliceSetIndex >> 3, at most 63; bubble 64 is never granted (a client hook forces the per-bubble arm)",
        breaks: &[Rule::Auth12],
        how: How::Fault(Fault::GrantBubbleZero),
    },
    Departure {
        what: "a region change reported in message 22 gets the new roster at once",
        facts: "facts 7 item 8: a region change reported in msg 22 triggers an immediate push",
        breaks: &[Rule::Auth13],
        how: How::Fault(Fault::RosterOnRegionReport),
    },
    Departure {
        what: "the roster state byte moves on each of a link's first three sends",
        facts: "facts 4.7, \"stateSequence\": it moves (mod 128) on each of the first 3 sends per link",
        breaks: &[],
        how: How::Variation(Variation::StateByteWarmUp),
    },
    Departure {
        what: "message 4 gives a 5,000 ms client keepalive interval and a peer-heard window of 0",
        facts: "facts 9, \"join_result keepalive / peer-heard window\": 5,000 / 0",
        breaks: &[],
        how: How::Variation(Variation::SunriseJoinTimings),
    },
    Departure {
        what: "type-17 current_bubble stays the arrival bubble",
        facts: "facts 4.8, type 17 at offset 72: current_bubble 0x80000000 (0)",
        breaks: &[],
        how: How::Variation(Variation::CurrentBubbleKept),
    },
];

impl Like {
    /// Every documented host.
    pub const ALL: &'static [Like] = &[Like::Sunrise];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Like::Sunrise => "sunrise",
        }
    }

    /// The host named `name`.
    pub fn from_name(name: &str) -> Option<Like> {
        Like::ALL.iter().copied().find(|l| l.name() == name)
    }

    /// Its departures from the pages, and the freedoms it takes.
    pub fn departures(self) -> &'static [Departure] {
        match self {
            Like::Sunrise => SUNRISE,
        }
    }

    /// The plan that makes our host behave as it does.
    pub fn plan(self) -> HostPlan {
        let (mut faults, mut variations) = (Vec::new(), Vec::new());
        for d in self.departures() {
            match d.how {
                How::Fault(f) => faults.push(f),
                How::Variation(v) => variations.push(v),
            }
        }
        HostPlan::new(faults, variations)
    }

    /// The rules its departures break, each once, in the order of the departures.
    pub fn breaks(self) -> Vec<Rule> {
        let mut rules: Vec<Rule> = Vec::new();
        for r in self.departures().iter().flat_map(|d| d.breaks) {
            if !rules.contains(r) {
                rules.push(*r);
            }
        }
        rules
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each departure that breaks a rule does it through a fault of that rule, and each
    /// freedom through a variation; every line cites the facts sheet.
    #[test]
    fn every_departure_is_traced_and_reproduced_by_its_own_rule() {
        for d in Like::Sunrise.departures() {
            assert!(d.facts.starts_with("facts "), "{}", d.what);
            match d.how {
                How::Fault(f) => assert_eq!(d.breaks, &[f.rule()], "{}", d.what),
                How::Variation(_) => assert!(d.breaks.is_empty(), "{}", d.what),
            }
        }
        assert_eq!(Like::from_name("sunrise"), Some(Like::Sunrise));
        let plan = Like::Sunrise.plan();
        assert!(plan.has(Fault::JoinFlagZero) && plan.varies(Variation::StateByteWarmUp));
    }
}
