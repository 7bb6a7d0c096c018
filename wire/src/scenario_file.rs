//! The scenario as a TOML file, which the host and the emulated client both load: the
//! client carries the activity catalog, so a host needs the same placed objects (AH "Two
//! kinds of authority"). A bad file gets an error naming the line and the field.
//!
//! ```toml
//! name = "edz_patrol"
//! activity_host_id = "0x1234"      # 64-bit values as strings, or plain integers
//! bubble_count = 2
//! arrival_slice_set = 0
//! authored_phase = false            # a cycle phase a host may own (T17-08); default false
//!
//! [destination]                     # the client's selection (facts 5.2)
//! reason = 2
//! source_activity = 10
//! destination_activity = 42
//! arrival_hash = "0x11223344"
//! spawn_hash = "0x55667788"
//! name = "edz_patrol"
//!
//! [player]
//! member_key = "0x0102030405060708"
//! character_id = "0x0123456789ABCDEF"
//! account_soid = "0x9EAA300100000001"
//!
//! [[object]]
//! key = "0xAAAA0001"                # no bubble: a top-level group
//! slots = [{ type = 13, index = 0, auth = true, sense = true }]
//! ```

use crate::activity::global_state::MAX_BUBBLES;
use crate::activity::selection::SelectionDescriptor;
use crate::activity::sensor_auth::{MAX_SUB_KEYS, MAX_TOP_KEYS};
use crate::activity::slot::{
    ClientRef, EMPTY_KEY, NEVER_DESCRIBED, SlotSchemas, TYPE_LIFETIME, TYPE_PARTICIPATION,
};
use crate::scenario::{PlacedObject, Player, Scenario, SlotDecl};
use crate::scenario_lobby::{Account, Lobby, MAX_FEATURES, SignOnAnswer};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;
use toml::Spanned;

/// The largest slot type a ClientRef carries: 7 bits with bias 1 (SLOT-01).
const MAX_SLOT_TYPE: i8 = 126;

/// The built-in scenario as a file: what `Scenario::builtin` holds.
pub const BUILTIN: &str = include_str!("../../scenarios/edz_patrol.toml");

/// Why a scenario file was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {field}: {message}")]
pub struct ScenarioError {
    /// The 1-based line.
    pub line: usize,
    /// The field, as a path such as `object[2].slots[0].type`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

/// A 64-bit value: a TOML integer, or a string in decimal or `0x` hex (TOML integers stop
/// at 2^63 - 1).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Wide {
    Int(i64),
    Text(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: String,
    activity_host_id: Spanned<Wide>,
    bubble_count: Spanned<u8>,
    arrival_slice_set: Spanned<i16>,
    destination: DestinationFile,
    player: PlayerFile,
    #[serde(rename = "object", default)]
    objects: Vec<Spanned<ObjectFile>>,
    #[serde(default)]
    lobby: Option<Spanned<LobbyFile>>,
    #[serde(default)]
    authored_phase: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LobbyFile {
    #[serde(default)]
    features: Vec<String>,
    #[serde(rename = "account", default)]
    accounts: Vec<Spanned<AccountFile>>,
    #[serde(default)]
    items: Vec<Spanned<Wide>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AccountFile {
    steam_id: Spanned<Wide>,
    signon: Vec<SignOnAnswer>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DestinationFile {
    reason: i8,
    source_activity: i16,
    destination_activity: i16,
    arrival_hash: Option<Spanned<Wide>>,
    spawn_hash: Option<Spanned<Wide>>,
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayerFile {
    member_key: Spanned<Wide>,
    character_id: Spanned<Wide>,
    account_soid: Spanned<Wide>,
    steam_id: Option<Spanned<Wide>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ObjectFile {
    key: Spanned<Wide>,
    bubble: Option<Spanned<u8>>,
    slots: Vec<Spanned<SlotFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SlotFile {
    #[serde(rename = "type")]
    slot_type: i8,
    index: i16,
    auth: bool,
    sense: bool,
    /// What a mission script calls it: `slot("ghost")`.
    name: Option<String>,
}

/// Turns byte offsets into lines.
struct Lines<'a>(&'a str);

impl Lines<'_> {
    fn at(&self, offset: usize) -> usize {
        self.0
            .get(..offset.min(self.0.len()))
            .map_or(1, |s| s.matches('\n').count() + 1)
    }

    fn error(
        &self,
        offset: usize,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> ScenarioError {
        ScenarioError {
            line: self.at(offset),
            field: field.into(),
            message: message.into(),
        }
    }

    /// `value` as a u64, or the error naming `field`.
    fn wide(&self, value: &Spanned<Wide>, field: &str) -> Result<u64, ScenarioError> {
        let bad = |m: &str| self.error(value.span().start, field, m);
        match value.get_ref() {
            Wide::Int(i) => u64::try_from(*i).map_err(|_| bad("a negative value")),
            Wide::Text(t) => {
                let t = t.replace('_', "");
                let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => t.parse(),
                };
                parsed.map_err(|_| bad("not a number: write it in decimal or as 0x hex"))
            }
        }
    }

    /// `value` as a u32, or the error naming `field`.
    fn narrow(&self, value: &Spanned<Wide>, field: &str) -> Result<u32, ScenarioError> {
        let v = self.wide(value, field)?;
        u32::try_from(v).map_err(|_| self.error(value.span().start, field, "more than 32 bits"))
    }
}

/// Reads a scenario file: TOML, then every rule a roster built from it must keep.
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let lines = Lines(text);
    let file: File = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        let message = e.message().to_string();
        // the field the message names, else the key on the line it points at
        let line = lines.at(offset);
        let key = text.lines().nth(line - 1).and_then(|l| l.split_once('='));
        let field = match (message.split('`').nth(1), key) {
            (Some(named), _) => named.to_string(),
            (None, Some((key, _))) => key.trim().to_string(),
            (None, None) => "the file".to_string(),
        };
        lines.error(offset, field, message)
    })?;
    let bubbles = *file.bubble_count.get_ref();
    if bubbles == 0 || usize::from(bubbles) > MAX_BUBBLES {
        let at = file.bubble_count.span().start;
        return Err(lines.error(
            at,
            "bubble_count",
            format!("{bubbles}: an activity has 1 to {MAX_BUBBLES} bubbles (GLOBAL-02)"),
        ));
    }
    let arrival = *file.arrival_slice_set.get_ref();
    if arrival < 0 || arrival / 8 >= i16::from(bubbles) {
        let at = file.arrival_slice_set.span().start;
        return Err(lines.error(
            at,
            "arrival_slice_set",
            format!("{arrival}: its bubble (the slice set / 8) is not one of the {bubbles}"),
        ));
    }
    let d = &file.destination;
    let destination = SelectionDescriptor {
        reason: d.reason,
        source_activity: d.source_activity,
        destination_activity: d.destination_activity,
        arrival_hash: d
            .arrival_hash
            .as_ref()
            .map(|h| lines.narrow(h, "destination.arrival_hash"))
            .transpose()?,
        spawn_hash: d
            .spawn_hash
            .as_ref()
            .map(|h| lines.narrow(h, "destination.spawn_hash"))
            .transpose()?,
        name: d.name.clone(),
        ..SelectionDescriptor::default()
    };
    destination
        .to_bits()
        .map_err(|e| lines.error(0, "destination", e.to_string()))?;
    let p = &file.player;
    let player = Player {
        member_key: lines.wide(&p.member_key, "player.member_key")?,
        character_id: lines.wide(&p.character_id, "player.character_id")?,
        account_soid: lines.wide(&p.account_soid, "player.account_soid")?,
        steam_id: match &p.steam_id {
            Some(id) => lines.wide(id, "player.steam_id")?,
            None => Player::STEAM_ID,
        },
    };
    let objects = objects(&lines, &file.objects, bubbles)?;
    let slot_names = slot_names(&lines, &file.objects)?;
    Ok(Scenario {
        name: file.name,
        activity_host_id: lines.wide(&file.activity_host_id, "activity_host_id")?,
        destination,
        bubble_count: bubbles,
        arrival_slice_set: arrival,
        objects,
        player,
        slot_names,
        lobby: match &file.lobby {
            Some(lobby) => self::lobby(&lines, lobby)?,
            None => Lobby::default(),
        },
        authored_phase: file.authored_phase,
    })
}

/// The lobby section: at most eight feature names (SIGNON-05), each account once with at
/// least one answer.
fn lobby(lines: &Lines<'_>, file: &Spanned<LobbyFile>) -> Result<Lobby, ScenarioError> {
    let (at, f) = (file.span().start, file.get_ref());
    if f.features.len() > MAX_FEATURES {
        return Err(lines.error(
            at,
            "lobby.features",
            format!(
                "{} names: SignOn carries at most {MAX_FEATURES} (SIGNON-05)",
                f.features.len()
            ),
        ));
    }
    let mut accounts: Vec<Account> = Vec::with_capacity(f.accounts.len());
    for (i, spanned) in f.accounts.iter().enumerate() {
        let a = spanned.get_ref();
        let field = format!("lobby.account[{i}]");
        let steam_id = lines.wide(&a.steam_id, &format!("{field}.steam_id"))?;
        if accounts.iter().any(|b| b.steam_id == steam_id) {
            return Err(lines.error(
                a.steam_id.span().start,
                format!("{field}.steam_id"),
                format!("{steam_id} is listed already"),
            ));
        }
        if a.signon.is_empty() {
            return Err(lines.error(
                spanned.span().start,
                format!("{field}.signon"),
                "no answer: give at least one",
            ));
        }
        accounts.push(Account {
            steam_id,
            signon: a.signon.clone(),
        });
    }
    let items = f
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| lines.wide(item, &format!("lobby.items[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Lobby {
        features: f.features.clone(),
        accounts,
        items,
    })
}

/// The slots' names, each used once.
fn slot_names(
    lines: &Lines<'_>,
    files: &[Spanned<ObjectFile>],
) -> Result<BTreeMap<String, ClientRef>, ScenarioError> {
    let mut names = BTreeMap::new();
    for (i, o) in files.iter().enumerate() {
        let key = lines.narrow(&o.get_ref().key, &format!("object[{i}].key"))?;
        for (j, s) in o.get_ref().slots.iter().enumerate() {
            let decl = s.get_ref();
            let Some(name) = &decl.name else { continue };
            let slot = ClientRef {
                key,
                slot_type: decl.slot_type,
                index: decl.index,
            };
            if names.insert(name.clone(), slot).is_some() {
                return Err(lines.error(
                    s.span().start,
                    format!("object[{i}].slots[{j}].name"),
                    format!("{name:?} names another slot already"),
                ));
            }
        }
    }
    Ok(names)
}

/// The placed objects, each checked: a key other than the empty one and used once
/// (AUTH-07), a bubble of the activity, slots sorted by index with a described type
/// (facts 4.7; SLOT-02), no more keys than a roster registers (BODY-05), and a top-level
/// type-13 and type-17 slot (SEED-02).
fn objects(
    lines: &Lines<'_>,
    files: &[Spanned<ObjectFile>],
    bubbles: u8,
) -> Result<Vec<PlacedObject>, ScenarioError> {
    let mut keys = BTreeSet::new();
    let mut out = Vec::with_capacity(files.len());
    for (i, spanned) in files.iter().enumerate() {
        let o = spanned.get_ref();
        let at = spanned.span().start;
        let field = |f: &str| format!("object[{i}].{f}");
        let key = lines.narrow(&o.key, &field("key"))?;
        let key_at = o.key.span().start;
        if key == EMPTY_KEY {
            return Err(lines.error(
                key_at,
                field("key"),
                format!("{EMPTY_KEY:#x} is the empty key: the client skips its group (AUTH-07)"),
            ));
        }
        if !keys.insert(key) {
            return Err(lines.error(
                key_at,
                field("key"),
                format!("{key:#x} names another object already"),
            ));
        }
        let bubble = o.bubble.as_ref().map(|b| *b.get_ref());
        if let Some(b) = bubble.filter(|b| *b >= bubbles) {
            let at = o.bubble.as_ref().map_or(at, |b| b.span().start);
            return Err(lines.error(
                at,
                field("bubble"),
                format!("{b}: the activity has {bubbles} bubbles"),
            ));
        }
        let mut slots = Vec::with_capacity(o.slots.len());
        for (j, s) in o.slots.iter().enumerate() {
            let (at, decl) = (s.span().start, s.get_ref());
            let field = |f: &str| format!("object[{i}].slots[{j}].{f}");
            if !(0..=MAX_SLOT_TYPE).contains(&decl.slot_type)
                || NEVER_DESCRIBED.contains(&decl.slot_type)
            {
                return Err(lines.error(
                    at,
                    field("type"),
                    format!(
                        "{}: a slot type with no descriptor never appears in message 5 (SLOT-02)",
                        decl.slot_type
                    ),
                ));
            }
            if decl.index < 0 {
                return Err(lines.error(
                    at,
                    field("index"),
                    format!(
                        "{}: an index of -1 makes the resolver refuse the slot (SLOT-01)",
                        decl.index
                    ),
                ));
            }
            if slots
                .last()
                .is_some_and(|l: &SlotDecl| l.index >= decl.index)
            {
                return Err(lines.error(
                    at,
                    field("index"),
                    format!(
                        "{}: slots are sorted by index, each once (facts 4.7)",
                        decl.index
                    ),
                ));
            }
            slots.push(SlotDecl {
                slot_type: decl.slot_type,
                index: decl.index,
                schemas: SlotSchemas {
                    auth: decl.auth,
                    sense: decl.sense,
                },
            });
        }
        out.push(PlacedObject { key, bubble, slots });
    }
    check_roster(lines, files, &out, bubbles)?;
    Ok(out)
}

/// No more keys than a roster registers, and the top-level slots the spawn gate reads.
fn check_roster(
    lines: &Lines<'_>,
    files: &[Spanned<ObjectFile>],
    objects: &[PlacedObject],
    bubbles: u8,
) -> Result<(), ScenarioError> {
    let end = lines.0.len();
    let last = |b: Option<u8>| {
        objects
            .iter()
            .rposition(|o| o.bubble == b)
            .and_then(|i| files.get(i))
            .map_or(end, |f| f.span().start)
    };
    let top = objects.iter().filter(|o| o.bubble.is_none()).count();
    if top > MAX_TOP_KEYS {
        return Err(lines.error(
            last(None),
            "object",
            format!("{top} top-level objects; a roster registers at most {MAX_TOP_KEYS} (BODY-05)"),
        ));
    }
    for b in 0..bubbles {
        let n = objects.iter().filter(|o| o.bubble == Some(b)).count();
        if n > MAX_SUB_KEYS {
            return Err(lines.error(last(Some(b)), "object", format!("{n} objects in bubble {b}; a roster's sub-block registers at most {MAX_SUB_KEYS} (facts 4.7)")));
        }
    }
    let has = |t: i8| {
        objects
            .iter()
            .filter(|o| o.bubble.is_none())
            .any(|o| o.slots.iter().any(|s| s.slot_type == t))
    };
    for (t, what) in [(TYPE_PARTICIPATION, "type-13"), (TYPE_LIFETIME, "type-17")] {
        if !has(t) {
            return Err(lines.error(end, "object", format!("no top-level object has a {what} slot: the player spawn gate reads one (SEED-02)")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file the repository ships is the built-in scenario.
    #[test]
    fn the_shipped_files_are_the_builtin_and_the_large_scenario() {
        assert_eq!(parse(BUILTIN), Ok(Scenario::builtin()));
        let large = include_str!("../../scenarios/edz_patrol_large.toml");
        assert_eq!(parse(large), Ok(Scenario::large(usize::MAX)));
    }

    /// Each kind of mistake is refused with its field, and the line of the change or of
    /// the object that holds it.
    #[test]
    fn a_bad_file_names_the_line_and_the_field() {
        let cases = [
            ("bubble_count = 2", "bubble_count = 0", "bubble_count"),
            (
                "arrival_slice_set = 0",
                "arrival_slice_set = 16",
                "arrival_slice_set",
            ),
            (
                "key = \"0xAAAA0001\"",
                "key = \"0x811C9DC5\"",
                "object[0].key",
            ),
            (
                "key = \"0xBBBB0002\"",
                "key = \"0xBBBB0001\"",
                "object[3].key",
            ),
            ("bubble = 1", "bubble = 2", "object[3].bubble"),
            (
                "{ type = 8, index = 0, auth = true, sense = false },\n    { type = 3",
                "{ type = 12, index = 0, auth = true, sense = false },\n    { type = 3",
                "object[1].slots[0].type",
            ),
            (
                "{ type = 18, index = 2",
                "{ type = 18, index = 1",
                "object[1].slots[2].index",
            ),
            ("reason = 2", "reason = \"two\"", "reason"),
            (
                "member_key = \"0x0102030405060708\"",
                "member_key = \"0xZZ\"",
                "player.member_key",
            ),
            (
                "bubble_count = 2\n",
                "colour = 3\nbubble_count = 2\n",
                "colour",
            ),
            (
                "name = \"timer\"",
                "name = \"objective\"",
                "object[1].slots[2].name",
            ),
        ];
        for (from, to, field) in cases {
            assert!(BUILTIN.contains(from), "{from}");
            let text = BUILTIN.replacen(from, to, 1);
            let e = parse(&text).unwrap_err();
            assert_eq!(e.field, field, "{to}: {e}");
            let changed = 1 + BUILTIN[..BUILTIN.find(from).unwrap()].matches('\n').count();
            assert_eq!(e.line, changed, "{to}: {e}");
        }
    }

    /// A scenario whose top level lacks the type-17 slot is refused (SEED-02).
    #[test]
    fn the_spawn_gate_slots_are_required() {
        let text = BUILTIN.replacen("{ type = 17,", "{ type = 18,", 1);
        let e = parse(&text).unwrap_err();
        assert!(e.message.contains("SEED-02"), "{e}");
    }
}
