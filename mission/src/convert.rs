//! Between script values and the host's: a script's value becomes a [`Value`] of the kind
//! its field path names, and every [`MissionEvent`] becomes a map a handler reads.

use rhai::{Dynamic, Map};
use vex_host::event::WorldEvent;
use vex_host::mission::MissionEvent;
use vex_wire::activity::slot::ClientRef;
use vex_wire::schema::{Kind, Schema, Value, text};

/// A slot as scripts see it: `slot(key, type, index)`, printed `slot(0xbbbb0001, 3, 1)`.
pub type Slot = ClientRef;

/// A script's `value` as a value of `kind`; `optional` parts take `()` as absent. The
/// error says what the part takes.
pub fn to_value(kind: &Kind, optional: bool, value: &Dynamic, path: &str) -> Result<Value, String> {
    if value.is_unit() && (optional || matches!(kind, Kind::NullableU32 | Kind::TagRef(_))) {
        return Ok(Value::Absent);
    }
    let wrong = |takes: &str| format!("{path} takes {takes}, not {}", value.type_name());
    Ok(match kind {
        Kind::Bool => Value::Bool(value.as_bool().map_err(|_| wrong("true or false"))?),
        Kind::Int { width, bias, .. } => {
            let v = value.as_int().map_err(|_| wrong("an integer"))?;
            // the wire holds value + bias in `width` bits (BODY-02)
            let raw = i128::from(v) + i128::from(*bias);
            if !(0..1i128 << width).contains(&raw) {
                return Err(format!(
                    "{path}: {v} does not fit {width} bits with bias {bias}"
                ));
            }
            Value::Int(i128::from(v))
        }
        Kind::NullableU32 => {
            let v = value.as_int().map_err(|_| wrong("an integer"))?;
            u32::try_from(v).map_err(|_| format!("{path}: {v} does not fit 32 bits"))?;
            Value::Int(i128::from(v))
        }
        Kind::TagRef(_) => Value::Tag(value.as_int().map_err(|_| wrong("a tag"))?),
        Kind::Real => Value::Raw {
            bits: u128::from(real(value).ok_or_else(|| wrong("a number"))?.to_bits()),
            width: 32,
        },
        Kind::Position => {
            let xyz = value
                .as_array_ref()
                .ok()
                .filter(|a| a.len() == 3)
                .ok_or_else(|| wrong("[x, y, z]"))?;
            let mut out = [0u32; 3];
            for (o, c) in out.iter_mut().zip(xyz.iter()) {
                *o = real(c)
                    .ok_or_else(|| wrong("[x, y, z] of numbers"))?
                    .to_bits();
            }
            Value::Position(out)
        }
        Kind::FixedArray { element, len } if text::is_char(element) => {
            let name = value.clone().into_string().map_err(|_| wrong("a string"))?;
            Value::Array(
                text::from_text(&name, usize::from(*len)).map_err(|e| format!("{path}: {e}"))?,
            )
        }
        Kind::FixedArray { element, len: most }
        | Kind::Array {
            element,
            capacity: most,
            ..
        } => elements(element, *most, value, path)?,
        Kind::Record(schema) => record(schema, value, path)?,
        Kind::QuantizedReal { .. }
        | Kind::Bits { .. }
        | Kind::KeyedLane
        | Kind::DynamicValue
        | Kind::PredicateUnion
        | Kind::Undocumented { .. } => {
            return Err(format!(
                "{path} is not set from a script: the pages do not give its values"
            ));
        }
    })
}

/// An array of at most `most` elements of `element`: more is refused here, at the
/// script's line, as the encoder would refuse it (BODY-05).
fn elements(element: &Kind, most: u16, value: &Dynamic, path: &str) -> Result<Value, String> {
    let items = value
        .as_array_ref()
        .map_err(|_| format!("{path} takes an array, not {}", value.type_name()))?;
    if items.len() > usize::from(most) {
        return Err(format!(
            "{path} holds at most {most} elements, not {} (BODY-05)",
            items.len()
        ));
    }
    let values = items
        .iter()
        .enumerate()
        .map(|(i, item)| to_value(element, false, item, &format!("{path}[{i}]")))
        .collect::<Result<_, _>>()?;
    Ok(Value::Array(values))
}

/// A record of `schema` from a script's map: every field by name, `()` or left out for an
/// absent optional one.
pub fn record(schema: &Schema, value: &Dynamic, path: &str) -> Result<Value, String> {
    let map = value.read_lock::<Map>().ok_or_else(|| {
        format!(
            "{} takes a map of its fields, not {}",
            name(path, schema),
            value.type_name()
        )
    })?;
    if let Some(unknown) = map
        .keys()
        .find(|k| !schema.fields.iter().any(|f| f.name == k.as_str()))
    {
        return Err(format!("{} has no field {unknown:?}", schema.name));
    }
    let unit = Dynamic::UNIT;
    let mut fields = Vec::with_capacity(schema.fields.len());
    for f in schema.fields {
        let at = if path.is_empty() {
            f.name.to_string()
        } else {
            format!("{path}.{}", f.name)
        };
        let given = map.get(f.name).unwrap_or(&unit);
        if given.is_unit() && !f.presence && !matches!(f.kind, Kind::NullableU32 | Kind::TagRef(_))
        {
            return Err(format!(
                "{at} is missing: {} always carries it",
                schema.name
            ));
        }
        fields.push(to_value(&f.kind, f.presence, given, &at)?);
    }
    Ok(Value::Record(fields))
}

fn name<'a>(path: &'a str, schema: &'a Schema) -> &'a str {
    if path.is_empty() { schema.name } else { path }
}

/// A number as a float32: a script's floats and integers both; a finite number past
/// float32's range is none (it would turn infinite on the wire).
fn real(value: &Dynamic) -> Option<f32> {
    let wide = value
        .as_float()
        .ok()
        .or_else(|| value.as_int().ok().map(|i| i as f64))?;
    let narrow = wide as f32;
    (narrow.is_finite() || !wide.is_finite()).then_some(narrow)
}

/// The map a handler gets for `event`.
pub fn event_map(event: &MissionEvent) -> Map {
    let mut m = Map::new();
    let mut put = |k: &str, v: Dynamic| {
        m.insert(k.into(), v);
    };
    match event {
        MissionEvent::Started => {}
        MissionEvent::MemberJoined { member } | MissionEvent::MemberLeft { member } => {
            put("member", int(*member));
        }
        MissionEvent::Timer { name } => put("name", name.clone().into()),
        MissionEvent::Staged { handler, revision } => {
            put("handler", handler.clone().into());
            put("revision", int(*revision));
        }
        MissionEvent::Reported {
            handler,
            member,
            slot,
        } => {
            put("handler", handler.clone().into());
            put("member", int(*member));
            put("slot", Dynamic::from(*slot));
        }
        MissionEvent::Refused { handler, error } => {
            put("handler", handler.clone().into());
            put("error", error.clone().into());
        }
        MissionEvent::World { member, event } => {
            put("member", int(*member));
            world(event, &mut put);
        }
    }
    m
}

/// The fields of a world event.
fn world(event: &WorldEvent, put: &mut impl FnMut(&str, Dynamic)) {
    match *event {
        WorldEvent::Sensed { slot, counter, .. } => {
            put("slot", Dynamic::from(slot));
            put("counter", int(counter));
        }
        WorldEvent::GhostScan {
            slot,
            active,
            fraction,
            generation,
            ..
        } => {
            put("slot", Dynamic::from(slot));
            put("active", active.into());
            put("fraction", Dynamic::from_float(f64::from(fraction)));
            put("generation", int(generation));
        }
        WorldEvent::PurgeRequested { slots, .. } | WorldEvent::AuthorityReleased { slots, .. } => {
            put("slots", int(slots));
        }
        WorldEvent::AuthorityReset { token, .. } => put("token", int(token)),
        WorldEvent::AuthorityInBubble {
            token,
            bubble,
            slots,
            ..
        } => {
            put("token", int(token));
            put("bubble", int(bubble));
            put("slots", int(slots));
        }
        WorldEvent::AuthorityReported { token, slots, .. } => {
            put("token", int(token));
            put("slots", int(slots));
        }
        WorldEvent::Incident {
            definition,
            targets,
            payload,
            ..
        } => {
            put("definition", int(definition));
            put("targets", int(targets));
            put("payload", int(payload));
        }
        WorldEvent::RegionChanged { from, to, .. } => {
            put("from", int(from));
            put("to", int(to));
        }
    }
}

/// A count or id as a script integer; one past `i64` saturates.
fn int<T: TryInto<i64>>(v: T) -> Dynamic {
    Dynamic::from_int(v.try_into().unwrap_or(i64::MAX))
}

/// How deep [`show`] prints nested maps and arrays.
const SHOW_DEPTH: usize = 16;

/// A script value as text, as Rhai prints it, with slots as `slot(key, type, index)`;
/// past [`SHOW_DEPTH`] levels of nesting, `...`.
pub fn show(value: &Dynamic) -> String {
    shown(value, SHOW_DEPTH)
}

fn shown(value: &Dynamic, depth: usize) -> String {
    if depth == 0 {
        return "...".into();
    }
    if let Some(slot) = value.read_lock::<Slot>() {
        return format!("slot({:#x}, {}, {})", slot.key, slot.slot_type, slot.index);
    }
    if let Some(map) = value.read_lock::<Map>() {
        let fields: Vec<String> = map
            .iter()
            .map(|(k, v)| format!("{:?}: {}", k.as_str(), shown(v, depth - 1)))
            .collect();
        return format!("#{{{}}}", fields.join(", "));
    }
    if let Ok(items) = value.as_array_ref() {
        let items: Vec<String> = items.iter().map(|i| shown(i, depth - 1)).collect();
        return format!("[{}]", items.join(", "));
    }
    if let Ok(text) = value.as_immutable_string_ref() {
        return format!("{:?}", text.as_str());
    }
    value.to_string()
}
