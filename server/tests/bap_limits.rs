//! The TCP server's own bound: the bytes queued for one link (`Limits::output_queue_bytes`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use vex_host::{HostConfig, HostCore, Limits};
use vex_wire::bap::header::{FrameType, InnerHeader, plain_frame};
use vex_wire::bap::services::HELLO;

/// Serves one host with `limits`, sends it one hello and returns what came back before the
/// link closed or went quiet for a second.
async fn hello_answer(limits: Limits) -> Vec<u8> {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = HostConfig::builtin(HostConfig::default_address());
    config.limits = limits;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(vex_server::bap::serve(
        listener,
        HostCore::new(config),
        async move {
            let _ = stopped.await;
        },
    ));
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let hello = plain_frame(
        FrameType::Bootstrap,
        InnerHeader::request(HELLO, 1),
        &[0; 58],
    );
    stream.write_all(&hello).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(Ok(n)) = tokio::time::timeout(Duration::from_secs(1), stream.read(&mut buf)).await
    {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    let _ = stop.send(());
    server.await.unwrap().unwrap();
    got
}

#[tokio::test]
async fn a_link_whose_backlog_passes_the_limit_is_closed_unanswered() {
    let answered = hello_answer(Limits::default()).await;
    assert!(
        answered.len() > 50,
        "the hello's answer: {} bytes",
        answered.len()
    );
    let tight = Limits {
        output_queue_bytes: answered.len() - 1,
        ..Limits::default()
    };
    assert_eq!(hello_answer(tight).await, Vec::<u8>::new());
    let exact = Limits {
        output_queue_bytes: answered.len(),
        ..Limits::default()
    };
    assert_eq!(hello_answer(exact).await, answered);
}
