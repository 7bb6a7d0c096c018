//! The client's replicated object store (NS "Replicated objects, service 123"): 8
//! families of 6 object slots, filled only by service-123 pushes for families the client
//! subscribed to (service 12). It keeps the first error it sees and applies nothing after
//! it. Of the slots' object ids the pages give two (family 4's account and character), so
//! an unknown id is not judged; a seventh object in a family is (no room, QZ-03).

use crate::core::ClientCore;
use crate::rules::Rule;
use std::collections::{BTreeMap, BTreeSet};
use vex_wire::bap::queuez::{
    ACCOUNT_FAMILY, ACCOUNT_OBJECT, ENCODING_RAW, FAMILIES, MAX_PAYLOAD, SLOTS_PER_FAMILY, Update,
};

/// A service-123 message of this many bytes ends the link (QZ-08, NS "Replicated objects,
/// service 123": "a 143,285-byte message ends the BAP link"; the limit itself is
/// unverified, and 46,973 bytes work).
pub const LINK_ENDING_MESSAGE: usize = 143_285;

/// True when `payload`, a raw object's bytes, opens with `key` (QZ-01: "an object key that
/// is not the payload's first qword"). The header is big-endian; the object's own bytes
/// hold it as the object stores it, which NS does not give, so either order is taken. A
/// schema, diff or Oodle payload (encodings 1, 2 and 4) is not the object's bytes: its
/// first qword is no key.
fn keyed(key: u64, payload: &[u8]) -> bool {
    let Some(Ok(first)) = payload.get(..8).map(<[u8; 8]>::try_from) else {
        return false;
    };
    [u64::from_be_bytes(first), u64::from_le_bytes(first)].contains(&key)
}

/// The store.
#[derive(Debug, Clone, Default)]
pub(crate) struct Store {
    subscribed: BTreeSet<u32>,
    versions: BTreeMap<u32, i32>,
    /// Per family, each object's key by object id.
    objects: BTreeMap<u32, BTreeMap<u32, u64>>,
    failed: bool,
}

impl Store {
    /// The client subscribed to `family`.
    pub(crate) fn subscribe(&mut self, family: u32) {
        self.subscribed.insert(family);
    }

    /// The last version of `family` applied.
    pub(crate) fn version(&self, family: u32) -> Option<i32> {
        self.versions.get(&family).copied()
    }

    /// True once the store kept an error: it applies nothing more.
    pub(crate) fn failed(&self) -> bool {
        self.failed
    }

    /// The objects `family` holds, by id.
    #[cfg(test)]
    pub(crate) fn objects(&self, family: u32) -> Vec<u32> {
        self.objects
            .get(&family)
            .map(|o| o.keys().copied().collect())
            .unwrap_or_default()
    }

    /// Applies `body`, or the rules it breaks (the first error, and then nothing more).
    fn apply(&mut self, body: &[u8]) -> Vec<(Rule, String)> {
        if self.failed {
            return Vec::new();
        }
        let broken = self.judge(body);
        self.failed = !broken.is_empty();
        broken
    }

    fn judge(&mut self, body: &[u8]) -> Vec<(Rule, String)> {
        if body.len() >= LINK_ENDING_MESSAGE {
            let why = format!(
                "a {}-byte service-123 message: at {LINK_ENDING_MESSAGE} bytes the link ends",
                body.len()
            );
            return vec![(Rule::Qz08, why)];
        }
        let update = match Update::decode(body) {
            Ok(u) => u,
            Err(e) => return vec![(Rule::Qz02, e.to_string())],
        };
        if update.families.is_empty() {
            return vec![(Rule::Qz01, "the family count is 0".into())];
        }
        let mut next = self.clone();
        for f in &update.families {
            let family = f.family;
            if family >= FAMILIES || !next.subscribed.contains(&family) {
                let why = format!("family {family}: the client never subscribed to it (error 2)");
                return vec![(Rule::Qz03, why)];
            }
            if f.version == -1 {
                return vec![(Rule::Qz01, format!("family {family}: version -1"))];
            }
            if let Some(last) = next.versions.get(&family)
                && f.version != last.wrapping_add(1)
            {
                let why = format!(
                    "family {family}: version {} after {last} (error 6)",
                    f.version
                );
                return vec![(Rule::Qz01, why)];
            }
            let held = next.objects.entry(family).or_default();
            if f.full_snapshot {
                held.retain(|id, _| f.objects.iter().any(|o| o.object_id == *id));
            }
            for o in &f.objects {
                let mut broken = Vec::new();
                if o.encoding == ENCODING_RAW
                    && o.object_id == ACCOUNT_OBJECT
                    && o.payload.len() > MAX_PAYLOAD
                {
                    let why = format!(
                        "the account object raw, {} bytes, into its {MAX_PAYLOAD}-byte slot: copied past it",
                        o.payload.len()
                    );
                    broken.push((Rule::Qz06, why));
                }
                if o.payload.len() > MAX_PAYLOAD {
                    let why = format!(
                        "object {:#x}: a {}-byte payload, past {MAX_PAYLOAD}",
                        o.object_id,
                        o.payload.len()
                    );
                    broken.push((Rule::Qz01, why));
                }
                if o.encoding == ENCODING_RAW && !o.payload.is_empty() && !keyed(o.key, &o.payload)
                {
                    let why = format!(
                        "object {:#x}: key {:#x} is not its raw payload's first qword (error 5)",
                        o.object_id, o.key
                    );
                    broken.push((Rule::Qz01, why));
                }
                if !broken.is_empty() {
                    return broken;
                }
                if o.payload.is_empty() {
                    held.remove(&o.object_id);
                } else {
                    held.insert(o.object_id, o.key);
                }
                if held.len() > SLOTS_PER_FAMILY {
                    let why = format!(
                        "family {family}: a seventh object, {:#x}; the family has {SLOTS_PER_FAMILY} slots (error 4)",
                        o.object_id
                    );
                    return vec![(Rule::Qz03, why)];
                }
            }
            next.versions.insert(family, f.version);
        }
        *self = next;
        Vec::new()
    }
}

impl ClientCore {
    /// A service-123 push; the operations parked on the family-4 version it reaches go on
    /// (NS "The reply's version barrier").
    pub(crate) fn on_queuez(&mut self, idx: u64, body: &[u8]) {
        for (rule, reason) in self.store.apply(body) {
            self.verdict.violate(rule, Some(idx), None, reason);
        }
        if let Some(version) = self.store.version(ACCOUNT_FAMILY) {
            self.barrier.reached(version);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::bap::queuez::{CHARACTER_OBJECT, FamilyUpdate, ObjectUpdate};

    fn object(id: u32, key: u64, len: usize) -> ObjectUpdate {
        let mut payload = key.to_be_bytes().to_vec();
        payload.resize(len, 0);
        ObjectUpdate {
            object_id: id,
            key,
            encoding: ENCODING_RAW,
            payload,
        }
    }

    fn update(version: i32, full: bool, objects: Vec<ObjectUpdate>) -> Vec<u8> {
        Update {
            families: vec![FamilyUpdate {
                family: 4,
                root: 1,
                version,
                full_snapshot: full,
                objects,
            }],
        }
        .encode()
    }

    fn rules(store: &mut Store, body: &[u8]) -> Vec<Rule> {
        store.apply(body).into_iter().map(|(r, _)| r).collect()
    }

    fn subscribed() -> Store {
        let mut s = Store::default();
        s.subscribe(4);
        s
    }

    #[test]
    fn versions_follow_by_one_and_snapshots_delete_what_they_do_not_name() {
        let mut s = subscribed();
        assert!(
            rules(
                &mut s,
                &update(
                    1,
                    true,
                    vec![object(CHARACTER_OBJECT, 7, 64), object(5, 9, 8)]
                )
            )
            .is_empty()
        );
        assert_eq!(s.objects(4), vec![5, CHARACTER_OBJECT]);
        assert!(rules(&mut s, &update(2, true, vec![object(5, 9, 8)])).is_empty());
        assert_eq!(
            s.objects(4),
            vec![5],
            "the full snapshot deleted the character"
        );
        assert!(rules(&mut s, &update(3, false, vec![object(5, 9, 0)])).is_empty());
        assert!(s.objects(4).is_empty(), "an empty payload deletes");
        assert_eq!(
            rules(&mut s, &update(5, false, Vec::new())),
            vec![Rule::Qz01],
            "a gap"
        );
        // the first error is kept: nothing after it applies or is judged
        assert!(rules(&mut s, &update(9, false, Vec::new())).is_empty());
    }

    #[test]
    fn each_breach_has_its_rule_at_its_boundary() {
        let cases: Vec<(Vec<u8>, Vec<Rule>)> = vec![
            (
                Update {
                    families: Vec::new(),
                }
                .encode(),
                vec![Rule::Qz01],
            ),
            (update(-1, true, Vec::new()), vec![Rule::Qz01]),
            (
                update(1, true, vec![object(ACCOUNT_OBJECT, 7, MAX_PAYLOAD)]),
                vec![],
            ),
            (
                update(1, true, vec![object(ACCOUNT_OBJECT, 7, MAX_PAYLOAD + 1)]),
                vec![Rule::Qz06, Rule::Qz01],
            ),
            (
                update(1, true, vec![object(CHARACTER_OBJECT, 7, MAX_PAYLOAD + 1)]),
                vec![Rule::Qz01],
            ),
            (
                update(
                    1,
                    true,
                    vec![ObjectUpdate {
                        key: 8,
                        ..object(CHARACTER_OBJECT, 7, 64)
                    }],
                ),
                vec![Rule::Qz01],
            ),
            (
                update(1, true, vec![object(CHARACTER_OBJECT, 7, 4)]),
                vec![Rule::Qz01],
            ),
            (
                update(1, true, (0..6).map(|i| object(i, 7, 8)).collect()),
                vec![],
            ),
            (
                update(1, true, (0..7).map(|i| object(i, 7, 8)).collect()),
                vec![Rule::Qz03],
            ),
            (update(1, true, Vec::new())[..20].to_vec(), vec![Rule::Qz02]),
        ];
        for (i, (body, want)) in cases.into_iter().enumerate() {
            assert_eq!(rules(&mut subscribed(), &body), want, "case {i}");
        }
        // a raw key in the object's own byte order, little-endian, is the key; a schema,
        // diff or Oodle payload is not the object's bytes, and its first qword no key
        let little = ObjectUpdate {
            payload: [7u64.to_le_bytes().as_slice(), &[0; 56]].concat(),
            ..object(CHARACTER_OBJECT, 7, 64)
        };
        assert!(rules(&mut subscribed(), &update(1, true, vec![little])).is_empty());
        for encoding in [1, 2, 4] {
            let packed = ObjectUpdate {
                encoding,
                payload: vec![0xA5; 64],
                ..object(ACCOUNT_OBJECT, 7, 64)
            };
            let body = update(1, true, vec![packed]);
            assert!(
                rules(&mut subscribed(), &body).is_empty(),
                "encoding {encoding}"
            );
        }
        // a family past the store's eight, even one the client asked for
        let mut beyond = Store::default();
        beyond.subscribe(FAMILIES);
        let mut ninth = Update::decode(&update(1, true, Vec::new())).unwrap();
        ninth.families[0].family = FAMILIES;
        assert_eq!(
            rules(&mut beyond, &ninth.encode()),
            vec![Rule::Qz03],
            "family 8"
        );
        let mut other = Store::default();
        other.subscribe(3);
        assert_eq!(
            rules(&mut other, &update(1, true, Vec::new())),
            vec![Rule::Qz03],
            "family 4 not subscribed"
        );
        let big = update(
            1,
            true,
            vec![
                object(ACCOUNT_OBJECT, 7, MAX_PAYLOAD),
                object(CHARACTER_OBJECT, 7, 50_000),
            ],
        );
        assert!(big.len() > LINK_ENDING_MESSAGE);
        assert_eq!(rules(&mut subscribed(), &big), vec![Rule::Qz08]);
        // 45 bytes of heads and the account object, then a character filling it to one byte
        // short of the size NS says ends the link, and to that size
        let rest = LINK_ENDING_MESSAGE - 1 - 45 - 20 - MAX_PAYLOAD;
        for (extra, want) in [(0, vec![]), (1, vec![Rule::Qz08])] {
            let objects = vec![
                object(ACCOUNT_OBJECT, 7, MAX_PAYLOAD),
                object(CHARACTER_OBJECT, 7, rest + extra),
            ];
            let body = update(1, true, objects);
            assert_eq!(body.len(), LINK_ENDING_MESSAGE - 1 + extra);
            assert_eq!(
                rules(&mut subscribed(), &body),
                want,
                "{} bytes",
                body.len()
            );
        }
    }
}
