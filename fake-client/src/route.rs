//! Responses on the route into an activity: the hello (26), the host lookup (17) and the
//! host response (7), each checked as the client checks it (NS "The frame", "The service
//! registry"; AH "The route into an activity").

use crate::activity_client::ActivityClient;
use crate::config::CHANNEL_START_LEN;
use crate::core::ClientCore;
use crate::link::LinkKind;
use crate::links::Outgoing;
use crate::probe::Probe;
use crate::rules::Rule;
use std::net::SocketAddrV4;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids;
use vex_wire::activity::join::JoinRequest;
use vex_wire::activity::selection::SelectionRequest;
use vex_wire::activity::session::SessionId;
use vex_wire::bap::header::{InnerHeader, STATUS_OK};
use vex_wire::bap::secure::{Role, SecureChannel, open_hello};
use vex_wire::bap::services::{
    CHANNEL_START, ECHO, HELLO, HOST_LOOKUP, HOST_REQUEST, HostLookup, HostLookupResponse,
    HostResponse, lobby_reply, response_for,
};
use vex_wire::bap::{matchmaking, web_service};
use vex_wire::bits::BitError;
use vex_wire::time::Instant;

/// A service-6 body no selection decoder takes: three bytes where the request's head alone
/// is longer (the malformed-selection probe, BAP-14).
const MALFORMED_SELECTION: [u8; 3] = [0xFF, 0xFF, 0xFF];

impl ClientCore {
    pub(crate) fn handle_response(
        &mut self,
        now: Instant,
        link: LinkKind,
        idx: u64,
        header: InnerHeader,
        body: &[u8],
    ) {
        let Some(l) = self.links.get_mut(link) else {
            return;
        };
        let answers = |r: &u16| response_for(*r) == Some(header.service);
        if l.answered.get(&header.task).is_some_and(answers) {
            let reason = format!(
                "a second service {} response to task {}",
                header.service, header.task
            );
            return self.verdict.violate(Rule::Bap06, Some(idx), None, reason);
        }
        let asked = l.pending.get(&header.task).map(|p| p.service);
        let head = l.pending.keys().next().copied();
        if asked.is_none() && l.one_way.contains(&header.task) {
            let reason = format!(
                "a service {} response to task {}, a one-way service-8 report: service 8 gets no response",
                header.service, header.task
            );
            return self.verdict.violate(Rule::Host12, Some(idx), None, reason);
        }
        let Some(request) = asked.filter(answers) else {
            let reason = format!(
                "service {} response with task {} answers no outstanding request",
                header.service, header.task
            );
            return self.verdict.violate(Rule::Bap05, Some(idx), None, reason);
        };
        if head != Some(header.task) {
            let reason = format!(
                "service {} answers task {} while task {} heads the pending ring: the client matches only the head",
                header.service,
                header.task,
                head.unwrap_or_default()
            );
            return self.verdict.violate(Rule::Bap16, Some(idx), None, reason);
        }
        if header.status != Some(STATUS_OK) {
            let reason = format!(
                "service {} response has status {:?}, not 200",
                header.service, header.status
            );
            return self.verdict.violate(Rule::Bap05, Some(idx), None, reason);
        }
        l.pending.remove(&header.task);
        l.answered.insert(header.task, request);
        match request {
            HELLO => self.on_hello(now, link, idx, body),
            HOST_LOOKUP => self.on_host_lookup(idx, body),
            HOST_REQUEST => self.on_host_response(now, idx, body),
            CHANNEL_START if body.len() != CHANNEL_START_LEN => {
                let reason = format!(
                    "service 31 of {} bytes; the client takes exactly {CHANNEL_START_LEN}",
                    body.len()
                );
                self.verdict.violate(Rule::Bap19, Some(idx), None, reason);
            }
            ECHO => {
                if let Some(b) = crate::lobby_calls::empty_reply_breach(ECHO, body) {
                    self.verdict
                        .violate(b.rule(), Some(idx), None, b.reason().to_string());
                }
            }
            lobby
                if lobby == matchmaking::REQUEST
                    || lobby == web_service::REQUEST
                    || lobby_reply(lobby).is_some() =>
            {
                self.on_lobby_answer((idx, now), lobby, body)
            }
            _ => {} // a 128-byte 31: the client reads nothing more
        }
    }

    /// Service 26: the 84-byte secure hello reply (BAP-17: the length field 80, the IV,
    /// the CBC-sealed nonce, key and padding, the HMAC over bytes 0 to 51, under SignOn's
    /// keys) arms the channel, then the route goes on on that link. One its decoder refuses
    /// is no answer, and the route stalls.
    fn on_hello(&mut self, now: Instant, link: LinkKind, idx: u64, body: &[u8]) {
        let secrets = match open_hello(&self.config.signon, body) {
            Ok(s) => s,
            Err(e) => {
                let reason = format!("service 26 body its decoder refuses: {e}");
                return self.verdict.violate(Rule::Bap17, Some(idx), None, reason);
            }
        };
        if let Some(l) = self.links.get_mut(link) {
            l.secure = Some(SecureChannel::new(&secrets, Role::Client));
        }
        match link {
            LinkKind::Primary => {
                if self.config.script.lobby_calls {
                    self.call_lobby(now);
                }
                if self.config.script.locate {
                    self.locate_session(now);
                }
                let lookup = HostLookup {
                    host_id: self.config.scenario.activity_host_id,
                };
                self.links
                    .send_request(now, link, HOST_LOOKUP, &lookup.encode());
                self.links
                    .send_request(now, link, ECHO, &0u32.to_be_bytes());
            }
            LinkKind::Activity => self.request_host(now),
        }
    }

    /// Service 6 on the Activity Host link: the client's own selection (SR "Service 6 and
    /// 7"), or under the malformed-selection probe a body no decoder takes (BAP-14).
    pub(crate) fn request_host(&mut self, now: Instant) {
        if self.config.script.probe.map(|(p, _)| p) == Some(Probe::MalformedSelection) {
            self.links
                .send_request(now, LinkKind::Activity, HOST_REQUEST, &MALFORMED_SELECTION);
            return;
        }
        match self.selection_request() {
            Ok(body) => {
                self.links
                    .send_request(now, LinkKind::Activity, HOST_REQUEST, &body);
            }
            Err(e) => tracing::error!(%e, "the scenario's selection does not encode"),
        }
    }

    /// Service 17: checks it (BAP-12) and opens the Activity Host link.
    fn on_host_lookup(&mut self, idx: u64, body: &[u8]) {
        let r = match HostLookupResponse::decode(body) {
            Ok(r) => r,
            Err(e) => {
                return self
                    .verdict
                    .violate(Rule::Bap12, Some(idx), None, e.to_string());
            }
        };
        let problem = if r.address.is_unspecified() {
            Some("IPv4 address is 0")
        } else if r.port == 0 {
            Some("port is 0")
        } else if r.reserved != 0 {
            Some("reserved field is not 0")
        } else if r.host_id != self.config.scenario.activity_host_id {
            Some("host id is not the one asked for")
        } else {
            None
        };
        match problem {
            Some(p) => {
                self.verdict
                    .violate(Rule::Bap12, Some(idx), None, format!("service 17: {p}"))
            }
            None => self
                .links
                .connect(LinkKind::Activity, SocketAddrV4::new(r.address, r.port)),
        }
    }

    /// Service 7: checks it (BAP-13, ENV-09), makes the activity client (message 10 inside
    /// the client) and sends join_request.
    fn on_host_response(&mut self, now: Instant, idx: u64, body: &[u8]) {
        let r = match HostResponse::decode(body) {
            Ok(r) => r,
            Err(e) => {
                return self
                    .verdict
                    .violate(Rule::Bap13, Some(idx), None, e.to_string());
            }
        };
        if r.discriminator != HostResponse::DISCRIMINATOR || r.session_id == 0 {
            let reason = format!(
                "service 7 discriminator {} session {:#x}",
                r.discriminator, r.session_id
            );
            return self.verdict.violate(Rule::Bap13, Some(idx), None, reason);
        }
        let account = SessionId(self.config.scenario.player.account_soid).account_half();
        let shaped = |id: u64| {
            let id = SessionId(id);
            id.account_half() == account && id.class() == SessionId::CLASS
        };
        if !shaped(r.session_id) {
            let reason = format!(
                "session id {} lacks the account half {account:#x} and class {:#06x}",
                SessionId(r.session_id),
                SessionId::CLASS
            );
            self.verdict.violate(Rule::Env09, Some(idx), None, reason);
        }
        if self.config.script.advertise {
            self.advertise_session(now, r.session_id);
        }
        self.own_session = Some(r.session_id);
        let target = self.config.join_session.unwrap_or(r.session_id);
        let public = target != r.session_id;
        let arrival = self.config.scenario.arrival_slice_set;
        self.end_activity();
        let mut activity = ActivityClient::new(target, public, !shaped(target), arrival);
        activity.association.start_at(self.next_association);
        self.activity = Some(activity);
        let join = JoinRequest::new(
            self.config.join_nonce,
            target,
            self.config.scenario.player.member_key,
            self.config.scenario.player.character_id,
        );
        let out = Outgoing {
            message: ids::JOIN_REQUEST,
            body: join.encode().unwrap_or_default(), // the 570-bit record: never fails
        };
        self.links.send_activity(now, target, out);
    }

    fn selection_request(&self) -> Result<Vec<u8>, BitError> {
        SelectionRequest {
            transaction: 1,
            kind: 0,
            descriptor: self.config.scenario.destination.to_bits()?,
            trailing: true,
        }
        .encode_service6()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ClientConfig;
    use std::net::Ipv4Addr;

    /// A session id of the built-in account's shape: account half 0x9EAA3001, class 0x0020.
    const SESSION: u64 = 0x9EAA_3001_0020_0001;

    fn client() -> ClientCore {
        ClientCore::new(ClientConfig::builtin(SocketAddrV4::new(
            Ipv4Addr::LOCALHOST,
            1,
        )))
    }

    /// `body` cut by one byte, as it is, and one zero byte longer.
    fn sizes(body: &[u8]) -> [Vec<u8>; 3] {
        let n = body.len();
        [body[..n - 1].to_vec(), body.to_vec(), [body, &[0]].concat()]
    }

    /// BAP-12: service 17 is exactly 16 bytes; one short and one long are refused.
    #[test]
    fn service_17_takes_exactly_16_bytes() {
        let good = HostLookupResponse {
            host_id: client().config.scenario.activity_host_id,
            address: Ipv4Addr::LOCALHOST,
            reserved: 0,
            port: 30974,
        }
        .encode();
        let [short, exact, long] = sizes(&good);
        for (body, want) in [
            (short, vec![Rule::Bap12]),
            (exact, vec![]),
            (long, vec![Rule::Bap12]),
        ] {
            let mut c = client();
            c.on_host_lookup(1, &body);
            assert_eq!(c.verdict.rules(), want, "{} bytes", body.len());
        }
    }

    /// BAP-13: service 7 is exactly 137 bytes; one short and one long are refused.
    #[test]
    fn service_7_takes_exactly_137_bytes() {
        let [short, exact, long] = sizes(&HostResponse::new(SESSION).encode());
        for (body, want) in [
            (short, vec![Rule::Bap13]),
            (exact, vec![]),
            (long, vec![Rule::Bap13]),
        ] {
            let mut c = client();
            c.on_host_response(Instant::default(), 1, &body);
            assert_eq!(c.verdict.rules(), want, "{} bytes", body.len());
        }
    }

    /// BAP-19: service 31 is exactly 128 bytes; one short and one long are refused.
    #[test]
    fn service_31_takes_exactly_128_bytes() {
        let [short, exact, long] = sizes(&[0; CHANNEL_START_LEN]);
        for (body, want) in [
            (short, vec![Rule::Bap19]),
            (exact, vec![]),
            (long, vec![Rule::Bap19]),
        ] {
            let mut c = client();
            let now = Instant::default();
            c.handle_connected(now, LinkKind::Primary); // task 1 is service 30
            let header = InnerHeader::response(CHANNEL_START + 1, 1);
            c.handle_response(now, LinkKind::Primary, 1, header, &body);
            assert_eq!(c.verdict.rules(), want, "{} bytes", body.len());
        }
    }

    /// ENV-09: the account half in the high 32 bits and class 0x0020 in bits 16-31, both;
    /// the index in bits 0-15 is free.
    #[test]
    fn a_session_id_has_the_account_half_and_class_0x0020() {
        for (session, want) in [
            (SESSION, vec![]),
            (0x9EAA_3001_0020_FFFF, vec![]),
            (0x9EAA_3001_0021_0001, vec![Rule::Env09]),
            (0x9EAA_3001_0000_0001, vec![Rule::Env09]),
            (0x9EAA_3001_2000_0001, vec![Rule::Env09]),
            (0x9EAA_3002_0020_0001, vec![Rule::Env09]),
            (0x0000_3001_0020_0001, vec![Rule::Env09]),
            (0x0000_0000_0020_0001, vec![Rule::Env09]),
            (1, vec![Rule::Env09]),
        ] {
            let mut c = client();
            c.on_host_response(Instant::default(), 1, &HostResponse::new(session).encode());
            assert_eq!(c.verdict.rules(), want, "session {session:#018x}");
        }
    }

    use vex_wire::bap::secure::{ChannelSecrets, SignOnKeys, seal_hello};

    /// A client whose primary link just opened: task 1 is service 30, task 2 the hello.
    fn connected() -> ClientCore {
        let mut c = client();
        c.handle_connected(Instant::default(), LinkKind::Primary);
        c
    }

    /// The secrets [`hello`] hands the client.
    const SECRETS: ChannelSecrets = ChannelSecrets {
        base_nonce: [0xA0; 12],
        session_key: [0xB0; 16],
    };

    /// The legal service-26 body for `c`, IV `iv`.
    fn hello(c: &ClientCore, iv: [u8; 16]) -> [u8; 84] {
        seal_hello(&c.config.signon, iv, &SECRETS)
    }

    /// `c`'s primary link's pending requests, task and service.
    fn pending(c: &mut ClientCore) -> Vec<(u32, u16)> {
        let l = c.links.get_mut(LinkKind::Primary).unwrap();
        l.pending.iter().map(|(t, p)| (*t, p.service)).collect()
    }

    /// The response on `service` to `task` with `body`, on `c`'s primary link.
    fn answer(c: &mut ClientCore, task: u32, service: u16, body: &[u8]) {
        let header = InnerHeader::response(service, task);
        c.handle_response(Instant::default(), LinkKind::Primary, 1, header, body);
    }

    /// BAP-06: exactly one response per request: the first answer to service 30 and to
    /// the hello passes; a second and a third to either are caught, each; one on a task
    /// never asked is no second answer (BAP-05).
    #[test]
    fn a_request_gets_exactly_one_response() {
        let mut c = connected();
        let start = [0; CHANNEL_START_LEN];
        answer(&mut c, 1, CHANNEL_START + 1, &start);
        assert_eq!(c.verdict.rules(), []);
        answer(&mut c, 1, CHANNEL_START + 1, &start);
        assert_eq!(c.verdict.rules(), [Rule::Bap06], "second 31");
        answer(&mut c, 1, CHANNEL_START + 1, &start);
        assert_eq!(c.verdict.rules(), [Rule::Bap06; 2], "third 31");
        let body = hello(&c, [0xC0; 16]);
        answer(&mut c, 2, HELLO + 1, &body);
        assert_eq!(c.verdict.rules(), [Rule::Bap06; 2], "first 26");
        answer(&mut c, 2, HELLO + 1, &body);
        assert_eq!(c.verdict.rules(), [Rule::Bap06; 3], "second 26");
        answer(&mut c, 99, ECHO + 1, &[]);
        assert_eq!(c.verdict.rules()[3..], [Rule::Bap05], "a task never asked");
        // an empty body is no neutral answer: each is refused under its service's rule
        let mut c = connected();
        answer(&mut c, 1, CHANNEL_START + 1, &[]);
        answer(&mut c, 2, HELLO + 1, &[]);
        c.on_host_lookup(3, &[]);
        c.on_host_response(Instant::default(), 4, &[]);
        let empty = [Rule::Bap19, Rule::Bap17, Rule::Bap12, Rule::Bap13];
        assert_eq!(c.verdict.rules(), empty, "empty 31, 26, 17 and 7");
    }

    /// BAP-16: responses go out in request order: with four pending (30, the hello, two
    /// echoes), answering the second, the third or the last first is caught; answered in
    /// order, head by head, nothing is; after a response out of order, the head and the
    /// rest in order pass.
    #[test]
    fn responses_answer_the_head_of_the_pending_ring() {
        let with_echoes = || {
            let mut c = connected();
            for _ in 0..2 {
                c.links.send_request(
                    Instant::default(),
                    LinkKind::Primary,
                    ECHO,
                    &0u32.to_be_bytes(),
                );
            }
            assert_eq!(
                pending(&mut c),
                [(1, CHANNEL_START), (2, HELLO), (3, ECHO), (4, ECHO)]
            );
            c
        };
        let in_order = |c: &mut ClientCore, from: u32| {
            let body = hello(c, [0xC0; 16]);
            for task in from..=4 {
                match task {
                    1 => answer(c, 1, CHANNEL_START + 1, &[0; CHANNEL_START_LEN]),
                    2 => answer(c, 2, HELLO + 1, &body),
                    t => answer(c, t, ECHO + 1, &[]),
                }
            }
        };
        let mut c = with_echoes();
        in_order(&mut c, 1);
        assert_eq!(c.verdict.rules(), [], "in order");
        for (task, service, first) in [
            (2, HELLO + 1, true),
            (3, ECHO + 1, false),
            (4, ECHO + 1, false),
        ] {
            let mut c = with_echoes();
            let body = if first {
                hello(&c, [0xC0; 16]).to_vec()
            } else {
                vec![]
            };
            answer(&mut c, task, service, &body);
            assert_eq!(c.verdict.rules(), [Rule::Bap16], "task {task} first");
            in_order(&mut c, 1);
            assert_eq!(
                c.verdict.rules(),
                [Rule::Bap16],
                "task {task} first, then in order"
            );
        }
    }

    /// HMAC-SHA256 of `data` under `key` (RFC 2104), for hello bodies of other shapes.
    fn hmac_sha256(key: &[u8; 16], data: &[u8]) -> [u8; 32] {
        use rsa::sha2::{Digest, Sha256};
        let pad = |byte: u8| -> Vec<u8> {
            let mut k = [0u8; 64];
            k[..16].copy_from_slice(key);
            k.iter().map(|b| b ^ byte).collect()
        };
        let inner = Sha256::new()
            .chain_update(pad(0x36))
            .chain_update(data)
            .finalize();
        let outer = Sha256::new()
            .chain_update(pad(0x5C))
            .chain_update(inner)
            .finalize();
        let mut mac = [0u8; 32];
        mac.copy_from_slice(&outer);
        mac
    }

    /// BAP-17: service 26 is 84 bytes, u32 BE 80, the IV, the CBC of nonce, key and
    /// 04 04 04 04 under SignOn field 2's key, then the HMAC under field 3's key over bytes
    /// 0 to 51. The legal hello, another IV, and an IV byte flipped with the HMAC redone
    /// (another nonce: still a hello) arm the channel and the route goes on. Each of these
    /// is no answer (the channel stays unarmed, nothing more is sent): 83, 85 or 0 bytes;
    /// a length field of 79, 81, 84 or 80 little-endian; the HMAC under field 2's key,
    /// over bytes 0 to 50, over 4 to 51, or with its first or last byte flipped; the CBC
    /// under field 3's key; padding 05 04 04 04, 04 04 04 05 or 00 00 00 00 (each with the
    /// HMAC redone, so only the padding is wrong).
    #[test]
    fn service_26_is_the_84_byte_hello() {
        let c = connected();
        let keys = c.config.signon;
        let good = hello(&c, [0xC0; 16]);
        let remac = |mut b: [u8; 84]| {
            let mac = hmac_sha256(&keys.hmac, &b[..52]);
            b[52..].copy_from_slice(&mac);
            b
        };
        assert_eq!(remac(good), good, "the HMAC helper is SignOn's");
        let judged = |body: &[u8]| {
            let mut c = connected();
            c.on_hello(Instant::default(), LinkKind::Primary, 1, body);
            let armed = c.links.get_mut(LinkKind::Primary).unwrap().secure.is_some();
            (c.verdict.rules(), armed, pending(&mut c).len())
        };
        let mut iv_flipped = good;
        iv_flipped[4] ^= 1;
        for (what, body) in [
            ("the hello", good),
            ("another IV", hello(&c, [0x11; 16])),
            ("an IV byte flipped, HMAC redone", remac(iv_flipped)),
        ] {
            assert_eq!(judged(&body), (vec![], true, 4), "{what}");
        }
        let with = |change: &dyn Fn(&mut [u8; 84])| {
            let mut b = good;
            change(&mut b);
            b
        };
        let length = |n: u32| remac(with(&|b| b[..4].copy_from_slice(&n.to_be_bytes())));
        let mac_with = |key: &[u8; 16], range: std::ops::Range<usize>| {
            with(&|b| {
                let mac = hmac_sha256(key, &b[range.clone()]);
                b[52..].copy_from_slice(&mac);
            })
        };
        let cbc_key3 = SignOnKeys {
            aes: keys.hmac,
            hmac: keys.hmac,
        };
        // padding byte i of the CBC plaintext (28 + i) is flipped by byte 32 + i of the
        // first ciphertext block
        let padding = |xor: [u8; 4]| {
            remac(with(&|b| {
                for (i, x) in xor.iter().enumerate() {
                    b[32 + i] ^= x;
                }
            }))
        };
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("83 bytes", good[..83].to_vec()),
            ("85 bytes", [&good[..], &[0]].concat()),
            ("0 bytes", vec![]),
            ("length field 79", length(79).to_vec()),
            ("length field 81", length(81).to_vec()),
            ("length field 84", length(84).to_vec()),
            (
                "length field 80 little-endian",
                length(0x5000_0000).to_vec(),
            ),
            (
                "HMAC under field 2's key",
                mac_with(&keys.aes, 0..52).to_vec(),
            ),
            (
                "HMAC over bytes 0 to 50",
                mac_with(&keys.hmac, 0..51).to_vec(),
            ),
            (
                "HMAC over bytes 4 to 51",
                mac_with(&keys.hmac, 4..52).to_vec(),
            ),
            ("HMAC's first byte flipped", with(&|b| b[52] ^= 1).to_vec()),
            ("HMAC's last byte flipped", with(&|b| b[83] ^= 1).to_vec()),
            (
                "CBC under field 3's key",
                seal_hello(&cbc_key3, [0xC0; 16], &SECRETS).to_vec(),
            ),
            ("padding 05 04 04 04", padding([1, 0, 0, 0]).to_vec()),
            ("padding 04 04 04 05", padding([0, 0, 0, 1]).to_vec()),
            ("padding 00 00 00 00", padding([4; 4]).to_vec()),
        ];
        for (what, body) in cases {
            assert_eq!(judged(&body), (vec![Rule::Bap17], false, 2), "{what}");
        }
    }
}
