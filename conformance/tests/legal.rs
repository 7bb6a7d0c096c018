//! Every `legal.*` case: our host takes a freedom the pages leave, the emulated client
//! reports nothing, and the run shows the host did take it (a legal case whose variation
//! never reached the wire would prove nothing).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // test code

use prost::Message;
use serde_json::Value as Json;
use vex_conformance::{CheckOptions, HostUnderTest, Verdict, auth_update, catalog};
use vex_faults::HostPlan;
use vex_faults::Variation;
use vex_harness::RunReport;
use vex_harness::transcript::{Direction, Line};
use vex_host::outbound::Outbound;
use vex_host::policy::Policy;
use vex_wire::activity::body::Body;
use vex_wire::activity::global_state::GlobalActivityState;
use vex_wire::activity::ids;
use vex_wire::activity::incident::Incident;
use vex_wire::activity::join::JoinResult;
use vex_wire::activity::small::AdvanceEpoch;
use vex_wire::activity::small::{EntitySlotMask, WorldGlobals};
use vex_wire::bap::account_translation;
use vex_wire::bap::header::InnerHeader;
use vex_wire::bap::matchmaking::{self, Reply as MmReply};
use vex_wire::bap::queuez::{self, FamilyUpdate, ObjectUpdate, Update};
use vex_wire::bap::services;
use vex_wire::bap::web_service::{self, SUBSCRIBE, Shape, Status, WsReply};
use vex_wire::bits::BitReader;
use vex_wire::lobby::signon::{Outcome, SignOnResponse};
use vex_wire::peer::advertisement::{GROUP_SESSION, judge};
use vex_wire::peer::qos::QosReply;

/// The host's activity messages `msg` of member 1, with when they came.
fn pushes(run: &RunReport, msg: u32) -> Vec<(u64, &[u8])> {
    run.transcript
        .lines
        .iter()
        .filter(|l| l.direction == Direction::ToClient && l.member == 1 && l.message == Some(msg))
        .filter_map(|l: &Line| Some((l.at.millis(), l.payload.as_deref()?)))
        .collect()
}

/// When member 1 sent activity message `msg` first.
fn sent(run: &RunReport, msg: u32) -> Option<u64> {
    run.transcript
        .lines
        .iter()
        .find(|l| l.direction == Direction::ToHost && l.message == Some(msg))
        .map(|l| l.at.millis())
}

/// Every message 5's blocks of `slot_type`, as `vex decode --json` reads them, with when
/// the message came.
fn blocks(run: &RunReport, slot_type: u64) -> Vec<(u64, Json)> {
    let mut found = Vec::new();
    for (at, payload) in pushes(run, ids::SENSOR_AUTH_UPDATE) {
        let m = auth_update::json(payload).unwrap();
        for group in m["groups"].as_array().unwrap() {
            for o in group["objects"].as_array().unwrap() {
                if o["slot"]["slot_type"].as_u64() == Some(slot_type) {
                    found.push((at, o.clone()));
                }
            }
        }
    }
    found
}

/// The values of `field` of the type-17 bodies member 1 got, in order.
fn lifetime(run: &RunReport, field: &str) -> Vec<(u64, i64)> {
    blocks(run, 17)
        .into_iter()
        .filter_map(|(at, o)| Some((at, o["body"]["fields"][field].as_i64()?)))
        .collect()
}

/// Whether member 1 got a service-123 push.
fn queuez_seen(run: &RunReport) -> bool {
    run.transcript
        .lines
        .iter()
        .any(|l| l.direction == Direction::ToClient && l.member == 1 && l.service == queuez::UPDATE)
}

/// Whether the bits of `payload` hold `word` (32 bits, as the bit writer puts it) at any
/// bit offset.
fn carries_word(payload: &[u8], word: u32) -> bool {
    let bits = payload.len() * 8;
    (0..bits.saturating_sub(31)).any(|at| {
        let mut r = BitReader::new(payload);
        r.skip(at).is_ok() && r.read(32).ok() == Some(u64::from(word))
    })
}

/// A family-4 snapshot as our host makes one: version 1, a raw character object.
fn family_snapshot() -> Update {
    Update {
        families: vec![FamilyUpdate {
            family: queuez::ACCOUNT_FAMILY,
            root: 1,
            version: 1,
            full_snapshot: true,
            objects: vec![ObjectUpdate {
                object_id: queuez::CHARACTER_OBJECT,
                key: 7,
                encoding: queuez::ENCODING_RAW,
                payload: [7u64.to_be_bytes().as_slice(), &[0; 56]].concat(),
            }],
        }],
    }
}

/// The QoS replies member 1 read off the host's UDP port.
fn qos_replies(run: &RunReport) -> Vec<Vec<u8>> {
    run.transcript
        .lines
        .iter()
        .filter(|l| l.direction == Direction::ToClient && l.member == 1 && l.link.is_none())
        .map(|l| l.bytes.clone())
        .collect()
}

/// `body`, a reply on lobby service `service`, as the plan of `v` sends it; an error when
/// the run had no such reply.
fn answered(v: Variation, run: &RunReport, service: u16, body: &mut Vec<u8>) -> Result<(), String> {
    let seen = run
        .transcript
        .lines
        .iter()
        .any(|l| l.direction == Direction::ToClient && l.member == 1 && l.service == service);
    if !seen {
        return Err(format!("no service {service} in the run"));
    }
    let mut header = InnerHeader::response(service, 1);
    HostPlan::varying(v).response(service, &mut header, body);
    Ok(())
}

/// SignOn's answers to member 1, decoded.
fn signon_answers(run: &RunReport) -> Vec<SignOnResponse> {
    let record = run.transcript.signon.as_ref().expect("the case signs on");
    record
        .answers
        .iter()
        .filter(|a| !a.manifest)
        .map(|a| SignOnResponse::decode(a.body.as_slice()).unwrap())
        .collect()
}

/// What the run shows of `v`, or why it shows nothing.
fn shows(v: Variation, run: &RunReport) -> Result<(), String> {
    let check = |ok: bool, what: &str| if ok { Ok(()) } else { Err(what.to_string()) };
    match v {
        Variation::CurrentBubbleKept => {
            let moved = sent(run, ids::CLIENT_AUTHORITATIVE_DATA_UPDATE).ok_or("no move")?;
            let after = lifetime(run, "current_bubble");
            let kept = after.iter().any(|&(at, b)| at > moved && b == 0);
            check(
                kept,
                &format!("current_bubble after the move at {moved}: {after:?}"),
            )
        }
        Variation::LoadingStateFirst => {
            let states: Vec<i64> = lifetime(run, "state").into_iter().map(|(_, s)| s).collect();
            let loading_then_live = states.first() == Some(&1) && states.contains(&3);
            check(loading_then_live, &format!("states {states:?}"))
        }
        Variation::StateByteWarmUp => {
            let bytes: Vec<i64> = pushes(run, ids::SENSOR_AUTH_UPDATE)
                .into_iter()
                .filter_map(|(_, p)| auth_update::json(p).unwrap()["roster"]["states"][0].as_i64())
                .collect();
            let warm = bytes.len() > 4 && bytes[0] != bytes[1] && bytes[1] != bytes[2];
            let then_still = bytes.iter().skip(2).all(|b| *b == bytes[2]);
            check(warm && then_still, &format!("first key's bytes {bytes:?}"))
        }
        Variation::ObjectiveReset => {
            let absent = blocks(run, 3)
                .iter()
                .any(|(_, o)| o["body"]["fields"]["generation"].is_null());
            check(absent, "no objective body without its generation")
        }
        Variation::AuthCleared => {
            let roots: Vec<bool> = blocks(run, 24)
                .iter()
                .map(|(_, o)| !o["body"]["fields"].is_null())
                .collect();
            let cleared = roots.windows(2).any(|w| w[0] && !w[1]);
            check(cleared, &format!("channel bodies {roots:?}"))
        }
        Variation::TickPeriodRounded => {
            let ticks: Vec<f32> = pushes(run, ids::WORLD_GLOBALS_STATE)
                .into_iter()
                .map(|(_, p)| WorldGlobals::decode(p).unwrap().tick_ms)
                .collect();
            check(ticks.iter().all(|t| *t == 33.3333), &format!("{ticks:?}"))
        }
        Variation::InitialSliceSetUnarmed => {
            let (_, burst) = pushes(run, ids::GLOBAL_ACTIVITY_STATE)[0];
            let armed = GlobalActivityState::decode(burst)
                .unwrap()
                .arm_initial_slice_set;
            check(!armed, "the burst's message 1 arms the slice set")
        }
        Variation::SlotMaskTrailingByte => {
            let (_, burst) = pushes(run, ids::ENTITY_SLOTS_ALLOCATED)[0];
            check(
                burst.len() == 1_025,
                &format!("message 0 of {} bytes", burst.len()),
            )
        }
        Variation::QueuedZeros => {
            let answers = signon_answers(run);
            let zeros = answers
                .iter()
                .any(|a| a.queued.as_ref().is_some_and(|q| q.position == Some(0)));
            let signed_on =
                answers.last().and_then(|a| a.outcome) == Some(Outcome::Success.field());
            check(zeros && signed_on, "no queued zeros before the success")
        }
        Variation::ThrottledNoWait => {
            let answers = signon_answers(run);
            let no_wait =
                |a: &&SignOnResponse| a.throttled.as_ref().and_then(|t| t.retry_seconds) == Some(0);
            let throttled = answers.iter().filter(no_wait).count();
            let signed_on =
                answers.last().and_then(|a| a.outcome) == Some(Outcome::Success.field());
            check(
                throttled == 2 && signed_on,
                &format!("{throttled} throttled answers with no wait, then success {signed_on}"),
            )
        }
        // the lobby link's bodies are sealed in the transcript: the run shows the calls
        // were made, and the plan's hook shows what it does to our host's own reply
        Variation::AccountTranslationSmallest => {
            let mut body = vec![0; 20];
            answered(v, run, account_translation::RESPONSE, &mut body)?;
            check(
                body == [0, 0, 0xFF, 0xFF],
                &format!("service 24 {body:02x?}"),
            )
        }
        Variation::WebServiceRefused => {
            let done = WsReply {
                opcode: SUBSCRIBE,
                transaction: 2,
                status: Some(Status::DONE),
            };
            let mut body = done.encode(Shape::of(SUBSCRIBE));
            answered(v, run, web_service::REPLY, &mut body)?;
            let r = WsReply::decode(&body, Shape::of(SUBSCRIBE)).unwrap();
            check(r.status.is_some_and(|s| s.code == 2), &format!("{r:?}"))
        }
        Variation::AdvertisementRefused | Variation::SearchResultsOmitted => {
            let success = MmReply {
                assignment: Some(matchmaking::ASSIGNED),
                search: Some(Vec::new()),
                ..MmReply::default()
            };
            let mut body = success.encode_to_vec();
            answered(v, run, matchmaking::REPLY, &mut body)?;
            let r = MmReply::decode(body.as_slice()).unwrap();
            let gone = match v {
                Variation::SearchResultsOmitted => r.search.is_none(),
                _ => r.assignment.is_none(),
            };
            check(gone, &format!("{r:?}"))
        }
        Variation::PurgeNoticeBareMask => {
            let notices = pushes(run, ids::PURGE_NOTICE);
            let bare = notices.iter().any(|(_, p)| p.len() == 1_024);
            check(
                bare,
                &format!("{} notices, none of 1,024 bytes", notices.len()),
            )
        }
        Variation::QueuezEmptyFirst => {
            let pushes = HostPlan::varying(v).queuez(family_snapshot());
            let shape: Vec<(i32, usize)> = pushes
                .iter()
                .flat_map(|b| Update::decode(b).unwrap().families)
                .map(|f| (f.version, f.objects.len()))
                .collect();
            check(
                queuez_seen(run) && shape == [(0, 0), (1, 1)],
                &format!("versions and object counts {shape:?}"),
            )
        }
        Variation::QueuezEncodings => {
            let seen = queuez_seen(run);
            let pushes = HostPlan::varying(v).queuez(family_snapshot());
            let encodings: Vec<u32> = pushes
                .iter()
                .flat_map(|b| Update::decode(b).unwrap().families)
                .flat_map(|f| f.objects)
                .map(|o| o.encoding)
                .collect();
            let want = [queuez::ENCODING_RAW, queuez::ENCODING_OODLE];
            check(
                seen && encodings == want,
                &format!("encodings {encodings:?}"),
            )
        }
        Variation::EpochWraps => {
            let (_, join) = pushes(run, ids::JOIN_RESULT)[0];
            let initial = JoinResult::decode(join).unwrap().initial_epoch;
            let epochs: Vec<u8> = pushes(run, ids::ADVANCE_REPLICATION_EPOCH)
                .into_iter()
                .map(|(_, p)| AdvanceEpoch::decode(p).unwrap().epoch)
                .collect();
            check(
                initial == 255 && epochs.first() == Some(&0),
                &format!("{initial} then {epochs:?}"),
            )
        }
        Variation::KeepaliveIntervalOne | Variation::SunriseJoinTimings => {
            let (_, join) = pushes(run, ids::JOIN_RESULT)[0];
            let j = JoinResult::decode(join).unwrap();
            let want = match v {
                Variation::KeepaliveIntervalOne => (1, j.peer_heard_window_ms),
                _ => (5_000, 0),
            };
            let got = (j.keepalive_interval_ms, j.peer_heard_window_ms);
            check(got == want, &format!("{got:?}"))
        }
        Variation::SwitchListFull => {
            let counts: Vec<usize> = blocks(run, 17)
                .iter()
                .filter_map(|(_, o)| o["body"]["fields"]["switches"].as_array().map(Vec::len))
                .collect();
            check(counts.contains(&50), &format!("switch counts {counts:?}"))
        }
        Variation::SessionIndexTop => {
            let own = run.member.own_session;
            check(
                own.is_some_and(|id| id & 0xFFFF == 0xFFFF),
                &format!("service 7 named {own:x?}"),
            )
        }
        Variation::DeltasAfterSeed => {
            let deltas = blocks(run, 17)
                .iter()
                .any(|(_, o)| o["body"]["reset"] == false);
            check(deltas, "no type-17 body sent with reset 0")
        }
        Variation::LifetimeEdges => {
            let edges = blocks(run, 17).iter().any(|(_, o)| {
                let f = &o["body"]["fields"];
                let no_switch = f["switches"].as_array().is_some_and(Vec::is_empty);
                let pair_on = f["spawn_override"][0]["index"].as_i64() == Some(0);
                no_switch && pair_on && f["selection_id"].as_i64() == Some(63)
            });
            check(
                edges,
                "no type-17 body with no switch, pair 0 on and selection 63",
            )
        }
        Variation::ChannelRowsFull => {
            let counts: Vec<usize> = blocks(run, 24)
                .iter()
                .filter_map(|(_, o)| o["body"]["fields"]["rows"].as_array().map(Vec::len))
                .collect();
            check(counts.contains(&4), &format!("row counts {counts:?}"))
        }
        Variation::IncidentAtLimits => {
            let full = pushes(run, ids::INCIDENT).into_iter().any(|(_, p)| {
                Incident::decode(p).is_ok_and(|i| {
                    i.definition == 7_762 && i.targets.len() == 25 && i.payload.len() == 500
                })
            });
            check(full, "no incident at every limit")
        }
        Variation::SignOnFull => {
            let answers = signon_answers(run);
            let last = answers.last().unwrap();
            let full = last.features.len() == 8
                && last
                    .success
                    .as_ref()
                    .is_some_and(|s| s.key_exchange.is_some() && s.isp.is_some());
            check(full, "no full success")
        }
        Variation::SubscriptionLostPushed => {
            // a sealed frame: outer header, GCM tag, inner header, then the 14 bytes
            let lost = run.transcript.lines.iter().any(|l| {
                l.direction == Direction::ToClient
                    && l.service == queuez::SUBSCRIPTION_LOST
                    && l.bytes.len() == 6 + 16 + 6 + queuez::SUBSCRIPTION_LOST_LEN
            });
            check(lost, "no 14-byte push on service 124")
        }
        Variation::SlotGrantOne => {
            let answers: Vec<usize> = pushes(run, ids::ENTITY_SLOTS_ALLOCATED)
                .into_iter()
                .skip(1) // the join burst's grant
                .map(|(_, p)| EntitySlotMask(p.to_vec()).count())
                .collect();
            check(
                answers == [1],
                &format!("message 20 answered with {answers:?} slots"),
            )
        }
        Variation::BubbleTokenTop => {
            let tokens: Vec<Json> = pushes(run, ids::SENSOR_AUTH_UPDATE)
                .into_iter()
                .map(|(_, p)| auth_update::json(p).unwrap()["bubble_block"]["grants"].clone())
                .filter(|g| !g.is_null())
                .collect();
            let top = tokens.first().is_some_and(|g| g[0]["token"] == 0xFFFF);
            check(top, &format!("grants {tokens:?}"))
        }
        Variation::GhostFinishJustAbove => {
            let above = f32::from_bits(1.0f32.to_bits() + 1).to_bits();
            let finished = pushes(run, ids::SENSOR_AUTH_UPDATE)
                .into_iter()
                .any(|(_, p)| carries_word(p, above));
            check(finished, "no Sense override with fraction 1.0000001")
        }
        Variation::Service7OpaqueFilled => {
            let mut body = [[2].as_slice(), &[0, 0, 0, 1, 0, 0x20, 0, 1], &[0; 128]].concat();
            answered(v, run, services::HOST_RESPONSE, &mut body)?;
            let filled = body.len() == 137 && body[9..].iter().all(|b| *b != 0);
            check(filled, &format!("service 7 {body:02x?}"))
        }
        Variation::NonceCarries => {
            let base = HostPlan::varying(v).base_nonce([0x12; 12]);
            let sealed = run
                .transcript
                .lines
                .iter()
                .filter(|l| l.direction == Direction::ToClient && l.bytes.get(1) == Some(&1));
            check(
                base[..11] == [0xFF; 11] && sealed.count() > 2,
                &format!("base nonce {base:02x?}"),
            )
        }
        Variation::PlainTypeSwapped => {
            let plain = |l: &&Line| l.bytes.get(1).is_some_and(|t| *t != 1);
            let mut asked = None;
            let mut swapped = 0;
            for l in run.transcript.lines.iter().filter(plain) {
                match l.direction {
                    Direction::ToHost => asked = l.bytes.get(1),
                    Direction::ToClient if asked.is_some_and(|t| Some(t) != l.bytes.get(1)) => {
                        swapped += 1;
                    }
                    _ => {}
                }
            }
            check(swapped > 0, "no plaintext answer in the other type")
        }
        Variation::AccountRawWhole => {
            let pushes = HostPlan::varying(v).queuez(family_snapshot());
            let whole = pushes
                .iter()
                .flat_map(|b| Update::decode(b).unwrap().families)
                .flat_map(|f| f.objects)
                .any(|o| {
                    o.object_id == queuez::ACCOUNT_OBJECT
                        && o.encoding == queuez::ENCODING_RAW
                        && o.payload.len() == queuez::MAX_PAYLOAD
                });
            check(queuez_seen(run) && whole, "no raw account of 96,280 bytes")
        }
        Variation::QosHeld => {
            let held: Vec<f32> = qos_replies(run)
                .iter()
                .filter_map(|r| Some(QosReply::read(r).ok()?.head.hold_time.get()))
                .collect();
            check(held == [0.25], &format!("hold times {held:?}"))
        }
        Variation::QosBuildsWide => {
            let bounds: Vec<(u32, u32)> = qos_replies(run)
                .iter()
                .filter_map(|r| {
                    let header = judge(QosReply::read(r).ok()?.payload, GROUP_SESSION).ok()?;
                    Some((header.build_high, header.build_low))
                })
                .collect();
            check(
                bounds == [(i32::MAX as u32, 1)],
                &format!("bounds {bounds:?}"),
            )
        }
        // the records are sealed: the run shows the join's end, the membership held
        Variation::PacketsAtWindowEdge
        | Variation::MemberOwnsOneSlot
        | Variation::HostIsLastMember => check(
            run.group_membership == Some((2, 2)),
            &format!("group membership {:?}", run.group_membership),
        ),
        Variation::JoinRejectedByHost => check(
            run.group_membership == Some((0, 0)),
            &format!("group membership {:?}", run.group_membership),
        ),
        Variation::ConfigurationBare => {
            let useful = MmReply {
                configuration: Some(vec![0x08, 0x3C]),
                ..MmReply::default()
            };
            let mut body = useful.encode_to_vec();
            answered(v, run, matchmaking::REPLY, &mut body)?;
            let r = MmReply::decode(body.as_slice()).unwrap();
            check(r.configuration == Some(Vec::new()), &format!("{r:?}"))
        }
        Variation::MembershipAfterBurst => {
            let (burst, _) = pushes(run, ids::BUBBLE_HOST_STATE)[0];
            let tables: Vec<u64> = pushes(run, ids::REPLICATE_MEMBERSHIP)
                .into_iter()
                .map(|(at, _)| at)
                .collect();
            let later = tables.first().is_some_and(|at| *at > burst);
            check(
                later,
                &format!("burst at {burst}, message 12 at {tables:?}"),
            )
        }
        Variation::SignOnDenied => {
            let answers = signon_answers(run);
            let error = answers.last().and_then(|a| a.error.as_ref());
            let denied =
                error.is_some_and(|e| e.reason == Some(1) && e.title.is_some() && e.body.is_some());
            check(denied, &format!("the last answer's error {error:?}"))
        }
        Variation::BlockLaunchFalse => {
            let answers = signon_answers(run);
            let flag = answers
                .last()
                .and_then(|a| a.success.as_ref()?.block_launch);
            check(flag == Some(false), &format!("field 13 {flag:?}"))
        }
    }
}

#[test]
fn every_legal_case_draws_no_finding_and_shows_its_variation() {
    let cases: Vec<_> = catalog()
        .into_iter()
        .filter(|c| matches!(c.host, HostUnderTest::Legal(_)))
        .collect();
    assert_eq!(cases.len(), Variation::ALL.len());
    for case in cases {
        let HostUnderTest::Legal(v) = case.host else {
            unreachable!()
        };
        let r = vex_conformance::run_in_process(&case, CheckOptions::STRICT_DEVELOPMENT);
        assert_eq!(r.verdict, Verdict::Pass, "{}: {:#?}", case.id, r.violations);
        let run = r.run.expect("the case ran");
        if let Err(why) = shows(v, &run) {
            panic!("{}: the host did not take the freedom: {why}", case.id);
        }
    }
}
