//! A datagram of the peer port as `vex decode udp HEX` prints it (NS "The engine peer
//! transport"): by its first byte, a QoS probe or reply (with the advertisement's header
//! and whether the client takes it), one of the association's four handshake packets, or a
//! record's head (its ciphertext needs the association's keys); and a record's plaintext
//! as `vex decode peer HEX` prints it (NS "The peer message channel"): by its first bit,
//! an out-of-band container's messages, or an established datagram's ACK and fragments
//! with the messages they complete.

use serde_json::{Value, json};
use vex_wire::peer::PeerError;
use vex_wire::peer::advertisement::{GROUP_SESSION, judge};
use vex_wire::peer::association::{AssocHeader, AssocPacket};
use vex_wire::peer::chain;
use vex_wire::peer::established::{EstablishedError, EstablishedPacket, Fragment, Reassembly};
use vex_wire::peer::message::PeerMessage;
use vex_wire::peer::qos::{self, QosReply, QosRequest};

fn header(h: &AssocHeader) -> Value {
    json!({
        "type": h.kind,
        "constant_2": h.constant_2,
        "addressed_tag": h.addressed_tag.get(),
        "sequence": h.sequence.get(),
    })
}

/// The datagram's fields, or why it is no packet of the port.
pub fn json(bytes: &[u8]) -> Result<Value, PeerError> {
    match bytes.first() {
        Some(&qos::REQUEST) => {
            let r = QosRequest::read(bytes)?;
            Ok(json!({
                "packet": "qos request",
                "send_time": r.send_time.get(),
                "probe_id": r.probe_id.get(),
                "security_id": r.security_id.get(),
                "last_probe": r.last_probe,
            }))
        }
        Some(&qos::REPLY) => {
            let r = QosReply::read(bytes)?;
            let h = r.head;
            let advertisement = match judge(r.payload, GROUP_SESSION) {
                Ok(a) => json!({
                    "session_id": a.session_id,
                    "protocol_version": a.protocol_version,
                    "kind": a.kind,
                    "build_high": a.build_high,
                    "build_low": a.build_low,
                    "payload_type": a.payload_type,
                }),
                Err(why) => json!({ "unsuitable": why.to_string() }),
            };
            Ok(json!({
                "packet": "qos reply",
                "probe_id": h.probe_id.get(),
                "send_time": h.send_time.get(),
                "accepted": h.accepted,
                "payload_len": h.payload_len.get(),
                "security_id": h.security_id.get(),
                "hold_time": h.hold_time.get(),
                "has_data": h.has_data,
                "advertisement": advertisement,
            }))
        }
        _ => Ok(match AssocPacket::read(bytes)? {
            AssocPacket::Init(i) => json!({
                "packet": "init",
                "header": header(&i.header),
                "requester_tag": i.requester_tag.get(),
                "security_id": hex::encode(i.security_id),
            }),
            AssocPacket::InitAck(a) => json!({
                "packet": "init ack",
                "header": header(&a.header),
                "free_running": a.free_running.get(),
                "cookie": hex::encode(a.cookie),
                "responder_tag": a.responder_tag.get(),
                "responder_tag2": a.responder_tag2.get(),
                "requester_tag": a.requester_tag.get(),
                "old_responder_tag": a.old_responder_tag.get(),
                "old_requester_tag": a.old_requester_tag.get(),
                "observed_addr": hex::encode(a.observed_addr),
                "security_id": hex::encode(a.security_id),
            }),
            AssocPacket::CookieEcho(e) => json!({
                "packet": "cookie echo",
                "header": header(&e.header),
                "echoed_responder_tag": e.echoed.responder_tag.get(),
                "requester_addr": hex::encode(e.requester_addr),
                "security_id": hex::encode(e.security_id),
                "public_key": hex::encode(e.public_key),
            }),
            AssocPacket::CookieAck(a) => json!({
                "packet": "cookie ack",
                "header": header(&a.header),
                "public_key": hex::encode(a.public_key),
                "security_id": hex::encode(a.security_id),
            }),
            AssocPacket::Data { head, ciphertext } => json!({
                "packet": "record",
                "header": header(&head.header),
                "mac": hex::encode(head.mac),
                "plain_len": head.plain_len.get(),
                "ciphertext_len": ciphertext.len(),
            }),
            AssocPacket::NatTraversal(kind) => json!({ "packet": "nat traversal", "type": kind }),
        }),
    }
}

/// A record's plaintext: its messages, read as the client reads them.
pub fn plaintext_json(bytes: &[u8]) -> Result<Value, EstablishedError> {
    let message = |m: &PeerMessage| json!({ "id": m.id(), "body": format!("{m:?}") });
    if bytes.first().is_some_and(|b| b & 0x80 != 0) {
        let c = chain::read_container(bytes);
        return Ok(json!({
            "plaintext": "out-of-band container",
            "messages": c.messages.iter().map(message).collect::<Vec<_>>(),
            "dropped": c.dropped.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "ended": c.ended.map(|e| e.to_string()),
        }));
    }
    let p = EstablishedPacket::read(bytes)?;
    let fragments = |q: &[Fragment]| {
        q.iter()
            .map(|f| json!({ "sequence": f.sequence, "short": f.short, "bits": f.bits.bit_len }))
            .collect::<Vec<_>>()
    };
    // the messages whose every fragment this one datagram carries
    let mut whole = Reassembly::new(p.queue_a.first().map_or(0, |f| f.sequence));
    let mut messages = Vec::new();
    for f in &p.queue_a {
        whole.accept(f.clone())?;
    }
    while let Some(bits) = whole.pop_message()? {
        messages.push(match chain::read_message(&mut bits.reader()) {
            Ok((m, size)) => json!({ "message": message(&m), "struct_size": size }),
            Err(e) => json!({ "error": e.to_string() }),
        });
    }
    Ok(json!({
        "plaintext": "established datagram",
        "guard": p.guard,
        "ack": format!("{:?}", p.ack),
        "queue_a": fragments(&p.queue_a),
        "queue_b": fragments(&p.queue_b),
        "messages": messages,
    }))
}

/// The fields one a line, `name: value`, nested ones after their parent's name.
pub fn text(value: &Value) -> String {
    let mut out = String::new();
    lines(value, "", &mut out);
    out
}

fn lines(value: &Value, prefix: &str, out: &mut String) {
    match value {
        Value::Object(fields) => {
            for (name, v) in fields {
                let path = if prefix.is_empty() {
                    name.clone()
                } else {
                    format!("{prefix}.{name}")
                };
                lines(v, &path, out);
            }
        }
        v => out.push_str(&format!("{prefix}: {v}\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vex_wire::peer::association::AssocInit;
    use zerocopy::IntoBytes;

    /// A container prints its messages; an established datagram its fragments and the
    /// message they complete; bytes of neither are an error.
    #[test]
    fn plaintexts_print() {
        use vex_wire::peer::established::{Ack, AckStatus, Queue, fragment};
        let ping = PeerMessage::Ping {
            sequence: 3,
            timestamp: 4,
            flag: false,
        };
        let container = chain::write_container(std::slice::from_ref(&ping)).unwrap();
        let j = plaintext_json(&container).unwrap();
        assert_eq!(j["messages"][0]["id"], 0);
        let mut bytes = Vec::new();
        let mut w = vex_wire::bits::BitWriter::appending(&mut bytes);
        chain::write_message(&mut w, &ping, 24).unwrap();
        let bit_len = w.finish().unwrap();
        let packet = EstablishedPacket {
            fragmented: false,
            guard: 1,
            ack: Ack {
                head: Some((1, 1)),
                base: 0,
                status: AckStatus::Uninitialised,
            },
            queue_a: fragment(&vex_wire::bits::Bits { bytes, bit_len }, Queue::A, 1),
            queue_b: Vec::new(),
        };
        let j = plaintext_json(&packet.write().unwrap()).unwrap();
        assert_eq!(j["messages"][0]["struct_size"], 24);
        assert_eq!(j["messages"][0]["message"]["id"], 0);
        assert!(plaintext_json(&[0x40]).is_err());
    }

    /// An init prints its tag and security id; a QoS refusal its fields and why the
    /// session is unsuitable; a byte of no packet is an error.
    #[test]
    fn packets_print() {
        let init = AssocInit::new(0x1234, [1; 8]);
        let j = json(init.as_bytes()).unwrap();
        assert_eq!(j["packet"], "init");
        assert_eq!(j["requester_tag"], 0x1234);
        assert!(text(&j).contains("header.type: 1\n"));
        let request = QosRequest::new(5, 6, 7, true);
        let head = vex_wire::peer::qos::QosReplyHead::answering(&request, false, 0.0, 0);
        let refusal = QosReply { head, payload: &[] }.encode();
        let j = json(&refusal).unwrap();
        assert_eq!(j["accepted"], 0);
        assert_eq!(j["advertisement"]["unsuitable"], "qos-payload-empty");
        assert!(json(&[5; 20]).is_err());
    }
}
