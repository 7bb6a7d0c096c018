//! A transcript replayed against the emulated client: the recorded events (links opened
//! and closed, the host's frames, the client's timer ticks) happen again in order on a
//! virtual clock, so the client judges the run as it did when it was recorded (design
//! "Transcripts and the corpus"). The client's own frames go nowhere; the channel keys
//! come from the host's hello in the transcript, so the client needs the recorded run's
//! SignOn keys, and it follows the transcript's script.

use crate::report::RunReport;
use crate::signon_record;
use crate::transcript::{Direction, Line, Transcript};
use vex_fake_client::{ClientConfig, ClientCore};
use vex_wire::time::Instant;

/// Replays member 1's events of `transcript` to a client made from `client` with the
/// transcript's script, up to the transcript's end. Lines of other members are left out.
/// The work is one step per line: the client's timers run at the recorded ticks only.
pub fn to_client(transcript: &Transcript, client: ClientConfig) -> RunReport {
    let end = transcript.end();
    let mut config = [ClientConfig {
        script: transcript.script,
        ..client
    }];
    let signon = match &transcript.signon {
        Some(record) => match signon_record::granted(signon_record::replay(record), &mut config) {
            Ok(signed_on) => Some(signed_on),
            Err(stopped) => return *stopped,
        },
        None => None,
    };
    let [config] = config;
    let mut replayed = Transcript::of(transcript.script);
    let mut client = ClientCore::new(config);
    let mut now = Instant::default();
    let own = |l: &&Line| l.member == 1 && l.at <= end;
    for line in transcript.lines.iter().filter(own) {
        now = now.max(line.at);
        match (line.direction, line.link) {
            (Direction::Tick, _) => {
                replayed.tick(now);
                client.handle_timeout(now);
            }
            (Direction::Opened, Some(link)) => {
                replayed.opened(now, link);
                client.handle_connected(now, link);
            }
            (Direction::Closed, Some(link)) => {
                replayed.closed(now, link);
                client.handle_closed(now, link);
            }
            (Direction::ToClient, Some(link)) => {
                client.handle_bytes(now, link, &line.bytes);
                replayed.received(now, &mut client);
            }
            (Direction::ToClient, None) => {
                replayed.push(Line::datagram(now, Direction::ToClient, &line.bytes));
                client.handle_datagram(now, &line.bytes);
            }
            // the client's own frames are made again below; other members are not played
            _ => {}
        }
        record_sent(&mut client, now, &mut replayed);
    }
    client.finish(end);
    let mut run = RunReport::of(&client, replayed, end);
    if let Some(signed_on) = signon {
        signed_on.before(&mut run);
    }
    run
}

/// Records what the client sends; its requests to open links are played by the
/// transcript's `opened` lines, not here.
fn record_sent(client: &mut ClientCore, now: Instant, out: &mut Transcript) {
    while client.poll_connect().is_some() {}
    while let Some(t) = client.poll_transmit() {
        out.push(Line::sent(now, &t));
    }
    while let Some((_, bytes)) = client.poll_datagram() {
        out.push(Line::datagram(now, Direction::ToHost, &bytes));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_fake_client::LinkKind;

    /// Ticks far apart are one step each, not every period in between; lines after the
    /// recorded end are not played.
    #[test]
    fn far_apart_ticks_are_one_step_each() {
        let client =
            || ClientConfig::builtin(std::net::SocketAddrV4::new([127, 0, 0, 1].into(), 1));
        let mut t = Transcript::default();
        t.opened(Instant::default(), LinkKind::Primary);
        t.tick(Instant::from_millis(1));
        t.tick(Instant::from_millis(u64::MAX / 2));
        t.tick(Instant::from_millis(u64::MAX));
        t.ended_at = Some(Instant::from_millis(u64::MAX / 2));
        let run = to_client(&t, client());
        assert_eq!(run.elapsed_ms, u64::MAX / 2);
        let ticks = run
            .transcript
            .lines
            .iter()
            .filter(|l| l.direction == Direction::Tick);
        assert_eq!(ticks.count(), 2, "the tick after the end is not played");
        assert_eq!(to_client(&Transcript::default(), client()).elapsed_ms, 0);
    }

    /// Bytes that never made a frame are kept as the header that stopped the stream, and
    /// a replay of them stops there too (BAP-01), as a run over TCP records it.
    #[test]
    fn an_unframable_stream_replays_to_its_error() {
        let client =
            || ClientConfig::builtin(std::net::SocketAddrV4::new([127, 0, 0, 1].into(), 1));
        let mut live = ClientCore::new(client());
        live.handle_connected(Instant::default(), LinkKind::Primary);
        live.handle_bytes(
            Instant::default(),
            LinkKind::Primary,
            &[9, 0, 0, 0, 0, 0, 7],
        );
        let received = live.poll_received().unwrap();
        assert_eq!(received.bytes, [9, 0, 0, 0, 0, 0]);
        let mut t = Transcript::default();
        t.opened(Instant::default(), LinkKind::Primary);
        t.push(Line::received(Instant::default(), received));
        let run = to_client(&Transcript::parse(&t.to_text()).unwrap(), client());
        assert_eq!(run.violations.len(), 1);
        assert_eq!(run.violations[0].rule, vex_fake_client::Rule::Bap01);
    }
}
