//! The published vectors of facts section 10.1 as values, for tests, benchmarks and tools.

use crate::activity::auth::AuthBody;
use crate::activity::auth::lifetime::{LifetimeAuth, SpawnPair};
use crate::activity::auth::participation::ParticipationAuth;
use crate::activity::global_state::{BUBBLE_SKIPPED, GlobalActivityState, MAX_BUBBLES};
use crate::activity::selection::SelectionDescriptor;
use crate::activity::sensor_auth::{
    AuthPart, AuthPrefix, BubbleAuthority, EntityGroup, ObjectBlock, RosterDelta, SensorAuthUpdate,
    SubBlock,
};
use crate::activity::slot::ClientRef;
use crate::bits::Bits;

/// Facts 10.1 "msg 5, full example": 273 bytes, 2,178 meaningful bits.
pub const SENSOR_AUTH_FULL_EXAMPLE: &str = "0001020304050607081112131415161718C00000000000000024000400000000\
    00000000000000000000000000000000000000000000000000000001E01AAAA0\
    0018000000080000000000000000000000000000000000000000000000000000\
    000403030380000000C0DDDD8000C00000004000000000000000206075554000\
    200000001AAAA00011D0000000001C7E00000001C5000000000108091A2B3C4D\
    5E6F78030008040400000003555400024A00040000082B428000000000000000\
    8000000006CF04946F0100000F000000010000000000E57F780680395FDE01A0\
    0E57F7806800000001FFFFFFFC000000000C0000000000006EEEC00040000000\
    3777600022600000000009700000000000";

/// Facts 10.1 "msg 1": 146 bytes.
pub const GLOBAL_STATE_EXAMPLE: &str = "800000000000000010000000500FEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEF\
    EFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEFEF\
    EFEFEFEFEFEFEFEFEFEFEFEFE04EF56DF77800000000000001800007878B8E02\
    0202020202020202020202020202020202020202020202020202020202020202\
    020202000000000000000000000000000000";

fn body(b: AuthBody) -> Option<Bits> {
    b.to_bits().ok()
}

fn slot(key: u32, slot_type: i8, index: i16) -> ClientRef {
    ClientRef {
        key,
        slot_type,
        index,
    }
}

/// The inputs of [`SENSOR_AUTH_FULL_EXAMPLE`]: epoch (0x0102030405060708,
/// 0x1112131415161718), bubble 0 granted with token 1, group 0xAAAA0001 with a type-13 slot
/// (Auth and Sense) and a type-17 slot, group 0xBBBB0001 with a type-8 slot in bubble 0,
/// player key 0x0123456789ABCDEF, stateSequence 1, region 0, spawn override
/// (0, 0xCAFEF00D), lifetime 3.
pub fn sensor_auth_full_example() -> SensorAuthUpdate {
    let mut lifetime = LifetimeAuth::sunrise_default(3);
    lifetime.spawn_pairs = [SpawnPair {
        index: 0,
        hash: 0xCAFE_F00D,
    }; 3];
    let participation = ParticipationAuth {
        region: Some(0),
        player_key: Some(0x0123_4567_89AB_CDEF),
        sync_state: 0,
    };
    let auth = |b: AuthBody| {
        Some(AuthPart {
            reset: true,
            body: body(b),
        })
    };
    SensorAuthUpdate {
        prefix: AuthPrefix {
            hardwipe_token: 0,
            patch_epoch: [0x0102_0304_0506_0708, 0x1112_1314_1516_1718],
            bubble_block: Some(BubbleAuthority::granting(0, 1)),
            token: 0,
            roster_enable: true,
        },
        roster: Some(RosterDelta {
            keys: vec![0xAAAA_0001],
            mask: RosterDelta::mask_for(1),
            states: vec![1],
            sub_blocks: Some(vec![SubBlock {
                bubble: 0,
                keys: vec![0xBBBB_0001],
                mask: RosterDelta::mask_for(1),
                states: vec![1],
            }]),
        }),
        groups: vec![
            EntityGroup {
                key: 0xAAAA_0001,
                filler: 0,
                objects: vec![
                    ObjectBlock {
                        slot: slot(0xAAAA_0001, 13, 0),
                        auth: auth(AuthBody::Participation(participation)),
                        sense: Some(None),
                    },
                    ObjectBlock {
                        slot: slot(0xAAAA_0001, 17, 1),
                        auth: auth(AuthBody::Lifetime(lifetime)),
                        sense: None,
                    },
                ],
            },
            EntityGroup {
                key: 0xBBBB_0001,
                filler: 0,
                objects: vec![ObjectBlock {
                    slot: slot(0xBBBB_0001, 8, 0),
                    auth: auth(AuthBody::ConfigurationNeutral),
                    sense: None,
                }],
            },
        ],
    }
}

/// The inputs of [`GLOBAL_STATE_EXAMPLE`]: name "abc", 2 bubbles [0x80, 0x7F], slice 8,
/// spawn 0xDEADBEEF, reason -1, from -1, activity 5.
pub fn global_state_example() -> GlobalActivityState {
    let descriptor = SelectionDescriptor {
        reason: -1,
        source_activity: -1,
        destination_activity: 5,
        name: Some("abc".into()),
        ..SelectionDescriptor::default()
    };
    let mut bubble_states = [BUBBLE_SKIPPED; MAX_BUBBLES];
    bubble_states[0] = crate::activity::global_state::BUBBLE_ENABLED;
    GlobalActivityState {
        arm_initial_slice_set: true,
        bubble_count: 2,
        bubble_states,
        initial_slice_set: 8,
        spawn_set_hash: 0xDEAD_BEEF,
        descriptor: descriptor.to_bits().unwrap_or_default(),
    }
}
