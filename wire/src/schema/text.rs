//! Fixed-length names: a fixed array of 8-bit characters, each stored plus the bias 128
//! (AH "join_result": `session_name`, `workspace_name`; facts 4.1's `package_name`), read
//! and written as text rather than one integer per character. A character is one byte,
//! shown as the Latin-1 code point of that byte; the zeros that pad a name are dropped.

use super::kind::{Kind, int};
use super::value::Value;

/// One character of a fixed-length name.
pub const CHAR: Kind = int(8, 128);

/// Whether a fixed array of `element` is a name.
pub fn is_char(element: &Kind) -> bool {
    *element == CHAR
}

/// The text of a name's characters, the padding zeros at its end dropped.
pub fn to_text(chars: &[Value]) -> String {
    let mut bytes: Vec<u8> = chars
        .iter()
        .map(|c| match c {
            Value::Int(i) => *i as u8,
            _ => b'?',
        })
        .collect();
    let end = bytes.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
    bytes.truncate(end);
    bytes.into_iter().map(char::from).collect()
}

/// The characters of `text` padded with zeros to `len`; refused when it is longer or holds
/// a character above U+00FF.
pub fn from_text(text: &str, len: usize) -> Result<Vec<Value>, String> {
    let mut chars = Vec::with_capacity(len);
    for c in text.chars() {
        let byte =
            u8::try_from(c).map_err(|_| format!("{c:?} is not one byte (U+0000 to U+00FF)"))?;
        chars.push(Value::Int(i128::from(byte as i8)));
    }
    if chars.len() > len {
        return Err(format!("{} characters, the field holds {len}", chars.len()));
    }
    chars.resize(len, Value::Int(0));
    Ok(chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_with_its_padding() {
        let chars = from_text("3f2a\u{e9}", 8).unwrap();
        assert_eq!(chars.len(), 8);
        assert_eq!(
            chars[4],
            Value::Int(-23),
            "U+00E9 is the byte 0xE9, the i8 -23"
        );
        assert_eq!(to_text(&chars), "3f2a\u{e9}");
    }

    #[test]
    fn too_long_or_wide_is_refused() {
        assert!(from_text("abc", 2).is_err());
        assert!(from_text("\u{20ac}", 2).is_err());
    }

    #[test]
    fn interior_zeros_are_kept() {
        let chars = from_text("a\0b", 4).unwrap();
        assert_eq!(to_text(&chars), "a\0b");
    }
}
