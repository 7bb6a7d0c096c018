//! The peer messages Vex reads and writes (NS "Peer message ids", "What a host checks in a
//! join request", "Session membership, peer message 30"): each goes as a 6-bit id, an
//! 18-bit struct_size equal to that id's fixed size (PEER-13), then its body, out of band
//! in a container or reliably in the fragment queues.
//!
//! The pages name what each body carries; the widths, the order and the struct sizes are
//! Sunrise's (facts, not pages: `mw/gameplay/peer/connect_messages`, `join_messages`,
//! `mw/gameplay/group/session_messages`).

use super::membership::{MembershipError, MembershipUpdate};
use super::net_addr::NetAddr;
use super::{read_raw_u64, write_raw_u64};
use crate::bits::{BitError, BitReader, BitWriter};
use thiserror::Error;
use zerocopy::{FromZeros, IntoBytes};

/// Ping: a 16-bit sequence and a 64-bit timestamp, echoed by the pong.
pub const PING: u8 = 0;
/// Pong.
pub const PONG: u8 = 1;
/// Connect-request: opens the reliable connection.
pub const CONNECT_REQUEST: u8 = 5;
/// Connect-response: echoes the request, adds the responder's channel and address.
pub const CONNECT_RESPONSE: u8 = 6;
/// Connect-establish: the first reliable message on a connection.
pub const CONNECT_ESTABLISH: u8 = 8;
/// Join-request.
pub const JOIN_REQUEST: u8 = 10;
/// Join-complete: the joiner applied its membership.
pub const JOIN_COMPLETE: u8 = 12;
/// Join-refuse: one of 30 named reasons.
pub const JOIN_REFUSE: u8 = 14;
/// Time-synchronize: a four-timestamp clock exchange (PEER-16).
pub const TIME_SYNC: u8 = 29;
/// Membership-update (PEER-18).
pub const MEMBERSHIP_UPDATE: u8 = 30;
/// The highest id (NS: "0 to 44").
pub const MAX_ID: u8 = 44;
/// Peer ids 43 and 44, test controls a host never sends (PEER-15).
pub const TEST_IDS: [u8; 2] = [43, 44];
/// The ids that go out of band, in a container (NS "The peer message channel"; PEER-14),
/// and the pong (1), which answers its ping the way the ping came (facts: Sunrise answers
/// out of band; the pages list neither way).
pub const OUT_OF_BAND: [u8; 16] = [0, 1, 4, 5, 6, 7, 9, 10, 11, 13, 14, 16, 27, 28, 29, 42];
/// The pong's response kind (facts: always 2).
pub const PONG_KIND: u8 = 2;
/// The join-request's protocol version (facts: Sunrise's `kProtocolVersion`).
pub const PROTOCOL_VERSION: u16 = 0xA4F8;
/// The build a joiner's bounds must hold (PEER-17).
pub const BUILD: u32 = 86_657;
/// The executable type a joiner must be (PEER-17).
pub const EXECUTABLE_TYPE: u8 = 5;

/// A time-synchronize's samples (facts: a flag, then one sample or three): the asker's
/// send time t1, or the answer's t1 echoed with the answerer's receive and send times t2
/// and t3. The asker's own receive time t4 is never on the wire; the offset is
/// ((t2 - t1) + (t3 - t4)) / 2 (NS "Peer message ids").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeSamples {
    /// One sample: a request.
    Request(u64),
    /// Three samples: a reply, which is terminal (PEER-16: answering one loops forever).
    Reply([u64; 3]),
}

/// A join-refuse's reasons the pages name (NS "What a host checks in a join request");
/// the client names all 30, from 0 to 29.
pub mod refuse {
    /// 0.
    pub const NO_REASON_GIVEN: u8 = 0;
    /// 4: no such session, or not in state 6 to 9.
    pub const NOT_FOUND: u8 = 4;
    /// 6.
    pub const NOT_JOINABLE: u8 = 6;
    /// 7.
    pub const SESSION_FULL: u8 = 7;
    /// 26.
    pub const REJECTED_BY_HOST: u8 = 26;
    /// 27: the joiner's high build bound is below the host's build.
    pub const PEER_VERSION_TOO_LOW: u8 = 27;
    /// 28: the joiner's low build bound is above the host's build.
    pub const HOST_VERSION_TOO_LOW: u8 = 28;
    /// 29: the executable type is not 5.
    pub const EXECUTABLE_TYPE_MISMATCH: u8 = 29;
    /// The highest reason the client names.
    pub const MAX: u8 = 29;
}

/// A join-request's fields Vex reads (facts: the protocol version, the build bounds, the
/// executable type, the session and the join id; the tables of joining peers and members
/// after them are read by no source, and a request ends its chain).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JoinRequest {
    /// 16 bits: [`PROTOCOL_VERSION`].
    pub protocol: u16,
    /// The joiner's lowest build.
    pub low_build: u32,
    /// The joiner's highest build.
    pub high_build: u32,
    /// 3 bits: [`EXECUTABLE_TYPE`].
    pub executable_type: u8,
    /// The group session, 8 raw bytes.
    pub session: u64,
    /// The join attempt's id, 8 raw bytes; the membership's member entry echoes it.
    pub join_id: u64,
}

/// A peer message Vex reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerMessage {
    /// Id 0.
    Ping {
        /// Echoed.
        sequence: u16,
        /// Echoed.
        timestamp: u64,
        /// The flag bit (its meaning is not known).
        flag: bool,
    },
    /// Id 1.
    Pong {
        /// The ping's.
        sequence: u16,
        /// The ping's.
        timestamp: u64,
        /// The response kind: 2.
        kind: u8,
    },
    /// Id 5: the requester's channel id, its transport sequence and its address.
    ConnectRequest {
        /// A counter; all ones reads as unset (facts).
        channel: u32,
        /// The sequence before the requester's first packet.
        sequence: u32,
        /// Its address: the membership echoes these 86 bytes.
        addr: NetAddr,
    },
    /// Id 6: the request's channel and sequence echoed, then the responder's own.
    ConnectResponse {
        /// The request's channel id.
        echoed_channel: u32,
        /// The request's sequence.
        echoed_sequence: u32,
        /// The responder's channel id.
        channel: u32,
        /// The sequence before the responder's first packet.
        sequence: u32,
        /// The responder's address.
        addr: NetAddr,
    },
    /// Id 8: the first reliable message on a connection.
    ConnectEstablish {
        /// The other side's channel id.
        remote_channel: u32,
        /// The sender's own channel id.
        channel: u32,
    },
    /// Id 10.
    JoinRequest(JoinRequest),
    /// Id 12: the joiner applied its membership.
    JoinComplete {
        /// The group session.
        session: u64,
        /// The joiner's machine id.
        machine: u64,
        /// The membership revision it holds.
        revision: u32,
    },
    /// Id 14.
    JoinRefuse {
        /// The group session.
        session: u64,
        /// The request's join id, echoed.
        join_id: u64,
        /// 6 bits: one of the 30 reasons ([`refuse`]).
        reason: u8,
    },
    /// Id 29.
    TimeSync {
        /// The group session, 8 raw bytes.
        session: u64,
        /// The samples.
        samples: TimeSamples,
    },
    /// Id 30.
    MembershipUpdate(Box<MembershipUpdate>),
}

/// Why a message body is not one Vex reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BodyError {
    /// The bits ran out, or a field did not fit.
    #[error(transparent)]
    Bits(#[from] BitError),
    /// A membership-update Vex does not read.
    #[error(transparent)]
    Membership(#[from] MembershipError),
    /// An id whose body Vex does not read.
    #[error("peer message {0}: a body Vex does not read")]
    Unread(u8),
}

impl PeerMessage {
    /// Its id.
    pub fn id(&self) -> u8 {
        match self {
            Self::Ping { .. } => PING,
            Self::Pong { .. } => PONG,
            Self::ConnectRequest { .. } => CONNECT_REQUEST,
            Self::ConnectResponse { .. } => CONNECT_RESPONSE,
            Self::ConnectEstablish { .. } => CONNECT_ESTABLISH,
            Self::JoinRequest(_) => JOIN_REQUEST,
            Self::JoinComplete { .. } => JOIN_COMPLETE,
            Self::JoinRefuse { .. } => JOIN_REFUSE,
            Self::TimeSync { .. } => TIME_SYNC,
            Self::MembershipUpdate(_) => MEMBERSHIP_UPDATE,
        }
    }

    /// Its declared struct_size: its id's (PEER-13). Every message Vex writes has one.
    pub fn declared_size(&self) -> u32 {
        struct_size(self.id()).unwrap_or_default()
    }

    /// Whether it goes out of band (PEER-14).
    pub fn out_of_band(&self) -> bool {
        OUT_OF_BAND.contains(&self.id())
    }

    /// Writes its body.
    pub fn write_body(&self, w: &mut BitWriter) -> Result<(), BodyError> {
        match self {
            Self::Ping {
                sequence,
                timestamp,
                flag,
            } => {
                w.write((*sequence).into(), 16);
                w.write(*timestamp, 64);
                w.write_bool(*flag);
            }
            Self::Pong {
                sequence,
                timestamp,
                kind,
            } => {
                w.write((*sequence).into(), 16);
                w.write(*timestamp, 64);
                w.write((*kind).into(), 2);
            }
            Self::ConnectRequest {
                channel,
                sequence,
                addr,
            } => {
                w.write((*channel).into(), 32);
                w.write((*sequence).into(), 32);
                w.write_stream(addr.as_bytes(), NetAddr::LEN * 8);
            }
            Self::ConnectResponse {
                echoed_channel,
                echoed_sequence,
                channel,
                sequence,
                addr,
            } => {
                for word in [echoed_channel, echoed_sequence, channel, sequence] {
                    w.write((*word).into(), 32);
                }
                w.write_stream(addr.as_bytes(), NetAddr::LEN * 8);
            }
            Self::ConnectEstablish {
                remote_channel,
                channel,
            } => {
                w.write((*remote_channel).into(), 32);
                w.write((*channel).into(), 32);
            }
            Self::JoinRequest(j) => {
                w.write(j.protocol.into(), 16);
                w.write(j.low_build.into(), 32);
                w.write(j.high_build.into(), 32);
                w.write(j.executable_type.into(), 3);
                write_raw_u64(w, j.session);
                write_raw_u64(w, j.join_id);
            }
            Self::JoinComplete {
                session,
                machine,
                revision,
            } => {
                write_raw_u64(w, *session);
                write_raw_u64(w, *machine);
                w.write((*revision).into(), 32);
            }
            Self::JoinRefuse {
                session,
                join_id,
                reason,
            } => {
                write_raw_u64(w, *session);
                write_raw_u64(w, *join_id);
                w.write((*reason).into(), 6);
            }
            Self::TimeSync { session, samples } => {
                write_raw_u64(w, *session);
                match samples {
                    TimeSamples::Request(t1) => {
                        w.write(0, 1);
                        w.write(*t1, 64);
                    }
                    TimeSamples::Reply(times) => {
                        w.write(1, 1);
                        for t in times {
                            w.write(*t, 64);
                        }
                    }
                }
            }
            Self::MembershipUpdate(update) => update.write(w)?,
        }
        Ok(w.error().map_or(Ok(()), Err)?)
    }

    /// Reads the body of message `id`.
    pub fn read_body(id: u8, r: &mut BitReader<'_>) -> Result<Self, BodyError> {
        Ok(match id {
            PING | PONG => {
                let (sequence, timestamp) = (r.read(16)? as u16, r.read(64)?);
                if id == PING {
                    let flag = r.read_bool()?;
                    Self::Ping {
                        sequence,
                        timestamp,
                        flag,
                    }
                } else {
                    let kind = r.read(2)? as u8;
                    Self::Pong {
                        sequence,
                        timestamp,
                        kind,
                    }
                }
            }
            CONNECT_REQUEST => Self::ConnectRequest {
                channel: r.read(32)? as u32,
                sequence: r.read(32)? as u32,
                addr: read_addr(r)?,
            },
            CONNECT_RESPONSE => Self::ConnectResponse {
                echoed_channel: r.read(32)? as u32,
                echoed_sequence: r.read(32)? as u32,
                channel: r.read(32)? as u32,
                sequence: r.read(32)? as u32,
                addr: read_addr(r)?,
            },
            CONNECT_ESTABLISH => Self::ConnectEstablish {
                remote_channel: r.read(32)? as u32,
                channel: r.read(32)? as u32,
            },
            JOIN_REQUEST => Self::JoinRequest(JoinRequest {
                protocol: r.read(16)? as u16,
                low_build: r.read(32)? as u32,
                high_build: r.read(32)? as u32,
                executable_type: r.read(3)? as u8,
                session: read_raw_u64(r)?,
                join_id: read_raw_u64(r)?,
            }),
            JOIN_COMPLETE => Self::JoinComplete {
                session: read_raw_u64(r)?,
                machine: read_raw_u64(r)?,
                revision: r.read(32)? as u32,
            },
            JOIN_REFUSE => Self::JoinRefuse {
                session: read_raw_u64(r)?,
                join_id: read_raw_u64(r)?,
                reason: r.read(6)? as u8,
            },
            TIME_SYNC => {
                let session = read_raw_u64(r)?;
                let samples = if r.read_bool()? {
                    TimeSamples::Reply([r.read(64)?, r.read(64)?, r.read(64)?])
                } else {
                    TimeSamples::Request(r.read(64)?)
                };
                Self::TimeSync { session, samples }
            }
            MEMBERSHIP_UPDATE => Self::MembershipUpdate(Box::new(MembershipUpdate::read(r)?)),
            _ => return Err(BodyError::Unread(id)),
        })
    }
}

/// The declared size of `id`, where Vex reads its body (facts).
pub fn struct_size(id: u8) -> Option<u32> {
    Some(match id {
        PING | PONG => 24,
        CONNECT_REQUEST => 96,
        CONNECT_RESPONSE => 104,
        CONNECT_ESTABLISH => 8,
        JOIN_REQUEST => 6144,
        JOIN_COMPLETE | JOIN_REFUSE => 24,
        TIME_SYNC => 48,
        MEMBERSHIP_UPDATE => 31_104,
        _ => return None,
    })
}

fn read_addr(r: &mut BitReader<'_>) -> Result<NetAddr, BitError> {
    let mut addr = NetAddr::new_zeroed();
    addr.as_mut_bytes()
        .copy_from_slice(&r.read_stream(NetAddr::LEN * 8)?);
    Ok(addr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::written;
    use crate::peer::membership::MembershipRoot;

    fn every_message() -> Vec<PeerMessage> {
        let addr = NetAddr::direct([127, 0, 0, 1], 3074, 9);
        vec![
            PeerMessage::Ping {
                sequence: 1,
                timestamp: 2,
                flag: true,
            },
            PeerMessage::Pong {
                sequence: 1,
                timestamp: 2,
                kind: PONG_KIND,
            },
            PeerMessage::ConnectRequest {
                channel: 1,
                sequence: 0x400,
                addr,
            },
            PeerMessage::ConnectResponse {
                echoed_channel: 1,
                echoed_sequence: 0x400,
                channel: 2,
                sequence: 0xC00,
                addr,
            },
            PeerMessage::ConnectEstablish {
                remote_channel: 1,
                channel: 2,
            },
            PeerMessage::JoinRequest(JoinRequest {
                protocol: PROTOCOL_VERSION,
                low_build: BUILD,
                high_build: BUILD,
                executable_type: EXECUTABLE_TYPE,
                session: 0x0102_0304_0506_0708,
                join_id: 77,
            }),
            PeerMessage::JoinComplete {
                session: 3,
                machine: 4,
                revision: 5,
            },
            PeerMessage::JoinRefuse {
                session: 3,
                join_id: 77,
                reason: refuse::MAX,
            },
            PeerMessage::TimeSync {
                session: 3,
                samples: TimeSamples::Reply([1, 2, 3]),
            },
            PeerMessage::MembershipUpdate(Box::new(MembershipUpdate::snapshot(
                3,
                &MembershipRoot::default(),
            ))),
        ]
    }

    /// Every body reads back, has its id's size, and goes the way PEER-14 sends it.
    #[test]
    fn every_body_reads_back() {
        for m in every_message() {
            let bytes = written(|w| {
                m.write_body(w).unwrap();
            })
            .unwrap();
            let back = PeerMessage::read_body(m.id(), &mut BitReader::new(&bytes)).unwrap();
            assert_eq!(back, m);
            assert!(struct_size(m.id()).is_some());
        }
        let reliable = [CONNECT_ESTABLISH, JOIN_COMPLETE, MEMBERSHIP_UPDATE];
        for m in every_message() {
            assert_eq!(m.out_of_band(), !reliable.contains(&m.id()), "{}", m.id());
        }
    }

    /// The join-request's fields in order, golden: version 0xA4F8, build 86,657 (0x15281)
    /// twice, type 5 (3 bits), then the session's bytes low first.
    #[test]
    fn a_join_request_golden() {
        let bytes = written(|w| {
            every_message()[5].write_body(w).unwrap();
        })
        .unwrap();
        assert_eq!(
            bytes[..10],
            [0xA4, 0xF8, 0, 1, 0x52, 0x81, 0, 1, 0x52, 0x81]
        );
        // 101, then 0x08 (the session's low byte) from bit 83
        assert_eq!(bytes[10] >> 5, 0b101);
        assert_eq!((bytes[10] & 0x1F) << 3 | bytes[11] >> 5, 0x08);
    }

    /// A body one bit short is refused for every id; an id with no body here is unread.
    #[test]
    fn short_bodies_are_refused() {
        for m in every_message() {
            let mut bytes = Vec::new();
            let mut w = BitWriter::appending(&mut bytes);
            m.write_body(&mut w).unwrap();
            let bits = w.finish().unwrap();
            let mut r = BitReader::with_bit_len(&bytes, bits - 1);
            assert!(
                PeerMessage::read_body(m.id(), &mut r).is_err(),
                "{}",
                m.id()
            );
        }
        assert_eq!(
            PeerMessage::read_body(31, &mut BitReader::new(&[0; 64])),
            Err(BodyError::Unread(31))
        );
    }
}
