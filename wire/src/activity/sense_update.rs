//! Message 6, sensor_sense_update: the Sense state the client measured (AH "Message 6:
//! Sense"; facts 4.9).
//!
//! Each group carries a 32-bit length, so a reader can skip a group whose slots it cannot
//! size; inside a group, Sense bodies have no length and need the slot type's Sense
//! schema. Vex reads `group_bits` as the bits after that field up to and including the
//! group's closing object-present bit, and the root bit as 1 when groups follow (the pages
//! say only that Sunrise decodes the 0 form).

use super::body::Body;
use super::slot::{CLIENT_REF_BITS, ClientRef};
use crate::bits::{BitError, BitReader, BitWriter, Bits};

/// Bits of an object's trailing counter.
pub const COUNTER_BITS: u32 = 32;

/// One slot's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SenseObject {
    /// The slot; its key equals the group's key.
    pub slot: ClientRef,
    /// The Sense body, in the slot type's Sense schema.
    pub sense: Bits,
    /// The client's per-slot counter plus one; the client never compares it.
    pub counter: u32,
}

/// One group of reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SenseGroup {
    /// The registry key.
    pub key: u32,
    /// The objects.
    pub objects: Vec<SenseObject>,
}

/// Message 6.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SenseUpdate {
    /// The same value as the client's message 52.
    pub patch_epoch: [u64; 2],
    /// The groups; none means a root bit of 0.
    pub groups: Vec<SenseGroup>,
}

fn group_substream_bits(g: &SenseGroup) -> usize {
    g.objects
        .iter()
        .map(|o| 1 + CLIENT_REF_BITS + o.sense.bit_len + COUNTER_BITS as usize)
        .sum::<usize>()
        + 1
}

/// The body on the wire; it reads into its decoded form, each group's substream kept
/// whole until the slots' Sense schemas split it.
impl Body for SenseUpdate {
    type Decoded = DecodedSenseUpdate;

    fn write(&self, w: &mut BitWriter) {
        w.write(self.patch_epoch[0], 64);
        w.write(self.patch_epoch[1], 64);
        w.write_bool(false); // literal zero
        w.write_bool(!self.groups.is_empty());
        if !self.groups.is_empty() {
            for g in &self.groups {
                w.write_bool(true);
                w.write(u64::from(g.key), 32);
                w.write(group_substream_bits(g) as u64, 32);
                for o in &g.objects {
                    w.write_bool(true);
                    o.slot.write(w);
                    w.write_bits(&o.sense);
                    w.write(u64::from(o.counter), COUNTER_BITS);
                }
                w.write_bool(false);
            }
            w.write_bool(false);
        }
        w.write_bool(false); // tail
    }

    /// Reads a message-6 body. A literal bit of 1 is not this shape (facts 4.9).
    fn read(r: &mut BitReader<'_>) -> Result<DecodedSenseUpdate, BitError> {
        let patch_epoch = [r.read(64)?, r.read(64)?];
        let at = r.position();
        if r.read_bool()? {
            return Err(BitError::UnknownShape {
                at,
                what: "a message 6 whose literal bit is 1",
            });
        }
        let mut groups = Vec::new();
        if r.read_bool()? {
            loop {
                let at = r.position();
                if !r.read_bool()? {
                    break;
                }
                let key = r.read(32)? as u32;
                let len = r.read(32)? as usize;
                groups.push(DecodedSenseGroup {
                    at,
                    key,
                    substream: r.read_bits(len)?,
                });
            }
        }
        Ok(DecodedSenseUpdate {
            patch_epoch,
            groups,
        })
    }
}

/// A group as read: its key and its substream, not yet split into objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedSenseGroup {
    /// Bit offset of the group's present bit.
    pub at: usize,
    /// The registry key.
    pub key: u32,
    /// The group's bits after its length field.
    pub substream: Bits,
}

/// Message 6 as read, without slot knowledge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedSenseUpdate {
    /// The patch epoch.
    pub patch_epoch: [u64; 2],
    /// The groups.
    pub groups: Vec<DecodedSenseGroup>,
}

impl DecodedSenseGroup {
    /// Splits the substream into objects; `read_sense` reads one slot's Sense body (the
    /// caller knows the slot type's Sense schema). The substream must end where the
    /// closing bit does.
    pub fn objects(
        &self,
        mut read_sense: impl FnMut(&ClientRef, &mut BitReader<'_>) -> Result<Bits, BitError>,
    ) -> Result<Vec<SenseObject>, BitError> {
        let mut r = self.substream.reader();
        let mut objects = Vec::new();
        while r.read_bool()? {
            let slot = ClientRef::read(&mut r)?;
            let sense = read_sense(&slot, &mut r)?;
            let counter = r.read(COUNTER_BITS)? as u32;
            objects.push(SenseObject {
                slot,
                sense,
                counter,
            });
        }
        if r.remaining_bits() != 0 {
            return Err(BitError::UnknownShape {
                at: r.position(),
                what: "bits after a Sense group's closing bit",
            });
        }
        Ok(objects)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::written_bits;
    use proptest::prelude::*;

    fn sample() -> SenseUpdate {
        let body = |n: usize| {
            written_bits(|w| {
                for i in 0..n {
                    w.write_bool(i % 3 == 0);
                }
            })
            .unwrap()
        };
        let slot = |key, slot_type, index| ClientRef {
            key,
            slot_type,
            index,
        };
        SenseUpdate {
            patch_epoch: [1, 2],
            groups: vec![
                SenseGroup {
                    key: 0xAAAA_0001,
                    objects: vec![
                        SenseObject {
                            slot: slot(0xAAAA_0001, 4, 0),
                            sense: body(13),
                            counter: 1,
                        },
                        SenseObject {
                            slot: slot(0xAAAA_0001, 30, 1),
                            sense: body(40),
                            counter: 7,
                        },
                    ],
                },
                SenseGroup {
                    key: 0xBBBB_0001,
                    objects: vec![],
                },
            ],
        }
    }

    /// Reads Sense bodies whose lengths the test knows by slot type.
    fn by_type(slot: &ClientRef, r: &mut BitReader<'_>) -> Result<Bits, BitError> {
        r.read_bits(if slot.slot_type == 4 { 13 } else { 40 })
    }

    #[test]
    fn round_trip_and_group_lengths() {
        let m = sample();
        let bytes = m.encode().unwrap();
        let d = SenseUpdate::decode(&bytes).unwrap();
        assert_eq!(d.patch_epoch, [1, 2]);
        assert_eq!(d.groups.len(), 2);
        assert_eq!(
            d.groups[0].substream.bit_len,
            group_substream_bits(&m.groups[0])
        );
        assert_eq!(
            d.groups[1].substream.bit_len, 1,
            "an empty group is its closing bit"
        );
        for (dg, g) in d.groups.iter().zip(&m.groups) {
            assert_eq!(dg.objects(by_type).unwrap(), g.objects);
        }
    }

    #[test]
    fn shape_checks() {
        let empty = SenseUpdate {
            patch_epoch: [3, 4],
            groups: vec![],
        };
        let bytes = empty.encode().unwrap();
        assert_eq!(bytes.len(), 17, "128 + 3 bits");
        assert!(SenseUpdate::decode(&bytes).unwrap().groups.is_empty());
        let mut literal = bytes.clone();
        literal[16] |= 0x80;
        assert!(matches!(
            SenseUpdate::decode(&literal),
            Err(BitError::UnknownShape { at: 128, .. })
        ));
        let full = sample().encode().unwrap();
        assert!(SenseUpdate::decode(&full[..full.len() - 8]).is_err());
        let d = SenseUpdate::decode(&full).unwrap();
        let wrong = |_: &ClientRef, r: &mut BitReader<'_>| r.read_bits(5);
        assert!(
            d.groups[0].objects(wrong).is_err(),
            "a wrong Sense length is caught"
        );
    }

    proptest! {
        #[test]
        fn any_groups_round_trip(lens in proptest::collection::vec(proptest::collection::vec(0usize..200, 0..4), 0..4)) {
            let m = SenseUpdate {
                patch_epoch: [9, 9],
                groups: lens.iter().enumerate().map(|(g, objs)| SenseGroup {
                    key: g as u32,
                    objects: objs.iter().enumerate().map(|(i, n)| SenseObject {
                        slot: ClientRef { key: g as u32, slot_type: 4, index: i as i16 },
                        sense: Bits { bytes: vec![0xA5; n.div_ceil(8)], bit_len: *n },
                        counter: *n as u32,
                    }).collect(),
                }).collect(),
            };
            let bytes = m.encode().unwrap();
            let d = SenseUpdate::decode(&bytes).unwrap();
            prop_assert_eq!(d.groups.len(), m.groups.len());
            for (dg, g) in d.groups.iter().zip(&m.groups) {
                let mut lens = g.objects.iter().map(|o| o.sense.bit_len);
                let objects = dg.objects(|_, r| r.read_bits(lens.next().unwrap_or(0))).unwrap();
                prop_assert_eq!(objects.len(), g.objects.len());
                for (a, b) in objects.iter().zip(&g.objects) {
                    prop_assert_eq!(a.slot, b.slot);
                    prop_assert_eq!(a.counter, b.counter);
                    prop_assert_eq!(a.sense.bit_len, b.sense.bit_len);
                }
            }
        }
    }
}
