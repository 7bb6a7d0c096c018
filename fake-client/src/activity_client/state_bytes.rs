//! The roster's state bytes, judged from one message 5 to the next (facts 4.7: a state
//! byte that changes destroys and rebuilds the key's roster-owned objects; SEED-06).

use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::sensor_auth::RosterDelta;

/// A key's state byte where it applies: its scope (`None` top-level, else the bubble of
/// its sub-block) and key, its place in the roster, and the byte.
type Scoped = ((Option<i32>, u32), usize, i8);

/// The state bytes of the roster held and of the one read, in buffers kept between
/// messages, and whether the last message 5 changed one.
#[derive(Debug, Default)]
pub(super) struct StateBytes {
    held: Vec<Scoped>,
    now: Vec<Scoped>,
    rebuilt_last: bool,
}

impl StateBytes {
    /// Past the warm-up, a key whose state byte changed from the roster `before`, the keys
    /// the same, makes the client destroy and rebuild every roster-owned object (SEED-06:
    /// "change it only to rebuild them"). One rebuild is the host's to ask for; a byte that
    /// moves on two message 5s in a row is a per-send counter, rebuilding on every send.
    pub(super) fn judge(
        &mut self,
        verdict: &mut Verdict,
        idx: u64,
        (before, now): (&RosterDelta, &RosterDelta),
        (bubble, past_warm_up): (u8, bool),
    ) {
        if !past_warm_up || before == now {
            self.rebuilt_last = false; // an equal roster changes no byte
            return;
        }
        applying(before, bubble, &mut self.held);
        applying(now, bubble, &mut self.now);
        if self
            .held
            .iter()
            .map(|b| b.0)
            .ne(self.now.iter().map(|b| b.0))
        {
            self.rebuilt_last = false; // the key set changed: a rebuild the roster itself asks for
            return;
        }
        let changed = || {
            let pairs = self.held.iter().zip(&self.now);
            pairs.filter(|(h, n)| h.2 != n.2).map(|(_, n)| (n.0.1, n.2))
        };
        let any = changed().next().is_some();
        if any && self.rebuilt_last {
            let list: Vec<String> = changed().map(|(k, s)| format!("{k:#x} to {s}")).collect();
            let reason = format!(
                "roster state bytes changed again ({}), the keys the same: the client destroys and rebuilds every roster-owned object on every message 5",
                list.join(", ")
            );
            verdict.violate(Rule::Seed06, Some(idx), None, reason);
        }
        self.rebuilt_last = any;
    }
}

/// The state byte of each key of `r` that applies while `bubble` is current, into `out`
/// sorted by scope and key: top-level and of that bubble's sub-block (facts 4.7: only the
/// current bubble's sub-block applies). A key named twice in a scope holds the byte named
/// last.
fn applying(r: &RosterDelta, bubble: u8, out: &mut Vec<Scoped>) {
    out.clear();
    let top = r.keys.iter().zip(&r.states).map(|(k, s)| ((None, *k), *s));
    let current = r.sub_blocks.iter().flatten();
    let subs = current
        .filter(move |b| b.bubble == i32::from(bubble))
        .flat_map(|b| {
            b.keys
                .iter()
                .zip(&b.states)
                .map(move |(k, s)| ((Some(b.bubble), *k), *s))
        });
    let placed = top.chain(subs).enumerate();
    out.extend(placed.map(|(i, (key, byte))| (key, i, byte)));
    out.sort_unstable_by_key(|(key, i, _)| (*key, *i));
    out.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.2 = later.2;
        }
        same
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::sensor_auth::SubBlock;

    fn roster(keys: &[(u32, i8)], subs: &[(i32, u32, i8)]) -> RosterDelta {
        let sub = |&(bubble, key, state): &(i32, u32, i8)| SubBlock {
            bubble,
            keys: vec![key],
            mask: RosterDelta::mask_for(1),
            states: vec![state],
        };
        RosterDelta {
            keys: keys.iter().map(|k| k.0).collect(),
            mask: RosterDelta::mask_for(keys.len()),
            states: keys.iter().map(|k| k.1).collect(),
            sub_blocks: Some(subs.iter().map(sub).collect()),
        }
    }

    /// The bytes that apply in bubble 1, by scope and key: a key named twice holds the
    /// byte named last, and another bubble's sub-block is left out.
    #[test]
    fn the_bytes_that_apply_are_the_last_named_in_the_current_bubble() {
        let r = roster(&[(9, 1), (3, 2), (9, 5)], &[(1, 3, 7), (2, 4, 8)]);
        let mut out = Vec::new();
        applying(&r, 1, &mut out);
        let got: Vec<_> = out.iter().map(|(key, _, byte)| (*key, *byte)).collect();
        assert_eq!(got, [((None, 3), 2), ((None, 9), 5), ((Some(1), 3), 7)]);
    }

    /// SEED-06: a byte moved on two message 5s in a row past the warm-up is caught at the
    /// second; one move, a move with the keys changed, or moves during the warm-up are not.
    #[test]
    fn a_byte_moved_twice_in_a_row_is_seed_06() {
        let judged = |steps: &[(&RosterDelta, &RosterDelta, bool)]| {
            let (mut bytes, mut v) = (StateBytes::default(), Verdict::new());
            for (i, (before, now, warm)) in steps.iter().enumerate() {
                bytes.judge(&mut v, i as u64, (before, now), (0, *warm));
            }
            v.rules()
        };
        let [a, b, c] = [1, 2, 3].map(|s| roster(&[(7, s)], &[]));
        let other_keys = roster(&[(8, 3)], &[]);
        assert_eq!(judged(&[(&a, &b, true), (&b, &c, true)]), [Rule::Seed06]);
        assert_eq!(judged(&[(&a, &b, true), (&b, &b, true)]), []);
        assert_eq!(judged(&[(&a, &b, true), (&b, &other_keys, true)]), []);
        assert_eq!(judged(&[(&a, &b, false), (&b, &c, true)]), []);
    }
}
