//! Every rule the emulated client enforces is breached by a unit test of its own, beside
//! the caught-fault case that proves it fires against our host (design "The emulated
//! client": one caught fault is not proof). Read from the sources: a rule some test code
//! of this crate names.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // test code

use std::path::Path;
use vex_fake_client::{ENFORCED, Rule};

/// The test code of `text`, a source file: its `#[cfg(test)]` module and what follows it,
/// or the whole of a file that only tests.
fn test_code(path: &Path, text: &str) -> String {
    let whole_file_tests = path.ends_with("push_breaches.rs") || path.starts_with("tests");
    if whole_file_tests {
        return text.to_string();
    }
    text.find("#[cfg(test)]")
        .map(|at| text[at..].to_string())
        .unwrap_or_default()
}

/// Every `.rs` file under `dir`, relative to the crate.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `Rule::` variant a rule is named by in code, e.g. `Rule::Bap01`.
fn named(rule: Rule) -> String {
    format!("Rule::{rule:?}")
}

#[test]
fn every_enforced_rule_has_a_unit_breach() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    sources(&root.join("tests"), &mut files);
    let tests: String = files
        .iter()
        .map(|f| {
            let relative = f.strip_prefix(root).unwrap();
            test_code(relative, &std::fs::read_to_string(f).unwrap())
        })
        .collect();
    let bare: Vec<&str> = ENFORCED
        .iter()
        .filter(|r| !tests.contains(&named(**r)))
        .map(|r| r.id())
        .collect();
    assert!(
        bare.is_empty(),
        "{} enforced rules no unit test breaches: {bare:?}",
        bare.len()
    );
}
