//! The catalog agrees with `rules.md`, when the page sits beside the checkout
//! (`../shared/rules.md`): every table row's id and effect, every id of the catalog, and the
//! counts per family of the page's "Counts" section.

use std::collections::BTreeMap;
use vex_rules::{Family, Rule};

/// The page, or `None` when this checkout has no `shared/` beside it.
fn page() -> Option<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/rules.md");
    match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) => {
            eprintln!("note: {path} not read ({e}); the catalog is not checked against it");
            None
        }
    }
}

/// `BAP-01`, `T17-01`: capitals and digits, a dash, two digits.
fn looks_like_id(cell: &str) -> bool {
    let Some((family, number)) = cell.split_once('-') else {
        return false;
    };
    family.starts_with(|c: char| c.is_ascii_uppercase())
        && family
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && number.len() == 2
        && number.chars().all(|c| c.is_ascii_digit())
}

/// Each `| ID | ... | effect |` row as (id, effect), in page order.
fn rows(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| l.starts_with("| "))
        .filter_map(|l| {
            let cells: Vec<&str> = l
                .trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            let (first, last) = (cells.first()?, cells.last()?);
            looks_like_id(first).then(|| (first.to_string(), last.to_string()))
        })
        .collect()
}

/// The "Counts" section's `- FAMILY: N` lines, in page order.
fn counts(text: &str) -> Vec<(String, usize)> {
    text.lines()
        .skip_while(|l| l.trim() != "## Counts")
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| {
            let (name, n) = l.strip_prefix("- ")?.split_once(':')?;
            Some((name.trim().to_string(), n.trim().parse().ok()?))
        })
        .collect()
}

#[test]
fn every_row_is_in_the_catalog_with_its_effect() {
    let Some(text) = page() else { return };
    let rows = rows(&text);
    assert!(!rows.is_empty(), "no table rows found in rules.md");
    for (id, effect) in &rows {
        let rule = Rule::from_id(id).unwrap_or_else(|| panic!("{id} is not in the catalog"));
        assert_eq!(rule.effect().name(), effect, "{id}'s effect");
    }
    let page_ids: Vec<&str> = rows.iter().map(|(id, _)| id.as_str()).collect();
    for rule in Rule::ALL {
        assert!(page_ids.contains(&rule.id()), "{rule} is not in rules.md");
    }
    let ours: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
    assert_eq!(
        ours, page_ids,
        "the catalog keeps the page's order, each id once"
    );
}

#[test]
fn counts_per_family_match_the_page() {
    let Some(text) = page() else { return };
    let counts = counts(&text);
    assert!(!counts.is_empty(), "no Counts section found in rules.md");
    let names: Vec<&str> = counts.iter().map(|(name, _)| name.as_str()).collect();
    let ours: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(ours, names, "the families, in the page's order");
    let mut per_family: BTreeMap<&str, usize> = BTreeMap::new();
    for rule in Rule::ALL {
        *per_family.entry(rule.family().name()).or_default() += 1;
    }
    for (name, n) in &counts {
        assert_eq!(per_family.get(name.as_str()), Some(n), "{name}'s count");
    }
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    assert_eq!(total, Rule::ALL.len());
}
