//! Every conformance case against our host, in-process with a virtual clock: the clean
//! cases pass, and for every enforced rule a host told to break it is caught.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)] // test code

use vex_conformance::{CheckOptions, Verdict, catalog, run_in_process};
use vex_fake_client::{ENFORCED, Rule};
use vex_faults::Fault;

fn assert_case(id: &str) {
    let case = catalog()
        .into_iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no case {id}"));
    let r = run_in_process(&case, CheckOptions::STRICT_DEVELOPMENT);
    if r.verdict != Verdict::Pass {
        let transcript = r
            .run
            .map(|run| run.transcript.to_text())
            .unwrap_or_default();
        panic!(
            "{id}: {:?}\nviolations: {:#?}\n{transcript}",
            r.verdict, r.violations
        );
    }
}

#[test]
fn route_join() {
    assert_case("route.join");
}

#[test]
fn link_keepalive() {
    assert_case("link.keepalive");
}

#[test]
fn route_refresh() {
    assert_case("route.refresh");
}

#[test]
fn slots_request() {
    assert_case("slots.request");
}

#[test]
fn route_identity() {
    assert_case("route.identity");
}

#[test]
fn route_start_activity() {
    assert_case("route.start_activity");
}

#[test]
fn route_authority() {
    assert_case("route.authority");
}

#[test]
fn route_region() {
    assert_case("route.region");
}

#[test]
fn route_leave() {
    assert_case("route.leave");
}

#[test]
fn activity_members_two() {
    assert_case("activity.members.two");
}

#[test]
fn activity_members_three() {
    assert_case("activity.members.three");
}

/// Eight members: every member's last table names all eight, and no slot is shared.
#[test]
fn activity_members_eight() {
    assert_case("activity.members.eight");
    let case = catalog()
        .into_iter()
        .find(|c| c.id == "activity.members.eight")
        .unwrap();
    let run = run_in_process(&case, CheckOptions::STRICT_DEVELOPMENT)
        .run
        .unwrap();
    let text = run.transcript.to_text();
    assert!(text.contains("m8.activity"), "eight members ran");
}

/// Every case of the catalog passes, the ones added without a test of their own too.
#[test]
fn every_case_passes() {
    let failed: Vec<String> = catalog()
        .iter()
        .map(|case| run_in_process(case, CheckOptions::STRICT_DEVELOPMENT))
        .filter(|r| r.verdict != Verdict::Pass)
        .map(|r| format!("{}: {:?}", r.case.id, r.verdict))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

macro_rules! caught {
    ($($test:ident => $fault:ident),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                let fault = Fault::$fault;
                assert_case(&format!("catch.{}.{fault:?}", fault.rule()));
            }
        )*
    };
}

caught! {
    catch_bap01 => BadOuterMagic,
    catch_bap01_type => BadFrameType,
    catch_bap02 => CorruptTag,
    catch_bap02_before_hello => EncryptedBeforeHello,
    catch_bap03 => ShortInnerHeader,
    catch_bap03_tiny => TinyInnerMessage,
    catch_bap03_service_8 => ShortServiceEightHeader,
    catch_bap04 => ServiceIdOutOfRange,
    catch_bap05 => WrongTaskEcho,
    catch_bap05_status => ResponseStatus,
    catch_bap06 => UnansweredLookup,
    catch_bap06_duplicate => DuplicateEcho,
    catch_bap08 => SubscriptionLostShort,
    catch_bap17_mac => HelloBadMac,
    catch_bap17_short => HelloShort,
    catch_bap17_length => HelloLengthField,
    catch_bap12 => ZeroLookupAddress,
    catch_bap12_port => ZeroLookupPort,
    catch_bap12_size => ShortLookupResponse,
    catch_bap12_reserved => LookupReserved,
    catch_bap12_id => LookupWrongId,
    catch_bap13 => Service7Discriminator,
    catch_bap13_zero => ZeroSessionId,
    catch_bap13_size => ShortService7,
    catch_env01 => PushDiscriminator,
    catch_env02 => PayloadLenLarger,
    catch_env03 => PayloadLenHuge,
    catch_env04 => UnknownMessageId,
    catch_env05 => JoinResultWrongSession,
    catch_env05_unbound => PushWithoutSession,
    catch_env06 => PushBeforeJoin,
    catch_env07 => WrongSessionAfterJoin,
    catch_env08 => SharedSessionId,
    catch_host16_reset => AnswerResetAcknowledgement,
    catch_host16_query => AnswerFullMask,
    catch_host17 => AnswerAbdication,
    catch_seed03 => KeyOnAllParticipationSlots,
    catch_auth05_unknown_slot => UnknownSlotBlock,
    catch_host05_region => StaleParticipationRegion,
    catch_host12_refused => RefusePatchEpoch,
    catch_t302_every_send => GenerationOnEverySend,
    catch_seed03_second => KeyOnSecondParticipationSlot,
    catch_auth16_blocks => BlocksOnKeepalive,
    catch_env09 => BareSessionId,
    catch_env10 => PushSequence,
    catch_join02 => BurstWithoutWorldGlobals,
    catch_slots02 => SlotsOnTimer,
    catch_link03 => SlowKeepalive,
    catch_join01 => BurstOrder,
    catch_join03 => ShortJoinResult,
    catch_join04 => JoinRejected,
    catch_join05 => NonceMismatch,
    catch_join05_host_id => WrongHostId,
    catch_join06 => ZeroHostId,
    catch_join09 => NoMembership,
    catch_global01 => ShortGlobalState,
    catch_global02 => BubbleCountMismatch,
    catch_global04 => RebuiltDescriptor,
    catch_world01 => ZeroTickPeriod,
    catch_world02 => NanTickPeriod,
    catch_member02 => ForeignMembership,
    catch_member07 => MembershipRevisionKept,
    catch_member07_skips => MembershipRevisionSkips,
    catch_member01 => LeaverKeptInTable,
    catch_host15 => IdentityIgnored,
    catch_host14 => PublicBurstActivityTable,
    catch_bhs01 => TooManyHostRows,
    catch_auth01 => WrongEpochEcho,
    catch_auth01_latched => PatchEpochLatched,
    catch_auth02 => AuthBeforeEpoch,
    catch_auth04 => RosterDisabled,
    catch_auth05 => WrongRemainder,
    catch_auth05_last => WrongRemainderLast,
    catch_auth06 => SenseBitWithoutSchema,
    catch_auth06_auth_bits_left_out => AuthBitsLeftOut,
    catch_auth06_sense_bit_left_out => SenseBitLeftOut,
    catch_auth07 => EmptyGroupKey,
    catch_auth08 => MissingBlock,
    catch_auth12 => GrantBubbleZero,
    catch_slot01 => UnresolvableRef,
    catch_slot02 => DescriptorlessType,
    catch_t17_01 => LifetimeStateEleven,
    catch_t17_03 => SwitchListOverflow,
    catch_auth09 => RosterWithoutBodies,
    catch_auth10 => OverBudgetAuthUpdate,
    catch_auth10_tick => TwoRostersInOneTick,
    catch_global03 => UnbiasedBubbleStates,
    catch_body05 => DefinitionRefsOverflow,
    catch_epoch01_repeat => RepeatedEpoch,
    catch_epoch01_skip => SkippedEpoch,
    catch_epoch02 => AbortEpoch,
    catch_sticky02 => RosterAfterAbort,
    catch_member03 => MembershipOnTimer,
    catch_host03_ignored => RefreshIgnored,
    catch_host03_no_roster => RefreshWithoutRoster,
    catch_host03_start_activity => StartActivityIgnored,
    catch_slots04 => JoinGrantIgnoresOthers,
    catch_host04 => SlotRequestIgnored,
    catch_host04_empty => SlotGrantEmpty,
    catch_host04_held => SlotGrantHeld,
    catch_incident01 => IncidentPastTable,
    catch_incident02 => IncidentCrashingRow,
    catch_incident03 => IncidentTooManyTargets,
    catch_incident04 => IncidentCompressedSelector,
    catch_incident05 => IncidentPayloadTooLong,
    catch_host12 => AnswerPatchEpoch,
    catch_bap07 => ReplyOnSendOnly,
    catch_env11 => KeepaliveResponse,
    catch_join07 => ZeroKeepaliveInterval,
    catch_leave01_ignored => LeaveIgnored,
    catch_leave01_presence => LeaveKeepsPresence,
    catch_leave02 => RosterAfterLeave,
    catch_link01 => SilentAfterJoin,
    catch_link01_close => CloseAfterJoin,
    catch_host05 => RegionNotCommitted,
    catch_auth13 => RosterOnRegionReport,
    catch_t17_06_slice_set => LifetimeBubbleAsSliceSet,
    catch_t17_06_zero_bits => LifetimeBubbleZeroBits,
    catch_t17_02 => LifetimeBodyShort,
    catch_t17_04 => SpawnPairHalfOff,
    catch_t17_07 => JoinFlagZero,
    catch_t17_08 => CycleOverrideWithoutPhase,
    catch_t17_09 => SelectionIdZeroBits,
    catch_t24_01 => ChannelRowsOverflow,
    catch_slot03 => ZeroedTimerWindow,
    catch_t3_01 => SnapshotDropsObjective,
    catch_t3_02 => SnapshotDropsGeneration,
    catch_t65_01 => GhostChangeWithoutGeneration,
    catch_host08_ignored => PurgeIgnored,
    catch_host08_reason => PurgeNoticeOtherReason,
    catch_host08_mask => PurgeNoticeOtherMask,
    catch_host08_bare_mask => PurgeNoticeBareOtherMask,
    catch_auth11_no_token => BubbleBitWithoutToken,
    catch_auth11_spent => BubbleTokenSpent,
    catch_auth11_renewed => BubbleGrantRenewed,
    catch_auth11_zero => BubbleTokenZero,
    catch_t65_02_one => GhostFinishAtOne,
    catch_t65_02_generation => GhostFinishOldGeneration,
    catch_env12_script_state => ScriptStatePushed,
    catch_env12_perf => PerfReflectPushed,
    catch_body04_claim => ShortClaim,
    catch_body04_connectivity => ShortConnectivityFailure,
    catch_member01_mask => MemberMaskWrong,
    catch_member01_host_key => HostKeyForeign,
    catch_member04 => MemberFieldsZero,
    catch_member05 => MembershipEpochMoves,
    catch_member06 => AmbassadorSlotZero,
    catch_peer04_citizen_short => CitizenDescriptorShort,
    catch_peer04_citizen_long => CitizenDescriptorLong,
    catch_seed01 => FirstSendWithoutReset,
    catch_seed05 => LifetimeStateFour,
    catch_seed06 => StateByteCounter,
    catch_auth17 => SingletonGateSet,
    catch_auth18 => BubbleHeaderSet,
    catch_auth19 => BubbleHostTokenSet,
    catch_t17_05 => SecondLifetimeDiffers,
    catch_global07_outside => InitialSliceSetOutside,
    catch_global07_spawn_set => InitialSpawnSetOther,
    catch_world03 => OtherTickPeriod,
    catch_seed02 => TopGroupUnregistered,
    catch_bap15 => EchoWithBody,
    catch_bap15_subscribe => SubscribeReplyWithBody,
    catch_bap15_queuez_register => QueuezRegisterReplyWithBody,
    catch_bap15_relay => RelayReplyWithBody,
    catch_auth16_repeat => RosterOnKeepalive,
    catch_auth16_none => NoFirstRoster,
    catch_bap16 => LookupAnsweredLate,
    catch_bap18 => LostFrame,
    catch_bap19 => ShortChannelStart,
    catch_bap09_request_id => PushOnRequestService,
    catch_bap09_unregistered => PushOnUnregisteredService,
    catch_bap09_last_request => PushOnLastRequestService,
    catch_bap10_service6 => PushOnService6,
    catch_bap10_service161 => PushOnService161,
    catch_body04_service6 => UndecodablePushOnService6,
    catch_body04_envelope => ShortPushEnvelope,
    catch_body04_burst_membership => ShortBurstMembership,
    catch_body04_membership => ShortMembership,
    catch_slots01_short_grant => ShortSlotGrant,
    catch_slots01_short_answer => ShortSlotAnswer,
    catch_body04_world_globals => ShortWorldGlobals,
    catch_body04_host_state => EmptyHostState,
    catch_body04_epoch => EmptyEpochAdvance,
    catch_body04_auth_prefix => ShortAuthPrefix,
    catch_body04_roster => TruncatedRoster,
    catch_body04_incident => ShortIncident,
}

/// Every rule the emulated client enforces has a fault that breaks it, and every fault
/// names an enforced rule: no check without a test that makes it fire.
#[test]
fn every_enforced_rule_has_a_caught_fault() {
    let faulted: std::collections::BTreeSet<Rule> = Fault::ALL.iter().map(|f| f.rule()).collect();
    for rule in ENFORCED {
        assert!(faulted.contains(rule), "{rule} has no fault case");
    }
    for f in Fault::ALL {
        assert!(
            ENFORCED.contains(&f.rule()),
            "{f:?} names an unenforced rule"
        );
    }
}

/// The same configuration gives the same transcript (design: deterministic cores).
#[test]
fn runs_are_deterministic() {
    let case = catalog()
        .into_iter()
        .find(|c| c.id == "route.join")
        .unwrap();
    let a = run_in_process(&case, CheckOptions::STRICT_DEVELOPMENT)
        .run
        .unwrap();
    let b = run_in_process(&case, CheckOptions::STRICT_DEVELOPMENT)
        .run
        .unwrap();
    assert_eq!(a.transcript.to_text(), b.transcript.to_text());
}

/// Each case's transcript, written as text, read back and replayed to a fresh client,
/// gives the recorded run again: the same violations at the same frames, the same status
/// line and outcome, and the same frames sent, byte for byte (design "Transcripts and the
/// corpus").
#[test]
fn every_transcript_replays_to_the_same_verdict() {
    use vex_fake_client::ClientConfig;
    use vex_harness::replay;
    use vex_harness::transcript::Transcript;
    let mut differ = Vec::new();
    // a second member's frames are in the transcript, but a replay plays member 1
    for case in catalog().into_iter().filter(|c| c.members == 1) {
        let run = run_in_process(&case, CheckOptions::STRICT_DEVELOPMENT)
            .run
            .unwrap();
        let text = run.transcript.to_text();
        let client = ClientConfig::builtin(std::net::SocketAddrV4::new(
            std::net::Ipv4Addr::LOCALHOST,
            30974,
        ));
        let again = replay::to_client(&Transcript::parse(&text).unwrap(), client);
        let seen = |r: &vex_harness::RunReport| {
            let v: Vec<_> = r.violations.iter().map(|v| (v.rule, v.frame)).collect();
            let sent: Vec<_> = r
                .transcript
                .lines
                .iter()
                .filter(|l| l.direction == vex_harness::transcript::Direction::ToHost)
                .cloned()
                .collect();
            (v, r.status, r.outcome.clone(), sent)
        };
        if seen(&run) != seen(&again) {
            differ.push(format!(
                "{}: recorded {:?}, replayed {:?}",
                case.id,
                seen(&run),
                seen(&again)
            ));
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}

/// A two-member transcript replays member 1's run: the frames it sent and its status,
/// with member 2's lines left out.
#[test]
fn a_two_member_transcript_replays_member_one() {
    use vex_fake_client::ClientConfig;
    use vex_harness::replay;
    use vex_harness::transcript::{Direction, Transcript};
    let case = catalog()
        .into_iter()
        .find(|c| c.id == "activity.members.two")
        .unwrap();
    let run = run_in_process(&case, CheckOptions::STRICT_DEVELOPMENT)
        .run
        .unwrap();
    let text = run.transcript.to_text();
    assert!(
        text.contains("m2.activity"),
        "member 2 is in the transcript"
    );
    let client = ClientConfig::builtin(std::net::SocketAddrV4::new(
        std::net::Ipv4Addr::LOCALHOST,
        30974,
    ));
    let again = replay::to_client(&Transcript::parse(&text).unwrap(), client);
    let sent = |t: &Transcript| -> Vec<_> {
        t.lines
            .iter()
            .filter(|l| l.direction == Direction::ToHost && l.member == 1)
            .cloned()
            .collect()
    };
    assert_eq!(sent(&again.transcript), sent(&run.transcript));
    assert!(again.violations.is_empty() && again.status.in_activity());
}

/// Three members: member 3 leaves and joins again, and at the end every member is in the
/// activity and every member's last table names all three (the check between members
/// would not see a member that never got back in).
#[test]
fn a_member_that_rejoins_is_in_every_table_again() {
    use vex_harness::in_process;
    use vex_host::HostConfig;
    use vex_wire::bap::secure::SignOnKeys;
    let case = catalog()
        .into_iter()
        .find(|c| c.id == "activity.members.three")
        .unwrap();
    let address = HostConfig::default_address();
    let clients = case.clients(address, SignOnKeys::DEVELOPMENT);
    let reports = in_process::run_members(HostConfig::builtin(address), clients, case.run_for_ms);
    assert_eq!(reports.len(), 3);
    let rejoiner = &reports[2];
    let joins = rejoiner
        .transcript
        .lines
        .iter()
        .filter(|l| l.message == Some(3))
        .count();
    assert_eq!(joins, 2, "member 3 joined twice");
    for (m, r) in reports.iter().enumerate() {
        assert!(r.member.present, "member {} is in the activity", m + 1);
        let (_, last) = r.member.tables.last().unwrap();
        assert_eq!(last.len(), 3, "member {}'s last table: {last:?}", m + 1);
    }
    assert!(reports.iter().all(|r| r.violations.is_empty()));
}

/// Every fault a case that runs against any host names (`Case::shows`) makes that case
/// fail with the fault's rule, without `--strict`: the case judges that rule of a
/// third-party host.
#[test]
fn every_any_host_case_fails_against_each_fault_it_shows() {
    let mut judged = 0;
    for case in catalog() {
        for fault in case.shows() {
            let r = vex_conformance::run_in_process_against(
                &case,
                vex_faults::HostPlan::single(fault),
                CheckOptions::DEVELOPMENT,
            );
            assert!(
                matches!(r.verdict, Verdict::Fail { .. }),
                "{} passes against {fault:?}",
                case.id
            );
            assert!(
                r.violations.iter().any(|v| v.rule == fault.rule()),
                "{} fails against {fault:?} without {}: {:#?}",
                case.id,
                fault.rule(),
                r.violations
            );
            judged += 1;
        }
    }
    assert!(judged > 100, "{judged} case and fault pairs");
}

/// The README's count of the cases that run against any host, and of the rules they
/// judge, is the catalog's.
#[test]
fn the_readme_counts_the_cases_that_run_against_any_host() {
    let any: Vec<vex_conformance::Case> = vex_conformance::catalog()
        .into_iter()
        .filter(|c| c.host.runs_against_any_host())
        .collect();
    let rules: std::collections::BTreeSet<_> = any.iter().flat_map(|c| c.rules.clone()).collect();
    let readme = include_str!("../../README.md");
    let said = format!(
        "Against any host (`vex check --target`), {} cases run and judge {} rules",
        any.len(),
        rules.len()
    );
    assert!(readme.contains(&said), "the README should say: {said}");
}
