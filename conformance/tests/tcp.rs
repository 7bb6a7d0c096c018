//! The catalog over real TCP against `vex host`'s server, as `vex check --target` runs it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use vex_conformance::{CheckOptions, HostUnderTest, Transport, Verdict, catalog, run_case};
use vex_host::{HostConfig, HostCore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn route_join_over_tcp_against_the_server() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let std::net::SocketAddr::V4(addr) = listener.local_addr().unwrap() else {
        unreachable!("bound to an IPv4 address")
    };
    let core = HostCore::new(HostConfig::builtin(addr));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(vex_server::bap::serve(listener, core, async {
        let _ = stopped.await;
    }));
    let case = catalog()
        .into_iter()
        .find(|c| c.id == "route.join")
        .unwrap();
    let result = run_case(
        &case,
        Transport::Tcp(addr),
        CheckOptions::STRICT_DEVELOPMENT,
    )
    .await;
    assert_eq!(result.verdict, Verdict::Pass, "{:#?}", result.violations);
    let run = result.run.unwrap();
    assert!(
        run.transcript
            .lines
            .iter()
            .any(|l| l.message == Some(5) && !l.bytes.is_empty())
    );

    let faulty = catalog()
        .into_iter()
        .find(|c| c.id.starts_with("catch."))
        .unwrap();
    let skipped = run_case(
        &faulty,
        Transport::Tcp(addr),
        CheckOptions::STRICT_DEVELOPMENT,
    )
    .await;
    assert!(
        matches!(skipped.verdict, Verdict::Skip { .. }),
        "a fault case cannot run over TCP"
    );

    // every other case that runs against any host runs concurrently, each its own
    // activity on the one server: the scripted reports (18, 20, 22, 23, 15) and the
    // members cases
    let cases: Vec<_> = catalog()
        .into_iter()
        .filter(|c| c.host == HostUnderTest::Any && c.id != "route.join")
        .collect();
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    for id in ["activity.members.eight", "route.region", "route.identity"] {
        assert!(ids.contains(&id), "{id} runs over TCP: {ids:?}");
    }
    let runs = cases.into_iter().map(|case| async move {
        run_case(
            &case,
            Transport::Tcp(addr),
            CheckOptions::STRICT_DEVELOPMENT,
        )
        .await
    });
    for result in futures_join_all(runs).await {
        // SignOn's case needs the host's SignOn URL, which this server has not: skipped,
        // never passed (conformance/tests/signon_cli.rs runs it over HTTPS)
        let expected = if result.case.signs_on() {
            Verdict::Skip {
                reason: "it judges SignOn: give the host's SignOn URL with --signon".into(),
            }
        } else {
            Verdict::Pass
        };
        assert_eq!(
            result.verdict, expected,
            "{}: {:#?}",
            result.case.id, result.violations
        );
    }

    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

/// Awaits every future, in order, running them together.
async fn futures_join_all<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let tasks: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(tasks.len());
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

/// Serves our host with `faults` on a free port until `stop` fires.
async fn serve(
    faults: vex_faults::HostPlan,
) -> (
    std::net::SocketAddrV4,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let std::net::SocketAddr::V4(addr) = listener.local_addr().unwrap() else {
        unreachable!("bound to an IPv4 address")
    };
    let mut config = HostConfig::builtin(addr);
    config.hooks = vex_host::Hooks::new(faults);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(vex_server::bap::serve(
        listener,
        HostCore::new(config),
        async {
            let _ = stopped.await;
        },
    ));
    (addr, stop, server)
}

/// Every probe judges a third-party host over real TCP, without `--strict`: against our
/// host told to break the duty it probes (`vex host --fault NAME`), the probe fails with
/// that duty's rule.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_probe_fails_against_a_host_that_breaks_its_duty() {
    use vex_conformance::case::ClientScript;
    let probing: Vec<(vex_faults::Fault, vex_fake_client::Probe)> = vex_faults::Fault::ALL
        .iter()
        .filter_map(|&f| match ClientScript::from(f.needs()) {
            ClientScript::Probe(p) => Some((f, p)),
            _ => None,
        })
        .collect();
    for p in vex_fake_client::Probe::ALL {
        assert!(
            probing.iter().any(|(_, q)| *q == p),
            "no fault breaks what {p:?} probes"
        );
    }
    let runs = probing.into_iter().map(|(fault, probe)| async move {
        let (addr, stop, server) = serve(vex_faults::HostPlan::single(fault)).await;
        let case = catalog()
            .into_iter()
            .find(|c| c.id == format!("probe.{}", probe.name()))
            .unwrap();
        let result = run_case(&case, Transport::Tcp(addr), CheckOptions::DEVELOPMENT).await;
        let _ = stop.send(());
        server.await.unwrap().unwrap();
        (fault, result)
    });
    for (fault, result) in futures_join_all(runs).await {
        assert!(
            matches!(result.verdict, Verdict::Fail { .. }),
            "{fault:?}: {} passed",
            result.case.id
        );
        assert!(
            result.violations.iter().any(|v| v.rule == fault.rule()),
            "{fault:?}: {} fails without {}: {:#?}",
            result.case.id,
            fault.rule(),
            result.violations
        );
    }
}

/// Over TCP a run's end drains the answers the host still owes (`vex_harness::tcp::DRAIN`)
/// before it judges: against a host that never answers service 16 the route's case still
/// fails with BAP-06, once the drain has waited for the answer; against our host, which
/// owes nothing at the end, the case passes without waiting it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_never_sent_is_judged_after_the_drain() {
    let case = catalog()
        .into_iter()
        .find(|c| c.id == "route.join")
        .unwrap();
    let run_for = std::time::Duration::from_millis(case.run_for_ms);
    let drained = run_for + vex_harness::tcp::DRAIN;
    for (faults, fails) in [
        (
            vex_faults::HostPlan::single(vex_faults::Fault::UnansweredLookup),
            true,
        ),
        (vex_faults::HostPlan::default(), false),
    ] {
        let (addr, stop, server) = serve(faults).await;
        let started = std::time::Instant::now();
        let result = run_case(
            &case,
            Transport::Tcp(addr),
            CheckOptions::STRICT_DEVELOPMENT,
        )
        .await;
        let took = started.elapsed();
        let _ = stop.send(());
        server.await.unwrap().unwrap();
        let bap06 = result
            .violations
            .iter()
            .any(|v| v.rule == vex_fake_client::Rule::Bap06);
        assert_eq!(bap06, fails, "{took:?}: {:#?}", result.violations);
        assert_eq!(
            took >= drained,
            fails,
            "{took:?} against a drain to {drained:?}"
        );
    }
}
