//! Every link the host holds, the deadlines of their timers, and the outbox their frames
//! leave by: what a handler reaches a link through (NS "bdLobby BAP"; SR "Timed sends that
//! remain").

use super::bound_sessions::BoundSessions;
use super::{Binding, Link, MAX_HELD_ANSWERS, Response};
use crate::event::{HostEvent, Transmit};
use crate::hooks::Hooks;
use crate::host_timer::HostTimer;
use crate::limits::Limit;
use crate::link_id::LinkId;
use crate::outbound::{Delivery, Outbound, Payload};
use crate::outbox::Outbox;
use crate::reason::{Closed, Dropped};
use crate::timer_queue::TimerQueue;
use std::collections::BTreeMap;
use vex_wire::activity::envelope::PushHeader;
use vex_wire::activity::session::SessionId;
use vex_wire::bap::header::{FrameType, InnerHeader};
use vex_wire::bap::services::response_for;
use vex_wire::bits::BitError;
use vex_wire::time::Instant;

/// The link table: each link by id, the sessions their bindings name, each armed timer's
/// deadline, and the outbox every frame and event leaves by.
#[derive(Debug)]
pub(crate) struct Links {
    map: BTreeMap<LinkId, Link>,
    /// The sessions the links' bindings name.
    bound: BoundSessions,
    /// Every link timer's deadline, earliest first.
    timers: TimerQueue<(LinkId, HostTimer)>,
    /// The frames and events the host has queued.
    out: Outbox,
}

impl Links {
    /// No link yet; frames leave through `hooks`.
    pub(crate) fn new(hooks: Hooks) -> Self {
        Self {
            map: BTreeMap::new(),
            bound: BoundSessions::default(),
            timers: TimerQueue::default(),
            out: Outbox::new(hooks),
        }
    }

    /// The one outbound hook every frame passes.
    pub(crate) fn outbound(&self) -> &dyn Outbound {
        self.out.outbound()
    }

    /// A frame arrived on `link` and was understood.
    pub(crate) fn record(&mut self, link: LinkId, service: u16, task: u32, message: Option<u32>) {
        self.out.record(link, service, task, message);
    }

    /// Input on `link` was dropped for `reason`; the link goes on.
    pub(crate) fn drop_input(&mut self, link: LinkId, reason: Dropped) {
        self.out.drop_input(link, reason);
    }

    /// The host could not build its own message `msg` for `link`; nothing is sent.
    pub(crate) fn not_built(&mut self, link: LinkId, msg: u32, error: BitError) {
        self.out.not_built(link, msg, error);
    }

    /// The IO layer is to close `link` for `reason`.
    pub(crate) fn close(&mut self, link: LinkId, reason: Closed) {
        self.out.close(link, reason);
    }

    /// Reports `event`.
    pub(crate) fn event(&mut self, event: HostEvent) {
        self.out.event(event);
    }

    /// The next frame to send.
    pub(crate) fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.poll_transmit()
    }

    /// The next event.
    pub(crate) fn poll_event(&mut self) -> Option<HostEvent> {
        self.out.poll_event()
    }

    /// How many links are held.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// The link ids, in order.
    pub(crate) fn ids(&self) -> impl Iterator<Item = LinkId> + '_ {
        self.map.keys().copied()
    }

    /// `link`, while it is held.
    pub(crate) fn get(&self, link: LinkId) -> Option<&Link> {
        self.map.get(&link)
    }

    /// [`Links::get`], to change.
    pub(crate) fn get_mut(&mut self, link: LinkId) -> Option<&mut Link> {
        self.map.get_mut(&link)
    }

    /// Holds `link`, a new link (no service 7 has bound it yet), under its id.
    pub(crate) fn insert(&mut self, id: LinkId, link: Link) {
        self.map.insert(id, link);
    }

    /// `link` is gone: what it held.
    pub(crate) fn remove(&mut self, link: LinkId) -> Option<Link> {
        let removed = self.map.remove(&link)?;
        if let Some(b) = removed.binding() {
            self.bound.remove(b);
        }
        Some(removed)
    }

    /// Service 7 bound `link` to `binding`: the one it had before, or none (none either
    /// when the link is not held, and then nothing is bound).
    pub(crate) fn bind(&mut self, link: LinkId, binding: Binding) -> Option<Binding> {
        let l = self.map.get_mut(&link)?;
        self.bound.add(&binding);
        let previous = l.bind(binding)?;
        self.bound.remove(&previous);
        Some(previous)
    }

    /// A join names `session`: `link`'s binding is bound to it from now on.
    pub(crate) fn enter(&mut self, link: LinkId, session: SessionId) {
        self.rebind(link, |b| b.enter(session));
    }

    /// `link`'s join did not go through: its binding is back on its own session.
    pub(crate) fn unjoin(&mut self, link: LinkId) {
        self.rebind(link, Binding::unjoin);
    }

    /// Changes the session `link`'s binding names by `change`, counted again.
    fn rebind(&mut self, link: LinkId, change: impl FnOnce(&mut Binding)) {
        let Some(b) = self.map.get_mut(&link).and_then(Link::binding_mut) else {
            return;
        };
        self.bound.remove(b);
        change(b);
        self.bound.add(b);
    }

    /// True when a link's binding names `session`, as the session it is bound to or as
    /// its own private one.
    pub(crate) fn names_session(&self, session: SessionId) -> bool {
        self.bound.contains(session)
    }

    /// What `link` owns of the activity it is bound to, once service 7 bound it.
    pub(crate) fn binding(&self, link: LinkId) -> Option<&Binding> {
        self.get(link)?.binding()
    }

    /// [`Links::binding`], to change.
    pub(crate) fn binding_mut(&mut self, link: LinkId) -> Option<&mut Binding> {
        self.get_mut(link)?.binding_mut()
    }

    /// Closes `link` for `reason` (its input cannot go on): it reads nothing more, its
    /// timers stop, and the IO layer closes the connection.
    pub(crate) fn shut(&mut self, link: LinkId, reason: Closed) {
        if let Some(l) = self.get_mut(link) {
            l.shut();
        }
        self.out.close(link, reason);
    }

    /// The timer table: when `link`'s `timer` is due, if it is set.
    fn deadline(link: &Link, timer: HostTimer) -> Option<Instant> {
        match timer {
            HostTimer::Keepalive => link.next_keepalive(),
            HostTimer::DeferredRoster => link.binding()?.roster().deferred(),
            HostTimer::Hello => link.hello_due(),
            HostTimer::SlowFrame => link.frame_due(),
        }
    }

    /// True while the queue's entry is still its link's deadline.
    fn holds(
        map: &BTreeMap<LinkId, Link>,
        &(at, (link, timer)): &(Instant, (LinkId, HostTimer)),
    ) -> bool {
        map.get(&link)
            .is_some_and(|l| Self::deadline(l, timer) == Some(at))
    }

    /// Puts `link`'s `timer` in the queue at its deadline, if it has one: every place that
    /// sets a deadline calls this (a cleared or moved one needs nothing, see
    /// [`crate::timer_queue::TimerQueue`]).
    pub(crate) fn arm(&mut self, link: LinkId, timer: HostTimer) {
        let map = &self.map;
        if let Some(at) = map.get(&link).and_then(|l| Self::deadline(l, timer)) {
            let live = map.len() * HostTimer::COUNT;
            self.timers
                .arm(at, (link, timer), live, |d| Self::holds(map, d));
        }
    }

    /// The earliest deadline of any link's timer.
    pub(crate) fn next_deadline(&mut self) -> Option<Instant> {
        let map = &self.map;
        self.timers.next(|d| Self::holds(map, d))
    }

    /// Every timer due at `now`, earliest first, and at one instant link by link in id
    /// order.
    pub(crate) fn take_due(&mut self, now: Instant) -> Vec<(LinkId, HostTimer)> {
        let map = &self.map;
        let due = self.timers.take_due(now, |d| Self::holds(map, d));
        due.into_iter().map(|(_, timer)| timer).collect()
    }

    /// How many deadlines wait in the queue, stale ones included.
    #[cfg(test)]
    pub(crate) fn queued_deadlines(&self) -> usize {
        self.timers.len()
    }

    /// Sends activity message `msg` with `payload` on the session `link` is bound to,
    /// through the outbound hook; `in_burst` in the join burst. The body is copied once,
    /// into its frame, and sealed there.
    pub(crate) fn push(&mut self, link: LinkId, msg: u32, payload: &[u8], in_burst: bool) {
        let Some(l) = self.map.get_mut(&link) else {
            return;
        };
        let Some(b) = l.binding() else {
            return;
        };
        let (session, joined) = (b.session(), b.is_joined());
        let outbound = self.out.outbound();
        let mut frame = l.push_frame(payload.len());
        let start = frame.payload_start();
        frame.buffer().extend_from_slice(payload);
        outbound.payload(msg, in_burst, &mut Payload::new(frame.buffer(), start));
        let mut header = PushHeader::new(session.0, msg, frame.payload_len());
        let mut sequence = 0;
        outbound.push(&mut header, &mut sequence, joined);
        let t = l.push(frame, &header, sequence);
        self.out.send(t);
    }

    /// [`Links::push`] outside the join burst.
    pub(crate) fn push_message(&mut self, link: LinkId, msg: u32, payload: &[u8]) {
        self.push(link, msg, payload, false);
    }

    /// Sends the response to `header`'s request, through the outbound hook.
    pub(crate) fn reply(
        &mut self,
        link: LinkId,
        reply_type: FrameType,
        header: InnerHeader,
        body: Vec<u8>,
    ) {
        let Some(service) = response_for(header.service) else {
            return;
        };
        self.respond(link, reply_type, service, header.task, body);
    }

    /// Sends response `service` to the request with `task`, as often as the outbound hook
    /// says (once), after the link's answers held before it (BAP-16).
    pub(crate) fn respond(
        &mut self,
        link: LinkId,
        reply_type: FrameType,
        service: u16,
        task: u32,
        body: Vec<u8>,
    ) {
        let Some(l) = self.map.get_mut(&link) else {
            return;
        };
        let response = Response {
            reply_type,
            service,
            task,
            body,
        };
        if l.answers().holding() {
            l.answers().queue(response);
        } else {
            self.send_response(link, response);
        }
    }

    /// The answer to the request `header` on `link` is made later, as `call`
    /// ([`Self::answer_call`]); the link's later answers wait behind it (BAP-16). A link
    /// that has [`MAX_HELD_ANSWERS`] held already is closed instead; false then, or when
    /// the link is gone.
    pub(crate) fn hold_answer(&mut self, link: LinkId, call: u64) -> bool {
        let Some(l) = self.map.get_mut(&link) else {
            return false;
        };
        if l.answers().len() >= MAX_HELD_ANSWERS {
            self.shut(link, Closed::Limit(Limit::HeldAnswers(MAX_HELD_ANSWERS)));
            return false;
        }
        l.answers().wait_for(call);
        true
    }

    /// `body` answers `call` (see [`Self::hold_answer`]) to the request `header`: it goes
    /// out with every answer held behind it that is ready.
    pub(crate) fn answer_call(
        &mut self,
        link: LinkId,
        call: u64,
        reply_type: FrameType,
        header: InnerHeader,
        body: Vec<u8>,
    ) {
        let (Some(service), Some(l)) = (response_for(header.service), self.map.get_mut(&link))
        else {
            return;
        };
        let response = Response {
            reply_type,
            service,
            task: header.task,
            body,
        };
        if !l.answers().fill(call, response) {
            return;
        }
        while let Some(r) = self
            .map
            .get_mut(&link)
            .and_then(|l| l.answers().next_ready())
        {
            self.send_response(link, r);
        }
    }

    /// Sends `r` now, as often as the outbound hook says (once).
    fn send_response(&mut self, link: LinkId, r: Response) {
        let Response {
            reply_type,
            service,
            task,
            mut body,
        } = r;
        let mut header = InnerHeader::response(service, task);
        let delivery = self
            .out
            .outbound()
            .response(service, &mut header, &mut body);
        let Some(l) = self.map.get_mut(&link) else {
            return;
        };
        let copies = match delivery {
            Delivery::Copies(n) => n,
            Delivery::AfterNext => return l.defer_response((reply_type, header, body)),
        };
        let mut frames: Vec<_> = (0..copies)
            .map(|_| l.framed(reply_type, header, &body))
            .collect();
        if let Some((ty, h, b)) = l.take_deferred_response() {
            frames.push(l.framed(ty, h, &b));
        }
        for t in frames {
            self.out.send(t);
        }
    }

    /// Sends the frame `build` makes on `link`, while it is held.
    pub(crate) fn send_with(&mut self, link: LinkId, build: impl FnOnce(&mut Link) -> Transmit) {
        if let Some(l) = self.map.get_mut(&link) {
            let t = build(l);
            self.out.send(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;
    use vex_wire::bits::Bits;

    fn session(index: u16) -> SessionId {
        SessionId::shaped(0x1234, index)
    }

    /// A host's links with `count` new links, 1 to `count`.
    fn links(count: u64) -> Links {
        let mut links = Links::new(Hooks::default());
        for id in 1..=count {
            let link = LinkId(id);
            links.insert(
                link,
                Link::new(link, Instant::from_millis(0), &Limits::default()),
            );
        }
        links
    }

    #[test]
    fn a_session_is_named_while_a_binding_names_it() {
        let mut l = links(2);
        let (own, other, public) = (session(1), session(2), session(3));
        assert!(!l.names_session(own), "nothing is bound yet");
        l.bind(LinkId(1), Binding::new(own, Bits::default()));
        l.bind(LinkId(2), Binding::new(other, Bits::default()));
        assert!(l.names_session(own) && l.names_session(other));

        l.enter(LinkId(1), public);
        l.enter(LinkId(2), public);
        assert!(
            l.names_session(own),
            "the private session is still link 1's"
        );
        assert!(l.names_session(public));
        l.unjoin(LinkId(1));
        assert!(l.names_session(public), "link 2 still names it");
        l.unjoin(LinkId(2));
        assert!(!l.names_session(public), "no binding names it any more");

        let previous = l.bind(LinkId(1), Binding::new(session(4), Bits::default()));
        assert_eq!(previous.map(|b| b.session()), Some(own));
        assert!(!l.names_session(own), "a new service 7 replaced it");
        assert!(l.names_session(session(4)));

        l.remove(LinkId(1));
        assert!(
            !l.names_session(session(4)),
            "a link that is gone names nothing"
        );
        assert!(l.names_session(other));
    }

    #[test]
    fn binding_a_link_not_held_names_nothing() {
        let mut l = links(0);
        assert!(
            l.bind(LinkId(9), Binding::new(session(1), Bits::default()))
                .is_none()
        );
        assert!(!l.names_session(session(1)));
    }
}
