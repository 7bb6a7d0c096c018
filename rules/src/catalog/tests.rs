use super::*;

#[test]
fn ids_are_unique_and_round_trip() {
    for r in Rule::ALL {
        assert_eq!(Rule::from_id(r.id()), Some(*r));
        assert_eq!(r.to_string(), r.id());
    }
    let mut ids: Vec<_> = Rule::ALL.iter().map(|r| r.id()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), Rule::ALL.len());
    assert_eq!(Rule::from_id("BAP-1"), None);
    assert_eq!(Rule::from_id("bap-01"), None);
}

/// `BAP-01` is `Bap01` in family `Bap`, `T17-01` is `T1701` in `T17`: the variant names
/// follow the ids.
#[test]
fn variants_follow_the_ids() {
    for r in Rule::ALL {
        let (family, number) = r.id().split_once('-').unwrap_or_default();
        assert_eq!(r.family().name(), family, "{r}");
        let mut chars = family.chars();
        let titled: String = chars
            .next()
            .into_iter()
            .chain(chars.flat_map(char::to_lowercase))
            .collect();
        assert_eq!(format!("{:?}", r.family()), titled, "{r}");
        assert_eq!(format!("{r:?}"), format!("{titled}{number}"), "{r}");
    }
}

#[test]
fn families_round_trip_and_hold_their_rules() {
    let mut total = 0;
    for f in Family::ALL {
        assert_eq!(Family::from_name(f.name()), Some(*f));
        assert_eq!(f.to_string(), f.name());
        let n = f.rules().count();
        assert!(n > 0, "{f} has no rule");
        total += n;
    }
    assert_eq!(total, Rule::ALL.len());
}

#[test]
fn every_rule_has_a_source_and_a_summary() {
    for r in Rule::ALL {
        assert!(!r.source().is_empty() && !r.summary().is_empty(), "{r}");
    }
}
