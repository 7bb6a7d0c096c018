//! The peer message chain (NS "The peer message channel"; PEER-13, PEER-14): one bitstream,
//! most significant bit first, a marker bit, then per message a `more` bit, a 6-bit id and
//! an 18-bit struct_size equal to that id's fixed size, then the id's own body; a 0 `more`
//! bit ends it. The out-of-band container is a chain whose marker is 1.
//!
//! The struct sizes and the ping, pong and time-synchronize bodies are facts from Sunrise
//! (`mw/gameplay/peer/connect_messages`, `mw/gameplay/group/session_messages`), not pages:
//! the pages give the field, not the table. Ids whose body Vex does not read end a chain read here, as a reader failure does
//! in the client.

use crate::bits::{BitError, BitReader, BitWriter};
use thiserror::Error;

/// Ping: a 16-bit sequence and a 64-bit timestamp, echoed by the pong.
pub const PING: u8 = 0;
/// Pong.
pub const PONG: u8 = 1;
/// Time-synchronize: a four-timestamp clock exchange (NS "Peer message ids"; PEER-16).
pub const TIME_SYNC: u8 = 29;
/// The highest id (NS: "0 to 44").
pub const MAX_ID: u8 = 44;
/// Peer ids 43 and 44, test controls a host never sends (PEER-15).
pub const TEST_IDS: [u8; 2] = [43, 44];
/// The declared size of ping and pong (facts).
pub const PING_SIZE: u32 = 24;
/// The pong's response kind (facts: always 2).
pub const PONG_KIND: u8 = 2;
/// The declared size of time-synchronize (facts).
pub const TIME_SYNC_SIZE: u32 = 48;

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

/// Why a chain stops being read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChainError {
    /// The bits ran out, or a field did not fit.
    #[error(transparent)]
    Bits(#[from] BitError),
    /// The marker bit says another path.
    #[error("the marker bit is {0}, not the out-of-band container's 1")]
    Marker(u64),
    /// An id past 44.
    #[error("peer message id {0} is past 44")]
    Id(u8),
    /// A message whose declared size is not its id's (PEER-13: the receiver drops it).
    #[error("peer message {id} declares struct_size {said}, not {want}")]
    Size {
        /// The id.
        id: u8,
        /// The size declared.
        said: u32,
        /// The id's size.
        want: u32,
    },
    /// An id whose body Vex does not read: the chain ends there.
    #[error("peer message {0}: a body Vex does not read ends the chain")]
    Unread(u8),
}

/// A peer message Vex reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// Id 29.
    TimeSync {
        /// The group session, 8 bytes low first (facts: "raw u64").
        session: u64,
        /// The samples.
        samples: TimeSamples,
    },
}

impl PeerMessage {
    /// Its id.
    pub fn id(&self) -> u8 {
        match self {
            Self::Ping { .. } => PING,
            Self::Pong { .. } => PONG,
            Self::TimeSync { .. } => TIME_SYNC,
        }
    }

    fn write_body(&self, w: &mut BitWriter) {
        match *self {
            Self::Ping {
                sequence,
                timestamp,
                flag,
            } => {
                w.write(sequence.into(), 16);
                w.write(timestamp, 64);
                w.write(flag.into(), 1);
            }
            Self::Pong {
                sequence,
                timestamp,
                kind,
            } => {
                w.write(sequence.into(), 16);
                w.write(timestamp, 64);
                w.write(kind.into(), 2);
            }
            Self::TimeSync { session, samples } => {
                w.write(u64::from_be_bytes(session.to_le_bytes()), 64);
                match samples {
                    TimeSamples::Request(t1) => {
                        w.write(0, 1);
                        w.write(t1, 64);
                    }
                    TimeSamples::Reply(times) => {
                        w.write(1, 1);
                        for t in times {
                            w.write(t, 64);
                        }
                    }
                }
            }
        }
    }

    fn read_body(id: u8, r: &mut BitReader<'_>) -> Result<Self, ChainError> {
        if id == TIME_SYNC {
            let session = u64::from_le_bytes(r.read(64)?.to_be_bytes());
            let samples = if r.read(1)? == 1 {
                TimeSamples::Reply([r.read(64)?, r.read(64)?, r.read(64)?])
            } else {
                TimeSamples::Request(r.read(64)?)
            };
            return Ok(Self::TimeSync { session, samples });
        }
        let (sequence, timestamp) = (r.read(16)? as u16, r.read(64)?);
        Ok(match id {
            PING => Self::Ping {
                sequence,
                timestamp,
                flag: r.read(1)? == 1,
            },
            _ => Self::Pong {
                sequence,
                timestamp,
                kind: r.read(2)? as u8,
            },
        })
    }
}

/// The declared size of `id`, where Vex reads its body (facts).
pub fn struct_size(id: u8) -> Option<u32> {
    match id {
        PING | PONG => Some(PING_SIZE),
        TIME_SYNC => Some(TIME_SYNC_SIZE),
        _ => None,
    }
}

/// An out-of-band container of `messages`, each with its id's declared size.
pub fn write_container(messages: &[PeerMessage]) -> Result<Vec<u8>, BitError> {
    let sizes: Vec<(PeerMessage, u32)> = messages
        .iter()
        .map(|m| (*m, struct_size(m.id()).unwrap_or_default()))
        .collect();
    write_declared(&sizes)
}

/// [`write_container`] with each message's declared size given.
pub fn write_declared(messages: &[(PeerMessage, u32)]) -> Result<Vec<u8>, BitError> {
    let mut w = BitWriter::new();
    w.write(1, 1);
    for (m, size) in messages {
        w.write(1, 1);
        w.write(m.id().into(), 6);
        w.write((*size).into(), 18);
        m.write_body(&mut w);
    }
    w.write(0, 1);
    w.finish()
}

/// An out-of-band container as the receiver reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Container {
    /// The messages taken, in order.
    pub messages: Vec<PeerMessage>,
    /// The messages dropped for their declared size (PEER-13), the chain going on.
    pub dropped: Vec<ChainError>,
    /// Why the chain ended early, if it did: what was read before stays.
    pub ended: Option<ChainError>,
}

/// The out-of-band container `bytes`.
pub fn read_container(bytes: &[u8]) -> Container {
    let mut r = BitReader::new(bytes);
    let mut c = Container::default();
    let end = (|| -> Result<(), ChainError> {
        let marker = r.read(1)?;
        if marker != 1 {
            return Err(ChainError::Marker(marker));
        }
        while r.read(1)? == 1 {
            let id = r.read(6)? as u8;
            let said = r.read(18)? as u32;
            if id > MAX_ID {
                return Err(ChainError::Id(id));
            }
            let want = struct_size(id).ok_or(ChainError::Unread(id))?;
            let message = PeerMessage::read_body(id, &mut r)?;
            if said == want {
                c.messages.push(message);
            } else {
                // the size only sizes a scratch buffer: the message is dropped, the chain goes on
                c.dropped.push(ChainError::Size { id, said, want });
            }
        }
        Ok(())
    })();
    c.ended = end.err();
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ping and a pong in one container read back; the container opens with the marker,
    /// the `more` bit, id 0 and size 24.
    #[test]
    fn a_container_reads_back() {
        let ping = PeerMessage::Ping {
            sequence: 7,
            timestamp: 0x0102_0304_0506_0708,
            flag: false,
        };
        let pong = PeerMessage::Pong {
            sequence: 7,
            timestamp: 0x0102_0304_0506_0708,
            kind: PONG_KIND,
        };
        let bytes = write_container(&[ping, pong]).unwrap();
        // 1, 1, 000000, 000000000000011000: 0xC0 0x00 0x06 ...
        assert_eq!(bytes[..3], [0xC0, 0x00, 0x06]);
        let c = read_container(&bytes);
        assert_eq!(
            (c.messages, c.dropped, c.ended),
            (vec![ping, pong], vec![], None)
        );
    }

    /// A declared size one off either way drops that message and the chain goes on
    /// (PEER-13); marker 0, an id past 44 and an id Vex does not read end the chain.
    #[test]
    fn what_ends_a_chain() {
        let ping = PeerMessage::Ping {
            sequence: 1,
            timestamp: 2,
            flag: true,
        };
        for said in [23, 25] {
            let bytes = write_declared(&[(ping, said), (ping, PING_SIZE)]).unwrap();
            let c = read_container(&bytes);
            assert_eq!(c.messages, [ping]);
            assert_eq!(
                c.dropped,
                [ChainError::Size {
                    id: 0,
                    said,
                    want: 24
                }]
            );
            assert_eq!(c.ended, None);
        }
        assert_eq!(read_container(&[0x00]).ended, Some(ChainError::Marker(0)));
        // marker, more, id 45
        assert_eq!(
            read_container(&[0xED, 0, 0, 0]).ended,
            Some(ChainError::Id(45))
        );
        // marker, more, id 10
        assert_eq!(
            read_container(&[0xCA, 0, 0, 0]).ended,
            Some(ChainError::Unread(10))
        );
        assert!(matches!(
            read_container(&[]).ended,
            Some(ChainError::Bits(_))
        ));
    }
}
