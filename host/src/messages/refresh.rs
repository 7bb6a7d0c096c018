//! Messages 18 (state refresh) and 11 (start_new_activity): requests for the whole
//! snapshot, messages 1, 2 and 12 (on a private link), then 5 (SR "What each client message
//! gets"; HOST-03). An earlier send is not an answer: the client may have dropped what it
//! held. A request is never answered in part (SR "Answer what was asked"): while the
//! activity's table is held back for a host record, the whole snapshot waits for it.

use crate::activities::Activities;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::reason::Dropped;
use vex_wire::activity::body::Body;
use vex_wire::activity::ids::{START_NEW_ACTIVITY, STATE_REFRESH, WORLD_GLOBALS_STATE};
use vex_wire::activity::session::SessionId;

impl Activities {
    /// Message 18. The request's membership revision and bubble are read and not used:
    /// the host answers with its whole state whatever the client holds.
    pub(crate) fn state_refresh(&mut self, links: &mut Links, link: LinkId, trailing: bool) {
        let msg = STATE_REFRESH;
        if trailing && !self.policy().take_trailing_bytes() {
            return links.drop_input(link, Dropped::TrailingBytes { msg });
        }
        self.snapshot(links, link, STATE_REFRESH);
    }

    /// Message 11: the snapshot too while `default_client_activation` is on, else
    /// recorded only (SR "What each client message gets"; facts 4.14: its head is the
    /// selection's first fields, the rest opaque).
    pub(crate) fn start_new_activity(&mut self, links: &mut Links, link: LinkId) {
        let msg = START_NEW_ACTIVITY;
        if self.config.default_client_activation && self.policy().answer_start_activity() {
            self.snapshot(links, link, msg);
        }
    }

    /// The snapshot answering request `msg`, in order. Message 5 needs the client's
    /// patch epoch; before the first message 52 it is owed, and the epoch's arrival sends
    /// it. A client that left or never joined gets nothing.
    fn snapshot(&mut self, links: &mut Links, link: LinkId, msg: u32) {
        if !self.policy().answer_refresh() {
            return;
        }
        let Some(binding) = links.binding(link) else {
            return;
        };
        let (Some(join), epoch) = (binding.join().cloned(), binding.epoch()) else {
            return links.drop_input(link, Dropped::NotJoined(msg));
        };
        let (session, public) = (binding.session(), binding.is_public());
        if !public && self.hold_table(session) {
            return self.owe_snapshot(links, link, session, msg);
        }
        self.push_global_state(links, link);
        match self.world_globals().encode() {
            Ok(body) => links.push_message(link, WORLD_GLOBALS_STATE, &body),
            Err(error) => {
                let msg = WORLD_GLOBALS_STATE;
                return links.not_built(link, msg, error);
            }
        }
        if !public {
            self.push_membership(links, link, session);
        }
        if !self.policy().refresh_roster() {
            return;
        }
        if let Some(binding) = links.binding_mut(link) {
            // this is the request a region move waits for
            binding.roster_mut().snapshot_asked(epoch.is_some());
        }
        if let Some(epoch) = epoch {
            self.push_roster(links, link, &join, epoch, true);
        }
    }

    /// `link`'s snapshot asked with `msg` waits for `session`'s table.
    fn owe_snapshot(&mut self, links: &mut Links, link: LinkId, session: SessionId, msg: u32) {
        let owed = self
            .map
            .get_mut(&session)
            .map(|a| a.owe_snapshot(link, msg));
        if owed == Some(false) {
            links.drop_input(link, Dropped::SnapshotsOwed(msg));
        }
    }

    /// `session`'s table went out: each snapshot that waited for it is answered whole, in
    /// the order asked, to the links still in the session.
    pub(crate) fn answer_owed_snapshots(&mut self, links: &mut Links, session: SessionId) {
        let Some(activity) = self.map.get_mut(&session) else {
            return;
        };
        for (link, msg) in activity.take_owed_snapshots() {
            if links.binding(link).is_some_and(|b| b.session() == session) {
                self.snapshot(links, link, msg);
            }
        }
    }
}
