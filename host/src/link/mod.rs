//! One BAP link as the host sees it: framing, the secure channel, and the activity
//! binding (NS "bdLobby BAP"; facts 1.4, 7.7).

mod answers;
mod authority;
mod binding;
mod bound_sessions;
mod epoch;
mod links;
mod roster;
mod table;

pub use binding::Binding;
pub(crate) use links::Links;

pub(crate) use answers::{MAX_HELD_ANSWERS, Response};

use answers::Answers;

use crate::event::Transmit;
use crate::limits::{Limits, RateWindow};
use crate::link_id::LinkId;
use std::collections::BTreeMap;
use vex_wire::activity::envelope::{PUSH_HEADER_LEN, PushHeader};
use vex_wire::bap::deframer::{DeframeError, Deframer, Frame};
use vex_wire::bap::header::{FrameType, InnerHeader, REQUEST_HEADER_LEN};
use vex_wire::bap::out_frame::OutFrame;
use vex_wire::bap::secure::SecureChannel;
use vex_wire::bap::services::ACTIVITY_PUSH;
use vex_wire::time::Instant;

/// One link: its frames coming in, its channel, its timers and the activity it is bound
/// to. Its state changes only through the methods below.
#[derive(Debug)]
pub struct Link {
    id: LinkId,
    /// Reassembles frames.
    deframer: Deframer,
    /// Armed by the hello (service 25); type-1 frames after that.
    secure: Option<SecureChannel>,
    /// The activity binding, after service 6.
    binding: Option<Binding>,
    /// A response the outbound hook holds back until the link's next response.
    deferred_response: Option<(FrameType, InnerHeader, Vec<u8>)>,
    /// When the next keepalive push is due, after a join.
    next_keepalive: Option<Instant>,
    /// Set when the link was shut: it reads nothing more.
    closed: bool,
    /// Per family subscribed to (service 12 or web-service 206): its root and the last
    /// service-123 version pushed.
    families: BTreeMap<u32, Family>,
    /// Answers held in request order behind one that waits for the lobby's store.
    answers: Answers,
    /// Until the hello: when a link with none is closed ([`crate::Limits::hello_within_ms`]).
    hello_due: Option<Instant>,
    /// While part of a frame is held: when a frame still not whole is closed
    /// ([`crate::Limits::frame_within_ms`]).
    frame_due: Option<Instant>,
    /// The frames of the current second ([`crate::Limits::frames_per_second`]).
    rate: RateWindow,
}

/// A family a link subscribed to.
#[derive(Debug, Clone, Copy)]
struct Family {
    /// The family root the subscription named.
    root: u64,
    /// The last version pushed.
    version: i32,
}

impl Link {
    /// A link opened at `now`, framed within `limits`.
    pub fn new(id: LinkId, now: Instant, limits: &Limits) -> Self {
        Self {
            id,
            deframer: Deframer::new(limits.max_frame_len),
            secure: None,
            binding: None,
            deferred_response: None,
            next_keepalive: None,
            closed: false,
            families: BTreeMap::new(),
            answers: Answers::default(),
            hello_due: Some(now + limits.hello_within_ms),
            frame_due: None,
            rate: RateWindow::default(),
        }
    }

    /// True once the link was shut: it reads nothing more.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Shuts the link: it reads nothing more, and its timers stop.
    pub fn shut(&mut self) {
        self.closed = true;
        self.hello_due = None;
        self.frame_due = None;
        self.next_keepalive = None;
    }

    /// Takes `bytes` in; the frames they complete come out of [`Link::next_frame`].
    pub fn take_bytes(&mut self, bytes: &[u8]) {
        self.deframer.push(bytes);
    }

    /// The next whole frame, if one is.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, DeframeError> {
        self.deframer.next_frame()
    }

    /// The bytes held of a frame not yet whole.
    pub fn buffered(&self) -> usize {
        self.deframer.buffered()
    }

    /// Counts a frame at `now_ms` against `per_second`: false past it.
    pub fn admit_frame(&mut self, now_ms: u64, per_second: u32) -> bool {
        self.rate.admit(now_ms, per_second)
    }

    /// When a frame still not whole is closed.
    pub fn frame_due(&self) -> Option<Instant> {
        self.frame_due
    }

    /// Sets [`Link::frame_due`]: true when it moved.
    pub fn set_frame_due(&mut self, due: Option<Instant>) -> bool {
        let moved = due != self.frame_due;
        self.frame_due = due;
        moved
    }

    /// Until the hello: when the link is closed for having none.
    pub fn hello_due(&self) -> Option<Instant> {
        self.hello_due
    }

    /// The hello armed `channel`: type-1 frames from now on, no hello deadline.
    pub fn secure_with(&mut self, channel: SecureChannel) {
        self.secure = Some(channel);
        self.hello_due = None;
    }

    /// The secure channel, once the hello armed it.
    pub fn channel(&mut self) -> Option<&mut SecureChannel> {
        self.secure.as_mut()
    }

    /// When the next keepalive is due.
    pub fn next_keepalive(&self) -> Option<Instant> {
        self.next_keepalive
    }

    /// The next keepalive is due at `at`, or none is owed.
    pub fn keepalive_at(&mut self, at: Option<Instant>) {
        self.next_keepalive = at;
    }

    /// What the link owns of the activity it is bound to, once service 7 bound it.
    pub fn binding(&self) -> Option<&Binding> {
        self.binding.as_ref()
    }

    /// [`Link::binding`], to change.
    pub fn binding_mut(&mut self) -> Option<&mut Binding> {
        self.binding.as_mut()
    }

    /// Service 7 bound the link to `binding`: the one it had before. Through
    /// [`Links::bind`], which counts the sessions bindings name.
    fn bind(&mut self, binding: Binding) -> Option<Binding> {
        self.binding.replace(binding)
    }

    /// The link is gone: the binding it had.
    pub fn into_binding(self) -> Option<Binding> {
        self.binding
    }

    /// The outbound hook holds `response` back until the link's next response.
    pub fn defer_response(&mut self, response: (FrameType, InnerHeader, Vec<u8>)) {
        self.deferred_response = Some(response);
    }

    /// The response held back, now due.
    pub fn take_deferred_response(&mut self) -> Option<(FrameType, InnerHeader, Vec<u8>)> {
        self.deferred_response.take()
    }

    /// The link subscribes to `family` under `root`: the version of the snapshot that
    /// follows, one past the last pushed for the family (QZ-01: "a version must be the
    /// previous version plus one").
    pub fn subscribe_family(&mut self, family: u32, root: u64) -> i32 {
        let f = self
            .families
            .entry(family)
            .or_insert(Family { root, version: 0 });
        f.root = root;
        f.version += 1;
        f.version
    }

    /// The version the next update of `family` under `root` carries, when the link is
    /// subscribed to it.
    pub fn next_family_version(&self, family: u32, root: u64) -> Option<i32> {
        let f = self.families.get(&family).filter(|f| f.root == root)?;
        Some(f.version + 1)
    }

    /// Counts an update of `family` under `root` pushed: its version, when the link is
    /// subscribed to it.
    pub fn push_family_version(&mut self, family: u32, root: u64) -> Option<i32> {
        let f = self.families.get_mut(&family).filter(|f| f.root == root)?;
        f.version += 1;
        Some(f.version)
    }

    /// The link's answers held behind one that waits.
    pub(crate) fn answers(&mut self) -> &mut Answers {
        &mut self.answers
    }

    /// The frame type a frame of `reply_type` goes out as: an encrypted one only once the
    /// hello has armed the channel, else plaintext.
    fn effective(&self, reply_type: FrameType) -> FrameType {
        match (reply_type, &self.secure) {
            (FrameType::Encrypted, None) => FrameType::Plain,
            (t, _) => t,
        }
    }

    /// Wraps an inner message in a frame of `reply_type`: sealed for
    /// [`FrameType::Encrypted`] (once the channel is armed), else plaintext.
    pub fn frame(&mut self, reply_type: FrameType, header: InnerHeader, body: &[u8]) -> Vec<u8> {
        OutFrame::message(
            self.effective(reply_type),
            header,
            body,
            self.secure.as_mut(),
        )
    }

    /// Wraps raw inner-message bytes in a frame of `reply_type`.
    pub fn frame_inner(&mut self, reply_type: FrameType, inner: &[u8]) -> Vec<u8> {
        let mut frame = OutFrame::new(self.effective(reply_type), inner.len());
        frame.buffer().extend_from_slice(inner);
        frame.finish(self.secure.as_mut())
    }

    /// The frame type of the host's own pushes: sealed once the channel is armed.
    pub fn push_type(&self) -> FrameType {
        self.effective(FrameType::Encrypted)
    }

    /// A frame of `reply_type` holding `header` and `body`.
    pub fn framed(&mut self, reply_type: FrameType, header: InnerHeader, body: &[u8]) -> Transmit {
        Transmit {
            link: self.id,
            bytes: self.frame(reply_type, header, body),
            service: header.service,
            message: None,
        }
    }

    /// An empty service-9 push frame with room for a `payload`-byte body: the body is
    /// appended to [`PushFrame::buffer`], then [`Link::push`] seals it.
    pub fn push_frame(&self, payload: usize) -> PushFrame {
        let head = REQUEST_HEADER_LEN + PUSH_HEADER_LEN;
        let mut frame = OutFrame::new(self.push_type(), head + payload);
        let headers = frame.buffer().len();
        frame.buffer().resize(headers + head, 0);
        PushFrame { frame, headers }
    }

    /// The service-9 push of activity message `header.msg_type` whose body `frame` holds,
    /// with inner-header `sequence` (ENV-10: 0): the headers written in front of the body
    /// and the frame sealed where it lies.
    pub fn push(&mut self, mut push: PushFrame, header: &PushHeader, sequence: u32) -> Transmit {
        let inner = InnerHeader::request(ACTIVITY_PUSH, sequence);
        let (service, task) = (inner.service.to_be_bytes(), inner.task.to_be_bytes());
        let headers = service.into_iter().chain(task).chain(header.to_bytes());
        // into the room `push_frame` left for them in front of the body
        let room = push.frame.buffer().iter_mut().skip(push.headers);
        for (slot, byte) in room.zip(headers) {
            *slot = byte;
        }
        Transmit {
            link: self.id,
            bytes: push.frame.finish(self.secure.as_mut()),
            service: ACTIVITY_PUSH,
            message: Some(header.msg_type),
        }
    }
}

/// A service-9 push being built in its frame: room for the inner header and the push
/// header, then the body (AH "The activity envelope").
#[derive(Debug)]
pub struct PushFrame {
    frame: OutFrame,
    headers: usize,
}

impl PushFrame {
    /// Where the body starts in [`PushFrame::buffer`].
    pub fn payload_start(&self) -> usize {
        self.headers + REQUEST_HEADER_LEN + PUSH_HEADER_LEN
    }

    /// The frame's buffer: the body is appended to it.
    pub fn buffer(&mut self) -> &mut Vec<u8> {
        self.frame.buffer()
    }

    /// The body's bytes so far.
    pub fn payload_len(&mut self) -> usize {
        let start = self.payload_start();
        self.frame.buffer().len() - start
    }
}
