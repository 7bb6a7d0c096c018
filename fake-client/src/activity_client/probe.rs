//! The timed probes of an activity client (`crate::probe`): the odd message goes out when
//! the script says, and a host that closes the link soon after it broke the probe's rule
//! (the real client then ends the activity: LINK-01).

use crate::links::Outgoing;
use crate::probe::Probe;
use crate::rules::Rule;
use vex_wire::activity::ids;
use vex_wire::time::Instant;

/// A link closed this soon after a probe went out was closed because of it.
const BLAME_WINDOW_MS: u64 = 2_000;
/// Message id 200: past the table's 0 to 58.
const UNKNOWN_MESSAGE: u32 = 200;
/// The bytes a cut-short message 23 keeps, of 46.
const SHORT_IDENTITY: [u8; 3] = [0x11, 0x22, 0x33];

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
        self.due = probe.filter(|(p, _)| {
            matches!(
                p,
                Probe::ForeignSession
                    | Probe::UnknownMessage
                    | Probe::HostMessage
                    | Probe::ShortBody
            )
        });
    }

    /// When the probe is due.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.due.map(|(_, at)| at)
    }

    /// The probe goes out at `now` on a link whose session is `handle`, with a message 18
    /// body of `refresh`: the session it names and the message.
    pub(crate) fn send(
        &mut self,
        now: Instant,
        handle: u64,
        refresh: Vec<u8>,
    ) -> Option<(u64, Outgoing)> {
        let (probe, _) = self.due.take()?;
        self.sent = Some((probe, now));
        let (handle, message, body) = match probe {
            // the complement of the link's own session: no session the host made
            Probe::ForeignSession => (!handle, ids::STATE_REFRESH, refresh),
            Probe::UnknownMessage => (handle, UNKNOWN_MESSAGE, vec![0; 4]),
            Probe::HostMessage => (handle, ids::SENSOR_AUTH_UPDATE, vec![0; 16]),
            Probe::ShortBody => (handle, ids::CLIENT_IDENTITY_UPDATE, SHORT_IDENTITY.to_vec()),
            Probe::MalformedSelection
            | Probe::DiscriminatorTwo
            | Probe::TrailingBytes
            | Probe::LargeSlotRequest => return None,
        };
        Some((handle, Outgoing { message, body }))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_close_soon_after_the_probe_is_blamed_on_it() {
        let mut p = TimedProbe::default();
        p.schedule(Some((Probe::ForeignSession, Instant::from_millis(10))));
        assert_eq!(p.due(), Some(Instant::from_millis(10)));
        let (handle, out) = p
            .send(Instant::from_millis(10), 0x20_0001, vec![1])
            .unwrap();
        assert_eq!(handle, !0x20_0001);
        assert_eq!(out.message, ids::STATE_REFRESH);
        assert_eq!(p.due(), None);
        let blamed = p.blame_close(Instant::from_millis(10 + BLAME_WINDOW_MS));
        assert_eq!(blamed.map(|(r, _)| r), Some(Rule::Host06));
        assert_eq!(
            p.blame_close(Instant::from_millis(11 + BLAME_WINDOW_MS)),
            None
        );
    }

    #[test]
    fn the_route_and_refresh_probes_are_not_timed() {
        let mut p = TimedProbe::default();
        p.schedule(Some((Probe::DiscriminatorTwo, Instant::from_millis(10))));
        assert_eq!(p.due(), None);
        assert_eq!(p.blame_close(Instant::from_millis(10)), None);
    }
}
