//! One of the client's two BAP links: framing, the secure channel, and its outstanding
//! requests (NS "bdLobby BAP").

use std::collections::{BTreeMap, VecDeque};
use vex_wire::bap::deframer::Deframer;
use vex_wire::bap::header::{FrameType, InnerHeader};
use vex_wire::bap::out_frame::OutFrame;
use vex_wire::bap::secure::SecureChannel;
use vex_wire::time::Instant;

/// Which link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LinkKind {
    /// The lobby link opened after SignOn.
    Primary,
    /// The Activity Host link, to the address service 17 gave.
    Activity,
}

impl std::fmt::Display for LinkKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LinkKind::Primary => "primary",
            LinkKind::Activity => "activity",
        })
    }
}

/// A request waiting for its response (BAP-05, BAP-06).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    /// The service the request went out on.
    pub service: u16,
    /// When it went out: one made within [`crate::ANSWER_GRACE_MS`] of the run's end is
    /// not judged unanswered.
    pub sent: Instant,
}

/// The one-way messages a link remembers, to tell a response to one of them (HOST-12).
pub const ONE_WAY_KEPT: usize = 64;

/// Per-link state.
#[derive(Debug)]
pub struct ClientLink {
    /// Reassembles frames.
    pub deframer: Deframer,
    /// Armed by service 26.
    pub secure: Option<SecureChannel>,
    /// Requests not yet answered, by task id (BAP-05, BAP-06).
    pub pending: BTreeMap<u32, Pending>,
    /// Requests answered once: task id to service id (BAP-06: exactly one response).
    pub answered: BTreeMap<u32, u16>,
    /// The last one-way messages sent, service 8's reports, by task id: none gets a
    /// response (HOST-12). At most [`ONE_WAY_KEPT`].
    pub one_way: VecDeque<u32>,
    /// The next task id.
    pub next_task: u32,
    /// When the last bytes arrived (LINK-01).
    pub last_rx: Instant,
    /// When the client last sent on this link (LINK-02).
    pub last_tx: Instant,
    /// Set once the link is refused or closed.
    pub dead: bool,
}

impl ClientLink {
    /// A link that just connected.
    pub fn new(now: Instant) -> Self {
        Self {
            deframer: Deframer::default(),
            secure: None,
            pending: BTreeMap::new(),
            answered: BTreeMap::new(),
            one_way: VecDeque::new(),
            next_task: 1,
            last_rx: now,
            last_tx: now,
            dead: false,
        }
    }

    /// Frames a request on `service`, recording it as pending when it expects a response.
    pub fn request(
        &mut self,
        now: Instant,
        service: u16,
        body: &[u8],
        expects_response: bool,
    ) -> Vec<u8> {
        let task = self.next_task;
        self.next_task = self.next_task.wrapping_add(1);
        if expects_response {
            self.pending.insert(task, Pending { service, sent: now });
        } else {
            if self.one_way.len() == ONE_WAY_KEPT {
                self.one_way.pop_front();
            }
            self.one_way.push_back(task);
        }
        self.last_tx = now;
        let header = InnerHeader::request(service, task);
        let frame_type = match self.secure {
            Some(_) => FrameType::Encrypted,
            None => FrameType::Bootstrap,
        };
        OutFrame::message(frame_type, header, body, self.secure.as_mut())
    }
}
