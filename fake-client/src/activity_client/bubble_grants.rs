//! Bubble authority as the client mirrors it (AH "The bubble-authority block"): it grants
//! on a token that differs from its mirror, which starts at zero and takes every token
//! sent; only bubble 64 is applied, the arm for bubbles 0 to 63 being off in this build
//! (AUTH-11, AUTH-12); the header and the host tokens stay absent (AUTH-18, AUTH-19).

use crate::rules::Rule;
use crate::verdict::Verdict;
use vex_wire::activity::sensor_auth::{AUTHORITY_BUBBLES, BubbleAuthority};

/// Bit offset of the bubble-authority block in message 5: after the hardwipe token, the
/// patch epoch and the block's own presence bit.
const BLOCK_BIT: usize = 137;
/// Bit offset of bubble 64's authority bit.
const BUBBLE_64_BIT: usize = BLOCK_BIT + 64;
/// The one bubble whose grants apply (AUTH-12).
const APPLIED: usize = AUTHORITY_BUBBLES - 1;

/// The client's mirror of bubble 64's grant token, and whether it holds the grant.
#[derive(Debug, Default)]
pub(crate) struct BubbleGrants {
    mirror: u16,
    granted: bool,
    /// The last block changed the mirror or the grant: a change the host owns.
    moved: bool,
}

impl BubbleGrants {
    /// True when the last bubble block read changed the mirror or the grant, and clears
    /// it: a message 5 that does so follows a change the host owns (AUTH-16).
    pub(super) fn take_moved(&mut self) -> bool {
        std::mem::take(&mut self.moved)
    }

    /// The bubble-authority block of message 5 `idx`, read as the client applies it.
    pub(super) fn apply(&mut self, verdict: &mut Verdict, idx: u64, block: &BubbleAuthority) {
        let before = (self.mirror, self.granted);
        // AUTH-12: the per-bubble arm for bubbles 0 to 63 is off in this build, so an
        // authority bit set there applies no more than a grant token does
        let below = block.grants().iter().filter(|(b, _)| *b < APPLIED);
        let granted = below.fold(0u64, |m, (b, _)| m | 1 << b);
        let mask = block.authority as u64 | granted;
        if mask != 0 {
            let reason = || {
                let bubbles: Vec<usize> = (0..APPLIED).filter(|b| mask >> b & 1 == 1).collect();
                format!(
                    "authority bits or grants for bubbles {bubbles:?}: the per-bubble arm for bubbles 0 to 63 is off in this build, so they do not apply"
                )
            };
            let at = (Some(idx), Some(BLOCK_BIT));
            verdict.violate_again(Rule::Auth12, at, mask, reason);
        }
        if let Some(h) = block.header {
            let reason = format!(
                "the bubble-authority block's header is present ({h:#x}): the i32 behind it has no known reader"
            );
            verdict.violate(Rule::Auth18, Some(idx), Some(BLOCK_BIT), reason);
        }
        if !block.host_tokens().is_empty() {
            let tokens: Vec<usize> = block.host_tokens().iter().map(|(b, _)| *b).collect();
            let reason = format!(
                "bubbles {tokens:?} carry a host token: the u8[8] is compared with a simulation record the pages do not describe"
            );
            verdict.violate(Rule::Auth19, Some(idx), Some(BLOCK_BIT), reason);
        }
        let mut report = |reason: String| {
            verdict.violate(Rule::Auth11, Some(idx), Some(BUBBLE_64_BIT), reason);
        };
        let bit = block.has_authority(APPLIED);
        let token = block.grant(APPLIED);
        let changed = token.is_some_and(|t| t != self.mirror);
        match (bit, token, changed) {
            (true, Some(0), _) => {
                report("bubble 64's grant token is 0: after 0xFFFF the next token is 1".into());
                self.granted |= changed; // the client grants on any difference
            }
            (true, _, true) if self.granted => report(format!(
                "bubble 64's token changes from {} to {} while the client holds the grant: the bubble is marked unseeded and its Auth held back",
                self.mirror,
                token.unwrap_or_default()
            )),
            (true, _, true) => self.granted = true,
            (true, _, false) if !self.granted => report(format!(
                "bubble 64's authority bit is set with no token change (the mirror holds {}): no grant applies",
                self.mirror
            )),
            (false, Some(t), true) => report(format!(
                "bubble 64's token {t} comes with the authority bit clear: the token is spent and grants nothing"
            )),
            _ => {}
        }
        if let Some(t) = token {
            self.mirror = t;
        }
        if block.revokes(APPLIED) {
            self.granted = false;
        }
        self.moved = (self.mirror, self.granted) != before;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(bit: bool, token: Option<u16>) -> BubbleAuthority {
        let mut b = BubbleAuthority::default();
        b.set_authority(APPLIED, bit);
        b.set_grant(APPLIED, token);
        b
    }

    fn rules(blocks: &[BubbleAuthority]) -> Vec<Rule> {
        let (mut g, mut v) = (BubbleGrants::default(), Verdict::new());
        for (i, b) in blocks.iter().enumerate() {
            g.apply(&mut v, i as u64, b);
        }
        v.rules()
    }

    /// A grant sets the bit and changes the token in one message; the same block again
    /// renews nothing; a later grant after a spent token applies.
    #[test]
    fn a_grant_changes_the_token_with_the_bit_set() {
        assert!(rules(&[block(true, Some(1))]).is_empty());
        assert!(
            rules(&[
                block(true, Some(1)),
                block(true, Some(1)),
                block(true, None)
            ])
            .is_empty()
        );
        assert!(rules(&[block(false, None), block(true, Some(0xFFFF))]).is_empty());
    }

    /// Every way the rule names: the bit with no token or an unchanged one, a token
    /// spent with the bit clear, a token changed while the grant is held, token 0.
    #[test]
    fn each_breach_of_the_grant_rule_is_caught() {
        let cases: [&[BubbleAuthority]; 5] = [
            &[block(true, None)],
            &[block(false, Some(3)), block(true, Some(3))],
            &[block(false, Some(3))],
            &[block(true, Some(1)), block(true, Some(2))],
            &[block(true, Some(0))],
        ];
        for (i, blocks) in cases.iter().enumerate() {
            let got = rules(blocks);
            assert!(got.contains(&Rule::Auth11), "case {i}: {got:?}");
        }
        assert_eq!(
            rules(&[block(false, Some(3)), block(true, Some(3))]),
            [Rule::Auth11, Rule::Auth11]
        );
    }

    /// Grants for bubbles 0 to 63 do not apply (AUTH-12): at bubble 0, a middle bubble
    /// and bubble 63, a grant with its authority bit, a token with the bit clear, and the
    /// bit alone are each caught, beside bubble 64's own grant, which passes.
    #[test]
    fn grants_below_bubble_64_are_gated() {
        assert_eq!(rules(&[block(true, Some(1))]), [], "bubble 64 alone");
        for bubble in [0, 31, 32, 63] {
            for (bit, token) in [(true, Some(1)), (false, Some(1)), (true, None)] {
                let mut b = block(true, Some(1));
                b.set_authority(bubble, bit);
                b.set_grant(bubble, token);
                assert_eq!(
                    rules(&[b]),
                    [Rule::Auth12],
                    "bubble {bubble}, authority bit {bit}, token {token:?}"
                );
            }
        }
    }

    /// A revoke clears the held grant, so a new token with the bit grants again; token 0
    /// is reported but still grants on a difference, so the next block is no breach.
    #[test]
    fn revoke_and_token_zero_keep_the_mirror_right() {
        let mut revoked = block(false, None);
        revoked.set_revoke(APPLIED, true);
        assert!(rules(&[block(true, Some(1)), revoked, block(true, Some(2))]).is_empty());
        let zero_after = [
            block(false, Some(5)),
            block(true, Some(0)),
            block(true, None),
        ];
        assert_eq!(
            rules(&zero_after),
            [Rule::Auth11, Rule::Auth11],
            "spent, then token 0 only"
        );
    }

    /// The header and a host token are reported, each at its own rule.
    #[test]
    fn header_and_host_tokens_stay_absent() {
        let mut header = block(true, Some(1));
        header.header = Some(0);
        assert_eq!(rules(&[header]), [Rule::Auth18]);
        for bubble in [0, APPLIED] {
            let mut token = block(true, Some(1));
            token.set_host_token(bubble, Some(7));
            assert_eq!(rules(&[token]), [Rule::Auth19], "bubble {bubble}");
        }
    }
}
