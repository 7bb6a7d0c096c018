//! The timed probes of an activity client (`crate::probe`): the probe's message goes out
//! when the script says; a host that closes the link soon after it broke the probe's
//! rule (the real client then ends the activity: LINK-01). One that answers a probe it
//! must drop is judged with every other answer no request owes (`unasked`).

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
