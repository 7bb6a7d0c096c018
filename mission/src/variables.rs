//! What an activity's variables (`this`) may hold after a call: what the engine lets a
//! script build (mission/src/engine.rs), counted over all of `this` as the engine counts
//! a value, and map keys and nesting besides. Rhai checks a value's size after storing it
//! and misses some stores (an index assignment, the data behind a curried function
//! pointer, map keys), and a `this` past its limits makes every later store fail, so the
//! mission checks `this` itself after each call.

use crate::engine::{MAX_ARRAY_SIZE, MAX_MAP_SIZE, MAX_STRING_SIZE};
use rhai::{Dynamic, FnPtr, Map};

/// Bytes of map keys `this` may hold.
const MAX_KEY_BYTES: usize = 64 * 1024;
/// How deep values in `this` may nest; the walk goes no deeper, so its stack is bounded.
const MAX_DEPTH: usize = 64;

/// Why `this` cannot stay as the call left it; `None` when it can.
pub fn over_limits(this: &Dynamic) -> Option<String> {
    if !this.is_map() {
        return Some(format!(
            "`this` holds the mission's variables and must stay a map, not {}",
            this.type_name()
        ));
    }
    let mut tally = Tally::default();
    tally.walk(this, 0).err()
}

/// What a walk has counted.
#[derive(Default)]
struct Tally {
    array_items: usize,
    map_entries: usize,
    text: usize,
    keys: usize,
}

impl Tally {
    fn walk(&mut self, value: &Dynamic, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "the mission's variables nest deeper than {MAX_DEPTH}"
            ));
        }
        if let Some(map) = value.read_lock::<Map>() {
            self.map_entries += map.len();
            for (key, item) in map.iter() {
                self.keys += key.len();
                self.walk(item, depth + 1)?;
            }
        } else if let Ok(items) = value.as_array_ref() {
            self.array_items += items.len();
            for item in items.iter() {
                self.walk(item, depth + 1)?;
            }
        } else if let Some(pointer) = value.read_lock::<FnPtr>() {
            for item in pointer.curry() {
                self.walk(item, depth + 1)?;
            }
        } else if let Ok(text) = value.as_immutable_string_ref() {
            self.text += text.len();
        }
        self.within()
    }

    fn within(&self) -> Result<(), String> {
        let over = [
            (self.map_entries, MAX_MAP_SIZE, "map entries"),
            (self.array_items, MAX_ARRAY_SIZE, "array elements"),
            (self.text, MAX_STRING_SIZE, "bytes of text"),
            (self.keys, MAX_KEY_BYTES, "bytes of map keys"),
        ]
        .into_iter()
        .find(|(held, most, _)| held > most);
        match over {
            Some((_, most, what)) => Err(format!(
                "the mission's variables hold more than {most} {what} in all"
            )),
            None => Ok(()),
        }
    }
}
