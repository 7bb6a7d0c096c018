//! The adversary: one [`Mode`] a run, what it remembers of the run, and the policy and
//! outbound hooks of the host core, each handed to the module of the mode's concept.

use crate::mode::{Answer as A, Envelope as E, Held as H, Mode, Roster as R, Small as S};
use crate::{answer, envelope, held, incident, member, roster, small};
use std::collections::HashMap;
use std::sync::Mutex;
use vex_host::config::TimedCommit;
use vex_host::outbound::{Delivery, Injected, Moment, Outbound, Payload};
use vex_host::policy::{Burst, Policy, RosterInputs, RosterSend};
use vex_host::reason::Dropped;
use vex_wire::activity::authority::Purge;
use vex_wire::activity::envelope::PushHeader;
use vex_wire::activity::global_state::GlobalActivityState;
use vex_wire::activity::join::JoinResult;
use vex_wire::activity::membership::ReplicateMembership;
use vex_wire::activity::sensor_auth::SensorAuthUpdate;
use vex_wire::activity::session::SessionId;
use vex_wire::activity::small::{AdvanceEpoch, EntitySlotMask, PatchEpoch, WorldGlobals};
use vex_wire::bap::header::InnerHeader;
use vex_wire::bap::queuez::Update;
use vex_wire::bits::BitError;

/// What the adversary remembers of its run.
#[derive(Debug, Default)]
pub struct Memory {
    /// Client messages seen, by id.
    pub reports: HashMap<u32, u32>,
    /// Keepalives run.
    pub keepalives: u32,
    /// The last body sent of each activity message.
    pub last: HashMap<u32, Vec<u8>>,
    /// The first session service 7 named (ENV-08).
    pub session: Option<u64>,
    /// The last member table as the host built it, and the revision it went out under.
    pub table: Option<(ReplicateMembership, u32)>,
    /// Tables sent.
    pub tables: u32,
    /// Message 5s built as snapshots.
    pub snapshots: u32,
    /// Snapshots the adversary answered itself.
    pub answered: u32,
    /// The last message 5 built that no request asked for.
    pub roster: Option<SensorAuthUpdate>,
    /// Service-123 messages sent.
    pub queuez: u32,
    /// Which message 5 of its link the last one built is.
    pub roster_send: u32,
}

/// The adversarial host.
#[derive(Debug)]
pub struct Adversary {
    /// Its mode.
    pub mode: Mode,
    /// What it remembers.
    pub memory: Mutex<Memory>,
}

impl Adversary {
    /// An adversary in `mode`.
    pub fn new(mode: Mode) -> Self {
        Self {
            mode,
            memory: Mutex::new(Memory::default()),
        }
    }

    /// Its memory.
    pub fn mem(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.memory.lock().expect("one thread")
    }
}

impl Policy for Adversary {
    fn session_id(&self, shaped: SessionId) -> SessionId {
        match self.mode {
            Mode::Envelope(E::SessionId(id)) => SessionId(id),
            _ => shaped,
        }
    }

    fn join_result(&self, accepted: JoinResult) -> JoinResult {
        small::join_result(self.mode, accepted)
    }

    fn join_echo(&self, record: Vec<u8>) -> Vec<u8> {
        small::join_echo(self.mode, record)
    }

    fn global_state(
        &self,
        state: GlobalActivityState,
        in_burst: bool,
    ) -> Result<GlobalActivityState, BitError> {
        Ok(small::global_state(self.mode, state, in_burst))
    }

    fn world_globals(&self, globals: WorldGlobals) -> WorldGlobals {
        match self.mode {
            Mode::Small(S::Tick(bits)) => WorldGlobals {
                tick_ms: f32::from_bits(bits),
                ..globals
            },
            Mode::Small(S::WorldFlag) => WorldGlobals {
                flag: true,
                ..globals
            },
            _ => globals,
        }
    }

    fn bubble_host_state(&self, body: Vec<u8>) -> Vec<u8> {
        match self.mode {
            Mode::Small(S::BhsRows(n)) => vec![n << 2],
            _ => body,
        }
    }

    fn join_burst(&self, burst: Burst, context: RosterInputs<'_>) -> Result<Burst, BitError> {
        match self.mode {
            Mode::Roster(R::InBurst { guessed }) => roster::in_burst(burst, context, guessed),
            _ => Ok(small::burst(self.mode, burst)),
        }
    }

    fn membership(&self, table: ReplicateMembership) -> ReplicateMembership {
        member::table(self, table)
    }

    fn roster(&self, m: SensorAuthUpdate, send: RosterSend) -> SensorAuthUpdate {
        let snapshot = {
            let mut mem = self.mem();
            let n = mem.snapshots;
            mem.snapshots += u32::from(send.snapshot);
            mem.roster_send = send.sent;
            send.snapshot.then_some(n)
        };
        match self.mode {
            Mode::Roster(r) => roster::roster(r, m, send),
            Mode::Lifetime(l) => roster::lifetime(l, m, send),
            Mode::Held(h) => held::roster(h, m, send, snapshot),
            Mode::Answer(A::StaleRosterAfterMove) => answer::stale(self, m, send),
            _ => m,
        }
    }

    fn keepalive_interval(&self) -> Option<u64> {
        match self.mode {
            Mode::Answer(A::Keepalive(k)) => k,
            _ => Some(vex_host::config::KEEPALIVE_INTERVAL_MS),
        }
    }

    fn next_epoch(&self, holds: u8) -> AdvanceEpoch {
        small::next_epoch(self.mode, holds)
    }

    fn commit_identity(&self) -> bool {
        self.mode != Mode::Answer(A::NoIdentityCommit)
    }

    fn program(&self, timeline: Vec<TimedCommit>) -> Vec<TimedCommit> {
        if self.mode == Mode::Answer(A::NoRosterAtAll) {
            return Vec::new();
        }
        held::program(self.mode, timeline)
    }

    fn purge_notice(&self, request: Purge) -> Option<Purge> {
        Some(request)
    }

    fn ghost_finish(&self, fraction: f32) -> f32 {
        match self.mode {
            Mode::Held(H::GhostFinish(f)) => f,
            _ => fraction,
        }
    }

    fn ghost_finish_generation(&self, generation: i32) -> i32 {
        match self.mode {
            Mode::Held(H::GhostFinishGeneration(d)) => generation.wrapping_add(d),
            _ => generation,
        }
    }

    fn patch_epoch(&self, held: Option<PatchEpoch>, reported: PatchEpoch) -> PatchEpoch {
        match (self.mode, held) {
            (Mode::Roster(R::EpochStale), Some(held)) => held,
            _ => reported,
        }
    }

    fn first_roster(&self) -> bool {
        !matches!(
            self.mode,
            Mode::Answer(
                A::NoFirstRoster
                    | A::NoRosterAtAll
                    | A::FirstRosterLate
                    | A::FirstRosterAtKeepalive
            )
        )
    }

    fn commit_client_state(&self) -> bool {
        self.mode != Mode::Answer(A::NoClientStateCommit)
    }

    fn hold_rosters_for_region_request(&self) -> bool {
        self.mode != Mode::Answer(A::RosterAtMove)
    }

    fn answer_leave(&self) -> bool {
        self.mode != Mode::Answer(A::Leave(crate::mode::Leave::NoAnswer))
    }

    fn leave_delta(
        &self,
        delta: SensorAuthUpdate,
        inputs: RosterInputs<'_>,
        _sent: u32,
    ) -> Result<SensorAuthUpdate, BitError> {
        answer::leave_delta(self.mode, delta, inputs)
    }

    fn answer_refresh(&self) -> bool {
        !matches!(
            self.mode,
            Mode::Answer(A::NoRefresh | A::SnapshotAtKeepalive)
        )
    }

    fn refresh_roster(&self) -> bool {
        self.mode != Mode::Answer(A::RefreshWithoutRoster)
    }

    fn slot_grant(&self, _count: usize, free: EntitySlotMask) -> Option<EntitySlotMask> {
        match self.mode {
            Mode::Answer(A::SlotRequestIgnored) => None,
            Mode::Answer(A::EmptySlotGrant) => Some(EntitySlotMask::empty()),
            _ => Some(free),
        }
    }

    fn take_trailing_bytes(&self) -> bool {
        self.mode != Mode::Answer(A::TrailingRefused)
    }

    fn close_after_drop(&self, _reason: &Dropped) -> bool {
        self.mode == Mode::Answer(A::CloseOnDrop)
    }
}

impl Outbound for Adversary {
    fn response(&self, service: u16, header: &mut InnerHeader, body: &mut Vec<u8>) -> Delivery {
        envelope::response(self, service, header, body);
        Delivery::Copies(1)
    }

    fn payload(&self, msg: u32, in_burst: bool, payload: &mut Payload<'_>) {
        small::payload(self.mode, msg, payload);
        roster::payload(self, msg, payload);
        incident::payload(self.mode, msg, payload);
        self.mem().last.insert(msg, payload.to_vec());
        let _ = in_burst;
    }

    fn push(&self, push: &mut PushHeader, sequence: &mut u32, joined: bool) {
        envelope::push(self.mode, push, sequence, joined);
    }

    fn after(&self, moment: Moment<'_>) -> Vec<Injected> {
        match moment {
            Moment::Reported { msg, .. } => *self.mem().reports.entry(msg).or_default() += 1,
            Moment::Keepalive => self.mem().keepalives += 1,
            _ => {}
        }
        let mut added = answer::after(self, moment);
        added.extend(envelope::after(self, moment));
        added.extend(small::after(self, moment));
        added
    }

    fn queuez(&self, update: Update) -> Vec<Vec<u8>> {
        match self.mode {
            Mode::Envelope(E::Queuez(len)) if self.mem().queuez == 0 => {
                self.mem().queuez += 1;
                vec![envelope::queuez_of(update, len)]
            }
            _ => vec![update.encode()],
        }
    }
}
