//! Message 19 from the host, incident: checked as the client decodes it (AH "incident,
//! message 19", "Values that crash the client"; INCIDENT-01 to INCIDENT-05).

use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::bits::BitReader;
use vex_wire::schema::messages::INCIDENT;
use vex_wire::schema::walk::check_guards;
use vex_wire::schema::{Kind, SchemaError, Value, decode, decode_traced};

/// True when `payload` holds more than `capacity` elements of the array at `path` after
/// its count, so a client that does not clamp the count reads one past the array.
fn holds_past(payload: &[u8], path: &str, capacity: u16) -> bool {
    let mut lines = Vec::new();
    let _ = decode_traced(&INCIDENT, &mut BitReader::new(payload), &mut lines);
    let count = format!("{path}.count");
    let Some(after) = lines
        .iter()
        .find(|l| l.path == count)
        .map(|l| l.at + l.width)
    else {
        return false;
    };
    let element = INCIDENT
        .fields
        .iter()
        .find(|f| f.name == path)
        .and_then(|f| match f.kind {
            Kind::Array {
                element: Kind::Int { width, .. },
                ..
            } => Some(*width as usize),
            _ => None,
        });
    let available = (payload.len() * 8).saturating_sub(after);
    element.is_some_and(|bits| available >= (usize::from(capacity) + 1) * bits)
}

/// True when `payload`'s compressed target selector bit reads 1.
fn selector_set(payload: &[u8]) -> bool {
    let mut lines = Vec::new();
    let _ = decode_traced(&INCIDENT, &mut BitReader::new(payload), &mut lines);
    lines
        .iter()
        .any(|l| l.path == "compressed_selector?" && l.value == "present")
}

/// The definition index stays inside the 7,763-row table (INCIDENT-01) and off its
/// three crashing rows (INCIDENT-02), at most 25 extra targets (INCIDENT-03), the
/// compressed target selector stays clear (INCIDENT-04), and the payload is at most
/// 500 bytes (INCIDENT-05). The field guards of the incident schema are the checks.
/// INCIDENT-05's other half, a payload in the schema of the row's type code, needs
/// the definition table, which is package content Vex does not have.
pub(super) fn check_incident(verdict: &mut Verdict, idx: u64, payload: &[u8]) {
    let f = Some(idx);
    let fields = match decode(&INCIDENT, &mut BitReader::new(payload)) {
        Ok(Value::Record(fields)) => fields,
        Ok(_) => return,
        // a payload count over 500 is refused whatever follows (INCIDENT-05); a count
        // past another array makes the decoder write past it when the body holds an
        // element past it, and otherwise it runs out of bits first and drops the body
        Err(SchemaError::OverCapacity {
            path,
            count,
            capacity,
        }) if path == "payload" || holds_past(payload, &path, capacity) => {
            let rule = match path.as_str() {
                "extra_targets" => Rule::Incident03,
                "compressed_selector" => Rule::Incident04,
                _ => Rule::Incident05,
            };
            let reason = format!("{path}: {count} where the client holds {capacity}");
            return verdict.violate(rule, f, None, reason);
        }
        // the selector bit set is the cause whatever follows it: AH gives one bit, facts
        // 4.13 a presence bit then bytes, so a body past it need not decode (INCIDENT-04)
        Err(e) if selector_set(payload) => {
            let reason = format!(
                "the compressed target selector bit is set (the body past it does not decode in facts 4.13's layout: {e}); it can write past the 64-entry target vector"
            );
            return verdict.violate(Rule::Incident04, f, None, reason);
        }
        // BODY-04: a body that does not decode is dropped before its consumer runs
        Err(e) => {
            let reason = format!(
                "message 19 of {} bytes does not decode ({e}): dropped before its consumer runs",
                payload.len()
            );
            return verdict.violate(Rule::Body04, f, None, reason);
        }
    };
    for (field, value) in INCIDENT.fields.iter().zip(&fields) {
        if let Err(SchemaError::Unsafe { path, rule, value }) =
            check_guards(field, value, field.name)
            && crate::rules::is_enforced(rule)
        {
            let shown = if value.is_empty() { "present" } else { &value };
            let reason = format!("{path} {shown}, but {}", rule.summary());
            verdict.violate(rule, f, None, reason);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::bits::written;
    use vex_wire::schema::encode;

    fn incident(index: i128, targets: usize, payload: usize) -> Vec<u8> {
        let v = Value::Record(vec![
            Value::Int(index),
            Value::Array(vec![Value::Int(1); targets]),
            Value::Absent,
            Value::Absent,
            Value::Array(vec![Value::Int(0); payload]),
        ]);
        written(|w| {
            encode(&INCIDENT, &v, w).unwrap();
        })
        .unwrap()
    }

    fn rules_for(body: &[u8]) -> Vec<Rule> {
        let mut v = Verdict::new();
        check_incident(&mut v, 1, body);
        v.rules()
    }

    /// The largest safe incident passes: the last row, 25 targets, a 500-byte payload.
    #[test]
    fn a_safe_incident_passes() {
        assert!(rules_for(&incident(7762, 25, 500)).is_empty());
        assert!(rules_for(&incident(0, 0, 0)).is_empty());
    }

    /// `body` with its 13-bit definition index set to `index`, which the encoder refuses.
    fn with_index(mut body: Vec<u8>, index: u16) -> Vec<u8> {
        body[0] = (index >> 5) as u8;
        body[1] = (body[1] & 0x07) | ((index & 0x1F) << 3) as u8;
        body
    }

    /// INCIDENT-04 in AH's layout: the selector bit set and the body ending after it,
    /// which facts 4.13's reading cannot decode, is the selector's breach, not BODY-04;
    /// a body cut before the selector bit is BODY-04.
    #[test]
    fn a_set_selector_bit_is_the_cause_whatever_follows() {
        let body = written(|w| {
            w.write(2, 13);
            w.write(0, 5);
            w.write_bool(true);
            w.write(0, 13);
        });
        assert_eq!(rules_for(&body.unwrap()), [Rule::Incident04]);
        let body = written(|w| {
            w.write(2, 13);
            w.write(1, 5);
        });
        assert_eq!(rules_for(&body.unwrap()), [Rule::Body04]);
    }

    /// A payload count over 500 is refused even when fewer bytes follow.
    #[test]
    fn a_payload_count_over_500_is_refused() {
        let body = written(|w| {
            w.write(0, 13);
            w.write(0, 5);
            w.write_bool(false);
            w.write_bool(false);
            w.write(501, 9);
        });
        assert_eq!(rules_for(&body.unwrap()), [Rule::Incident05]);
    }

    /// A count past its array is judged by its array when the body holds an element past
    /// it, and the decode stops there: the index is never used. A body that runs out of
    /// bits first is dropped (BODY-04).
    #[test]
    fn counts_past_their_arrays_name_their_own_rules() {
        let mut targets = incident(0, 0, 0);
        targets[1] |= 0x06; // the 5-bit target count (bits 13-17) says 26: 11010
        targets[2] |= 0x80;
        assert_eq!(
            rules_for(&targets),
            [Rule::Body04],
            "no 26th target in the body"
        );
        targets.resize(targets.len() + 26 * 13 / 8 + 1, 0);
        assert_eq!(
            rules_for(&with_index(targets.clone(), 795)),
            [Rule::Incident03]
        );
        assert_eq!(rules_for(&targets), [Rule::Incident03]);
        let body = written(|w| {
            w.write(0, 13);
            w.write(0, 5);
            w.write_bool(true); // a compressed selector of 261 bytes
            w.write(261, 9);
            w.write_zeros(261 * 8);
        });
        assert_eq!(rules_for(&body.unwrap()), [Rule::Incident04]);
        let body = written(|w| {
            w.write(0, 13);
            w.write(0, 5);
            w.write_bool(true); // an empty selector, then a 501-byte payload
            w.write(0, 9);
            w.write_bool(false);
            w.write(501, 9);
            w.write_zeros(501 * 8);
        });
        assert_eq!(rules_for(&body.unwrap()), [Rule::Incident05]);
    }

    /// BODY-04: a body cut short is dropped before its consumer, crashing row or not, at
    /// every field it can end in.
    #[test]
    fn a_body_that_does_not_decode_is_only_dropped() {
        let body = with_index(incident(0, 0, 0), 795);
        for cut in 0..body.len() {
            assert_eq!(
                rules_for(&body[..cut]),
                [Rule::Body04],
                "cut to {cut} bytes"
            );
        }
    }

    #[test]
    fn rows_past_the_table_and_crashing_rows_are_caught() {
        assert_eq!(
            rules_for(&with_index(incident(0, 0, 0), 7763)),
            [Rule::Incident01]
        );
        assert_eq!(
            rules_for(&with_index(incident(0, 0, 0), 4690)),
            [Rule::Incident02]
        );
        assert!(rules_for(&with_index(incident(0, 0, 0), 4689)).is_empty());
    }

    /// INCIDENT-02: each of the three crashing rows, in bodies that otherwise decode and
    /// pass (the smallest and the largest), is caught by INCIDENT-02 alone; the rows either
    /// side of each, all inside the 7,763-row table, pass.
    #[test]
    fn each_crashing_row_is_caught_in_a_valid_body_and_its_neighbours_pass() {
        for body in [incident(0, 0, 0), incident(7762, 25, 500)] {
            for row in [795, 4690, 5375] {
                assert_eq!(
                    rules_for(&with_index(body.clone(), row)),
                    [Rule::Incident02],
                    "row {row} in {} bytes",
                    body.len()
                );
                for neighbour in [row - 1, row + 1] {
                    assert!(
                        rules_for(&with_index(body.clone(), neighbour)).is_empty(),
                        "row {neighbour} in {} bytes",
                        body.len()
                    );
                }
            }
        }
    }
}
