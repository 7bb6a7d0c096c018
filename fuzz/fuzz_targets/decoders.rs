#![no_main]
//! Every body decoder of vex-wire on arbitrary bytes: none may panic.

use libfuzzer_sys::fuzz_target;
use vex_wire::activity::auth::AuthBody;
use vex_wire::activity::envelope::{ActivityNotification, ActivityPush};
use vex_wire::activity::global_state::GlobalActivityState;
use vex_wire::activity::join::{JoinRequest, JoinResult};
use vex_wire::activity::membership::ReplicateMembership;
use vex_wire::activity::selection::SelectionRequest;
use vex_wire::activity::sense_update::DecodedSenseUpdate;
use vex_wire::activity::sensor_auth::DecodedAuthUpdate;
use vex_wire::activity::small::{
    AdvanceEpoch, BubbleHostState, PatchEpoch, PeerLeave, SlotRequest, WorldGlobals,
};
use vex_wire::bap::secure::{SignOnKeys, open_hello};
use vex_wire::bap::services::{HostLookup, HostLookupResponse, HostResponse};
use vex_wire::bits::BitReader;

fuzz_target!(|data: &[u8]| {
    let _ = ActivityPush::decode(data);
    let _ = ActivityNotification::decode(data);
    let _ = JoinRequest::decode(data);
    let _ = JoinResult::decode(data);
    let _ = GlobalActivityState::decode(data);
    let _ = ReplicateMembership::decode(data);
    if let Ok(m) = DecodedSenseUpdate::decode(data) {
        for g in &m.groups {
            let _ = g.objects(|_, r| r.read_bits(usize::from(data.first().copied().unwrap_or(0))));
        }
    }
    let _ = SelectionRequest::decode_service6(data);
    let _ = WorldGlobals::decode(data);
    let _ = PatchEpoch::decode(data);
    let _ = AdvanceEpoch::decode(data);
    let _ = PeerLeave::decode(data);
    let _ = SlotRequest::decode(data);
    let _ = BubbleHostState::decode(data);
    let _ = HostLookup::decode(data);
    let _ = HostLookupResponse::decode(data);
    let _ = HostResponse::decode(data);
    let _ = open_hello(&SignOnKeys::DEVELOPMENT, data);
    if let Ok(m) = DecodedAuthUpdate::decode(data) {
        for o in m.groups.iter().flat_map(|g| &g.objects) {
            let _ = o.parse(vex_wire::activity::slot::SlotSchemas {
                auth: true,
                sense: true,
            });
        }
    }
    for slot_type in [13, 17] {
        let _ = AuthBody::read(slot_type, &mut BitReader::new(data));
    }
});
