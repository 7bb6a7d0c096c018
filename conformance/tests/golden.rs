//! The built-in route's transcript is fixed: the cores are deterministic, so any change
//! to what goes on the wire shows up here. After an intended change, regenerate with
//! `VEX_BLESS=1 cargo test -p vex-conformance --test golden` and review the diff.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::path::PathBuf;
use vex_conformance::{CheckOptions, catalog, run_in_process};

#[test]
fn route_join_transcript_is_unchanged() {
    let case = catalog()
        .into_iter()
        .find(|c| c.id == "route.join")
        .unwrap();
    let text = run_in_process(&case, CheckOptions::STRICT_DEVELOPMENT)
        .run
        .unwrap()
        .transcript
        .to_text();
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/transcripts/route.join.txt");
    if std::env::var_os("VEX_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let golden = std::fs::read_to_string(&path).expect("corpus/transcripts/route.join.txt");
    if golden != text {
        let first = golden
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(golden.lines().count().min(text.lines().count()));
        panic!(
            "the route.join transcript changed at line {}:\n  golden: {}\n  now:    {}\n(VEX_BLESS=1 to accept)",
            first + 1,
            golden.lines().nth(first).unwrap_or("<end>"),
            text.lines().nth(first).unwrap_or("<end>")
        );
    }
}

/// Every transcript in `corpus/transcripts` replays to the verdict it expects: the rule
/// ids of its `# expect:` line, or none. A bug report becomes a corpus case this way.
#[test]
fn corpus_transcripts_replay_to_their_expected_verdict() {
    use vex_fake_client::{ClientConfig, Rule};
    use vex_harness::replay;
    use vex_harness::transcript::Transcript;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/transcripts");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "the corpus has its transcripts");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut expected: Vec<Rule> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# expect:"))
            .flat_map(str::split_whitespace)
            .map(|id| {
                Rule::from_id(id).unwrap_or_else(|| panic!("{}: no rule {id}", path.display()))
            })
            .collect();
        expected.sort();
        let client = ClientConfig::builtin(vex_host::HostConfig::default_address());
        let run = replay::to_client(&Transcript::parse(&text).unwrap(), client);
        let mut seen: Vec<Rule> = run.violations.iter().map(|v| v.rule).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen, expected, "{}", path.display());
        if expected.is_empty() {
            let clean = run.status.in_activity() && run.rosters_applied > 0;
            assert!(
                clean,
                "{}: in the activity, a roster applied",
                path.display()
            );
        }
    }
}
