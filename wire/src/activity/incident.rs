//! Message 19, incident (both directions): a replicated gameplay event (AH "incident,
//! message 19"; facts 4.13): a definition index, extra targets, the compressed selector
//! and the unread pair, then a payload.
//!
//! The typed body writes only what a host may send: the selector absent (INCIDENT-04),
//! the unread pair absent; it refuses an index past the table or naming a crashing row, more
//! than 25 targets and more than 500 payload bytes (INCIDENT-01 to INCIDENT-03,
//! INCIDENT-05). It reads whatever the client sends, skipping a selector.

use crate::activity::body::Body;
use crate::bits::{BitError, BitReader, BitWriter};

/// Rows in the definition table (INCIDENT-01).
pub const DEFINITION_ROWS: u16 = 7763;
/// Rows whose type code is -1: naming one crashes the client (INCIDENT-02).
pub const CRASHING_ROWS: [u16; 3] = [795, 4690, 5375];
/// The most extra targets (INCIDENT-03).
pub const MAX_TARGETS: usize = 25;
/// The most payload bytes (INCIDENT-05).
pub const MAX_PAYLOAD: usize = 500;
/// Width of the definition index and of each target.
const INDEX_BITS: u32 = 13;
/// Width of the target count.
const TARGET_COUNT_BITS: u32 = 5;
/// Width of the selector's and the payload's byte counts.
const BYTE_COUNT_BITS: u32 = 9;
/// The most selector bytes a reader accepts (facts 4.13).
const MAX_SELECTOR: u64 = 260;

/// An incident.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incident {
    /// The row of the global definition table.
    pub definition: u16,
    /// The extra target indices.
    pub targets: Vec<u16>,
    /// The payload, in the schema of the row's type code.
    pub payload: Vec<u8>,
}

fn refuse(what: &'static str, value: usize) -> BitError {
    BitError::Unsafe {
        what,
        value: value as i64,
    }
}

impl Incident {
    /// Why the client cannot take this incident, if it cannot.
    #[inline]
    pub fn check(&self) -> Result<(), BitError> {
        let d = self.definition;
        if d >= DEFINITION_ROWS {
            return Err(refuse("incident definition index (INCIDENT-01)", d.into()));
        }
        if CRASHING_ROWS.contains(&d) {
            return Err(refuse("incident definition row (INCIDENT-02)", d.into()));
        }
        if let Some(t) = self.targets.iter().find(|t| **t >= DEFINITION_ROWS) {
            return Err(refuse("incident target index (INCIDENT-01)", (*t).into()));
        }
        if self.targets.len() > MAX_TARGETS {
            return Err(refuse(
                "incident target count (INCIDENT-03)",
                self.targets.len(),
            ));
        }
        if self.payload.len() > MAX_PAYLOAD {
            return Err(refuse(
                "incident payload bytes (INCIDENT-05)",
                self.payload.len(),
            ));
        }
        Ok(())
    }
}

impl Body for Incident {
    type Decoded = Self;

    #[inline]
    fn write(&self, w: &mut BitWriter) {
        if let Err(e) = self.check() {
            return w.fail(e);
        }
        let head = u64::from(self.definition) << TARGET_COUNT_BITS | self.targets.len() as u64;
        w.write(head, INDEX_BITS + TARGET_COUNT_BITS);
        for t in &self.targets {
            w.write((*t).into(), INDEX_BITS);
        }
        // no compressed selector (INCIDENT-04), no unread pair, then the byte count
        w.write(self.payload.len() as u64, 2 + BYTE_COUNT_BITS);
        w.write_stream(&self.payload, self.payload.len() * 8);
    }

    fn read(r: &mut BitReader<'_>) -> Result<Self, BitError> {
        let definition = r.read(INDEX_BITS)? as u16;
        let count = r.read(TARGET_COUNT_BITS)? as usize;
        let targets = (0..count)
            .map(|_| r.read(INDEX_BITS).map(|t| t as u16))
            .collect::<Result<_, _>>()?;
        if r.read_bool()? {
            let n = r.read(BYTE_COUNT_BITS)?;
            if n > MAX_SELECTOR {
                return Err(refuse("incident selector bytes", n as usize));
            }
            r.skip(8 * n as usize)?;
        }
        if r.read_bool()? {
            r.skip(64)?;
        }
        let n = r.read(BYTE_COUNT_BITS)? as usize;
        let payload = r.read_stream(8 * n)?;
        Ok(Self {
            definition,
            targets,
            payload,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::messages::INCIDENT;
    use crate::schema::{Value, decode};

    fn sample() -> Incident {
        Incident {
            definition: 12,
            targets: vec![3, 7000],
            payload: vec![1, 2, 3],
        }
    }

    #[test]
    fn round_trips_and_agrees_with_the_schema() {
        let body = sample().encode().unwrap();
        assert_eq!(Incident::decode(&body).unwrap(), sample());
        let Value::Record(f) = decode(&INCIDENT, &mut BitReader::new(&body)).unwrap() else {
            panic!("a record")
        };
        assert_eq!(f[0], Value::Int(12));
        let minimal = Incident {
            definition: 0,
            targets: vec![],
            payload: vec![],
        };
        assert_eq!(
            minimal.measure().unwrap(),
            29,
            "AH: the minimum body is 29 bits"
        );
    }

    /// Every boundary INCIDENT-01 to INCIDENT-03 and INCIDENT-05 name is refused, and the
    /// one below it is written.
    #[test]
    fn refuses_what_crashes_the_client() {
        let with = |f: &dyn Fn(&mut Incident)| {
            let mut i = sample();
            f(&mut i);
            i.encode()
        };
        assert!(with(&|i| i.definition = DEFINITION_ROWS - 1).is_ok());
        assert!(with(&|i| i.definition = DEFINITION_ROWS).is_err());
        for row in CRASHING_ROWS {
            assert!(with(&|i| i.definition = row).is_err(), "row {row}");
        }
        assert!(with(&|i| i.targets = vec![1; MAX_TARGETS]).is_ok());
        assert!(with(&|i| i.targets = vec![1; MAX_TARGETS + 1]).is_err());
        assert!(with(&|i| i.payload = vec![0; MAX_PAYLOAD]).is_ok());
        assert!(with(&|i| i.payload = vec![0; MAX_PAYLOAD + 1]).is_err());
    }
}
