//! Probes: something legal but unusual, or malformed, that the emulated client sends to
//! judge how a host answers it, against any host (issue 13; `rules.md` HOST duties). The
//! host must take the legal ones as it takes the usual form, and drop the malformed ones
//! and go on. A probe case also asks for the snapshot with a plain message 18 (HOST-03): a
//! second after the probe, or, for discriminator two, a second before it, so that only a
//! host that answers the plain form and not discriminator 2 is blamed for HOST-10.

use crate::rules::Rule;

/// Slots the large-slot-request probe asks for with message 20: every slot, more than any
/// member can be granted.
pub const LARGE_SLOT_REQUEST: i32 = 8_192;

/// One probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// Service 6 with a body no selection decoder takes: the host still answers with
    /// service 7, falling back to a default selection (BAP-14).
    MalformedSelection,
    /// The scripted message 18 goes on service-8 discriminator 2, the arm with no
    /// peer-heard mask: legal, and owed the snapshot as with 1 (HOST-10).
    DiscriminatorTwo,
    /// A message 18 naming a session the link does not own: recorded and dropped, the
    /// link goes on (HOST-06). It names the complement of the link's session, one no host
    /// made; a host that checks only that a session exists, not which link owns it, is not
    /// caught by this probe.
    ForeignSession,
    /// A message id outside the table (200): dropped, the link goes on (HOST-01).
    UnknownMessage,
    /// A message only the host sends (5, sensor_auth_update): dropped, the link goes on
    /// (HOST-01).
    HostMessage,
    /// A message 23 cut to 3 of its 46 bytes: dropped, the link goes on (HOST-01).
    ShortBody,
    /// The scripted message 18 carries 4 bytes past its 8: a bit-packed body ends in
    /// padding, a host decoder takes it as the client's does, and the request still gets
    /// its snapshot (BODY-07).
    TrailingBytes,
    /// The scripted message 20 asks for [`LARGE_SLOT_REQUEST`] slots, beyond any lease:
    /// the host grants the free ones (HOST-04).
    LargeSlotRequest,
}

impl Probe {
    /// Every probe.
    pub const ALL: [Probe; 8] = [
        Probe::MalformedSelection,
        Probe::DiscriminatorTwo,
        Probe::ForeignSession,
        Probe::UnknownMessage,
        Probe::HostMessage,
        Probe::ShortBody,
        Probe::TrailingBytes,
        Probe::LargeSlotRequest,
    ];

    /// The rule a host breaks when it mishandles the probe.
    pub fn rule(self) -> Rule {
        match self {
            Probe::MalformedSelection => Rule::Bap14,
            Probe::DiscriminatorTwo => Rule::Host10,
            Probe::ForeignSession => Rule::Host06,
            Probe::UnknownMessage | Probe::HostMessage | Probe::ShortBody => Rule::Host01,
            Probe::TrailingBytes => Rule::Body07,
            Probe::LargeSlotRequest => Rule::Host04,
        }
    }

    /// True for a probe the host must drop (SR: "recorded and dropped"), which gets no
    /// answer at all.
    pub fn is_dropped(self) -> bool {
        matches!(
            self,
            Probe::ForeignSession | Probe::UnknownMessage | Probe::HostMessage | Probe::ShortBody
        )
    }

    /// Its name in a script's text form and in case ids.
    pub fn name(self) -> &'static str {
        match self {
            Probe::MalformedSelection => "malformed-selection",
            Probe::DiscriminatorTwo => "discriminator-two",
            Probe::ForeignSession => "foreign-session",
            Probe::UnknownMessage => "unknown-message",
            Probe::HostMessage => "host-message",
            Probe::ShortBody => "short-body",
            Probe::TrailingBytes => "trailing-bytes",
            Probe::LargeSlotRequest => "large-slot-request",
        }
    }

    /// Whether its message goes out at the script's time; the malformed selection goes
    /// with the route's service 6 instead.
    pub fn is_timed(self) -> bool {
        self != Probe::MalformedSelection
    }

    /// The probe named `name`.
    pub fn named(name: &str) -> Option<Probe> {
        Probe::ALL.into_iter().find(|p| p.name() == name)
    }

    /// What the client sent, for a violation's reason.
    pub fn what(self) -> &'static str {
        match self {
            Probe::MalformedSelection => "a service 6 no selection decoder takes",
            Probe::DiscriminatorTwo => "message 18 on service-8 discriminator 2",
            Probe::ForeignSession => "a message 18 naming a session the link does not own",
            Probe::UnknownMessage => "message id 200, outside the message table",
            Probe::HostMessage => "message 5, which only a host sends",
            Probe::ShortBody => "a message 23 cut to 3 bytes",
            Probe::TrailingBytes => "a message 18 with 4 bytes past its body",
            Probe::LargeSlotRequest => "a message 20 asking for all 8,192 slots",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Probe::ALL {
            assert_eq!(Probe::named(p.name()), Some(p));
        }
        assert_eq!(Probe::named("nope"), None);
    }
}
