#![no_main]
//! The schema walker on arbitrary bytes, for every catalogued body: decoding never panics,
//! and what decodes encodes back to exactly the bits it was read from, unless it is a value
//! the encoder refuses because it crashes the client.

use libfuzzer_sys::fuzz_target;
use vex_wire::bits::BitReader;
use vex_wire::schema::catalog;
use vex_wire::schema::{SchemaError, decode_traced, encode_bits};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let names = catalog::names();
    let Some(line) = names.get(usize::from(pick) % names.len()) else {
        return;
    };
    let Some(schema) = line.split_whitespace().last().and_then(catalog::lookup) else {
        return;
    };
    let mut r = BitReader::new(body);
    let mut lines = Vec::new();
    let Ok(value) = decode_traced(schema, &mut r, &mut lines) else {
        return;
    };
    let read = r.position();
    let again = match encode_bits(schema, &value) {
        Ok(bits) => bits,
        Err(SchemaError::Unsafe { .. }) => return, // read as sent, refused on the way out
        Err(e) => panic!("{}: a decoded value does not encode: {e}", schema.name),
    };
    assert_eq!(
        again.bit_len, read,
        "{}: encode writes what decode read",
        schema.name
    );
    let mut a = BitReader::new(body);
    let mut b = again.reader();
    let mut left = read;
    while left > 0 {
        let n = left.min(32) as u32;
        assert_eq!(a.read(n), b.read(n), "{}: same bits", schema.name);
        left -= n as usize;
    }
});
