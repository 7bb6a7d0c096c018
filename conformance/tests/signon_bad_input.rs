//! The SignOn endpoint under bad input (issue 9 "Bad input"): a body that is not SignOn's
//! protobuf gets HTTP 400 with why, an oversize body 413, an unknown path 404, and a
//! connection that never finishes its TLS handshake is closed, while a good sign-on
//! still goes through.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code
mod common;
use common::{Host, VEX, scratch};
use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `curl -k` the endpoint: the HTTP status and the body.
fn curl(args: &[&str]) -> (String, String) {
    let out = Command::new("curl")
        .args(["-sk", "-o", "-", "-w", "\n%{http_code}"])
        .args(args)
        .output()
        .expect("curl runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, code) = text.rsplit_once('\n').unwrap_or(("", &text));
    (code.to_string(), body.to_string())
}

#[test]
fn bad_requests_get_their_status_and_a_half_open_connection_is_closed() {
    let dir = scratch("signon_bad_input");
    let key = dir.join("manifest.pem");
    let mut child = Command::new(VEX)
        .args([
            "host",
            "--listen",
            "127.0.0.1:31010",
            "--signon",
            "127.0.0.1:31011",
        ])
        .arg("--manifest-public-key")
        .arg(&key)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let _host = Host(child);
    let _ = BufReader::new(out)
        .lines()
        .map_while(Result::ok)
        .find(|l| l.starts_with("certificate SHA-256"));
    let url = "https://127.0.0.1:31011/SignOn?build=86657&platform=steam";

    // a half-open connection: TCP only, no TLS hello; the endpoint closes it
    let mut idle = TcpStream::connect("127.0.0.1:31011").unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let opened = Instant::now();

    let (code, body) = curl(&["-X", "POST", "--data-binary", "\u{0a}\u{05}", url]);
    assert_eq!(code, "400", "{body}");
    assert!(body.contains("not a SignOn request"), "{body}");
    let big = dir.join("big.bin");
    std::fs::write(&big, vec![0u8; 70 * 1024]).unwrap();
    let (code, _) = curl(&[
        "-X",
        "POST",
        "--data-binary",
        &format!("@{}", big.display()),
        url,
    ]);
    assert_eq!(code, "413", "a body past 64 KiB");
    let (code, _) = curl(&["https://127.0.0.1:31011/elsewhere"]);
    assert_eq!(code, "404");
    // an empty body decodes: no protocol version, so the answer is an error, in protobuf
    let (code, body) = curl(&["-X", "POST", "--data-binary", "", url]);
    assert_eq!(code, "200");
    assert!(
        body.starts_with("\u{8}\u{2}"),
        "field 1 = 2, an error: {body:?}"
    );

    let mut buf = [0u8; 16];
    let read = idle.read(&mut buf);
    let waited = opened.elapsed();
    assert!(
        matches!(read, Ok(0)) || read.is_err(),
        "the idle connection got {read:?}"
    );
    assert!(
        waited < Duration::from_secs(12),
        "closed after {waited:?}: the handshake timeout is 5 s"
    );
}
