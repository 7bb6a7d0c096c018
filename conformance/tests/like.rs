//! `vex check --like sunrise`: every case that judges any host, run against our host
//! behaving as the facts sheet says Sunrise does, reports exactly the rules Sunrise's
//! documented departures from the pages break, and nothing else.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // test code

use std::collections::BTreeSet;
use vex_conformance::{CheckOptions, HostUnderTest, Verdict, catalog, run_like};
use vex_fake_client::Rule;
use vex_faults::like::Like;

#[test]
fn sunrise_breaks_exactly_its_documented_departures() {
    let like = Like::Sunrise;
    let mut seen: BTreeSet<Rule> = BTreeSet::new();
    for case in catalog() {
        let r = run_like(&case, like, CheckOptions::DEVELOPMENT);
        if case.host != HostUnderTest::Any {
            assert!(matches!(r.verdict, Verdict::Skip { .. }), "{}", case.id);
            continue;
        }
        for v in &r.violations {
            assert!(
                like.breaks().contains(&v.rule),
                "{}: {v} is not one of Sunrise's documented departures",
                case.id
            );
            seen.insert(v.rule);
        }
    }
    let documented: BTreeSet<Rule> = like.breaks().into_iter().collect();
    assert_eq!(seen, documented, "every departure shows in some case");
}
