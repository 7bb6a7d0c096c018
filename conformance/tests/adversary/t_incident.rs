//! Message 19 in place of the host's own at 3.5 s (AH "incident, message 19", "Values
//! that crash the client"; facts 4.13).

use crate::mode::Incident;
use crate::mode::Mode::Incident as I;
use crate::run::idle;

breach! {
    // INCIDENT-01: "Field 0 indexes a 7,763-row table with no bound check"
    incident01_row_7763: I(Incident::Definition(7763)), idle() => Incident01;
    incident01_row_max: I(Incident::Definition(8191)), idle() => Incident01;
    // INCIDENT-02: "Rows 795, 4690 and 5375 have type code -1 and crash when named."
    incident02_row_795: I(Incident::Definition(795)), idle() => Incident02;
    incident02_row_4690: I(Incident::Definition(4690)), idle() => Incident02;
    incident02_row_5375: I(Incident::Definition(5375)), idle() => Incident02;
    // INCIDENT-03: "At most 25 extra targets."
    incident03_26_targets: I(Incident::Targets(26)), idle() => Incident03;
    incident03_31_targets: I(Incident::Targets(31)), idle() => Incident03;
    // INCIDENT-04: "The compressed target selector bit stays clear"
    incident04_selector_bit: I(Incident::SelectorBit), idle() => Incident04;
    incident04_selector_empty_bytes: I(Incident::SelectorBytes(0)), idle() => Incident04;
    incident04_selector_260_bytes: I(Incident::SelectorBytes(260)), idle() => Incident04;
    // INCIDENT-05: "Payload at most 500 bytes"
    incident05_501: I(Incident::Payload(501)), idle() => Incident05;
    incident05_511: I(Incident::Payload(511)), idle() => Incident05;
}

legal! {
    // AH "incident": "at most 25" targets, "at most 500" payload bytes, 7763 rows.
    incident_at_its_limits_is_legal: I(Incident::AtLimits), idle();
    // The neighbours of the crashing rows.
    incident_row_794_is_legal: I(Incident::Definition(794)), idle();
    incident_row_796_is_legal: I(Incident::Definition(796)), idle();
    incident_row_7762_is_legal: I(Incident::Definition(7762)), idle();
    incident_25_targets_is_legal: I(Incident::Targets(25)), idle();
    incident_500_bytes_is_legal: I(Incident::Payload(500)), idle();
}

legal! {
    // INCIDENT-01 bounds field 0, the definition row; the pages give no bound for a target's
    // index, so none is judged (our own host's encoder is stricter than the pages here).
    a_target_index_of_7763_is_legal: I(Incident::Target(7763)), idle();
}
