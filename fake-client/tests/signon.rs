//! SignOn as the emulated client judges it: our host's answers, every arm the scenario
//! sets, are taken; each field and boundary SIGNON, PB and MANIFEST name, broken, is
//! caught with its rule.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use getrandom::SysRng;
use prost::Message;
use std::net::{Ipv4Addr, SocketAddrV4};
use vex_fake_client::rules::{Choice, Provenance, Rule};
use vex_fake_client::signon::{QueueView, SignOnClient, SignOnStep, TOKEN_CAPACITY};
use vex_host::lobby::signon::SignOnService;
use vex_wire::bap::secure::SignOnKeys;
use vex_wire::lobby::manifest;
use vex_wire::lobby::signon::{
    KeyExchange, Queued, SignOnError, SignOnRequest, SignOnResponse, Throttled,
};
use vex_wire::scenario::Player;
use vex_wire::scenario_lobby::{Account, Lobby, SignOnAnswer};

const BAP: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 30974);
const STEAM: u64 = Player::STEAM_ID;

fn host(answers: Vec<SignOnAnswer>) -> SignOnService {
    let lobby = Lobby {
        features: vec!["use_hardwipe_tokens".into()],
        accounts: vec![Account {
            steam_id: STEAM,
            signon: answers,
        }],
        items: Vec::new(),
    };
    SignOnService::new(lobby, SignOnKeys::DEVELOPMENT, BAP, [3; 32])
}

/// One round: the client's request to `host`, the host's answer back.
fn round(client: &mut SignOnClient, host: &mut SignOnService) -> SignOnStep {
    let (query, body) = client.request();
    let reply = host
        .answer(1_800_000_000, &query, &body, Ipv4Addr::LOCALHOST)
        .unwrap();
    client.on_response(200, &reply.encode())
}

/// Our host's success answer, to break field by field.
fn success() -> SignOnResponse {
    let mut h = host(vec![SignOnAnswer::Success]);
    let (query, body) = SignOnClient::new(STEAM, None).request();
    h.answer(0, &query, &body, Ipv4Addr::LOCALHOST)
        .unwrap()
        .response
}

/// The step and the rules `response` breaks, for a fresh client.
fn judged(response: &SignOnResponse) -> (SignOnStep, Vec<Rule>) {
    let mut c = SignOnClient::new(STEAM, None);
    let step = c.on_response(200, &response.encode_to_vec());
    (step, c.violations().iter().map(|v| v.rule).collect())
}

fn broken(edit: impl FnOnce(&mut SignOnResponse)) -> (SignOnStep, Vec<Rule>) {
    let mut r = success();
    edit(&mut r);
    judged(&r)
}

fn stopped_by(edit: impl FnOnce(&mut SignOnResponse), rule: Rule, what: &str) {
    let (step, rules) = broken(edit);
    assert!(matches!(step, SignOnStep::Stopped(_)), "{what}: {step:?}");
    assert_eq!(rules, vec![rule], "{what}");
}

fn signed_on(edit: impl FnOnce(&mut SignOnResponse), what: &str) {
    let (step, rules) = broken(edit);
    assert!(matches!(step, SignOnStep::SignedOn(_)), "{what}: {step:?}");
    assert!(rules.is_empty(), "{what}: {rules:?}");
}

fn success_field(
    edit: impl FnOnce(&mut vex_wire::lobby::signon::Success),
) -> impl FnOnce(&mut SignOnResponse) {
    move |r| edit(r.success.as_mut().unwrap())
}

#[test]
fn our_success_gives_the_hello_keys_token_address_and_features() {
    let mut c = SignOnClient::new(STEAM, None);
    let SignOnStep::SignedOn(grant) = round(&mut c, &mut host(vec![SignOnAnswer::Success])) else {
        panic!("not signed on: {:?}", c.violations());
    };
    assert_eq!(grant.keys, SignOnKeys::DEVELOPMENT);
    assert_eq!(grant.bap, BAP);
    assert_eq!(grant.token.len(), 32);
    assert_eq!(grant.features, vec!["use_hardwipe_tokens".to_string()]);
    assert!(c.violations().is_empty(), "{:?}", c.violations());
}

#[test]
fn our_queued_and_throttled_answers_come_round_to_success() {
    let mut h = host(vec![
        SignOnAnswer::Queued {
            position: 12,
            seconds_remaining: 30,
            retry_seconds: 2,
            server_offline: false,
        },
        SignOnAnswer::Throttled {
            message: "busy".into(),
            retry_seconds: None,
        },
        SignOnAnswer::Throttled {
            message: "busy".into(),
            retry_seconds: Some(0),
        },
        SignOnAnswer::Success,
    ]);
    let mut c = SignOnClient::new(STEAM, None);
    assert_eq!(round(&mut c, &mut h), SignOnStep::RetryAfter(2));
    assert_eq!(c.queue().position, 12);
    // the cookie comes back byte for byte in field 12
    let sent = SignOnRequest::decode(c.request().1.as_slice()).unwrap();
    assert_eq!(sent.queue_cookie.map(|c| c.len()), Some(16));
    assert_eq!(
        round(&mut c, &mut h),
        SignOnStep::RetryAfter(60),
        "no delay: 60 s"
    );
    assert_eq!(
        round(&mut c, &mut h),
        SignOnStep::RetryAfter(0),
        "zero means zero"
    );
    let sent = SignOnRequest::decode(c.request().1.as_slice()).unwrap();
    assert_eq!(sent.throttled_in_a_row, Some(2), "field 24 counts them");
    assert!(matches!(round(&mut c, &mut h), SignOnStep::SignedOn(_)));
    assert!(c.violations().is_empty(), "{:?}", c.violations());
}

#[test]
fn our_error_and_denied_answers_stop_at_their_states() {
    for (reason, state) in [
        (8, "_version_mismatch_error"),
        (1, "_suspended"),
        (99, "_denied"),
    ] {
        let mut h = host(vec![SignOnAnswer::Error {
            reason,
            title: Some("t".into()),
            body: Some("b".into()),
        }]);
        let mut c = SignOnClient::new(STEAM, None);
        let SignOnStep::Stopped(why) = round(&mut c, &mut h) else {
            panic!("reason {reason} did not stop");
        };
        assert!(why.contains(state), "{why}");
        assert!(c.violations().is_empty(), "{:?}", c.violations());
    }
    let mut c = SignOnClient::new(STEAM, None);
    let step = round(&mut c, &mut host(vec![SignOnAnswer::Denied]));
    assert!(
        matches!(step, SignOnStep::Stopped(ref w) if w.contains("denied")),
        "{step:?}"
    );
    assert!(c.violations().is_empty());
}

#[test]
fn a_wrong_build_platform_or_protocol_gets_version_mismatch() {
    let mut h = host(vec![SignOnAnswer::Success]);
    let (_, body) = SignOnClient::new(STEAM, None).request();
    let mut old = SignOnRequest::decode(body.as_slice()).unwrap();
    old.protocol_version = Some(15);
    for (query, body) in [
        ("build=86656&platform=steam", body.clone()),
        ("build=86657&platform=xbox", body.clone()),
        ("platform=steam", body.clone()),
        ("build=86657&platform=steam", old.encode_to_vec()),
    ] {
        let reply = h.answer(0, query, &body, Ipv4Addr::LOCALHOST).unwrap();
        let (step, rules) = judged(&reply.response);
        assert!(
            matches!(step, SignOnStep::Stopped(ref w) if w.contains("_version_mismatch_error")),
            "{query}: {step:?}"
        );
        assert!(rules.is_empty());
    }
    assert!(
        h.answer(0, "", &[0x0A, 0x05], Ipv4Addr::LOCALHOST).is_err(),
        "malformed"
    );
}

#[test]
fn each_required_success_field_missing_is_signon_01() {
    type Edit = fn(&mut SignOnResponse);
    let edits: [(&str, Edit); 7] = [
        ("1", |r| r.success.as_mut().unwrap().reserved = None),
        ("2", |r| r.success.as_mut().unwrap().aes_key = None),
        ("3", |r| r.success.as_mut().unwrap().hmac_key = None),
        ("4", |r| r.success.as_mut().unwrap().token = None),
        ("5", |r| r.success.as_mut().unwrap().expiry = None),
        ("6", |r| r.success.as_mut().unwrap().bap_ipv4 = None),
        ("7", |r| r.success.as_mut().unwrap().bap_port = None),
    ];
    for (field, edit) in edits {
        stopped_by(edit, Rule::Signon01, &format!("field {field} missing"));
    }
    stopped_by(
        |r| r.success = None,
        Rule::Signon02,
        "no success sub-message",
    );
}

#[test]
fn capacities_hold_at_their_boundaries() {
    signed_on(
        success_field(|s| s.reserved = Some(vec![0; 16])),
        "field 1 at 16",
    );
    stopped_by(
        success_field(|s| s.reserved = Some(vec![0; 17])),
        Rule::Pb01,
        "field 1 at 17",
    );
    stopped_by(
        success_field(|s| s.aes_key = Some(vec![1; 17])),
        Rule::Pb01,
        "field 2 at 17",
    );
    stopped_by(
        success_field(|s| s.aes_key = Some(vec![1; 15])),
        Rule::Signon03,
        "field 2 at 15",
    );
    stopped_by(
        success_field(|s| s.hmac_key = Some(vec![1; 17])),
        Rule::Pb01,
        "field 3 at 17",
    );
    stopped_by(
        success_field(|s| s.hmac_key = Some(vec![1; 15])),
        Rule::Signon03,
        "field 3 at 15",
    );
    signed_on(
        success_field(|s| s.token = Some(vec![1; TOKEN_CAPACITY])),
        "token at 568",
    );
    stopped_by(
        success_field(|s| s.token = Some(vec![1; TOKEN_CAPACITY + 1])),
        Rule::Pb01,
        "token at 569",
    );
    stopped_by(
        success_field(|s| s.token = Some(Vec::new())),
        Rule::Signon03,
        "empty token",
    );
    stopped_by(
        success_field(|s| s.bap_ipv4 = Some(0)),
        Rule::Signon03,
        "IPv4 0",
    );
    stopped_by(
        success_field(|s| s.bap_port = Some(0)),
        Rule::Signon03,
        "port 0",
    );
    signed_on(success_field(|s| s.bap_port = Some(65_535)), "port 65535");
    stopped_by(
        success_field(|s| s.bap_port = Some(65_536)),
        Rule::Signon03,
        "port 65536",
    );
    signed_on(|r| r.features = vec!["f".into(); 8], "eight features");
    stopped_by(
        |r| r.features = vec!["f".into(); 9],
        Rule::Pb01,
        "nine features",
    );
}

#[test]
fn the_key_exchange_block_and_the_launch_flag_are_caught_without_a_stop() {
    let block = |len: usize| {
        success_field(move |s| {
            s.key_exchange = Some(KeyExchange {
                flag: Some(1),
                block: None,
                public: Some(vec![0; len]),
            });
        })
    };
    signed_on(block(128), "f4 at 128");
    for len in [0, 127, 129] {
        let (step, rules) = broken(block(len));
        assert!(matches!(step, SignOnStep::SignedOn(_)), "f4 at {len}");
        assert_eq!(rules, vec![Rule::Signon01], "f4 at {len}");
    }
    // NS: field 13 "blocks five UI launch handlers": a true one; false blocks nothing
    signed_on(
        success_field(|s| s.block_launch = Some(false)),
        "field 13 false",
    );
    let (step, rules) = broken(success_field(|s| s.block_launch = Some(true)));
    assert!(matches!(step, SignOnStep::SignedOn(_)));
    assert_eq!(rules, vec![Rule::Signon04], "field 13 true");
}

#[test]
fn the_outcome_field_and_each_arm_without_its_sub_message_are_signon_02() {
    stopped_by(|r| r.outcome = None, Rule::Signon02, "no field 1");
    stopped_by(|r| r.outcome = Some(5), Rule::Signon02, "outcome 5");
    for outcome in [1, 2, 4] {
        stopped_by(
            |r| r.outcome = Some(outcome),
            Rule::Signon02,
            &format!("arm {outcome} bare"),
        );
    }
    // denied needs none
    let (step, rules) = broken(|r| r.outcome = Some(3));
    assert!(matches!(step, SignOnStep::Stopped(_)) && rules.is_empty());
    let mut c = SignOnClient::new(STEAM, None);
    assert!(matches!(
        c.on_response(500, b"oops"),
        SignOnStep::Stopped(_)
    ));
    assert_eq!(c.violations()[0].rule, Rule::Signon02);
    assert_eq!(
        c.violations()[0].provenance,
        Provenance::Vex(Choice::SignOnHttpStatus),
        "NS gives no reading of an HTTP status"
    );
    let mut c = SignOnClient::new(STEAM, None);
    assert!(matches!(
        c.on_response(200, &[0x0A, 0x05]),
        SignOnStep::Stopped(_)
    ));
    assert_eq!(
        c.violations()[0].rule,
        Rule::Pb01,
        "a body that does not decode"
    );
    assert!(!c.violations()[0].advisory(), "not protobuf at all");
    // protobuf whose field 3 is a number, where Vex puts the queued sub-message
    let mut c = SignOnClient::new(STEAM, None);
    assert!(matches!(
        c.on_response(200, &[0x08, 0x01, 0x18, 0x01]),
        SignOnStep::Stopped(_)
    ));
    assert_eq!(c.violations()[0].rule, Rule::Pb01);
    assert_eq!(
        c.violations()[0].provenance,
        Provenance::Vex(Choice::SignOnLayout),
        "a layout of the host's own"
    );
}

/// Where the pages number a field, a finding is theirs; inside the arms, whose numbers
/// are Vex's, it is advisory.
#[test]
fn findings_inside_the_arms_rest_on_vex_layout() {
    let judged_all = |r: SignOnResponse| {
        let mut c = SignOnClient::new(STEAM, None);
        c.on_response(200, &r.encode_to_vec());
        c.violations().to_vec()
    };
    let no_outcome = judged_all(SignOnResponse {
        outcome: None,
        ..success()
    });
    assert!(!no_outcome[0].advisory(), "field 1 is NS's own");
    for outcome in [0, 1, 2, 4] {
        let mut r = success();
        r.success = None;
        r.outcome = Some(outcome);
        let v = judged_all(r);
        assert_eq!(v.len(), 1, "arm {outcome}");
        assert_eq!(v[0].provenance, Provenance::Vex(Choice::SignOnLayout));
    }
    let v = judged_all(queued(None, Some(1), Some(1)));
    assert_eq!(v[0].rule, Rule::Signon06);
    assert!(v[0].advisory());
    let (_, rules) = broken(success_field(|s| s.aes_key = Some(vec![1; 15])));
    assert_eq!(rules, vec![Rule::Signon03]);
}

fn queued(position: Option<u32>, remaining: Option<u32>, retry: Option<u32>) -> SignOnResponse {
    let mut r = success();
    r.success = None;
    r.outcome = Some(1);
    r.queued = Some(Queued {
        position,
        seconds_remaining: remaining,
        retry_seconds: retry,
        server_offline: Some(false),
        cookie: Some(vec![9; 4]),
    });
    r
}

/// NS: "A zero in any of them keeps the previous value": the client's reading, which a
/// host may rely on; the queue the player sees keeps the last non-zero value.
#[test]
fn queued_needs_its_three_numbers_and_a_zero_keeps_the_last() {
    for r in [
        queued(None, Some(1), Some(1)),
        queued(Some(1), None, Some(1)),
        queued(Some(1), Some(1), None),
    ] {
        let (step, rules) = judged(&r);
        assert!(matches!(step, SignOnStep::Stopped(_)));
        assert_eq!(rules, vec![Rule::Signon06]);
    }
    let mut c = SignOnClient::new(STEAM, None);
    c.on_response(200, &queued(Some(5), Some(40), Some(3)).encode_to_vec());
    assert!(c.violations().is_empty());
    for (i, r) in [
        queued(Some(0), Some(30), Some(3)),
        queued(Some(4), Some(0), Some(3)),
        queued(Some(4), Some(30), Some(0)),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c2 = c.clone();
        assert_eq!(
            c2.on_response(200, &r.encode_to_vec()),
            SignOnStep::RetryAfter(3)
        );
        assert!(c2.violations().is_empty(), "zero in place {i} is legal");
    }
    c.on_response(200, &queued(Some(0), Some(0), Some(0)).encode_to_vec());
    assert_eq!(
        c.queue(),
        QueueView {
            position: 5,
            seconds_remaining: 40,
            retry_seconds: 3
        }
    );
}

#[test]
fn error_and_throttled_fields_are_judged() {
    let error = |reason: Option<u32>, title: Option<&str>, body: Option<&str>| {
        let mut r = success();
        r.success = None;
        r.outcome = Some(2);
        r.error = Some(SignOnError {
            reason,
            title: title.map(Into::into),
            body: body.map(Into::into),
        });
        judged(&r).1
    };
    assert!(error(Some(8), Some("t"), Some("b")).is_empty());
    assert!(error(Some(8), None, None).is_empty());
    assert_eq!(error(Some(8), Some("t"), None), vec![Rule::Signon10]);
    assert_eq!(error(Some(8), None, Some("b")), vec![Rule::Signon10]);
    assert_eq!(error(None, None, None), vec![Rule::Signon09]);
    let mut r = success();
    r.success = None;
    r.outcome = Some(4);
    r.throttled = Some(Throttled {
        message: None,
        retry_seconds: Some(5),
    });
    let (step, rules) = judged(&r);
    assert_eq!(step, SignOnStep::RetryAfter(5));
    assert_eq!(rules, vec![Rule::Signon08]);
}

#[test]
fn the_manifest_is_judged_with_its_codes() {
    let key = manifest::new_key(&mut SysRng).unwrap();
    let public = key.to_public_key();
    let good = manifest::sign(&key, &[], &mut SysRng).unwrap();
    let cases: [(u16, Vec<u8>, Option<Rule>, u8); 5] = [
        (200, good.clone(), None, 0),
        (404, Vec::new(), Some(Rule::Manifest02), 8),
        (503, Vec::new(), Some(Rule::Manifest02), 2),
        (200, good[..263].to_vec(), Some(Rule::Manifest01), 5),
        (
            200,
            [good.clone(), vec![0]].concat(),
            Some(Rule::Manifest01),
            6,
        ),
    ];
    for (status, body, rule, code) in cases {
        let mut c = SignOnClient::new(STEAM, Some(public.clone()));
        let r = c.on_manifest(status, &body);
        assert_eq!(r.as_ref().err().map_or(0, |e| e.code()), code, "{status}");
        assert_eq!(
            c.violations().first().map(|v| v.rule),
            rule,
            "{status} code {code}"
        );
    }
}

#[test]
fn the_flow_posts_waits_fetches_the_manifest_and_ends() {
    use vex_fake_client::signon::{MAX_ATTEMPTS, SignOnAction};
    let key = manifest::new_key(&mut SysRng).unwrap();
    let good = manifest::sign(&key, &[], &mut SysRng).unwrap();
    let mut h = host(vec![
        SignOnAnswer::Throttled {
            message: "busy".into(),
            retry_seconds: Some(7),
        },
        SignOnAnswer::Success,
    ]);
    let mut c = SignOnClient::new(STEAM, Some(key.to_public_key()));
    let mut seen = Vec::new();
    loop {
        match c.next_action() {
            SignOnAction::Post { query, body } => {
                seen.push("post".to_string());
                let reply = h.answer(0, &query, &body, Ipv4Addr::LOCALHOST).unwrap();
                c.on_response(200, &reply.encode());
            }
            SignOnAction::Wait(s) => seen.push(format!("wait {s}")),
            SignOnAction::FetchManifest => {
                seen.push("manifest".into());
                c.on_manifest(200, &good).unwrap();
            }
            SignOnAction::Done(end) => {
                assert!(end.grant.is_some() && end.stopped.is_none());
                assert_eq!(end.attempts, 2);
                break;
            }
        }
    }
    assert_eq!(seen, ["post", "wait 7", "post", "manifest"]);
    assert!(c.violations().is_empty(), "{:?}", c.violations());

    // a host that queues for ever: the client gives up after its last attempt
    let mut h = host(vec![SignOnAnswer::Queued {
        position: 1,
        seconds_remaining: 1,
        retry_seconds: 1,
        server_offline: false,
    }]);
    let mut c = SignOnClient::new(STEAM, None);
    let end = loop {
        match c.next_action() {
            SignOnAction::Post { query, body } => {
                let reply = h.answer(0, &query, &body, Ipv4Addr::LOCALHOST).unwrap();
                c.on_response(200, &reply.encode());
            }
            SignOnAction::Done(end) => break end,
            _ => {}
        }
    };
    assert_eq!(end.attempts, MAX_ATTEMPTS);
    assert!(end.grant.is_none());
    assert!(end.stopped.unwrap().contains("still not signed on"));
}
