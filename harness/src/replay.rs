//! A transcript replayed against the emulated client: the host's frames go in at their
//! times on a virtual clock, and the client judges them as it did in the recorded run
//! (design "Transcripts and the corpus"). The client's own frames are not sent anywhere;
//! the channel keys come from the host's hello in the transcript, so the client needs the
//! same SignOn keys and the same script as the recorded run.

use crate::report::RunReport;
use crate::transcript::{Direction, Line, Transcript};
use vex_fake_client::{ClientConfig, ClientCore, LinkKind};
use vex_wire::time::Instant;

/// The longest run a replay plays out: the client's timers fire every second, so a
/// transcript from a garbled or hostile file cannot make it run for ever.
pub const MAX_REPLAY_MS: u64 = 24 * 60 * 60 * 1000;

/// A transcript that cannot be replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the transcript runs to {end_ms} ms, past the {MAX_REPLAY_MS} ms a replay plays out")]
pub struct TooLong {
    /// Where it ends.
    pub end_ms: u64,
}

/// Replays `transcript`'s host frames to a client made from `client`, up to the
/// transcript's end (or its last frame).
pub fn to_client(transcript: &Transcript, client: ClientConfig) -> Result<RunReport, TooLong> {
    let last = transcript.lines.iter().map(|l| l.at).max();
    let end = transcript
        .ended_at
        .into_iter()
        .chain(last)
        .max()
        .unwrap_or_default();
    if end.millis() > MAX_REPLAY_MS {
        return Err(TooLong {
            end_ms: end.millis(),
        });
    }
    let mut client = ClientCore::new(client);
    let mut replayed = Transcript::default();
    let mut now = Instant::default();
    for line in &transcript.lines {
        let Some(link) = link_kind(&line.link) else {
            continue;
        };
        match line.direction {
            // the recorded client acted here: its timers due by then have run
            Direction::ToHost => run_until(&mut client, &mut now, line.at, &mut replayed),
            Direction::ToClient => {
                run_before(&mut client, &mut now, line.at, &mut replayed);
                replayed.push(line.clone());
                client.handle_bytes(now, link, &line.bytes);
            }
            Direction::Closed => {
                run_before(&mut client, &mut now, line.at, &mut replayed);
                replayed.closed(now, line.link.clone());
                client.handle_closed(now, link);
            }
        }
        settle(&mut client, now, &mut replayed);
    }
    run_until(&mut client, &mut now, end, &mut replayed);
    client.finish(end);
    Ok(RunReport::of(&client, replayed, end))
}

fn link_kind(name: &str) -> Option<LinkKind> {
    [LinkKind::Primary, LinkKind::Activity]
        .into_iter()
        .find(|k| k.to_string() == name)
}

/// Runs the client's own timers due by `until`, in order.
fn run_until(client: &mut ClientCore, now: &mut Instant, until: Instant, out: &mut Transcript) {
    run_timers(client, now, |t| t <= until, out);
    *now = (*now).max(until);
}

/// Runs the client's own timers due before `at`: a host frame at `at` reached the
/// recorded client before its timers of that millisecond, unless a frame of its own
/// in between shows they ran.
fn run_before(client: &mut ClientCore, now: &mut Instant, at: Instant, out: &mut Transcript) {
    run_timers(client, now, |t| t < at, out);
    *now = (*now).max(at);
}

fn run_timers(
    client: &mut ClientCore,
    now: &mut Instant,
    due: impl Fn(Instant) -> bool,
    out: &mut Transcript,
) {
    settle(client, *now, out);
    while let Some(t) = client.poll_timeout().filter(|t| due(*t)) {
        *now = (*now).max(t);
        client.handle_timeout(*now);
        settle(client, *now, out);
    }
}

/// Opens the links the client asks for and records what it sends.
fn settle(client: &mut ClientCore, now: Instant, out: &mut Transcript) {
    loop {
        let mut progress = false;
        while let Some((kind, _)) = client.poll_connect() {
            client.handle_connected(now, kind);
            progress = true;
        }
        while let Some(t) = client.poll_transmit() {
            out.push(Line {
                at: now,
                direction: Direction::ToHost,
                link: t.link.to_string(),
                service: t.service,
                message: t.message,
                bytes: t.bytes,
                payload: t.payload,
            });
            progress = true;
        }
        while client.poll_received().is_some() {}
        if !progress {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A day is the most a replay plays out; an empty transcript is a run of nothing.
    #[test]
    fn replays_are_bounded() {
        let client =
            || ClientConfig::builtin(std::net::SocketAddrV4::new([127, 0, 0, 1].into(), 1));
        let long = Transcript {
            lines: Vec::new(),
            ended_at: Some(Instant::from_millis(MAX_REPLAY_MS + 1)),
        };
        assert_eq!(
            to_client(&long, client()).unwrap_err(),
            TooLong {
                end_ms: MAX_REPLAY_MS + 1
            }
        );
        let run = to_client(&Transcript::default(), client()).unwrap();
        assert_eq!(run.elapsed_ms, 0);
    }
}
