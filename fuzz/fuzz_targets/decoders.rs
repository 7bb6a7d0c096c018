#![no_main]
//! Every body decoder of vex-wire on arbitrary bytes: none may panic. The message bodies
//! come from the message table's typed codecs (AH "Message ids"); the envelopes, the
//! service bodies, the split of messages 5 and 6 into slots and the peer transport's
//! packets are listed here.

use libfuzzer_sys::fuzz_target;
use vex_wire::activity::auth::AuthBody;
use vex_wire::activity::body::Body;
use vex_wire::activity::envelope::{ActivityNotification, ActivityPush};
use vex_wire::activity::selection::SelectionRequest;
use vex_wire::activity::sense_update::SenseUpdate;
use vex_wire::activity::sensor_auth::SensorAuthUpdate;
use vex_wire::activity::table::MESSAGES;
use vex_wire::bap::secure::{SignOnKeys, open_hello};
use vex_wire::bap::services::{HostLookup, HostLookupResponse, HostResponse};
use vex_wire::bits::BitReader;
use vex_wire::peer::advertisement::{GROUP_SESSION, judge};
use vex_wire::peer::association::AssocPacket;
use vex_wire::peer::chain::{read_container, read_message};
use vex_wire::peer::established::EstablishedPacket;
use vex_wire::peer::join_descriptor::JoinDescriptor;
use vex_wire::peer::keys::{RecordKeys, import};
use vex_wire::peer::membership::{MembershipRoot, MembershipUpdate};
use vex_wire::peer::message::{MAX_ID, PeerMessage};
use vex_wire::peer::net_addr::NetAddr;
use vex_wire::peer::qos::{QosReply, QosRequest};
use vex_wire::peer::record::open;
use vex_wire::peer::session_state::SessionState;

fuzz_target!(|data: &[u8]| {
    let _ = ActivityPush::decode(data);
    let _ = ActivityNotification::decode(data);
    for codec in MESSAGES.iter().filter_map(|m| m.codec) {
        let _ = (codec.decode)(data);
    }
    if let Ok(m) = SenseUpdate::decode(data) {
        for g in &m.groups {
            let _ = g.objects(|_, r| r.read_bits(usize::from(data.first().copied().unwrap_or(0))));
        }
    }
    let _ = SelectionRequest::decode_service6(data);
    let _ = HostLookup::decode(data);
    let _ = HostLookupResponse::decode(data);
    let _ = HostResponse::decode(data);
    let _ = open_hello(&SignOnKeys::DEVELOPMENT, data);
    if let Ok(m) = SensorAuthUpdate::decode(data) {
        for o in m.groups.iter().flat_map(|g| &g.objects) {
            let _ = o.parse(vex_wire::activity::slot::SlotSchemas {
                auth: true,
                sense: true,
            });
        }
    }
    let _ = AssocPacket::read(data);
    let _ = NetAddr::read(data);
    let _ = JoinDescriptor::read(data);
    let _ = QosRequest::read(data);
    let _ = QosReply::read(data);
    let _ = judge(data, GROUP_SESSION);
    let _ = read_container(data);
    let _ = read_message(&mut BitReader::new(data));
    for id in 0..=MAX_ID {
        let _ = PeerMessage::read_body(id, &mut BitReader::new(data));
    }
    let _ = EstablishedPacket::read(data);
    if let Ok(update) = MembershipUpdate::read(&mut BitReader::new(data)) {
        let root: MembershipRoot = prost::Message::decode(&update.root[..]).unwrap_or_default();
        let mut state = SessionState::default();
        state.apply(true, &root, &update.peers, &update.players);
        let _ = (state.hash(), state.members().count(), state.revision());
    }
    if let Ok(root) = <MembershipRoot as prost::Message>::decode(data) {
        SessionState::default().apply(false, &root, &[], &[]);
    }
    let _ = open(&RecordKeys::derive(&[1; 28], &[0; 16]), data);
    if let Some(field) = data.first_chunk::<100>() {
        let _ = import(field);
    }
    for slot_type in [13, 17] {
        let _ = AuthBody::read(slot_type, &mut BitReader::new(data));
    }
});
