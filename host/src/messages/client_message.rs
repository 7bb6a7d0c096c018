//! A client's activity message, decoded once where it enters the host (after rustls's
//! `MessagePayload`): the handlers get typed bodies, never bytes, and a body that does not
//! decode is dropped here with its reason (SR "Client reports come in"; AH "Message ids").

use crate::reason::Dropped;
use vex_wire::activity::authority::{
    Abdication, AuthorityToken, BubbleMaskAnswer, FullMaskAnswer, Purge,
};
use vex_wire::activity::body::Body;
use vex_wire::activity::client_state::ClientState;
use vex_wire::activity::identity::ClientIdentity;
use vex_wire::activity::ids::{
    ABDICATE_AUTHORITY, ALLOCATE_ENTITY_INDICES, AUTHORITY_BUBBLE_MASK, AUTHORITY_FULL_MASK,
    CLIENT_AUTHORITATIVE_DATA_UPDATE, CLIENT_IDENTITY_UPDATE, CONNECTIVITY_FAILURE,
    FREE_ENTITY_INDICES, INCIDENT, JOIN_REQUEST, MEMBERSHIP_ACKNOWLEDGEMENT, PATCH_EPOCH,
    PEER_LEAVE_REQUEST, PURGE_REQUEST, RESET_AUTHORITY_ACK, SENSOR_SENSE_UPDATE,
    START_NEW_ACTIVITY, STATE_REFRESH,
};
use vex_wire::activity::incident::Incident;
use vex_wire::activity::join::JoinRequest;
use vex_wire::activity::small::{
    ConnectivityFailure, EntitySlotMask, MembershipAcknowledgement, PatchEpoch, PeerLeave,
    SlotRequest, StateRefresh,
};
use vex_wire::bits::BitReader;
use vex_wire::schema::decode;
use vex_wire::schema::messages as schema;

/// What a client's activity message asks of the host, its body decoded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ClientMessage {
    /// Message 3.
    Join(JoinRequest),
    /// Message 23.
    Identity(ClientIdentity),
    /// Message 52.
    PatchEpoch(PatchEpoch),
    /// Message 15.
    Leave(PeerLeave),
    /// Message 38.
    MembershipAcknowledged(MembershipAcknowledgement),
    /// Message 18; `trailing` when bytes follow its body (BODY-07).
    StateRefresh {
        /// Bytes follow the body.
        trailing: bool,
    },
    /// Message 22.
    ClientState(ClientState),
    /// Message 11, whose head the schema read (facts 4.14: the rest is opaque).
    StartNewActivity,
    /// Message 27.
    Purge(Purge),
    /// Message 19.
    Incident(Incident),
    /// Message 29.
    ResetAcknowledged(AuthorityToken),
    /// Message 31.
    BubbleMask(BubbleMaskAnswer),
    /// Message 32.
    FullMask(FullMaskAnswer),
    /// Message 33.
    Abdicate(Abdication),
    /// Message 20.
    AllocateSlots(SlotRequest),
    /// Message 21.
    FreeSlots(EntitySlotMask),
    /// Message 37: the client lost a peer.
    ConnectivityFailure(ConnectivityFailure),
    /// Message 6, read later against the slots the link's last message 5 registered
    /// (AUTH-15): the only message whose reading needs the link.
    Sense(Vec<u8>),
    /// Any other message the client sends: recorded only (SR "Every other client message
    /// ... is recorded only").
    Recorded,
}

impl ClientMessage {
    /// Message `msg` with `payload`, or why it is dropped.
    pub(crate) fn decode(msg: u32, payload: &[u8]) -> Result<Self, Dropped> {
        let body = |error| Dropped::Body { msg, error };
        Ok(match msg {
            JOIN_REQUEST => Self::Join(JoinRequest::decode(payload).map_err(body)?),
            CLIENT_IDENTITY_UPDATE => {
                Self::Identity(ClientIdentity::decode(payload).map_err(body)?)
            }
            PATCH_EPOCH => Self::PatchEpoch(PatchEpoch::decode(payload).map_err(body)?),
            PEER_LEAVE_REQUEST => Self::Leave(PeerLeave::decode(payload).map_err(body)?),
            MEMBERSHIP_ACKNOWLEDGEMENT => Self::MembershipAcknowledged(
                MembershipAcknowledgement::decode(payload).map_err(body)?,
            ),
            STATE_REFRESH => {
                let mut r = BitReader::new(payload);
                StateRefresh::read(&mut r).map_err(body)?;
                Self::StateRefresh {
                    trailing: r.remaining_bits() > 0,
                }
            }
            CLIENT_AUTHORITATIVE_DATA_UPDATE => {
                Self::ClientState(ClientState::decode(payload).map_err(body)?)
            }
            START_NEW_ACTIVITY => {
                decode(&schema::START_NEW_ACTIVITY, &mut BitReader::new(payload))
                    .map_err(|error| Dropped::Schema { msg, error })?;
                Self::StartNewActivity
            }
            PURGE_REQUEST => Self::Purge(Purge::decode(payload).map_err(body)?),
            INCIDENT => Self::Incident(Incident::decode(payload).map_err(body)?),
            RESET_AUTHORITY_ACK => {
                Self::ResetAcknowledged(AuthorityToken::decode(payload).map_err(body)?)
            }
            AUTHORITY_BUBBLE_MASK => {
                Self::BubbleMask(BubbleMaskAnswer::decode(payload).map_err(body)?)
            }
            AUTHORITY_FULL_MASK => Self::FullMask(FullMaskAnswer::decode(payload).map_err(body)?),
            ABDICATE_AUTHORITY => Self::Abdicate(Abdication::decode(payload).map_err(body)?),
            ALLOCATE_ENTITY_INDICES => {
                Self::AllocateSlots(SlotRequest::decode(payload).map_err(body)?)
            }
            FREE_ENTITY_INDICES => Self::FreeSlots(
                EntitySlotMask::decode(payload)
                    .map_err(|_| Dropped::SlotMaskLength(payload.len()))?,
            ),
            CONNECTIVITY_FAILURE => {
                Self::ConnectivityFailure(ConnectivityFailure::decode(payload).map_err(body)?)
            }
            SENSOR_SENSE_UPDATE => Self::Sense(payload.to_vec()),
            _ => Self::Recorded,
        })
    }
}
