//! The host core and emulated clients in one thread with a virtual clock that jumps to
//! the next deadline (design "Sans-IO cores"): a 21-second silence runs in microseconds,
//! and the same configuration always gives the same transcript. Client `i`'s links are
//! host links `2i + 1` (primary) and `2i + 2` (activity).
//!
//! Several clients make one activity the way SR "The join burst" describes: the first
//! joins the session its own service 6 created (a private join), and each other one starts
//! once the first is in, and names the first's session in its join (a public join).

use crate::link_fault::Direction;
use crate::report::RunReport;
use crate::transcript::{self, Line, Transcript};
use crate::wire::{Delivery, Hop, Wire};
use std::net::{Ipv4Addr, SocketAddrV4};
use vex_fake_client::{ClientConfig, ClientCore, LinkKind};
use vex_host::lobby::Written;
use vex_host::{HostConfig, HostCore, HostEvent, LinkId};
use vex_wire::time::Instant;

/// The first client's UDP port; client `i` has the `i`-th after it.
const CLIENT_UDP_PORTS: u16 = 40_000;

/// The host link of client `i`'s `kind` link.
pub fn link_id(i: usize, kind: LinkKind) -> LinkId {
    let base = 2 * i as u64;
    match kind {
        LinkKind::Primary => LinkId(base + 1),
        LinkKind::Activity => LinkId(base + 2),
    }
}

/// The client and its link behind host link `id`; none for link 0, which no client has.
fn client_link(id: LinkId) -> Option<(usize, LinkKind)> {
    let i = (id.0.checked_sub(1)? / 2) as usize;
    let kind = if id.0 % 2 == 1 {
        LinkKind::Primary
    } else {
        LinkKind::Activity
    };
    Some((i, kind))
}

/// One pass at `now` of everything waiting between `host` and `parts` (client `i` is
/// `parts[i]`) through `wire`: bytes the wire held that are due, connects, the clients'
/// frames to the host, the host's frames to the clients, and the host's events (a close
/// closes the client's link), which go to `events`. True when anything moved, so another
/// pass may have more.
pub fn exchange(
    host: &mut HostCore,
    parts: &mut [(ClientCore, Transcript)],
    wire: &mut Wire,
    now: Instant,
    events: &mut Vec<(Instant, HostEvent)>,
) -> bool {
    let due = wire.due(now);
    let mut progress = !due.is_empty();
    for d in due {
        deliver(host, parts, now, d);
    }
    for i in 0..parts.len() {
        let Some((client, transcript)) = parts.get_mut(i) else {
            continue;
        };
        while let Some((kind, _addr)) = client.poll_connect() {
            host.handle_connect(now, link_id(i, kind));
            client.handle_connected(now, kind);
            transcript.opened(now, kind);
            wire.opened(now, i, kind);
            progress = true;
        }
        let mut sent = Vec::new();
        while let Some(t) = client.poll_transmit() {
            transcript.push(Line::sent(now, &t));
            let hop = Hop {
                client: i,
                link: t.link,
                direction: Direction::ToHost,
            };
            sent.extend(wire.send(now, hop, &t.bytes));
            progress = true;
        }
        for d in sent {
            deliver(host, parts, now, d);
        }
    }
    // the in-process host's store is its own memory: every write is kept at once
    while let Some(w) = host.poll_write() {
        host.handle_written(w.ticket, Written::Kept);
        progress = true;
    }
    while let Some(t) = host.poll_transmit() {
        let Some((client, link)) = client_link(t.link) else {
            continue;
        };
        let hop = Hop {
            client,
            link,
            direction: Direction::ToClient,
        };
        for d in wire.send(now, hop, &t.bytes) {
            deliver(host, parts, now, d);
        }
        progress = true;
    }
    progress |= datagrams(host, parts, wire, now);
    while let Some(e) = host.poll_event() {
        if let HostEvent::Close { link, .. } = e {
            host.handle_close(now, link);
            if let Some((i, kind)) = client_link(link)
                && let Some((client, transcript)) = parts.get_mut(i)
            {
                client.handle_closed(now, kind);
                transcript.closed(now, kind);
            }
        }
        events.push((now, e));
    }
    progress
}

/// The UDP address of client `i`'s socket (the host sees each client at its own).
pub fn client_udp_address(i: usize) -> SocketAddrV4 {
    SocketAddrV4::new(Ipv4Addr::LOCALHOST, CLIENT_UDP_PORTS + i as u16)
}

/// Every datagram waiting between `host` and `parts`, through `wire`'s datagram path:
/// the clients' to the host's port, the host's to the client whose address it names. A
/// client's transcript records what it sent and what reached it. True when any moved.
fn datagrams(
    host: &mut HostCore,
    parts: &mut [(ClientCore, Transcript)],
    wire: &mut Wire,
    now: Instant,
) -> bool {
    let mut moved = false;
    for (i, (client, transcript)) in parts.iter_mut().enumerate() {
        while let Some((_, sent)) = client.poll_datagram() {
            transcript.push(Line::datagram(now, transcript::Direction::ToHost, &sent));
            for bytes in wire.datagram(i, Direction::ToHost, &sent) {
                host.handle_datagram(now, client_udp_address(i), &bytes);
            }
            moved = true;
        }
    }
    while let Some(d) = host.poll_datagram() {
        let to = (0..parts.len()).find(|i| client_udp_address(*i) == d.peer);
        if let Some(i) = to
            && let Some((client, transcript)) = parts.get_mut(i)
        {
            for bytes in wire.datagram(i, Direction::ToClient, &d.bytes) {
                transcript.push(Line::datagram(now, transcript::Direction::ToClient, &bytes));
                client.handle_datagram(now, &bytes);
            }
        }
        moved = true;
    }
    moved
}

/// Hands `d` to its receiver at `now`.
fn deliver(host: &mut HostCore, parts: &mut [(ClientCore, Transcript)], now: Instant, d: Delivery) {
    match d {
        Delivery::Bytes(hop, bytes) if hop.direction == Direction::ToHost => {
            host.handle_bytes(now, link_id(hop.client, hop.link), &bytes);
        }
        Delivery::Bytes(hop, bytes) => {
            if let Some((client, transcript)) = parts.get_mut(hop.client) {
                client.handle_bytes(now, hop.link, &bytes);
                transcript.received(now, client);
            }
        }
        Delivery::Cut(hop) => {
            host.handle_close(now, link_id(hop.client, hop.link));
            if let Some((client, transcript)) = parts.get_mut(hop.client) {
                client.handle_closed(now, hop.link);
                transcript.closed(now, hop.link);
            }
        }
    }
}

/// Runs one client against one host for `run_for_ms` of virtual time.
pub fn run(host: HostConfig, client: ClientConfig, run_for_ms: u64) -> RunReport {
    let mut reports = run_members(host, vec![client], run_for_ms);
    reports.remove(0)
}

fn start(config: ClientConfig) -> (ClientCore, Transcript) {
    let transcript = Transcript::of(config.script);
    (ClientCore::new(config), transcript)
}

/// Runs the members of one activity against one host for `run_for_ms` of virtual time, one
/// report each, in `members`' order. Member 1 starts at once; the others start when member
/// 1 is in its activity, joining its session unless their configuration names another or
/// they find one with matchmaking (`Script::locate`).
pub fn run_members(
    host: HostConfig,
    members: Vec<ClientConfig>,
    run_for_ms: u64,
) -> Vec<RunReport> {
    run_host(HostCore::new(host), members, run_for_ms, Vec::new()).reports
}

/// What a [`HostAction`] does, given the time.
pub type Act = Box<dyn FnOnce(Instant, &mut HostCore)>;

/// Something done to the host at a time of the run, as its operator would: a mission
/// reload, for one.
pub struct HostAction {
    /// When, in virtual milliseconds from the start.
    pub at_ms: u64,
    /// What.
    pub act: Act,
}

/// A run of [`run_host`]: each member's report, every event the host reported with its
/// time, and the host as the run left it.
pub struct HostRun {
    /// One report per member, in the members' order.
    pub reports: Vec<RunReport>,
    /// The host's events, in order.
    pub events: Vec<(Instant, HostEvent)>,
    /// The host.
    pub host: HostCore,
}

/// [`run_members`] on a host already made (one that runs a mission, say), doing each of
/// `actions` at its time.
pub fn run_host(
    host: HostCore,
    members: Vec<ClientConfig>,
    run_for_ms: u64,
    actions: Vec<HostAction>,
) -> HostRun {
    run_host_over(host, members, run_for_ms, actions, Wire::clean())
}

/// [`run_host`] over `wire`, which may fault one of member 1's links.
pub fn run_host_over(
    mut host: HostCore,
    members: Vec<ClientConfig>,
    run_for_ms: u64,
    mut actions: Vec<HostAction>,
    mut wire: Wire,
) -> HostRun {
    actions.sort_by_key(|a| std::cmp::Reverse(a.at_ms));
    let mut events = Vec::new();
    let mut members = members.into_iter();
    let mut parts: Vec<(ClientCore, Transcript)> = members.next().map(start).into_iter().collect();
    let mut waiting: Vec<ClientConfig> = members.collect();
    let deadline = Instant::from_millis(run_for_ms);
    let mut now = Instant::default();
    loop {
        if let (false, Some(session)) = (
            waiting.is_empty(),
            parts.first().and_then(|(c, _)| c.session()),
        ) {
            for mut config in waiting.drain(..) {
                if !config.script.locate {
                    config.join_session.get_or_insert(session);
                }
                parts.push(start(config));
            }
        }
        if exchange(&mut host, &mut parts, &mut wire, now, &mut events) {
            continue;
        }
        let action_at = actions.last().map(|a| Instant::from_millis(a.at_ms));
        let next = parts
            .iter()
            .map(|(client, _)| client.poll_timeout())
            .chain([host.poll_timeout(), action_at, wire.next_at()])
            .flatten()
            .min();
        match next {
            Some(t) if t <= deadline => {
                now = now.max(t);
                for (client, transcript) in &mut parts {
                    transcript.tick(now);
                    client.handle_timeout(now);
                }
                host.handle_timeout(now);
                while let Some(action) = actions.pop_if(|a| Instant::from_millis(a.at_ms) <= now) {
                    (action.act)(now, &mut host);
                }
            }
            _ => break,
        }
    }
    let end = now.max(deadline);
    let reports = parts
        .into_iter()
        .map(|(mut client, transcript)| {
            client.finish(end);
            RunReport::of(&client, transcript, end)
        })
        .collect();
    HostRun {
        reports,
        events,
        host,
    }
}

/// The built-in host with `n` clients joined, each in its own activity (private joins)
/// with its first roster applied, and the virtual time they are at: where the benches of
/// the steady state start. The clients record no frames, as the load generator's do.
pub fn joined(n: usize) -> (HostCore, Vec<(ClientCore, Transcript)>, Instant) {
    let address = HostConfig::default_address();
    let mut host = HostCore::new(HostConfig::builtin(address));
    let mut parts: Vec<(ClientCore, Transcript)> = (0..n)
        .map(|i| {
            let mut c = ClientConfig::member(address, i as u64 + 1);
            c.keep_for_report = false;
            (ClientCore::new(c.clone()), Transcript::of(c.script))
        })
        .collect();
    let mut events = Vec::new();
    let mut wire = Wire::clean();
    let mut now = Instant::default();
    loop {
        while exchange(&mut host, &mut parts, &mut wire, now, &mut events) {}
        let next = parts
            .iter()
            .filter_map(|(c, _)| c.poll_timeout())
            .chain(host.poll_timeout())
            .min();
        match next {
            Some(at) if parts.iter().any(|(c, _)| c.rosters_applied() == 0) => now = at,
            _ => return (host, parts, now),
        }
        for (c, _) in &mut parts {
            c.handle_timeout(now);
        }
        host.handle_timeout(now);
    }
}
