//! `vex decode` and `vex encode`: one body between hex and JSON, field by field, through
//! the schema walker of vex-wire.

use serde_json::{Map, Value as Json, json};
use thiserror::Error;
use vex_wire::bits::BitReader;
use vex_wire::schema::kind::{KEYED_LANE_FIRST, KEYED_LANE_SECOND};
use vex_wire::schema::text;
use vex_wire::schema::{
    KeyedLane, Kind, Schema, SchemaError, TagMode, TraceLine, Value, decode_traced, encode_bits,
};

/// Why a body could not be turned into the other form.
#[derive(Debug, Error)]
pub enum CodecError {
    /// The input is not hex.
    #[error("not hex: {0}")]
    Hex(#[from] hex::FromHexError),
    /// The JSON does not parse.
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The JSON value does not fit the schema.
    #[error("{path}: {reason}")]
    Shape {
        /// The field path.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The walker refused the body or the value.
    #[error("{0}")]
    Schema(#[from] SchemaError),
}

/// A decoded body: every field with its bit offset, and the value (when it parsed).
pub struct Decoded {
    /// The fields read, in order.
    pub lines: Vec<TraceLine>,
    /// The whole value, or the error where reading stopped.
    pub value: Result<Value, SchemaError>,
    /// Bits in the body.
    pub body_bits: usize,
}

/// Bytes from hex text, ignoring any whitespace (so multi-line vectors paste as they are).
pub fn parse_hex(text: &str) -> Result<Vec<u8>, hex::FromHexError> {
    let digits: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    hex::decode(digits)
}

/// Decodes `hex` with `schema`.
pub fn decode_hex(schema: &Schema, hex_text: &str) -> Result<Decoded, CodecError> {
    let bytes = parse_hex(hex_text)?;
    let mut lines = Vec::new();
    let value = decode_traced(schema, &mut BitReader::new(&bytes), &mut lines);
    Ok(Decoded {
        lines,
        value,
        body_bits: bytes.len() * 8,
    })
}

/// The text form: one line per field, then where and why it stopped if it did.
pub fn text(schema: &Schema, d: &Decoded) -> String {
    let mut out = format!(
        "{} ({} bits)\n{:>6} {:>5}  {:<40} {:<18} value\n",
        schema.name, d.body_bits, "bit", "width", "field", "raw"
    );
    for l in &d.lines {
        let raw = if l.raw.len() > 16 {
            format!("{}...", &l.raw[..16])
        } else {
            l.raw.clone()
        };
        out.push_str(&format!(
            "{:>6} {:>5}  {:<40} {:<18} {}\n",
            l.at, l.width, l.path, raw, l.value
        ));
    }
    let end = d.lines.last().map_or(0, |l| l.at + l.width);
    match &d.value {
        Ok(_) => out.push_str(&format!(
            "read {end} of {} bits; the rest is padding or trailing bytes\n",
            d.body_bits
        )),
        Err(e) => out.push_str(&format!("does not parse: {e}\n")),
    }
    out
}

/// The JSON form of a body that does not parse: the fields read before it stopped, each
/// with its bit offset, and why it stopped.
pub fn failure_json(schema: &Schema, d: &Decoded, error: &SchemaError) -> Json {
    let fields: Vec<Json> = d
        .lines
        .iter()
        .map(|l| {
            serde_json::json!({
                "at": l.at, "width": l.width, "field": l.path, "raw": l.raw, "value": l.value,
            })
        })
        .collect();
    serde_json::json!({
        "message": schema.name,
        "bits": d.body_bits,
        "read": fields,
        "error": error.to_string(),
    })
}

/// The JSON form of a value of `schema`.
pub fn to_json(schema: &Schema, v: &Value) -> Json {
    record_json(schema, v)
}

fn record_json(schema: &Schema, v: &Value) -> Json {
    let Value::Record(values) = v else {
        return Json::Null;
    };
    let mut map = Map::new();
    for (f, v) in schema.fields.iter().zip(values) {
        map.insert(f.name.to_string(), kind_json(&f.kind, v));
    }
    Json::Object(map)
}

fn kind_json(kind: &Kind, v: &Value) -> Json {
    match (kind, v) {
        (_, Value::Absent) => Json::Null,
        (Kind::Record(s), v) => record_json(s, v),
        (Kind::FixedArray { element, .. }, Value::Array(items)) if text::is_char(element) => {
            json!(text::to_text(items))
        }
        (Kind::FixedArray { element, .. } | Kind::Array { element, .. }, Value::Array(items)) => {
            Json::Array(items.iter().map(|i| kind_json(element, i)).collect())
        }
        (_, Value::Bool(b)) => json!(b),
        (_, Value::Int(i)) => match (i64::try_from(*i), u64::try_from(*i)) {
            (Ok(x), _) => json!(x),
            (_, Ok(x)) => json!(x),
            _ => json!(i.to_string()),
        },
        (_, Value::Raw { bits, .. }) => json!(format!("{bits:#x}")),
        (_, Value::Bits(b)) => json!(hex::encode(b)),
        (_, Value::Position(p)) => {
            json!(p.iter().map(|c| format!("{c:#010x}")).collect::<Vec<_>>())
        }
        (_, Value::Tag(t)) => json!(t),
        (_, Value::Lane(lane)) => json!({
            "first": lane.first, "second": lane.second,
            "first_body": hex::encode(&lane.first_body), "second_body": hex::encode(&lane.second_body),
        }),
        (_, Value::Dynamic { handle, value }) => json!({ "handle": handle, "value": value }),
        (_, Value::Record(_) | Value::Array(_)) => Json::Null,
    }
}

fn shape(path: &str, reason: impl Into<String>) -> CodecError {
    CodecError::Shape {
        path: path.to_string(),
        reason: reason.into(),
    }
}

fn hex_u128(path: &str, j: &Json) -> Result<u128, CodecError> {
    let s = j
        .as_str()
        .ok_or_else(|| shape(path, "a hex string such as \"0x1f\""))?;
    u128::from_str_radix(s.trim_start_matches("0x"), 16).map_err(|e| shape(path, e.to_string()))
}

fn hex_bytes(path: &str, j: &Json) -> Result<Vec<u8>, CodecError> {
    let s = j.as_str().ok_or_else(|| shape(path, "a hex string"))?;
    hex::decode(s).map_err(|e| shape(path, e.to_string()))
}

fn int_of(path: &str, j: &Json) -> Result<i128, CodecError> {
    if let Some(i) = j.as_i64() {
        return Ok(i128::from(i));
    }
    if let Some(u) = j.as_u64() {
        return Ok(i128::from(u));
    }
    match j.as_str() {
        Some(s) if s.starts_with("0x") => {
            i128::try_from(hex_u128(path, j)?).map_err(|_| shape(path, "an integer"))
        }
        Some(s) => s.parse().map_err(|_| shape(path, "an integer")),
        None => Err(shape(path, "an integer")),
    }
}

/// A value of `schema` from its JSON form.
pub fn from_json(schema: &Schema, j: &Json) -> Result<Value, CodecError> {
    record_value(schema, j, "")
}

fn record_value(schema: &Schema, j: &Json, path: &str) -> Result<Value, CodecError> {
    let map = j.as_object().ok_or_else(|| shape(path, "an object"))?;
    if let Some(unknown) = map
        .keys()
        .find(|k| !schema.fields.iter().any(|f| f.name == *k))
    {
        return Err(shape(
            path,
            format!("{unknown:?} is not a field of {}", schema.name),
        ));
    }
    let mut values = Vec::with_capacity(schema.fields.len());
    for f in schema.fields {
        let p = if path.is_empty() {
            f.name.to_string()
        } else {
            format!("{path}.{}", f.name)
        };
        let field = map.get(f.name).unwrap_or(&Json::Null);
        if field.is_null()
            && (f.presence
                || matches!(
                    f.kind,
                    Kind::NullableU32 | Kind::DynamicValue | Kind::PredicateUnion
                ))
        {
            values.push(Value::Absent);
            continue;
        }
        values.push(kind_value(&f.kind, field, &p)?);
    }
    Ok(Value::Record(values))
}

fn kind_value(kind: &Kind, j: &Json, path: &str) -> Result<Value, CodecError> {
    Ok(match kind {
        Kind::Record(s) => record_value(s, j, path)?,
        Kind::Bits { .. } => Value::Bits(hex_bytes(path, j)?),
        Kind::Bool => Value::Bool(j.as_bool().ok_or_else(|| shape(path, "true or false"))?),
        Kind::Int { .. } | Kind::NullableU32 => Value::Int(int_of(path, j)?),
        Kind::QuantizedReal { width, .. } => Value::Raw {
            bits: hex_u128(path, j)?,
            width: *width,
        },
        Kind::Real => Value::Raw {
            bits: hex_u128(path, j)?,
            width: 32,
        },
        Kind::Position => {
            let a = j
                .as_array()
                .filter(|a| a.len() == 3)
                .ok_or_else(|| shape(path, "three hex strings"))?;
            let mut xyz = [0u32; 3];
            for (c, x) in xyz.iter_mut().zip(a) {
                *c = u32::try_from(hex_u128(path, x)?)
                    .map_err(|_| shape(path, "32-bit components"))?;
            }
            Value::Position(xyz)
        }
        Kind::TagRef(TagMode::Investment | TagMode::Simulation) => {
            Value::Tag(i64::try_from(int_of(path, j)?).map_err(|_| shape(path, "a tag"))?)
        }
        Kind::FixedArray { element, len } if text::is_char(element) => {
            let name = j.as_str().ok_or_else(|| shape(path, "a string"))?;
            Value::Array(text::from_text(name, usize::from(*len)).map_err(|e| shape(path, e))?)
        }
        Kind::FixedArray { element, .. } | Kind::Array { element, .. } => {
            let a = j.as_array().ok_or_else(|| shape(path, "an array"))?;
            let items = a
                .iter()
                .enumerate()
                .map(|(i, x)| kind_value(element, x, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?;
            Value::Array(items)
        }
        Kind::KeyedLane => {
            let first = int_of(path, &j["first"])?;
            let second = int_of(path, &j["second"])?;
            let (Ok(first), Ok(second)) = (u8::try_from(first), u8::try_from(second)) else {
                return Err(shape(path, "selectors below 10 and 3"));
            };
            if usize::from(first) >= KEYED_LANE_FIRST.len()
                || usize::from(second) >= KEYED_LANE_SECOND.len()
            {
                return Err(shape(path, "selectors below 10 and 3"));
            }
            Value::Lane(Box::new(KeyedLane {
                first,
                second,
                first_body: hex_bytes(path, &j["first_body"])?,
                second_body: hex_bytes(path, &j["second_body"])?,
            }))
        }
        Kind::DynamicValue => Value::Dynamic {
            handle: u32::try_from(int_of(path, &j["handle"])?)
                .map_err(|_| shape(path, "a 32-bit handle"))?,
            value: i32::try_from(int_of(path, &j["value"])?)
                .map_err(|_| shape(path, "an i32 value"))?,
        },
        Kind::PredicateUnion => {
            return Err(shape(path, "null (predicate bodies are not documented)"));
        }
        Kind::Undocumented { .. } => {
            return Err(shape(
                path,
                "null (the pages do not give this body's layout)",
            ));
        }
    })
}

/// Encodes the JSON form of a `schema` body to hex.
pub fn encode_json(schema: &Schema, text: &str) -> Result<String, CodecError> {
    let j: Json = serde_json::from_str(text)?;
    let v = from_json(schema, &j)?;
    let bits = encode_bits(schema, &v)?;
    Ok(hex::encode_upper(bits.bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::activity::body::Body;
    use vex_wire::schema::catalog::lookup;

    /// Decode to JSON and encode back gives the same bytes, for the facts vectors.
    #[test]
    fn hex_json_hex_round_trips() {
        let tick = vex_wire::activity::small::WorldGlobals::default_tick();
        let world = hex::encode_upper(tick.encode().unwrap());
        for (name, hex_text) in [
            ("incident", "0320419000AAF340"),
            ("world_globals_state", world.as_str()),
            ("client_ref", "AAAA00011D0000"),
        ] {
            let schema = lookup(name).unwrap();
            let d = decode_hex(schema, hex_text).unwrap();
            let j = to_json(schema, d.value.as_ref().unwrap());
            assert_eq!(
                encode_json(schema, &j.to_string()).unwrap(),
                hex_text,
                "{name}"
            );
        }
    }

    /// Names print as one line of text and as a JSON string, and a string encodes back to
    /// the same bytes (issue 13: `vex decode join_result` was 409 lines).
    #[test]
    fn names_are_text() {
        use vex_wire::activity::body::Body;
        use vex_wire::activity::join::{JoinRequest, JoinResult};
        let request = JoinRequest::new(7, 0x0123_4567_89AB_CDEF, 0x1122, 0x3344);
        let body = JoinResult::accept(&request, 0x0123_4567_89AB_CDEF)
            .encode()
            .unwrap();
        let hex_text = hex::encode_upper(&body);
        let schema = lookup("join_result").unwrap();
        let d = decode_hex(schema, &hex_text).unwrap();
        let out = text(schema, &d);
        assert!(
            out.contains("session_name") && out.contains("\"0123456789abcdef\""),
            "{out}"
        );
        assert!(
            out.lines().count() < 60,
            "{} lines:\n{out}",
            out.lines().count()
        );
        let j = to_json(schema, d.value.as_ref().unwrap());
        assert_eq!(j["session_name"], "0123456789abcdef");
        assert_eq!(j["workspace_name"], "");
        assert_eq!(encode_json(schema, &j.to_string()).unwrap(), hex_text);
        let mut long = j.clone();
        long["session_name"] = serde_json::json!("x".repeat(129));
        let e = encode_json(schema, &long.to_string()).unwrap_err();
        assert!(e.to_string().contains("session_name"), "{e}");
    }

    #[test]
    fn a_short_body_says_where_it_stopped() {
        let schema = lookup("join_result").unwrap();
        let d = decode_hex(schema, "00112233").unwrap();
        let out = text(schema, &d);
        assert!(out.contains("does not parse"), "{out}");
        assert!(out.contains("request.nonce"), "{out}");
    }

    /// A type-2 body decodes as far as the pages lay it out: the head fields print, and a
    /// present undocumented field stops the decode and says what it is.
    #[test]
    fn an_undocumented_field_stops_the_decode_and_names_itself() {
        let schema = lookup("auth:2").unwrap();
        let whole = decode_hex(schema, "C0000002C600").unwrap();
        assert!(whole.value.is_ok(), "every undocumented field absent");
        let j = to_json(schema, whole.value.as_ref().unwrap());
        assert_eq!(j["spawn_revision"], 5);
        assert_eq!(j["active"], 1);
        assert_eq!(j["ownership"], 0);
        assert_eq!(encode_json(schema, &j.to_string()).unwrap(), "C0000002C600");
        let stopped = decode_hex(schema, "C0000002C7").unwrap();
        let out = text(schema, &stopped);
        assert!(out.contains("master_enable"), "{out}");
        assert!(out.contains("keyed result lanes"), "{out}");
        assert!(out.contains("does not parse"), "{out}");
        let present = r#"{"active": 1, "ownership": 0, "master_enable": true, "keyed_lanes": 1}"#;
        assert!(encode_json(schema, present).is_err());
    }

    #[test]
    fn bad_json_is_a_typed_error() {
        let schema = lookup("incident").unwrap();
        assert!(matches!(encode_json(schema, "{"), Err(CodecError::Json(_))));
        let e = encode_json(schema, r#"{"definition_index": true}"#).unwrap_err();
        assert!(e.to_string().contains("definition_index"), "{e}");
        let e = encode_json(schema, r#"{"definition_indx": 1}"#).unwrap_err();
        assert!(
            e.to_string().contains("not a field"),
            "a misspelt key is refused: {e}"
        );
        assert_eq!(parse_hex("01 02\n\t03\r\n").unwrap(), [1, 2, 3]);
    }
}
