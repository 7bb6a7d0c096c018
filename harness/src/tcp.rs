//! The emulated client against any host over TCP, in real time (`vex check --target`,
//! `vex client`).

use crate::datagram_fault::DatagramPath;
use crate::link_fault;
use crate::link_proxy::{self, SharedFault};
use crate::report::RunReport;
use crate::transcript::{Direction, Line, Transcript};
use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpStream, UdpSocket};
use tokio::sync::{mpsc, oneshot};
use vex_fake_client::{ClientConfig, ClientCore, ClientTransmit, LinkKind, Violation};
use vex_wire::time::Instant;

/// Reads waiting for the client core: the host waits when the client is behind.
const INPUT_QUEUE: usize = 256;
/// A client's write that waits this long for the host to take its bytes is logged: the
/// client task reads nothing meanwhile.
const SLOW_WRITE: Duration = Duration::from_millis(100);
/// How long a connect may take before the link counts as closed.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long past its deadline a run waits for answers the host still owes
/// ([`ClientCore::owes_answers`]) before the client is judged: the client sends nothing
/// new meanwhile. Vex's choice: under load the route's answers took up to 1.5 s at p99.
pub const DRAIN: Duration = Duration::from_secs(3);

enum Input {
    Connected(LinkKind, Option<OwnedWriteHalf>),
    Bytes(LinkKind, Vec<u8>),
    Closed(LinkKind),
}

/// Whether a host listens at `addr`: one connection, opened and closed within the connect
/// timeout. `vex check --target` and `vex client` ask this first, so a host that cannot be
/// reached is an error of the command, not a rule the host broke.
pub async fn reachable(addr: std::net::SocketAddrV4) -> std::io::Result<()> {
    match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr)).await {
        Ok(stream) => stream.map(drop),
        Err(_) => Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
        )),
    }
}

/// Runs the emulated client against the host at `client.target` for `run_for` of real time.
/// `on_violation` sees each violation as it happens.
pub async fn run(
    client: ClientConfig,
    run_for: Duration,
    on_violation: impl FnMut(&Violation),
) -> RunReport {
    let (report, _links) = drive(client, Run::lasting(run_for), on_violation).await;
    report
}

/// Runs one client against the host at its target until `run_for` from now, telling
/// `reached` the Activity Host's address once service 17 names it: where an attack on the
/// host's UDP port aims (`hostile_tcp`).
pub async fn run_reaching(
    client: ClientConfig,
    run_for: Duration,
    reached: oneshot::Sender<SocketAddrV4>,
) -> RunReport {
    let run = Run {
        reached: Some(reached),
        ..Run::lasting(run_for)
    };
    let (report, _links) = drive(client, run, |_| {}).await;
    report
}

/// Runs the members of one activity against the host at their target until `run_for`
/// from now, one report each, in `members`' order (as `in_process::run_members` does):
/// member 1 starts at once, the others once it is in its activity, joining its session
/// unless their configuration names another. A member 1 that never gets in runs alone.
/// Every member's links stay open until every member's run has ended, so no member sees
/// another leave because its run ended a little earlier, and every member's times count
/// from member 1's start, so the members' transcripts merge in time order. A member whose
/// task failed gets a report that says so, so the others keep their numbers. Member 1's
/// traffic goes through `in_line`.
pub async fn run_members(
    members: Vec<ClientConfig>,
    run_for: Duration,
    in_line: InLine,
) -> Vec<RunReport> {
    let start = tokio::time::Instant::now();
    let deadline = start + run_for;
    let mut members = members.into_iter();
    let Some(first) = members.next() else {
        return Vec::new();
    };
    let (joined_tx, joined_rx) = oneshot::channel();
    let run = Run {
        joined: Some(joined_tx),
        in_line,
        ..Run::between(start, deadline)
    };
    let first = tokio::spawn(drive(first, run, |_| {}));
    let mut others = Vec::new();
    if let Ok(session) = joined_rx.await {
        for mut config in members {
            if !config.script.locate {
                config.join_session.get_or_insert(session);
            }
            let run = Run::between(start, deadline);
            others.push(tokio::spawn(drive(config, run, |_| {})));
        }
    }
    let mut runs = Vec::with_capacity(others.len() + 1);
    for task in std::iter::once(first).chain(others) {
        runs.push(task.await);
    }
    let end = Instant::from_millis(start.elapsed().as_millis() as u64);
    runs.into_iter()
        .map(|run| match run {
            Ok((report, _links)) => report,
            Err(e) => RunReport::aborted(format!("the member's task failed: {e}"), end),
        })
        .collect()
}

/// Runs the client for `run`. Returns the report and the links' write halves: the links
/// close when they are dropped.
async fn drive(
    client: ClientConfig,
    run: Run,
    on_violation: impl FnMut(&Violation),
) -> (RunReport, BTreeMap<LinkKind, OwnedWriteHalf>) {
    let mut transcript = Transcript::of(client.script);
    let (client, writers, end) =
        drive_observed(ClientCore::new(client), &mut transcript, run, on_violation).await;
    (RunReport::of(&client, transcript, end), writers)
}

/// What sees a driven client's traffic as it happens: its transcript, or the load
/// generator's figures (`crate::load`).
pub trait Observer {
    /// `link` opened at `at`.
    fn opened(&mut self, at: Instant, link: LinkKind);
    /// `link` closed at `at`.
    fn closed(&mut self, at: Instant, link: LinkKind);
    /// The client sent `t` at `at`.
    fn sent(&mut self, at: Instant, t: &ClientTransmit);
    /// The client read frames at `at`: the observer takes them with
    /// [`ClientCore::poll_received`], so none is held past this call.
    fn received(&mut self, at: Instant, client: &mut ClientCore);
    /// The client's timers ran at `at`, `late` after the time the client asked for (its
    /// task woke late).
    fn tick(&mut self, at: Instant, late: Duration);
    /// A datagram went between the client's UDP socket and the host's port at `at`.
    fn datagram(&mut self, _at: Instant, _direction: Direction, _bytes: &[u8]) {}
}

impl Observer for Transcript {
    fn opened(&mut self, at: Instant, link: LinkKind) {
        Transcript::opened(self, at, link);
    }
    fn closed(&mut self, at: Instant, link: LinkKind) {
        Transcript::closed(self, at, link);
    }
    fn sent(&mut self, at: Instant, t: &ClientTransmit) {
        self.push(Line::sent(at, t));
    }
    fn received(&mut self, at: Instant, client: &mut ClientCore) {
        Transcript::received(self, at, client);
    }
    fn tick(&mut self, at: Instant, _late: Duration) {
        Transcript::tick(self, at);
    }
    fn datagram(&mut self, at: Instant, direction: Direction, bytes: &[u8]) {
        self.push(Line::datagram(at, direction, bytes));
    }
}

/// What stands between a client and the host: a fault on one of its links, carried by a
/// proxy of its own ([`link_proxy`]), and the path its datagrams take, each way (the
/// machines `vex proxy` runs; the `link.*` and `udp.lossy` cases against any host).
#[derive(Debug, Default)]
pub struct InLine {
    /// The fault on the link it names ([`link_fault::LinkFault::link`]), if any.
    pub link: Option<SharedFault>,
    /// The datagrams' path.
    pub datagrams: DatagramPath,
}

/// The span of one driven run: times count from `start`, the run stops at `deadline`,
/// `joined` is told the session once the client is in its activity, and the client's
/// traffic goes through `in_line`.
pub struct Run {
    /// The origin of the client's times.
    pub start: tokio::time::Instant,
    /// When the run stops.
    pub deadline: tokio::time::Instant,
    /// Told the session once the client is in its activity.
    pub joined: Option<oneshot::Sender<u64>>,
    /// Told the Activity Host's address once service 17 names it.
    pub reached: Option<oneshot::Sender<SocketAddrV4>>,
    /// What stands between the client and the host.
    pub in_line: InLine,
}

impl Run {
    /// A run from `start` to `deadline` that tells nothing and has nothing in line.
    pub fn between(start: tokio::time::Instant, deadline: tokio::time::Instant) -> Self {
        Self {
            start,
            deadline,
            joined: None,
            reached: None,
            in_line: InLine::default(),
        }
    }

    /// A run from now for `run_for`, as [`Run::between`].
    fn lasting(run_for: Duration) -> Self {
        let start = tokio::time::Instant::now();
        Self::between(start, start + run_for)
    }
}

/// Drives `client` over TCP for `run`, showing its traffic to `observer` and each violation
/// to `on_violation` as it happens. At the deadline the client's timers stop (it sends
/// nothing new), it reads on while the host owes it an answer, for [`DRAIN`] at most, and
/// then its hangs are judged ([`ClientCore::finish`]). Returns the client, the links'
/// write halves (the links close when they are dropped) and the end time.
pub async fn drive_observed(
    mut client: ClientCore,
    observer: &mut impl Observer,
    run: Run,
    mut on_violation: impl FnMut(&Violation),
) -> (ClientCore, BTreeMap<LinkKind, OwnedWriteHalf>, Instant) {
    let Run {
        start,
        deadline,
        mut joined,
        mut reached,
        mut in_line,
    } = run;
    let now = move || Instant::from_millis(start.elapsed().as_millis() as u64);
    let mut writers: BTreeMap<LinkKind, OwnedWriteHalf> = BTreeMap::new();
    let (tx, mut rx) = mpsc::channel::<Input>(INPUT_QUEUE);
    // the client's UDP socket, opened with its first datagram (the QoS probe)
    let mut udp: Option<UdpSocket> = None;
    // its buffer too: a client that sends no datagram holds none (64 KiB a client)
    let mut datagram = Vec::new();
    let mut draining = false;
    loop {
        while let Some((to, bytes)) = client.poll_datagram() {
            if udp.is_none() {
                udp = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).await.ok();
                datagram.resize(vex_wire::peer::MAX_DATAGRAM, 0);
            }
            observer.datagram(now(), Direction::ToHost, &bytes);
            // a datagram that cannot go is lost, as the network may lose it
            let passed = in_line
                .datagrams
                .pass(link_fault::Direction::ToHost, &bytes);
            if let Some(socket) = &udp {
                for bytes in passed {
                    let _ = socket.send_to(&bytes, to).await;
                }
            }
        }
        while let Some((kind, addr)) = client.poll_connect() {
            let fault = in_line.link.clone().filter(|f| f.link() == kind);
            tokio::spawn(open(kind, addr, fault, tx.clone()));
        }
        while let Some(t) = client.poll_transmit() {
            observer.sent(now(), &t);
            let began = tokio::time::Instant::now();
            let written = match writers.get_mut(&t.link) {
                Some(w) => Some(w.write_all(&t.bytes).await),
                None => None,
            };
            let waited = began.elapsed();
            if waited >= SLOW_WRITE {
                let waited_ms = waited.as_millis() as u64;
                tracing::warn!(waited_ms, link = %t.link, "the client's write waited for the host to take its bytes");
            }
            if let Some(Err(_)) = written {
                writers.remove(&t.link);
                let at = now();
                client.handle_closed(at, t.link);
                observer.closed(at, t.link);
            }
        }
        for v in client.poll_violations() {
            on_violation(&v);
        }
        if let Some(session) = client.session()
            && let Some(tell) = joined.take()
        {
            let _ = tell.send(session);
        }
        if let Some(address) = client.activity_address()
            && let Some(tell) = reached.take()
        {
            let _ = tell.send(address);
        }
        if draining && !client.owes_answers(now()) {
            break;
        }
        let timer = if draining {
            deadline + DRAIN
        } else {
            client
                .poll_timeout()
                .map(|t| start + Duration::from_millis(t.millis()))
                .unwrap_or(deadline)
                .min(deadline)
        };
        tokio::select! {
            input = rx.recv() => match input {
                Some(input) => take_input(&mut client, &mut writers, observer, now(), input),
                None => break,
            },
            received = next_datagram(udp.as_ref(), &mut datagram) => {
                if let Ok(len) = received {
                    let bytes = datagram.get(..len).unwrap_or_default();
                    for bytes in in_line.datagrams.pass(link_fault::Direction::ToClient, bytes) {
                        let at = now();
                        observer.datagram(at, Direction::ToClient, &bytes);
                        client.handle_datagram(at, &bytes);
                    }
                }
            }
            () = tokio::time::sleep_until(timer) => {
                let woke = tokio::time::Instant::now();
                if draining {
                    break; // the host still owes answers: they are judged now
                }
                if woke >= deadline {
                    draining = true;
                    continue;
                }
                // what the links read while the task waited to run is the client's before
                // its timer: a starved process must not judge a message it holds as late
                while let Ok(input) = rx.try_recv() {
                    take_input(&mut client, &mut writers, observer, now(), input);
                }
                let at = now();
                observer.tick(at, woke.saturating_duration_since(timer));
                client.handle_timeout(at);
            }
        }
    }
    let end = now();
    client.finish(end);
    for v in client.poll_violations() {
        on_violation(&v);
    }
    (client, writers, end)
}

/// Hands `input`, read from a link at `at`, to `client`: a link opened or closed, or its
/// bytes.
fn take_input(
    client: &mut ClientCore,
    writers: &mut BTreeMap<LinkKind, OwnedWriteHalf>,
    observer: &mut impl Observer,
    at: Instant,
    input: Input,
) {
    match input {
        Input::Connected(kind, Some(w)) => {
            writers.insert(kind, w);
            client.handle_connected(at, kind);
            observer.opened(at, kind);
        }
        Input::Connected(kind, None) => {
            client.handle_closed(at, kind);
            observer.closed(at, kind);
        }
        // a link a failed write closed already is closed once
        Input::Closed(kind) if writers.remove(&kind).is_some() => {
            client.handle_closed(at, kind);
            observer.closed(at, kind);
        }
        Input::Closed(_) => {}
        Input::Bytes(kind, bytes) => {
            // the frames are logged at the time the client read them, before anything it
            // sends in answer
            client.handle_bytes(at, kind, &bytes);
            observer.received(at, client);
        }
    }
}

/// The next datagram on `socket`, or never when the client has none.
async fn next_datagram(socket: Option<&UdpSocket>, buf: &mut [u8]) -> std::io::Result<usize> {
    match socket {
        Some(socket) => socket.recv(buf).await,
        None => std::future::pending().await,
    }
}

/// Opens `kind`'s link to `addr`, through `fault` when it has one, and reads it until it
/// closes, telling the driver through `tx`.
async fn open(
    kind: LinkKind,
    addr: SocketAddrV4,
    fault: Option<SharedFault>,
    tx: mpsc::Sender<Input>,
) {
    let connect = async {
        match fault {
            Some(fault) => link_proxy::connect_through(addr, fault).await,
            None => TcpStream::connect(addr).await,
        }
    };
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, connect).await;
    let Ok(Ok(stream)) = stream else {
        let _ = tx.send(Input::Connected(kind, None)).await;
        return;
    };
    let _ = stream.set_nodelay(true);
    let (r, w) = stream.into_split();
    let _ = tx.send(Input::Connected(kind, Some(w))).await;
    while let Some(chunk) = read_chunk(&r).await {
        if tx.send(Input::Bytes(kind, chunk)).await.is_err() {
            return;
        }
    }
    let _ = tx.send(Input::Closed(kind)).await;
}

/// The next bytes `r` reads, up to 16 KiB; none once the link closes or fails. The read
/// buffer lives on the stack for the read alone, so a link that waits holds none (a load
/// run has two links a client).
async fn read_chunk(r: &OwnedReadHalf) -> Option<Vec<u8>> {
    loop {
        r.readable().await.ok()?;
        let mut buf = [0u8; 16 * 1024];
        match r.try_read(&mut buf) {
            Ok(0) => return None,
            Ok(n) => return buf.get(..n).map(<[u8]>::to_vec),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return None,
        }
    }
}
