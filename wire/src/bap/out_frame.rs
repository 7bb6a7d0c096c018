//! An outbound frame built in one buffer: room for the outer header and, for a sealed
//! frame, the GCM tag; then the inner message, written once by its encoder; then sealed
//! where it lies (NS "bdLobby BAP", "The frame"; facts 1.4: a type-1 frame is the tag, then
//! the ciphertext).
//!
//! A sender that builds the inner message elsewhere and frames it afterwards copies it
//! twice more (into the sealed payload, then behind the outer header); this buffer is the
//! frame from the first byte the encoder writes.

use super::header::{FrameType, InnerHeader, MAGIC, OUTER_HEADER_LEN};
use super::secure::{SecureChannel, TAG_LEN};

/// A frame being built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFrame {
    frame_type: FrameType,
    bytes: Vec<u8>,
}

impl OutFrame {
    /// An empty frame of `frame_type` with room for `inner` bytes of inner message.
    pub fn new(frame_type: FrameType, inner: usize) -> Self {
        let head = Self::head_len(frame_type);
        let mut bytes = Vec::with_capacity(head + inner);
        bytes.resize(head, 0);
        Self { frame_type, bytes }
    }

    /// The whole frame of `frame_type` holding `header` and `body`, sealed with `channel`
    /// when encrypted (see [`OutFrame::finish`]).
    pub fn message(
        frame_type: FrameType,
        header: InnerHeader,
        body: &[u8],
        channel: Option<&mut SecureChannel>,
    ) -> Vec<u8> {
        let mut frame = Self::new(frame_type, header.wire_len() + body.len());
        header.write(frame.buffer());
        frame.buffer().extend_from_slice(body);
        frame.finish(channel)
    }

    fn head_len(frame_type: FrameType) -> usize {
        match frame_type {
            FrameType::Encrypted => OUTER_HEADER_LEN + TAG_LEN,
            FrameType::Plain | FrameType::Bootstrap => OUTER_HEADER_LEN,
        }
    }

    /// Where the inner message starts in [`OutFrame::buffer`].
    pub fn inner_start(&self) -> usize {
        Self::head_len(self.frame_type)
    }

    /// The buffer: the inner message is appended to it, and may be patched in place
    /// after [`OutFrame::inner_start`].
    pub fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// The whole frame: the outer header written and, for an encrypted frame, the inner
    /// message sealed in place with `channel`'s next nonce and its tag in front. An
    /// encrypted frame with no channel goes out as plaintext type 0 (a link whose hello has
    /// not armed it).
    pub fn finish(mut self, channel: Option<&mut SecureChannel>) -> Vec<u8> {
        let frame_type = match (self.frame_type, channel) {
            (FrameType::Encrypted, Some(channel)) => {
                // `new` left room for the header and tag, so the split always finds them
                if let Some((head, inner)) = self
                    .bytes
                    .split_first_chunk_mut::<{ OUTER_HEADER_LEN + TAG_LEN }>()
                {
                    head[OUTER_HEADER_LEN..].copy_from_slice(&channel.seal_in_place(inner));
                }
                FrameType::Encrypted
            }
            (FrameType::Encrypted, None) => {
                self.bytes
                    .drain(OUTER_HEADER_LEN..OUTER_HEADER_LEN + TAG_LEN);
                FrameType::Plain
            }
            (t, _) => t,
        };
        let [l0, l1, l2, l3] = ((self.bytes.len() - OUTER_HEADER_LEN) as u32).to_be_bytes();
        if let Some(head) = self.bytes.first_chunk_mut() {
            *head = [MAGIC, frame_type.byte(), l0, l1, l2, l3];
        }
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bap::header::outer_frame;
    use crate::bap::secure::{ChannelSecrets, Role};

    fn secrets() -> ChannelSecrets {
        ChannelSecrets {
            base_nonce: std::array::from_fn(|i| 0xA0 + i as u8),
            session_key: std::array::from_fn(|i| 0xB0 + i as u8),
        }
    }

    fn built(frame_type: FrameType, inner: &[u8], channel: Option<&mut SecureChannel>) -> Vec<u8> {
        let mut f = OutFrame::new(frame_type, inner.len());
        f.buffer().extend_from_slice(inner);
        f.finish(channel)
    }

    /// Facts 10.2: encrypted frame #0, built in place, is the vector byte for byte, and
    /// the same as sealing then framing.
    #[test]
    fn sealed_in_place_is_the_facts_frame() {
        let inner = [0x00, 0xFB, 0x00, 0x00, 0x00, 0x07, 0x00, 0xC8];
        let mut host = SecureChannel::new(&secrets(), Role::Host);
        let frame = built(FrameType::Encrypted, &inner, Some(&mut host));
        assert_eq!(
            hex::encode_upper(&frame),
            "0101000000183D0CC2B30F23E5D18E47E5F2C989B0F383D60EEB14A066B6"
        );
        let mut twin = SecureChannel::new(&secrets(), Role::Host);
        let second = built(FrameType::Encrypted, b"second", Some(&mut host));
        twin.seal(&inner);
        assert_eq!(
            second,
            outer_frame(FrameType::Encrypted, &twin.seal(b"second"))
        );
    }

    #[test]
    fn plain_frames_and_an_unarmed_link() {
        for t in [FrameType::Plain, FrameType::Bootstrap] {
            assert_eq!(built(t, b"abc", None), outer_frame(t, b"abc"));
        }
        assert_eq!(
            built(FrameType::Encrypted, b"abc", None),
            outer_frame(FrameType::Plain, b"abc"),
            "no channel: plaintext type 0"
        );
        let mut f = OutFrame::new(FrameType::Encrypted, 0);
        assert_eq!(f.inner_start(), OUTER_HEADER_LEN + TAG_LEN);
        assert_eq!(f.buffer().len(), f.inner_start());
    }
}
