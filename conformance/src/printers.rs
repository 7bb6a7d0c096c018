//! How one activity message body is shown: messages 5, 6 and 12 by their own decoders,
//! every other documented body through its schema (`vex decode`, the HTML report).

use crate::{auth_update, codec, membership, sense_update};
use vex_wire::activity::{ids, table};
use vex_wire::bits::BitError;

/// A body printed by its own decoder rather than a schema: its field list and its JSON.
pub struct Printer {
    /// The message id.
    pub id: u32,
    /// The text form, part by part with bit offsets.
    pub text: fn(&[u8]) -> Result<String, BitError>,
    /// The JSON form.
    pub json: fn(&[u8]) -> Result<serde_json::Value, BitError>,
    /// How it prints, for `vex decode --list`.
    pub how: &'static str,
}

/// The messages printed with their own decoder (AH "Message 5", "Message 6",
/// "replicate_membership").
pub const PRINTERS: [Printer; 3] = [
    Printer {
        id: ids::SENSOR_AUTH_UPDATE,
        text: auth_update::text,
        json: auth_update::json,
        how: "decode only, block by block",
    },
    Printer {
        id: ids::SENSOR_SENSE_UPDATE,
        text: sense_update::text,
        json: sense_update::json,
        how: "decode only, group by group",
    },
    Printer {
        id: ids::REPLICATE_MEMBERSHIP,
        text: membership::text,
        json: membership::json,
        how: "decode only",
    },
];

/// The printer of the message `name` gives, by id or by the table's name.
pub fn printer_for(name: &str) -> Option<&'static Printer> {
    let id = table::find(name)?.id;
    PRINTERS.iter().find(|p| p.id == id)
}

/// Activity message `id`'s body as text: its printer's or its schema's field list, or why
/// there is none.
pub fn describe(id: u32, body: &[u8]) -> String {
    if let Some(p) = PRINTERS.iter().find(|p| p.id == id) {
        return (p.text)(body).unwrap_or_else(|e| format!("does not parse: {e}\n"));
    }
    let Some(schema) = vex_wire::schema::catalog::lookup(&id.to_string()) else {
        return format!(
            "{}: the pages give no layout for this body\n",
            table::label(id)
        );
    };
    match codec::decode_hex(schema, &hex::encode(body)) {
        Ok(d) => codec::text(schema, &d),
        Err(e) => format!("{e}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_body_describes_itself() {
        let incident = hex::decode("0320419000AAF340").unwrap();
        assert!(describe(ids::INCIDENT, &incident).contains("definition_index"));
        assert!(describe(ids::REPLICATE_MEMBERSHIP, &[0; 4]).starts_with("does not parse"));
        assert!(describe(200, &[]).contains("no layout"));
    }
}
