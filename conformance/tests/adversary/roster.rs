//! Message 5 broken in its prefix, its roster delta, its blocks and its type-17 body (AH
//! "Message 5: Auth, and the client roster", "The bubble-authority block", "How the client
//! applies an Auth body", "Type 17"; facts 4.7). Typed changes go through the roster
//! policy; changes no typed body can hold (a remainder, the singleton gate) are patched in
//! the encoded body.

use crate::edit::{get_bits, lifetime as edit_lifetime, set_bits};
use crate::host::Adversary;
use crate::mode::{Lifetime, Missing, Mode, Roster, Unresolved};
use vex_host::outbound::Payload;
use vex_host::policy::{Burst, RosterInputs, RosterSend};
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::SENSOR_AUTH_UPDATE;
use vex_wire::activity::sensor_auth::{
    AuthPart, EntityGroup, ObjectBlock, SensorAuthUpdate, TOP_MASK_WORDS,
};
use vex_wire::activity::slot::{CLIENT_REF_BITS, ClientRef, TYPE_LIFETIME};
use vex_wire::bits::BitError;

/// The object of bubble 0 that holds the host's requested slots.
pub const BUBBLE0: u32 = 0xBBBB_0001;
/// The second object of bubble 0, every documented slot type.
pub const BUBBLE0_ALL: u32 = 0xBBBB_0003;
/// The object of bubble 1.
pub const BUBBLE1: u32 = 0xBBBB_0002;
/// The ghost-link slot of [`BUBBLE0`].
pub const GHOST: ClientRef = ClientRef {
    key: BUBBLE0,
    slot_type: 65,
    index: 4,
};
/// The epoch the built-in client reports (`ClientConfig::builtin`).
pub const CLIENT_EPOCH: [u64; 2] = [0x0102_0304_0506_0708, 0x1112_1314_1516_1718];

/// A reset-only block of `slot`, which has an Auth schema and no Sense schema.
fn reset_only(slot: ClientRef) -> ObjectBlock {
    ObjectBlock {
        slot,
        auth: Some(AuthPart {
            reset: true,
            body: None,
        }),
        sense: None,
    }
}

fn group_mut(m: &mut SensorAuthUpdate, key: u32) -> Option<&mut EntityGroup> {
    m.groups.iter_mut().find(|g| g.key == key)
}

/// The typed change of a [`Roster`] mode.
pub fn roster(r: Roster, mut m: SensorAuthUpdate, send: RosterSend) -> SensorAuthUpdate {
    let epoch = &mut m.prefix.patch_epoch;
    match r {
        Roster::EpochWord(w, d) => epoch[w] = epoch[w].wrapping_add_signed(d),
        Roster::EpochBit(k) => epoch[k / 64] ^= 1 << (63 - k % 64),
        Roster::EpochSwapped => epoch.swap(0, 1),
        Roster::EnableOffFrom(n) if send.sent >= n => m.prefix.roster_enable = false,
        Roster::RemainderSkipped(_) => m.groups.push(EntityGroup {
            key: BUBBLE1,
            filler: 0,
            objects: vec![reset_only(ClientRef {
                key: BUBBLE1,
                slot_type: 8,
                index: 0,
            })],
        }),
        Roster::Unresolved(u) => {
            let slot = match u {
                Unresolved::Key => ClientRef {
                    key: 0xDEAD_0001,
                    slot_type: 24,
                    index: 3,
                },
                Unresolved::Index => ClientRef {
                    key: BUBBLE0,
                    slot_type: 24,
                    index: 9,
                },
                Unresolved::Type => ClientRef {
                    key: BUBBLE0,
                    slot_type: 25,
                    index: 3,
                },
            };
            if let Some(g) = group_mut(&mut m, BUBBLE0) {
                g.objects.push(reset_only(slot));
            }
        }
        Roster::Missing(Missing::Ghost) => drop_ghost(&mut m),
        Roster::Missing(Missing::GhostLater) if send.sent >= 1 => drop_ghost(&mut m),
        Roster::Missing(Missing::Group) => m.groups.retain(|g| g.key != BUBBLE0_ALL),
        Roster::BubbleHeader => {
            if let Some(b) = m.prefix.bubble_block.as_mut() {
                b.header = Some(0x8000_0000);
            }
        }
        Roster::HostToken => {
            if let Some(b) = m.prefix.bubble_block.as_mut() {
                b.set_host_token(64, Some(0));
            }
        }
        Roster::StateBump { send: n, sub } if send.sent >= n => bump(&mut m, sub, 1),
        Roster::Hardwipe(t) => m.prefix.hardwipe_token = t,
        Roster::Token(t) => m.prefix.token = t,
        Roster::Filler(f) => m.groups.iter_mut().for_each(|g| g.filler = f),
        Roster::StateWarmUp(from) => {
            let seq = (i16::from(from) + send.sent.min(2) as i16).rem_euclid(128) as i8;
            if let Some(d) = m.roster.as_mut() {
                d.states.iter_mut().for_each(|s| *s = seq);
                for sb in d.sub_blocks.iter_mut().flatten() {
                    sb.states.iter_mut().for_each(|s| *s = seq);
                }
            }
        }
        _ => {}
    }
    m
}

fn drop_ghost(m: &mut SensorAuthUpdate) {
    if let Some(g) = group_mut(m, BUBBLE0) {
        g.objects.retain(|o| o.slot != GHOST);
    }
}

/// Moves the first top-level state byte (or the first per-bubble one) by `by`.
pub fn bump(m: &mut SensorAuthUpdate, sub: bool, by: i8) {
    let Some(d) = m.roster.as_mut() else {
        return;
    };
    let states = if sub {
        d.sub_blocks
            .as_mut()
            .and_then(|s| s.first_mut())
            .map(|s| &mut s.states)
    } else {
        Some(&mut d.states)
    };
    if let Some(s) = states.and_then(|s| s.first_mut()) {
        *s = s.wrapping_add(by);
    }
}

/// The typed change of a [`Lifetime`] mode: every type-17 block gets the same changed
/// body (T17-05 keeps them equal).
pub fn lifetime(l: Lifetime, mut m: SensorAuthUpdate, send: RosterSend) -> SensorAuthUpdate {
    let mut nth = 0;
    for o in m.groups.iter_mut().flat_map(|g| &mut g.objects) {
        if o.slot.slot_type != TYPE_LIFETIME {
            continue;
        }
        nth += 1;
        if matches!(l, Lifetime::SecondSlotState(_)) && nth != 2 {
            continue;
        }
        let Some(body) = o.auth.as_mut().and_then(|a| a.body.as_mut()) else {
            continue;
        };
        *body = match l {
            Lifetime::Cut(n) => crate::edit::cut(body, n),
            Lifetime::Switches(n) => crate::edit::switches(body, n),
            _ => edit_lifetime(body, |b| match l {
                Lifetime::State(s) | Lifetime::SecondSlotState(s) => b.state = s,
                Lifetime::LoadingThenLive => b.state = [1, 2, 3][send.sent.min(2) as usize],
                Lifetime::CurrentBubble(v) => b.current_bubble = v,
                Lifetime::CurrentBubbleIsSliceSet => b.current_bubble *= 8,
                Lifetime::CycleOverride(phase) => {
                    b.cycle_override_on = true;
                    b.cycle_phase = phase;
                }
                Lifetime::SelectionId(v) => b.selection_id = v,
                Lifetime::Cut(_) | Lifetime::Switches(_) => {}
            }),
        };
    }
    m
}

/// The join burst with a message 5 in it, after message 12: before any message 52, echoing
/// zeros or the epoch the client is known to report (AUTH-02).
pub fn in_burst(
    mut burst: Burst,
    context: RosterInputs<'_>,
    guessed: bool,
) -> Result<Burst, BitError> {
    let mut m = vex_host::roster::sensor_auth(&context)?;
    if guessed {
        m.prefix.patch_epoch = CLIENT_EPOCH;
    }
    burst.push((SENSOR_AUTH_UPDATE, m.encode()?));
    Ok(burst)
}

/// Patches no typed body can hold, on every message 5 but a leave delta (which carries no
/// groups): a remainder off, the singleton gate set.
pub fn payload(adv: &Adversary, msg: u32, p: &mut Payload<'_>) {
    let mode = adv.mode;
    if msg != SENSOR_AUTH_UPDATE {
        return;
    }
    let Ok(decoded) = SensorAuthUpdate::decode(p) else {
        return;
    };
    if decoded.groups.is_empty() {
        return;
    }
    let remainder_at = |key: u32, slot: Option<ClientRef>| {
        decoded
            .groups
            .iter()
            .filter(|g| g.key == key)
            .flat_map(|g| &g.objects)
            .find(|o| slot.is_none_or(|s| s == o.slot))
            .map(|o| o.at + 1 + CLIENT_REF_BITS)
    };
    let (at, delta) = match mode {
        Mode::Roster(Roster::GateFrom(n)) => {
            if adv.mem().roster_send >= n {
                set_bits(p, decoded.gate_at, 1, 1);
            }
            return;
        }
        Mode::Roster(Roster::RemainderSkipped(d)) => (remainder_at(BUBBLE1, None), d),
        Mode::Roster(Roster::RemainderApplied(d)) => (remainder_at(BUBBLE0, Some(GHOST)), d),
        _ => return,
    };
    if let Some(at) = at {
        let value = get_bits(p, at, 32) as u32;
        set_bits(p, at, 32, u64::from(value.wrapping_add_signed(delta)));
    }
}

/// Every top-level key present (LEAVE-01 breach helper).
pub fn all_present(m: &mut SensorAuthUpdate) {
    if let Some(d) = m.roster.as_mut() {
        d.mask =
            vex_wire::activity::sensor_auth::RosterDelta::mask_for::<TOP_MASK_WORDS>(d.keys.len());
        for s in d.sub_blocks.iter_mut().flatten() {
            s.mask = vex_wire::activity::sensor_auth::RosterDelta::mask_for(s.keys.len());
        }
    }
}
