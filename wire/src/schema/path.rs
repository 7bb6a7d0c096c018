//! Field paths into a record of a schema: `generation`, `objective[0].value`. A host
//! program names the part of an Auth body it changes by path (SR "Where mission scripts
//! plug in": a script asks for typed changes, never bytes).

use super::kind::{Field, Kind, Schema};
use super::value::Value;
use thiserror::Error;

/// Why a path does not name a part of a body.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PathError {
    /// The path is not `name`, `name[index]` and `.`-joined steps of those.
    #[error("{0:?} is not a field path such as objective[0].value")]
    Syntax(String),
    /// A record has no field of that name.
    #[error("{schema} has no field {field:?}")]
    NoField {
        /// The record's schema.
        schema: &'static str,
        /// The name asked for.
        field: String,
    },
    /// An index on something that is not an array, or past its end.
    #[error("{path}: no element {index}")]
    NoElement {
        /// The path up to the array.
        path: String,
        /// The index asked for.
        index: usize,
    },
    /// A step into a field the body holds as absent: set the whole field first.
    #[error("{0} is absent in the held body; set it whole first")]
    Absent(String),
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Field(String),
    Index(usize),
}

/// The steps of `path`.
fn parse(path: &str) -> Result<Vec<Step>, PathError> {
    let bad = || PathError::Syntax(path.to_string());
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (name, mut indices) = part
            .split_once('[')
            .map_or((part, None), |(n, r)| (n, Some(r)));
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(bad());
        }
        steps.push(Step::Field(name.to_string()));
        // each index is `digits]`, the next one behind a `[`
        while let Some(rest) = indices {
            let (index, after) = rest.split_once(']').ok_or_else(bad)?;
            steps.push(Step::Index(index.parse().map_err(|_| bad())?));
            indices = match after {
                "" => None,
                a => Some(a.strip_prefix('[').ok_or_else(bad)?),
            };
        }
    }
    Ok(steps)
}

/// The kind one step below `kind`, the field descriptor when the step names a record's
/// field, and the index the step takes in the value below (a record's field position or
/// an array's element).
fn step_into(
    kind: Kind,
    step: &Step,
    walked: &str,
    path: &str,
) -> Result<(Kind, Option<&'static Field>, usize), PathError> {
    match (kind, step) {
        (Kind::Record(schema), Step::Field(name)) => schema
            .fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name)
            .map(|(i, f)| (f.kind, Some(f), i))
            .ok_or_else(|| PathError::NoField {
                schema: schema.name,
                field: name.clone(),
            }),
        (Kind::FixedArray { element, len }, Step::Index(i)) if *i < usize::from(len) => {
            Ok((*element, None, *i))
        }
        (
            Kind::Array {
                element, capacity, ..
            },
            Step::Index(i),
        ) if *i < usize::from(capacity) => Ok((*element, None, *i)),
        (_, Step::Index(index)) => Err(PathError::NoElement {
            path: walked.to_string(),
            index: *index,
        }),
        (_, Step::Field(_)) => Err(PathError::Syntax(path.to_string())),
    }
}

/// `walked` followed by `step`, for messages.
fn extend(walked: &str, step: &Step) -> String {
    match step {
        Step::Field(name) if walked.is_empty() => name.clone(),
        Step::Field(name) => format!("{walked}.{name}"),
        Step::Index(i) => format!("{walked}[{i}]"),
    }
}

/// The part of a record a path names.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    /// Its kind.
    pub kind: Kind,
    /// The record field it is, when the path ends on one (not on an array element): its
    /// presence bit and the values the encoder refuses (its guards, with their rules).
    pub field: Option<&'static Field>,
}

impl Part {
    /// The part sits behind a presence bit, so it may be [`Value::Absent`].
    pub fn optional(&self) -> bool {
        self.field.is_some_and(|f| f.presence)
    }
}

/// The part `path` names in a record of `schema`.
pub fn part_at(schema: &'static Schema, path: &str) -> Result<Part, PathError> {
    let mut part = Part {
        kind: Kind::Record(schema),
        field: None,
    };
    let mut walked = String::new();
    for step in parse(path)? {
        let (kind, field, _) = step_into(part.kind, &step, &walked, path)?;
        part = Part { kind, field };
        walked = extend(&walked, &step);
    }
    Ok(part)
}

/// `body`, a record of `schema`, with the part `path` names set to `new`. The caller gives
/// a `new` of the kind [`part_at`] names; the encoder judges it.
pub fn set_at(
    schema: &'static Schema,
    body: &mut Value,
    path: &str,
    new: Value,
) -> Result<(), PathError> {
    let mut kind = Kind::Record(schema);
    let mut at = body;
    let mut walked = String::new();
    for step in parse(path)? {
        let (below, _, i) = step_into(kind, &step, &walked, path)?;
        let held = match at {
            Value::Record(values) | Value::Array(values) => values.get_mut(i),
            _ => None,
        };
        walked = extend(&walked, &step);
        at = held.ok_or_else(|| PathError::Absent(walked.clone()))?;
        kind = below;
    }
    *at = new;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::tables::{CHANNEL, GHOST_LINK, OBJECTIVE};

    fn objectives() -> Value {
        let entries = (0..24)
            .map(|_| Value::Record(vec![Value::Int(0)]))
            .collect();
        Value::Record(vec![Value::Array(entries), Value::Int(1)])
    }

    /// The kind and optionality of the part `path` names.
    fn kind_at(schema: &'static Schema, path: &str) -> Result<(Kind, bool), PathError> {
        part_at(schema, path).map(|p| (p.kind, p.optional()))
    }

    #[test]
    fn paths_name_fields_and_elements() {
        assert!(matches!(
            kind_at(&OBJECTIVE, "generation"),
            Ok((Kind::Int { width: 31, .. }, true))
        ));
        assert!(matches!(
            kind_at(&OBJECTIVE, "objective[23].value"),
            Ok((Kind::Int { width: 7, .. }, true))
        ));
        assert!(matches!(
            kind_at(&GHOST_LINK, "active"),
            Ok((Kind::Bool, _))
        ));
        assert!(matches!(
            kind_at(&CHANNEL, "rows[3].target"),
            Ok((Kind::Real, false))
        ));
    }

    #[test]
    fn bad_paths_say_why() {
        assert_eq!(
            kind_at(&OBJECTIVE, "objective[24].value"),
            Err(PathError::NoElement {
                path: "objective".into(),
                index: 24
            })
        );
        assert_eq!(
            kind_at(&OBJECTIVE, "goal"),
            Err(PathError::NoField {
                schema: "objective_sensor",
                field: "goal".into()
            })
        );
        for syntax in [
            "",
            "objective[",
            "objective[x]",
            "objective[0]value",
            "a..b",
            "gen eration",
        ] {
            assert!(
                matches!(kind_at(&OBJECTIVE, syntax), Err(PathError::Syntax(_))),
                "{syntax}"
            );
        }
        assert!(matches!(
            kind_at(&OBJECTIVE, "generation[0]"),
            Err(PathError::NoElement { .. })
        ));
        assert!(matches!(
            kind_at(&OBJECTIVE, "generation.x"),
            Err(PathError::Syntax(_))
        ));
    }

    #[test]
    fn set_at_changes_one_part() {
        let mut body = objectives();
        set_at(&OBJECTIVE, &mut body, "objective[2].value", Value::Int(5)).unwrap();
        set_at(&OBJECTIVE, &mut body, "generation", Value::Int(7)).unwrap();
        let Value::Record(fields) = &body else {
            panic!()
        };
        let Value::Array(entries) = &fields[0] else {
            panic!()
        };
        assert_eq!(entries[2], Value::Record(vec![Value::Int(5)]));
        assert_eq!(entries[1], Value::Record(vec![Value::Int(0)]));
        assert_eq!(fields[1], Value::Int(7));
    }

    #[test]
    fn set_at_refuses_a_step_into_an_absent_part() {
        let mut body = Value::Record(vec![Value::Absent, Value::Int(1)]);
        assert_eq!(
            set_at(&OBJECTIVE, &mut body, "objective[0].value", Value::Int(1)),
            Err(PathError::Absent("objective[0]".into()))
        );
    }
}
