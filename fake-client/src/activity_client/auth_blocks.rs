//! Message 5's object blocks, read the way the client reads them: a block whose slot
//! resolves, in a group not keyed 0x811C9DC5 and of an object that applies in the client's
//! bubble, is read by the slot's own schemas; the others are skipped by their remainder
//! (AH "How the client applies an Auth body"; AUTH-05, AUTH-06, AUTH-07, BODY-05).

use vex_wire::activity::sensor_auth::{DecodedObject, MeasuredBlock, OBJECT_HEAD_BITS};
use vex_wire::activity::slot::{ClientRef, SlotSchemas};
use vex_wire::bits::{BitReader, Bits};
use vex_wire::scenario::{Scenario, SlotDecl};
use vex_wire::schema::{SchemaError, Value, catalog, decode_into};

/// One block as the client reads it by the slot's schemas.
#[derive(Debug)]
pub(super) enum Block {
    /// Reset and root when the slot has an Auth schema (AUTH-06), the body, and the Sense
    /// bit when it has a Sense schema: the bits they take, the body's value, and the Sense
    /// override's.
    Read {
        bits: usize,
        body: Option<Value>,
        sense: Option<Value>,
    },
    /// The bits the body its slot holds was read from, with no Sense override: read by the
    /// same schemas, they give that body again, so it is not read twice.
    Same { bits: usize },
    /// A body or a Sense override with no schema Vex knows: only the remainder delimits it.
    Unknown,
    /// The block ends inside the body its slot's schema reads.
    Short(SchemaError),
    /// The block ends before a flag its slot's schemas have: the reset and root bits, or
    /// the Sense bit (AUTH-06 when it was written for other schemas).
    EndsBefore(&'static str),
    /// A count above its array's capacity: the client writes past the array (BODY-05).
    OverCapacity {
        path: String,
        count: u64,
        capacity: u16,
    },
}

/// Reads the block at `r` by `decl`'s schemas.
pub(super) fn read_block(decl: &SlotDecl, r: BitReader<'_>) -> Block {
    read_block_reusing(decl, r, &mut Spares::default())
}

/// [`read_block`], its values read into `spares` of their slot type when there are some.
fn read_block_reusing(decl: &SlotDecl, mut r: BitReader<'_>, spares: &mut Spares) -> Block {
    let start = r.position();
    let mut body = None;
    if decl.schemas.auth {
        let (Ok(_reset), Ok(root)) = (r.read_bool(), r.read_bool()) else {
            return Block::EndsBefore("its reset and root bits");
        };
        if root {
            let Some(schema) = catalog::auth(decl.slot_type) else {
                return Block::Unknown;
            };
            let mut v = spares.take((decl.slot_type, Side::Auth));
            match decode_into(schema, &mut r, &mut v) {
                Ok(()) => body = Some(v),
                Err(SchemaError::OverCapacity {
                    path,
                    count,
                    capacity,
                }) => {
                    return Block::OverCapacity {
                        path,
                        count,
                        capacity,
                    };
                }
                Err(e @ SchemaError::Bits { .. }) => return Block::Short(e),
                Err(_) => return Block::Unknown,
            }
        }
    }
    let mut sense = None;
    let sense_bit = decl.schemas.sense.then(|| r.read_bool());
    if let Some(Err(_)) = sense_bit {
        return Block::EndsBefore("its Sense bit");
    }
    if let Some(Ok(true)) = sense_bit {
        let Some(schema) = catalog::sense(decl.slot_type) else {
            return Block::Unknown; // a Sense override with no schema Vex knows
        };
        let mut v = spares.take((decl.slot_type, Side::Sense));
        match decode_into(schema, &mut r, &mut v) {
            Ok(()) => sense = Some(v),
            Err(e @ SchemaError::Bits { .. }) => return Block::Short(e),
            Err(_) => return Block::Unknown,
        }
    }
    Block::Read {
        bits: r.position() - start,
        body,
        sense,
    }
}

/// The schemas a block whose length is not the slot's was written for: another guess at
/// which schemas the slot has that reads exactly the block's remainder (AUTH-06). A
/// remainder off by just the bits that guess adds reads the same on the wire; the report
/// then names the schema guess and says it could be the remainder (AUTH-05).
pub(super) fn written_for(
    decl: &SlotDecl,
    body: &[u8],
    object: &DecodedObject,
) -> Option<SlotSchemas> {
    let r = by_remainder(body, object)?;
    [(true, true), (true, false), (false, true), (false, false)]
        .into_iter()
        .map(|(auth, sense)| SlotSchemas { auth, sense })
        .filter(|guess| *guess != decl.schemas)
        .find(|guess| {
            let other = SlotDecl {
                schemas: *guess,
                ..*decl
            };
            matches!(read_block(&other, r.clone()), Block::Read { bits, .. } if bits == object.remainder as usize)
        })
}

/// A block length no message holds: its read fails, as the client's runs off the end.
const PAST_THE_END: usize = usize::MAX;

/// The highest bubble whose objects the client reads only while it stands in it.
const LAST_FILTERED_BUBBLE: u8 = 63;

/// True when the client in `bubble` reads the blocks of an object in `object_bubble` by
/// their slots' schemas: an object of its own bubble, or one above 63 (the top-level
/// objects, whose bubble the scenario leaves out); any other it skips by the remainder
/// (AH "How the client applies an Auth body", AUTH-05).
pub(super) fn applies_in(object_bubble: u8, bubble: u8) -> bool {
    object_bubble > LAST_FILTERED_BUBBLE || object_bubble == bubble
}

/// A reader over `object`'s block in `body` as its remainder delimits it, which is how
/// the client skips it.
pub(super) fn by_remainder<'a>(body: &'a [u8], object: &DecodedObject) -> Option<BitReader<'a>> {
    let start = object.at + OBJECT_HEAD_BITS;
    let mut r = BitReader::with_bit_len(body, start + object.remainder as usize);
    r.skip(start).ok()?;
    Some(r)
}

/// Which schemas a slot has, in words.
pub(super) fn describe(schemas: SlotSchemas) -> &'static str {
    match (schemas.auth, schemas.sense) {
        (true, true) => "an Auth and a Sense schema",
        (true, false) => "an Auth schema and no Sense schema",
        (false, true) => "a Sense schema and no Auth schema",
        (false, false) => "neither an Auth nor a Sense schema",
    }
}

/// Which of a slot's schemas a value was read by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    /// The Auth body's.
    Auth,
    /// The Sense override's.
    Sense,
}

/// Values read before that the client is done with, kept for their buffers: a value of
/// the same slot type and side read into one allocates nothing.
#[derive(Debug, Default)]
pub(super) struct Spares(Vec<((i8, Side), Value)>);

/// The spare values kept at most: a message's worth of bodies in a large activity.
const SPARES: usize = 256;

impl Spares {
    /// A spare of `kind`, or else any (its outer buffer still serves).
    fn take(&mut self, kind: (i8, Side)) -> Value {
        let at = self.0.iter().rposition(|(k, _)| *k == kind);
        match at.or(self.0.len().checked_sub(1)) {
            Some(i) => self.0.swap_remove(i).1,
            None => Value::Absent,
        }
    }

    /// Keeps `value`, which the client is done with, while there is room.
    pub(super) fn keep(&mut self, kind: (i8, Side), value: Value) {
        if self.0.len() < SPARES {
            self.0.push((kind, value));
        }
    }
}

/// The blocks of one message 5 as the client read them while it measured each (AH "How
/// the client applies an Auth body"): each is read once, when its length is measured, and
/// taken again for its checks.
#[derive(Debug, Default)]
pub(super) struct ReadBlocks {
    /// Each measured block's first content bit in the body, and the block as read there.
    read: std::collections::VecDeque<(usize, i8, Block)>,
    /// The values the client is done with, read into again.
    pub(super) spares: Spares,
}

impl ReadBlocks {
    /// Nothing measured; the capacity kept, and the values of blocks never taken kept as
    /// spares.
    pub(super) fn clear(&mut self) {
        for (_, slot_type, block) in self.read.drain(..) {
            if let Block::Read { body, sense, .. } = block {
                let sides = [(Side::Auth, body), (Side::Sense, sense)];
                for (side, value) in sides.into_iter().filter_map(|(s, v)| Some((s, v?))) {
                    self.spares.keep((slot_type, side), value);
                }
            }
        }
    }

    /// The length the client reads for `slot`'s block at `r`, when the slot resolves and
    /// its object applies in `bubble` (else `None`: skipped by its remainder), or `kept`
    /// itself when the block is those bits; the block is kept for [`ReadBlocks::take`]. A
    /// block whose read runs past the message's end gets a length no message holds, so the
    /// message does not decode, as the client drops it.
    pub(super) fn measure<'k>(
        &mut self,
        (scenario, bubble): (&Scenario, u8),
        slot: &ClientRef,
        r: BitReader<'_>,
        kept: Option<&'k Bits>,
    ) -> Option<MeasuredBlock<'k>> {
        let (object_bubble, decl) = scenario.schemas_of(slot)?;
        if !applies_in(object_bubble, bubble) {
            return None; // skipped by its remainder
        }
        let start = r.position();
        // reading is a pure function of the bits read so far: the bits the held body came
        // from, again, read again to that body and end where they end
        if let Some(k) = kept.filter(|k| r.starts_with(k)) {
            let block = Block::Same { bits: k.bit_len };
            self.read.push_back((start, slot.slot_type, block));
            return Some(MeasuredBlock::Known(k));
        }
        let block = read_block_reusing(&decl, r, &mut self.spares);
        let measured = match block {
            Block::Read { bits, .. } | Block::Same { bits } => Some(MeasuredBlock::Bits(bits)),
            Block::Short(_) | Block::EndsBefore(_) => Some(MeasuredBlock::Bits(PAST_THE_END)),
            Block::Unknown | Block::OverCapacity { .. } => None,
        };
        self.read.push_back((start, slot.slot_type, block));
        measured
    }

    /// `object`'s block read by `decl`'s schemas, for the measured objects in body order:
    /// the one measured, when it was read whole from exactly the object's content; else
    /// read again from the content alone (a block whose measure left it to its remainder).
    /// A block measured the [`Block::Same`] as the body its slot holds is that still when
    /// `kept`, the bits the slot's body comes from now, are its content (a block before it
    /// in the message may have given the slot another).
    pub(super) fn take(
        &mut self,
        decl: &SlotDecl,
        object: &DecodedObject,
        kept: Option<&Bits>,
    ) -> Block {
        let start = object.at + OBJECT_HEAD_BITS;
        match self.read.pop_front() {
            Some((at, _, block @ Block::Read { bits, .. }))
                if at == start && bits == object.content.bit_len =>
            {
                block
            }
            Some((at, _, block @ Block::Same { .. }))
                if at == start && kept == Some(&object.content) =>
            {
                block
            }
            _ => read_block_reusing(decl, object.content.reader(), &mut self.spares),
        }
    }
}
