//! The one outbound hook: every frame the host sends passes it before and after sealing,
//! and so does what its lobby serves over HTTPS,
//! like smoltcp's `phy::FaultInjector` (design "The emulated client": faults that change
//! bytes or frames go through one outbound hook). Its default methods change nothing and
//! add nothing; the built-in host's fault plan (`vex-faults`) keeps them until it is told to
//! break a rule.

use crate::policy::RosterInputs;
use std::ops::{Deref, DerefMut};
use vex_wire::activity::envelope::PushHeader;
use vex_wire::activity::session::SessionId;
use vex_wire::bap::header::InnerHeader;
use vex_wire::bap::queuez::Update;
use vex_wire::lobby::signon::SignOnResponse;

/// A point in a link's life after which frames may be added.
#[derive(Debug, Clone, Copy)]
pub enum Moment<'a> {
    /// Service 17 was sent.
    LookupAnswered,
    /// Service 7 was sent and the session committed.
    SessionCreated,
    /// The join burst was sent.
    JoinBurst,
    /// The link's first message 5 was sent.
    FirstRoster,
    /// A keepalive's messages were sent.
    Keepalive,
    /// A message 44 was sent.
    EpochSent,
    /// Activity message `msg` arrived on service 8, a one-way report, with `task`.
    Reported {
        /// The activity message id.
        msg: u32,
        /// The inner header's task id.
        task: u32,
    },
    /// The leave delta was sent; `inputs` build the roster the member had.
    LeaveAnswered {
        /// What the member's roster is built from.
        inputs: RosterInputs<'a>,
    },
}

/// How a response goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// This many copies, now.
    Copies(usize),
    /// One copy, after the link's next response.
    AfterNext,
}

/// A frame the hook adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Injected {
    /// These inner-message bytes, framed as the link's pushes are, logged as `service`.
    Inner {
        /// The service the transmit is logged under.
        service: u16,
        /// The inner message, header included.
        inner: Vec<u8>,
    },
    /// A service-9 push of activity message `0` with body `1` on the link's session.
    Push(u32, Vec<u8>),
    /// A service-9 push naming `session`, which the link does not have.
    UnboundPush {
        /// The session it names.
        session: SessionId,
        /// The activity message id.
        msg: u32,
        /// The body.
        payload: Vec<u8>,
    },
    /// The host's current message 1 on the link's session.
    GlobalState,
    /// The link's whole roster again.
    Roster,
    /// A frame sealed on the link and never sent: the link's send nonce moves on.
    LostFrame,
    /// The host closes the link, for this reason.
    Close(&'static str),
}

/// The outbound hook.
pub trait Outbound {
    /// A response to a request, as `service` (the response's id): how it goes out (BAP-06:
    /// exactly one copy; BAP-16: in the order of the requests). Its header and body may
    /// change.
    fn response(&self, _service: u16, _header: &mut InnerHeader, _body: &mut Vec<u8>) -> Delivery {
        Delivery::Copies(1)
    }

    /// An activity message's body before its envelope; `in_burst` in the join burst.
    fn payload(&self, _msg: u32, _in_burst: bool, _payload: &mut Payload<'_>) {}

    /// A service-9 push's header and its inner-header sequence (ENV-10: 0); `joined` once
    /// the link's client is joined.
    fn push(&self, _push: &mut PushHeader, _sequence: &mut u32, _joined: bool) {}

    /// The whole frame after sealing.
    fn sealed(&self, _service: u16, _message: Option<u32>, _frame: &mut Vec<u8>) {}

    /// Frames to add at `moment`.
    fn after(&self, _moment: Moment<'_>) -> Vec<Injected> {
        Vec::new()
    }

    /// A family snapshot (service 123) as the service-123 bodies it goes out as.
    fn queuez(&self, update: Update) -> Vec<Vec<u8>> {
        vec![update.encode()]
    }

    /// The lobby's SignOn response to an account's attempt `attempt` (0 first).
    fn signon(&self, _attempt: usize, _response: &mut SignOnResponse) {}

    /// The manifest body before it is signed.
    fn manifest_body(&self, _body: &mut Vec<u8>) {}

    /// The signed manifest as it is served: HTTP status and body.
    fn manifest(&self, _status: &mut u16, _body: &mut Vec<u8>) {}

    /// An out-of-band peer message container before its record seals it.
    fn peer_container(&self, _container: &mut Vec<u8>) {}

    /// A datagram the UDP port sends, as it goes: it may change, and goes this many times
    /// (once).
    fn datagram(&self, _datagram: &mut Vec<u8>) -> usize {
        1
    }
}

/// An activity message's body where it lies in its frame, for the hook to change: the
/// bytes of the frame's buffer from `start` on.
#[derive(Debug)]
pub struct Payload<'a> {
    frame: &'a mut Vec<u8>,
    start: usize,
}

impl<'a> Payload<'a> {
    /// The body at `start` of `frame`'s buffer.
    pub fn new(frame: &'a mut Vec<u8>, start: usize) -> Self {
        Self { frame, start }
    }

    /// Keeps the first `len` bytes.
    pub fn truncate(&mut self, len: usize) {
        self.frame.truncate(self.start + len);
    }

    /// Makes the body `len` bytes, filling with `value`.
    pub fn resize(&mut self, len: usize, value: u8) {
        self.frame.resize(self.start + len, value);
    }

    /// Removes the last byte.
    pub fn pop(&mut self) {
        self.truncate(self.len().saturating_sub(1));
    }

    /// Removes every byte.
    pub fn clear(&mut self) {
        self.truncate(0);
    }
}

impl Deref for Payload<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.frame.get(self.start..).unwrap_or_default()
    }
}

impl DerefMut for Payload<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.frame.get_mut(self.start..).unwrap_or_default()
    }
}
