//! The authority a link's client was given and the exchanges the host started with it
//! (AH "The bubble-authority block"; SR "What the host pushes on its own": an authority
//! reset or query; AUTH-11, HOST-16).

use crate::exchange::Exchange;
use vex_wire::activity::sensor_auth::BubbleAuthority;

/// Bubble 64's grant as the client mirrors it, and the host's open exchanges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorityLedger {
    /// The last grant token sent: the client's mirror takes every one (AUTH-11).
    bubble_mirror: u16,
    /// The client holds bubble 64's grant.
    bubble_granted: bool,
    /// The last token the host gave a reset or query.
    last_token: u32,
    /// The resets and queries the client has not finished answering.
    open: Vec<(Exchange, u32)>,
}

impl AuthorityLedger {
    /// The token for bubble 64's grant, when the client does not hold it: the one after
    /// its mirror (never renew a grant held: a changed token marks the bubble unseeded).
    pub fn grant_due(&self) -> Option<u16> {
        (!self.bubble_granted).then(|| BubbleAuthority::next_token(self.bubble_mirror))
    }

    /// A message 5 granted bubble 64 with `token`.
    pub fn granted(&mut self, token: u16) {
        self.bubble_mirror = token;
        self.bubble_granted = true;
    }

    /// Starts `exchange`: its token, which the client's answer must carry.
    pub fn start(&mut self, exchange: Exchange) -> u32 {
        self.last_token = self.last_token.wrapping_add(1);
        self.open.push((exchange, self.last_token));
        self.last_token
    }

    /// True when `exchange` with `token` is open; `ends` closes it (a 29 or a 32 does).
    pub fn answers(&mut self, exchange: Exchange, token: u32, ends: bool) -> bool {
        let Some(i) = self.open.iter().position(|e| *e == (exchange, token)) else {
            return false;
        };
        if ends {
            self.open.remove(i);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grant is due on the token after the mirror until sent, never renewed; each
    /// exchange has a token of its own, and only the answer that ends it closes it.
    #[test]
    fn a_grant_is_given_once_and_exchanges_close_on_their_end() {
        let mut a = AuthorityLedger::default();
        let token = a.grant_due();
        assert_eq!(token, Some(BubbleAuthority::next_token(0)));
        a.granted(token.unwrap_or_default());
        assert_eq!(a.grant_due(), None);
        let (reset, query) = (a.start(Exchange::Reset), a.start(Exchange::Query));
        assert_ne!(reset, query);
        assert!(
            !a.answers(Exchange::Reset, query, true),
            "another exchange's token"
        );
        assert!(
            a.answers(Exchange::Query, query, false),
            "a 31 keeps the query open"
        );
        assert!(a.answers(Exchange::Query, query, true), "a 32 ends it");
        assert!(!a.answers(Exchange::Query, query, true));
        assert!(a.answers(Exchange::Reset, reset, true));
    }
}
