//! The host core and the emulated client in one thread with a virtual clock that jumps to
//! the next deadline (design "Sans-IO cores"): a 21-second silence runs in microseconds,
//! and the same configuration always gives the same transcript.

use crate::report::RunReport;
use crate::transcript::{Direction, Line, Transcript};
use vex_fake_client::{ClientConfig, ClientCore, LinkKind};
use vex_host::{HostConfig, HostCore, HostEvent, LinkId};
use vex_wire::time::Instant;

fn link_id(kind: LinkKind) -> LinkId {
    match kind {
        LinkKind::Primary => LinkId(1),
        LinkKind::Activity => LinkId(2),
    }
}

fn link_kind(id: LinkId) -> LinkKind {
    if id == LinkId(1) {
        LinkKind::Primary
    } else {
        LinkKind::Activity
    }
}

/// Runs one client against one host for `run_for_ms` of virtual time.
pub fn run(host: HostConfig, client: ClientConfig, run_for_ms: u64) -> RunReport {
    let mut host = HostCore::new(host);
    let mut client = ClientCore::new(client);
    let mut transcript = Transcript::default();
    let deadline = Instant::from_millis(run_for_ms);
    let mut now = Instant::default();
    loop {
        let mut progress = false;
        while let Some((kind, _addr)) = client.poll_connect() {
            host.handle_connect(now, link_id(kind));
            client.handle_connected(now, kind);
            progress = true;
        }
        while let Some(t) = client.poll_transmit() {
            transcript.push(Line {
                at: now,
                direction: Direction::ToHost,
                link: t.link.to_string(),
                service: t.service,
                message: t.message,
                bytes: t.bytes.clone(),
                payload: t.payload.clone(),
            });
            host.handle_bytes(now, link_id(t.link), &t.bytes);
            progress = true;
        }
        while let Some(t) = host.poll_transmit() {
            let kind = link_kind(t.link);
            transcript.push(Line {
                at: now,
                direction: Direction::ToClient,
                link: kind.to_string(),
                service: t.service,
                message: t.message,
                bytes: t.bytes.clone(),
                payload: t.payload.clone(),
            });
            client.handle_bytes(now, kind, &t.bytes);
            progress = true;
        }
        while client.poll_received().is_some() {} // the transcript has the host's side
        while let Some(e) = host.poll_event() {
            if let HostEvent::Close { link, .. } = e {
                host.handle_close(now, link);
                client.handle_closed(now, link_kind(link));
                transcript.closed(now, link_kind(link).to_string());
            }
        }
        if progress {
            continue;
        }
        let next = [client.poll_timeout(), host.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        match next {
            Some(t) if t <= deadline => {
                now = now.max(t);
                client.handle_timeout(now);
                host.handle_timeout(now);
            }
            _ => break,
        }
    }
    let end = now.max(deadline);
    client.finish(end);
    RunReport::of(&client, transcript, end)
}
