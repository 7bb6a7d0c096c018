//! The attacks of [`Hostile`] over real sockets against any host (`vex check --target`;
//! issue "Every case against any host": hostile input). Each starts 2 s into the run,
//! beside the case's member, and stops itself: a bounded count of bytes, connections or
//! datagrams, sent only to the host under test (its lobby port, or the UDP port of the
//! Activity Host service 17 named to the member), and never past a second before the
//! run's end.
//!
//! The verdict says which bound the target enforced and when (closed after N ms, at N
//! bytes, after N frames), or, when it enforced none, the figure the attack reached
//! without one; with the memory of the host process when the run started it. Which bound
//! a host must keep, and how tight, the pages do not say (AH "Hazards for a host" names
//! the hazards): the line each verdict draws is Vex's choice, written where it is drawn.

use crate::host_memory::HostMemory;
use crate::hostile::{ATTACK_AT_MS, HUGE_FRAME_HEADER, Hostile, hello_frame};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep, sleep_until, timeout, timeout_at};
use vex_wire::peer::association::AssocPacket;

/// How much of a frame announcing 4 GiB the attack sends at most.
const HUGE_FRAME_FILL: usize = 64 * 1024 * 1024;
/// Hellos a flood sends at most.
const FLOOD_HELLOS: usize = 100_000;
/// How long a flood or a fill goes on at most.
const FLOOD_FOR: Duration = Duration::from_secs(5);
/// How long a connection may take to open.
const CONNECT_WITHIN: Duration = Duration::from_secs(5);
/// A host answering a hello-only link with more than this many bytes for each byte it was
/// sent amplifies the attack (Vex's line: a hello's answer is about its own size).
const MAX_AMPLIFICATION: usize = 16;
/// How long the attack waits for answers after its last datagram, or for a close after
/// its last write.
const SETTLE: Duration = Duration::from_secs(1);

/// Where an attack aims: the links at the target (the lobby port the case was given), the
/// datagrams at the Activity Host's UDP port, the address service 17 names, which the
/// case's member is told and hands on.
pub struct Aim {
    /// The host under test's lobby port.
    pub target: SocketAddrV4,
    /// The Activity Host's address, once the member learns it.
    pub activity_host: tokio::sync::oneshot::Receiver<SocketAddrV4>,
}

/// What an attack found: `Ok` the bound the target enforced, `Err` the figure it reached
/// without one; each with the host's memory when `host_pid` names it.
pub async fn attack(
    h: Hostile,
    aim: Aim,
    started: Instant,
    run_for: Duration,
    host_pid: Option<u32>,
) -> Result<String, String> {
    let deadline = started + run_for.saturating_sub(SETTLE);
    sleep_until(started + Duration::from_millis(ATTACK_AT_MS)).await;
    let target = if h.on_udp() {
        match timeout_at(deadline, aim.activity_host).await {
            Ok(Ok(activity_host)) => activity_host,
            _ => {
                return Err(
                    "the member never learned its Activity Host (service 17): no UDP port to attack"
                        .into(),
                );
            }
        }
    } else {
        aim.target
    };
    let mut memory = host_pid.map(HostMemory::new);
    if let Some(m) = &mut memory {
        m.before();
    }
    let run = run_one(h, target, deadline);
    tokio::pin!(run);
    let mut every = tokio::time::interval(Duration::from_millis(500));
    let judged = loop {
        tokio::select! {
            judged = &mut run => break judged,
            _ = every.tick() => if let Some(m) = &mut memory { m.during() },
        }
    };
    let Some(memory) = memory else {
        return judged;
    };
    sleep(SETTLE).await;
    let figures = memory.after();
    judged
        .map(|ok| format!("{ok}; {figures}"))
        .map_err(|e| format!("{e}; {figures}"))
}

async fn run_one(h: Hostile, target: SocketAddrV4, deadline: Instant) -> Result<String, String> {
    match h {
        Hostile::HugeFrame => huge_frame(target, deadline).await,
        Hostile::SlowSender => slow_sender(target, deadline).await,
        Hostile::HalfOpen(n) => half_open(target, n, deadline).await,
        Hostile::HelloOnly => hello_only(target, deadline).await,
        Hostile::HelloFlood => hello_flood(target, deadline).await,
        Hostile::InitFlood(n) | Hostile::ForgedEchoes(n) | Hostile::RecordSpray(n) => {
            datagrams(h, n, target, deadline).await
        }
    }
}

async fn connect(target: SocketAddrV4) -> Result<TcpStream, String> {
    match timeout(CONNECT_WITHIN, TcpStream::connect(target)).await {
        Ok(Ok(stream)) => Ok(stream),
        Ok(Err(e)) => Err(format!("the attack's connection was not opened: {e}")),
        Err(_) => Err("the attack's connection was not opened within 5 s".into()),
    }
}

/// Reads `r` until the host closes it: the bytes it sent, and when it closed.
async fn drain(mut r: tokio::net::tcp::OwnedReadHalf) -> (usize, Instant) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut got = 0;
    while let Ok(n @ 1..) = r.read(&mut buf).await {
        got += n;
    }
    (got, Instant::now())
}

/// A frame header announcing 4 GiB, then the frame's bytes as fast as the host takes
/// them, up to 64 MiB: a host bounding a frame's length closes the link.
async fn huge_frame(target: SocketAddrV4, deadline: Instant) -> Result<String, String> {
    let (r, mut w) = connect(target).await?.into_split();
    let opened = Instant::now();
    let mut closed = tokio::spawn(drain(r));
    let mut sent = 0;
    if w.write_all(&HUGE_FRAME_HEADER).await.is_ok() {
        sent += HUGE_FRAME_HEADER.len();
        // a host that refuses the frame from its header closes before any byte of it
        if let Ok(Ok((_, at))) = timeout(SETTLE, &mut closed).await {
            return Ok(format!(
                "closed {} ms after a frame header announcing 4 GiB, before any byte of the frame",
                (at - opened).as_millis()
            ));
        }
        let chunk = vec![0u8; 64 * 1024];
        let stop = deadline.min(opened + FLOOD_FOR);
        while sent < HUGE_FRAME_FILL && !closed.is_finished() {
            match timeout_at(stop, w.write_all(&chunk)).await {
                Ok(Ok(())) => sent += chunk.len(),
                _ => break,
            }
        }
    }
    match timeout(SETTLE, closed).await {
        Ok(Ok((_, at))) => Ok(format!(
            "closed {} ms after a frame header announcing 4 GiB, {sent} bytes sent by then",
            (at - opened).as_millis()
        )),
        _ => Err(format!(
            "sent {sent} bytes of a frame announcing 4 GiB, and the link was still open a second later: no bound on a frame's length"
        )),
    }
}

/// A hello, then one byte a second of a second hello: a host bounding how long a frame
/// may take closes the link.
async fn slow_sender(target: SocketAddrV4, deadline: Instant) -> Result<String, String> {
    let (r, mut w) = connect(target).await?.into_split();
    let closed = tokio::spawn(drain(r));
    let frame = hello_frame(1);
    let began = Instant::now();
    let mut sent = 0;
    if w.write_all(&hello_frame(0)).await.is_ok() {
        for byte in &frame {
            if closed.is_finished() || Instant::now() + Duration::from_secs(1) > deadline {
                break;
            }
            if w.write_all(&[*byte]).await.is_err() {
                break;
            }
            sent += 1;
            sleep(Duration::from_secs(1)).await;
        }
    }
    match timeout(SETTLE, closed).await {
        Ok(Ok((_, at))) => Ok(format!(
            "closed {} ms after a frame's first byte, {sent} of its {} bytes sent one a second",
            (at - began).as_millis(),
            frame.len()
        )),
        _ => Err(format!(
            "held a frame begun {} s before, {sent} of its {} bytes sent one a second, the link still open: no bound on a slow frame",
            began.elapsed().as_secs(),
            frame.len()
        )),
    }
}

/// `n` connections that never send a byte, opened 100 every 100 ms: a host bounding the
/// wait for a hello closes each. The pace keeps the host's accept queue from overflowing
/// (a connection the kernel holds for a host that has not accepted it yet would count
/// against the host's hello bound, which only starts once it accepts).
async fn half_open(target: SocketAddrV4, n: u32, deadline: Instant) -> Result<String, String> {
    let mut links = JoinSet::new();
    for i in 0..n {
        if i % 100 == 99 {
            sleep(Duration::from_millis(100)).await;
        }
        links.spawn(async move {
            let Ok(stream) = connect(target).await else {
                return Silent::Refused;
            };
            let opened = Instant::now();
            let (r, _w) = stream.into_split();
            match timeout_at(deadline, drain(r)).await {
                Ok((_, at)) => Silent::Closed(at - opened),
                Err(_) => Silent::Held,
            }
        });
    }
    let (mut closed, mut refused, mut held, mut last) = (0, 0, 0, Duration::ZERO);
    for silent in links.join_all().await {
        match silent {
            Silent::Closed(after) => {
                closed += 1;
                last = last.max(after);
            }
            Silent::Refused => refused += 1,
            Silent::Held => held += 1,
        }
    }
    if held > 0 {
        return Err(format!(
            "{held} of {n} connections that never sent a byte still held at the end ({closed} closed, {refused} not opened): no bound on a silent connection"
        ));
    }
    Ok(format!(
        "{closed} of {n} silent connections closed, the last {} ms after it opened; {refused} not opened",
        last.as_millis()
    ))
}

/// What became of one silent connection.
enum Silent {
    Closed(Duration),
    Refused,
    Held,
}

/// A hello every second and nothing else: a hello costs the host one answer, about its
/// own size ([`MAX_AMPLIFICATION`]); the host may keep the link or close it.
async fn hello_only(target: SocketAddrV4, deadline: Instant) -> Result<String, String> {
    let (mut r, mut w) = connect(target).await?.into_split();
    let began = Instant::now();
    let (mut hellos, mut sent, mut answered) = (0u32, 0, 0);
    let mut buf = vec![0u8; 64 * 1024];
    let mut closed_at = None;
    let mut next = began;
    while closed_at.is_none() && next + Duration::from_secs(1) <= deadline {
        if Instant::now() >= next {
            let hello = hello_frame(hellos);
            if w.write_all(&hello).await.is_err() {
                closed_at = Some(Instant::now());
                break;
            }
            hellos += 1;
            sent += hello.len();
            next += Duration::from_secs(1);
        }
        tokio::select! {
            read = r.read(&mut buf) => match read {
                Ok(n @ 1..) => answered += n,
                _ => closed_at = Some(Instant::now()),
            },
            () = sleep_until(next) => {}
        }
    }
    let kept = closed_at.map_or("open to the end".to_string(), |at| {
        format!("closed by the host {} ms in", (at - began).as_millis())
    });
    judge_hellos(hellos, sent, answered, &kept)
}

/// The verdict on a hello-only link: `hellos` of `sent` bytes answered with `answered`
/// bytes, the link `kept` as it says. Kept or closed, either is the host's to choose; an
/// answer of more than [`MAX_AMPLIFICATION`] times what was sent is not.
fn judge_hellos(hellos: u32, sent: usize, answered: usize, kept: &str) -> Result<String, String> {
    if answered > sent * MAX_AMPLIFICATION {
        return Err(format!(
            "answered {answered} bytes to {hellos} hellos of {sent} bytes: more than {MAX_AMPLIFICATION} times what it was sent"
        ));
    }
    Ok(format!(
        "{hellos} hellos, one a second, answered with {answered} bytes; the link {kept}"
    ))
}

/// Hellos as fast as the host takes them, up to 100,000 in 5 s: a host bounding a link's
/// frame rate closes the link.
async fn hello_flood(target: SocketAddrV4, deadline: Instant) -> Result<String, String> {
    let (r, mut w) = connect(target).await?.into_split();
    let closed = tokio::spawn(drain(r));
    let began = Instant::now();
    let stop = deadline.min(began + FLOOD_FOR);
    let batch: Vec<u8> = (0..500).flat_map(hello_frame).collect();
    let mut hellos = 0;
    while hellos < FLOOD_HELLOS && !closed.is_finished() {
        match timeout_at(stop, w.write_all(&batch)).await {
            Ok(Ok(())) => hellos += 500,
            _ => break,
        }
    }
    let took = began.elapsed().as_millis();
    match timeout(SETTLE, closed).await {
        Ok(Ok((answered, at))) => Ok(format!(
            "closed {} ms into a flood of hellos, {answered} bytes of answers before it",
            (at - began).as_millis(),
        )),
        _ => Err(format!(
            "sent {hellos} hellos in {took} ms, and the link was still open a second later: no bound on a link's frame rate"
        )),
    }
}

/// The datagrams `socket` receives until `stop`: how many, and how many of them are cookie
/// acks.
async fn count_answers(
    socket: std::sync::Arc<UdpSocket>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) -> (u32, u32) {
    let (mut answers, mut cookie_acks) = (0, 0);
    let mut buf = vec![0u8; vex_wire::peer::MAX_DATAGRAM];
    loop {
        tokio::select! {
            _ = &mut stop => return (answers, cookie_acks),
            received = socket.recv(&mut buf) => if let Ok(len) = received {
                answers += 1;
                let bytes = buf.get(..len).unwrap_or_default();
                let ack = matches!(AssocPacket::read(bytes), Ok(AssocPacket::CookieAck(_)));
                cookie_acks += u32::from(ack);
            },
        }
    }
}

/// `n` datagrams of the attack to the Activity Host's UDP port (`target`, the port of its
/// listener's number, NS "The engine peer transport"), from one address of this machine, then the answers counted: an init is owed at most its
/// init ack, a forged cookie echo no cookie ack, a record to a tag no association holds
/// nothing more than one answer.
async fn datagrams(
    h: Hostile,
    n: u32,
    target: SocketAddrV4,
    deadline: Instant,
) -> Result<String, String> {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0))
        .await
        .map_err(|e| format!("no UDP socket for the attack: {e}"))?;
    let socket = std::sync::Arc::new(socket);
    let (stop_tx, stop) = tokio::sync::oneshot::channel::<()>();
    let answers = tokio::spawn(count_answers(socket.clone(), stop));
    let mut sent = 0u32;
    for i in 0..n {
        if Instant::now() >= deadline {
            break;
        }
        if socket.send_to(&h.datagram(i), target).await.is_ok() {
            sent += 1;
        }
        // paced, so loopback's buffers keep what the host is sent
        if i % 200 == 199 {
            sleep(Duration::from_millis(1)).await;
        }
    }
    sleep_until(deadline.min(Instant::now() + SETTLE)).await;
    let _ = stop_tx.send(());
    let (answers, cookie_acks) = answers.await.unwrap_or_default();
    judge_datagrams(h, sent, answers, cookie_acks)
}

/// The verdict on an attack of `sent` datagrams that drew `answers`, `cookie_acks` of them
/// cookie acks: any cookie ack opened an association on a cookie the host never made
/// (PEER-09's cookie, NS "The association handshake"), and more than one answer a
/// datagram amplifies the attack (Vex's line).
fn judge_datagrams(
    h: Hostile,
    sent: u32,
    answers: u32,
    cookie_acks: u32,
) -> Result<String, String> {
    let what = match h {
        Hostile::InitFlood(_) => "association inits",
        Hostile::ForgedEchoes(_) => "cookie echoes with forged cookies",
        _ => "records to guessed tags",
    };
    if cookie_acks > 0 {
        return Err(format!(
            "{cookie_acks} of {sent} {what} answered with a cookie ack: an association opened on a cookie the host never made"
        ));
    }
    if answers > sent {
        return Err(format!(
            "{answers} datagrams answered to {sent} {what}: more than one answer each"
        ));
    }
    Ok(format!(
        "{sent} {what} from one address, {answers} answered, no association opened by them"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hello-only link passes kept or closed, up to 16 answer bytes a byte sent, and
    /// fails one byte past it.
    #[test]
    fn hellos_fail_only_past_the_amplification_line() {
        let sent = 70 * 4;
        for kept in ["open to the end", "closed by the host 4006 ms in"] {
            assert!(judge_hellos(4, sent, 392, kept).is_ok(), "{kept}");
        }
        let at_line = sent * MAX_AMPLIFICATION;
        assert!(judge_hellos(4, sent, at_line, "open to the end").is_ok());
        let past = judge_hellos(4, sent, at_line + 1, "open to the end").unwrap_err();
        assert!(past.contains("more than 16 times"), "{past}");
    }

    /// Datagrams pass with none answered or one answer each; one answer more, or any
    /// cookie ack, fails, whichever attack drew it.
    #[test]
    fn datagrams_fail_on_a_cookie_ack_or_a_second_answer() {
        for h in [
            Hostile::InitFlood(10),
            Hostile::ForgedEchoes(10),
            Hostile::RecordSpray(10),
        ] {
            assert!(judge_datagrams(h, 10, 0, 0).is_ok(), "{h:?}");
            assert!(judge_datagrams(h, 10, 10, 0).is_ok(), "{h:?}");
            let more = judge_datagrams(h, 10, 11, 0).unwrap_err();
            assert!(more.contains("more than one answer each"), "{more}");
            let ack = judge_datagrams(h, 10, 1, 1).unwrap_err();
            assert!(ack.contains("cookie ack"), "{ack}");
        }
    }
}
