//! The peer message chain (NS "The peer message channel"; PEER-13, PEER-14): one bitstream,
//! most significant bit first, a marker bit, then per message a `more` bit, a 6-bit id and
//! an 18-bit struct_size equal to that id's fixed size, then the id's own body; a 0 `more`
//! bit ends it. The out-of-band container is a chain whose marker is 1; a reliable message
//! is the same id, size and body, carried in fragments.
//!
//! An id whose body Vex does not read ends a chain read here, as a reader failure does in
//! the client; so does a join-request, whose tables of joining peers and members no source
//! lays out (facts: Sunrise ends its chain there too).

use super::message::{BodyError, JOIN_REQUEST, MAX_ID, PeerMessage};
use crate::bits::{BitError, BitReader, BitWriter};
use thiserror::Error;

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
    /// A body Vex does not read: the chain ends there.
    #[error(transparent)]
    Body(#[from] BodyError),
}

/// Whether a record's `plaintext` is an established datagram, by its first bit (facts
/// 3.1: 0 an established datagram, 1 the out-of-band container); an empty one is not.
pub fn is_established(plaintext: &[u8]) -> bool {
    plaintext.first().is_some_and(|b| b & 0x80 == 0)
}

/// Writes one message: its id, `size` as its struct_size (18 bits), its body.
pub fn write_message(w: &mut BitWriter, m: &PeerMessage, size: u32) -> Result<(), BodyError> {
    w.write(m.id().into(), 6);
    w.write(size.into(), 18);
    m.write_body(w)
}

/// One message read: its id and declared size, then the body, or why it is not one.
pub fn read_message(r: &mut BitReader<'_>) -> Result<(PeerMessage, u32), ChainError> {
    let id = r.read(6)? as u8;
    let said = r.read(18)? as u32;
    if id > MAX_ID {
        return Err(ChainError::Id(id));
    }
    Ok((PeerMessage::read_body(id, r)?, said))
}

/// Whether `said` is `m`'s declared size: else the receiver drops it (PEER-13).
pub fn size_error(m: &PeerMessage, said: u32) -> Option<ChainError> {
    let (id, want) = (m.id(), m.declared_size());
    (said != want).then_some(ChainError::Size { id, said, want })
}

/// An out-of-band container of `messages`, each with its id's declared size.
pub fn write_container(messages: &[PeerMessage]) -> Result<Vec<u8>, BodyError> {
    let sizes: Vec<(&PeerMessage, u32)> = messages.iter().map(|m| (m, m.declared_size())).collect();
    write_declared(&sizes)
}

/// [`write_container`] with each message's declared size given.
pub fn write_declared(messages: &[(&PeerMessage, u32)]) -> Result<Vec<u8>, BodyError> {
    let mut bytes = Vec::new();
    let mut w = BitWriter::appending(&mut bytes);
    w.write(1, 1);
    for (m, size) in messages {
        w.write(1, 1);
        write_message(&mut w, m, *size)?;
    }
    w.write(0, 1);
    w.finish()?;
    Ok(bytes)
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
            let (message, said) = read_message(&mut r)?;
            let last = message.id() == JOIN_REQUEST;
            match size_error(&message, said) {
                // the size only sizes a scratch buffer: the message is dropped, the chain goes on
                Some(dropped) => c.dropped.push(dropped),
                None => c.messages.push(message),
            }
            if last {
                break;
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
    use crate::peer::message::{self, PONG_KIND};

    const PING_SIZE: u32 = 24;

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
        let bytes = write_container(&[ping.clone(), pong.clone()]).unwrap();
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
            let bytes = write_declared(&[(&ping, said), (&ping, PING_SIZE)]).unwrap();
            let c = read_container(&bytes);
            assert_eq!(c.messages, std::slice::from_ref(&ping));
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
        // marker, more, id 31
        assert_eq!(
            read_container(&[0xDF, 0, 0, 0]).ended,
            Some(ChainError::Body(BodyError::Unread(31)))
        );
        assert!(matches!(
            read_container(&[]).ended,
            Some(ChainError::Bits(_))
        ));
    }

    /// A join-request is the last message read: a ping after it is not (its tables are
    /// read by no source).
    #[test]
    fn a_join_request_ends_the_chain() {
        let join = PeerMessage::JoinRequest(message::JoinRequest {
            protocol: message::PROTOCOL_VERSION,
            low_build: message::BUILD,
            high_build: message::BUILD,
            executable_type: message::EXECUTABLE_TYPE,
            session: 1,
            join_id: 2,
        });
        let ping = PeerMessage::Ping {
            sequence: 1,
            timestamp: 2,
            flag: true,
        };
        let c = read_container(&write_container(&[join.clone(), ping]).unwrap());
        assert_eq!((c.messages, c.ended), (vec![join], None));
    }
}
