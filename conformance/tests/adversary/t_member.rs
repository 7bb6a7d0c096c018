//! Message 12 (facts 4.10; AH "Hazards for a host": "Message 12 is applied without
//! checks").

use crate::mode::Member;
use crate::mode::Mode::Member as M;
use crate::run::{idle, moves};
use vex_fake_client::Script;

/// The client reports its identity at 5 s (message 23), which changes its member record.
fn identity() -> Script {
    Script {
        identity_after_ms: Some(5_000),
        ..Script::default()
    }
}

breach! {
    // MEMBER-02: "A membership table without the local player removes the local player"
    member02_without_local: M(Member::WithoutLocal), idle() => Member02;
    // MEMBER-04: field1 and field2 "are -1 (wire 0 and 0x7FFFFFFF)"
    member04_field1_zero: M(Member::Field1(0)), idle() => Member04;
    member04_field1_one: M(Member::Field1(1)), idle() => Member04;
    member04_field1_top: M(Member::Field1(1022)), idle() => Member04;
    member04_field2_zero: M(Member::Field2(0)), idle() => Member04;
    member04_field2_min: M(Member::Field2(i32::MIN)), idle() => Member04;
    // MEMBER-05: "The membership epoch ... stays the same"
    member05_epoch_one_after_move: M(Member::EpochLater(1)), moves() => Member05;
    member05_epoch_one_after_identity: M(Member::EpochLater(1)), identity() => Member05;
    // MEMBER-06: "A region record's ambassador slot is never 0"
    member06_ambassador_zero: M(Member::AmbassadorZero), idle() => Member06;
    // MEMBER-07: "a changed table goes out under the next revision (+1 per change)"
    member07_revision_kept_on_move: M(Member::RevisionKept), moves() => Member07;
    member07_revision_skips_on_move: M(Member::RevisionSkips), moves() => Member07;
    member07_revision_kept_on_identity: M(Member::RevisionKept), identity() => Member07;
    member07_revision_skips_on_identity: M(Member::RevisionSkips), identity() => Member07;
}

legal! {
    // facts 4.10: member lanes 0 to 31, "members 1..31 absent" only in the one-member
    // table: a full table.
    member_table_full_is_legal: M(Member::Full), idle();
}
