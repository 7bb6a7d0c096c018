//! Bit-level editing the adversary needs: fields patched in place (MSB first, AH "Body
//! encoding"), Auth bodies decoded, changed and encoded again, a body replaced whole.

use vex_host::outbound::Payload;
use vex_wire::activity::auth::lifetime::LifetimeAuth;
use vex_wire::activity::body::Body;
use vex_wire::bits::{BitWriter, Bits, written_bits};
use vex_wire::schema::{Schema, Value, decode, encode};

/// The `width`-bit field at bit `at` of `bytes`, MSB first.
pub fn get_bits(bytes: &[u8], at: usize, width: u32) -> u64 {
    (0..width as usize).fold(0, |acc, i| {
        let bit = at + i;
        let b = bytes.get(bit / 8).copied().unwrap_or(0) >> (7 - bit % 8) & 1;
        acc << 1 | u64::from(b)
    })
}

/// Writes the low `width` bits of `value` at bit `at` of `bytes`, MSB first.
pub fn set_bits(bytes: &mut [u8], at: usize, width: u32, value: u64) {
    for i in 0..width as usize {
        let bit = at + i;
        let on = value >> (width as usize - 1 - i) & 1 == 1;
        if let Some(b) = bytes.get_mut(bit / 8) {
            let mask = 0x80u8 >> (bit % 8);
            *b = if on { *b | mask } else { *b & !mask };
        }
    }
}

/// Replaces the whole body with `bytes`.
pub fn replace(p: &mut Payload<'_>, bytes: &[u8]) {
    p.resize(bytes.len(), 0);
    p.copy_from_slice(bytes);
}

/// The type-17 body `bits` with `change` applied.
pub fn lifetime(bits: &Bits, change: impl FnOnce(&mut LifetimeAuth)) -> Bits {
    let mut body = LifetimeAuth::read(&mut bits.reader()).expect("a type-17 body the host wrote");
    change(&mut body);
    written_bits(|w| {
        // write unchecked: a breach may hold a value the encoder refuses
        body.write(w);
    })
    .unwrap_or_else(|_| raw_lifetime(&body))
}

/// A type-17 body written field by field, for states the encoder refuses (T17-01).
fn raw_lifetime(body: &LifetimeAuth) -> Bits {
    let mut safe = body.clone();
    safe.state = 3;
    let mut bits = written_bits(|w| {
        safe.write(w);
    })
    .expect("a safe type-17 body");
    set_bits(
        &mut bits.bytes,
        0,
        4,
        (i64::from(body.state) + 1) as u64 & 0xF,
    );
    bits
}

/// The record of `schema` in `bits`, changed by `change` and encoded again.
pub fn record(schema: &Schema, bits: &Bits, change: impl FnOnce(&mut Vec<Value>)) -> Bits {
    let mut value = decode(schema, &mut bits.reader()).expect("a body the host wrote");
    if let Value::Record(fields) = &mut value {
        change(fields);
    }
    written_bits(|w| {
        encode(schema, &value, w).expect("the changed body encodes");
    })
    .expect("the changed body fits")
}

/// `bits` cut to its first `len` bits.
pub fn cut(bits: &Bits, len: usize) -> Bits {
    written_bits(|w| {
        let mut r = bits.reader();
        for _ in 0..len.min(bits.bit_len) {
            w.write_bool(r.read_bool().expect("inside the body"));
        }
    })
    .expect("a cut body")
}

/// The type-17 body `bits` with `n` i32 switches, written past the encoder's clamp of 50
/// (T17-03): the fields before the list, the list, then the fields after it as they were.
pub fn switches(bits: &Bits, n: usize) -> Bits {
    const COUNT_AT: usize = vex_wire::activity::auth::lifetime::SWITCH_COUNT_BIT;
    let body = LifetimeAuth::read(&mut bits.reader()).expect("a type-17 body the host wrote");
    let entry = |w: &mut BitWriter, i: usize| {
        w.write(0x5000_0000 + i as u64, 32);
        w.write_bool(true);
        w.write(
            u64::from(vex_wire::activity::auth::lifetime::SWITCH_CLASS_I32),
            32,
        );
        w.write(0x8000_0000, 32);
    };
    let after = COUNT_AT + 6 + body.switches.len() * 97;
    written_bits(|w| {
        let mut r = bits.reader();
        for _ in 0..COUNT_AT {
            w.write_bool(r.read_bool().expect("inside the body"));
        }
        w.write(n as u64, 6);
        (0..n).for_each(|i| entry(w, i));
        let mut r = bits.reader();
        r.skip(after).expect("inside the body");
        while let Ok(b) = r.read_bool() {
            w.write_bool(b);
        }
    })
    .expect("a type-17 body")
}

/// A logical integer of a decoded record.
pub fn int(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(*i),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_round_trip() {
        let mut b = vec![0u8; 4];
        set_bits(&mut b, 3, 9, 0x1AB);
        assert_eq!(get_bits(&b, 3, 9), 0x1AB);
        assert_eq!(b[0], 0b0001_1010);
    }
}
