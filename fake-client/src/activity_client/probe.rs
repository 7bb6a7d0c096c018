//! The timed probes of an activity client (`crate::probe`): the probe's message goes out
//! when the script says; a host that closes the link soon after it broke the probe's
//! rule (the real client then ends the activity: LINK-01), and so did one that answers a
//! probe it must drop.

use super::ActivityClient;
use super::refresh::state_refresh_body;
use crate::links::{Links, Outgoing};
use crate::probe::{LARGE_SLOT_REQUEST, Probe};
use crate::rules::Rule;
use vex_wire::activity::ids;
use vex_wire::time::Instant;

/// A link closed this soon after a probe went out was closed because of it.
const BLAME_WINDOW_MS: u64 = 2_000;
/// Message id 200: past the table's 0 to 58.
const UNKNOWN_MESSAGE: u32 = 200;
/// The bytes a cut-short message 23 keeps, of 46.
const SHORT_IDENTITY: [u8; 3] = [0x11, 0x22, 0x33];
/// What the trailing-bytes probe appends to message 18 (HOST-03).
const TRAILING_BYTES: [u8; 4] = [0; 4];

/// A timed probe and when it went out.
#[derive(Debug, Default)]
pub(crate) struct TimedProbe {
    /// The probe and when it is due, until it is sent.
    due: Option<(Probe, Instant)>,
    /// The probe and when it went out.
    sent: Option<(Probe, Instant)>,
}

impl TimedProbe {
    /// `probe` goes out at `at`, when it is one sent on its own.
    pub(super) fn schedule(&mut self, probe: Option<(Probe, Instant)>) {
        self.due = probe.filter(|(p, _)| p.is_timed());
    }

    /// When the probe is due.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.due.map(|(_, at)| at)
    }

    /// A message 2 no snapshot request owes arrived: the probe's rule and why, when the
    /// probe sent is one the host must drop. Message 2 goes with the join burst and with
    /// a snapshot only (SR "The join burst", "What each client message gets"), and the
    /// probe cases push nothing else: one after a dropped message answered it (HOST-01,
    /// HOST-06: "recorded and dropped").
    pub(crate) fn blame_answer(&self) -> Option<(Rule, String)> {
        let (probe, _) = self.sent.filter(|(p, _)| p.is_dropped())?;
        let reason = format!(
            "a message 2 no request of the client's owes, after it sent {}: the host answered what it must drop",
            probe.what()
        );
        Some((probe.rule(), reason))
    }

    /// The link closed at `now`: the probe's rule and why, when a probe went out just
    /// before.
    pub(crate) fn blame_close(&self, now: Instant) -> Option<(Rule, String)> {
        let (probe, at) = self.sent?;
        let after = now.since(at);
        (after <= BLAME_WINDOW_MS).then(|| {
            let reason = format!(
                "the host closed the Activity Host link {after} ms after the client sent {}: it must drop what it cannot take and go on",
                probe.what()
            );
            (probe.rule(), reason)
        })
    }
}

impl ActivityClient {
    /// The scripted probe's message goes out at `now`: a message 18 on discriminator 2 or
    /// with trailing bytes, owed its snapshot; a message 20 for every slot; or an odd
    /// message the host must drop.
    pub(crate) fn send_probe(&mut self, now: Instant, links: &mut Links) {
        let Some((probe, _)) = self.probe.due.take() else {
            return;
        };
        self.probe.sent = Some((probe, now));
        let handle = self.join.handle();
        let (public, bubble) = (self.join.public(), self.region.bubble());
        let revision = self.membership.acknowledged_revision();
        let odd = |message, body| Outgoing { message, body };
        match probe {
            Probe::DiscriminatorTwo => {
                let out = self.refresh.ask(now, public, revision, bubble);
                self.refresh.sent_on_two();
                links.send_activity_on_two(now, handle, out);
            }
            Probe::TrailingBytes => {
                let mut out = self.refresh.ask(now, public, revision, bubble);
                self.refresh.sent_with_trailing_bytes();
                out.body.extend_from_slice(&TRAILING_BYTES);
                links.send_activity(now, handle, out);
            }
            Probe::LargeSlotRequest => {
                for out in self.slots.request(now, LARGE_SLOT_REQUEST) {
                    links.send_activity(now, handle, out);
                }
            }
            // the complement of the link's own session: no session the host made
            Probe::ForeignSession => {
                let body = state_refresh_body(revision, bubble);
                links.send_activity(now, !handle, odd(ids::STATE_REFRESH, body));
            }
            Probe::UnknownMessage => {
                links.send_activity(now, handle, odd(UNKNOWN_MESSAGE, vec![0; 4]))
            }
            Probe::HostMessage => {
                links.send_activity(now, handle, odd(ids::SENSOR_AUTH_UPDATE, vec![0; 16]));
            }
            Probe::ShortBody => {
                let body = SHORT_IDENTITY.to_vec();
                links.send_activity(now, handle, odd(ids::CLIENT_IDENTITY_UPDATE, body));
            }
            Probe::MalformedSelection => {} // it goes with service 6, on the route
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_close_soon_after_the_probe_is_blamed_on_it() {
        let mut p = TimedProbe::default();
        p.schedule(Some((Probe::ForeignSession, Instant::from_millis(10))));
        assert_eq!(p.due(), Some(Instant::from_millis(10)));
        p.sent = p
            .due
            .take()
            .map(|(probe, _)| (probe, Instant::from_millis(10)));
        let blamed = p.blame_close(Instant::from_millis(10 + BLAME_WINDOW_MS));
        assert_eq!(blamed.map(|(r, _)| r), Some(Rule::Host06));
        assert_eq!(
            p.blame_close(Instant::from_millis(11 + BLAME_WINDOW_MS)),
            None
        );
    }

    /// An unowed message 2 is blamed on a probe the host must drop, under its own rule;
    /// not on a probe it must answer, nor before any probe went out.
    #[test]
    fn an_answer_to_a_dropped_probe_is_blamed_on_it() {
        let sent = |probe| TimedProbe {
            due: None,
            sent: Some((probe, Instant::from_millis(10))),
        };
        assert_eq!(TimedProbe::default().blame_answer(), None);
        for (probe, rule) in [
            (Probe::ForeignSession, Some(Rule::Host06)),
            (Probe::UnknownMessage, Some(Rule::Host01)),
            (Probe::HostMessage, Some(Rule::Host01)),
            (Probe::ShortBody, Some(Rule::Host01)),
            (Probe::DiscriminatorTwo, None),
            (Probe::TrailingBytes, None),
            (Probe::LargeSlotRequest, None),
        ] {
            assert_eq!(
                sent(probe).blame_answer().map(|(r, _)| r),
                rule,
                "{probe:?}"
            );
        }
    }

    #[test]
    fn the_route_probe_is_not_timed() {
        let mut p = TimedProbe::default();
        p.schedule(Some((Probe::MalformedSelection, Instant::from_millis(10))));
        assert_eq!(p.due(), None);
        assert_eq!(p.blame_close(Instant::from_millis(10)), None);
    }

    /// BODY-07: a host that closes the link just after the client's message 18 with
    /// trailing bytes refused a body the client's own decoder takes: caught under BODY-07;
    /// a close before the probe went out blames nothing.
    #[test]
    fn a_close_after_trailing_bytes_is_body_07() {
        let sent = TimedProbe {
            due: None,
            sent: Some((Probe::TrailingBytes, Instant::from_millis(10))),
        };
        let blamed = sent.blame_close(Instant::from_millis(10));
        assert_eq!(blamed.map(|(r, _)| r), Some(Rule::Body07));
        let blamed = sent.blame_close(Instant::from_millis(10 + BLAME_WINDOW_MS));
        assert_eq!(blamed.map(|(r, _)| r), Some(Rule::Body07));
        let mut due = TimedProbe::default();
        due.schedule(Some((Probe::TrailingBytes, Instant::from_millis(10))));
        assert_eq!(due.blame_close(Instant::from_millis(5)), None);
        assert_eq!(due.blame_answer(), None, "it is owed its answer");
        // the probe is message 18's 8 bytes and 4 past them, owed its snapshot
        let mut links = Links::new(std::net::SocketAddrV4::new(
            std::net::Ipv4Addr::LOCALHOST,
            1,
        ));
        links.open(
            Instant::default(),
            crate::link::LinkKind::Activity,
            &[0; 32],
        );
        while links.poll_transmit().is_some() {}
        let mut client = ActivityClient::new(0x9EAA_3001_0020_0001, false, false, 0);
        client.probe = due;
        client.send_probe(Instant::from_millis(10), &mut links);
        let sent = links.poll_transmit().unwrap();
        assert_eq!(sent.message, Some(ids::STATE_REFRESH));
        assert_eq!(sent.payload.map(|p| p.len()), Some(12));
        assert!(client.refresh.answers(ids::GLOBAL_ACTIVITY_STATE));
    }
}
