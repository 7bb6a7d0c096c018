//! The client checks the emulated client enforces, with the stable ids of `rules.md`.

use std::fmt;

/// What the real client does when a rule is broken (`rules.md` "effect").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// The process crashes or corrupts memory.
    Crash,
    /// The activity ends with a named error.
    End,
    /// The client waits forever; reported when the run's deadline passes.
    Hang,
    /// The message is dropped silently.
    Drop,
    /// Message 5 is ignored for the rest of the session.
    Sticky,
    /// Accepted, but the client's state becomes wrong.
    Wrong,
    /// A host duty with no immediate client effect; fails a run only in strict mode.
    Duty,
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Effect::Crash => "crash",
            Effect::End => "end",
            Effect::Hang => "hang",
            Effect::Drop => "drop",
            Effect::Sticky => "sticky",
            Effect::Wrong => "wrong",
            Effect::Duty => "duty",
        })
    }
}

macro_rules! rules {
    ($($variant:ident => $id:literal, $effect:ident, $source:literal, $summary:literal;)*) => {
        /// A client check, by its `rules.md` id.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $(
                #[doc = concat!($id, ": ", $summary, " (", $source, ")")]
                $variant,
            )*
        }

        impl Rule {
            /// Every rule the emulated client enforces.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant),*];

            /// The stable id.
            pub fn id(self) -> &'static str {
                match self { $(Rule::$variant => $id),* }
            }

            /// What the real client does.
            pub fn effect(self) -> Effect {
                match self { $(Rule::$variant => Effect::$effect),* }
            }

            /// The page section the rule comes from.
            pub fn source(self) -> &'static str {
                match self { $(Rule::$variant => $source),* }
            }

            /// One line on what the rule says.
            pub fn summary(self) -> &'static str {
                match self { $(Rule::$variant => $summary),* }
            }

            /// The rule with id `id`.
            pub fn from_id(id: &str) -> Option<Rule> {
                Rule::ALL.iter().copied().find(|r| r.id() == id)
            }
        }
    };
}

rules! {
    Bap01 => "BAP-01", End, "NS The frame", "outer header: magic 1, frame type 0, 1 or 2";
    Bap02 => "BAP-02", End, "NS The frame", "an encrypted frame's GCM tag verifies";
    Bap03 => "BAP-03", End, "NS The frame", "the inner header is whole";
    Bap04 => "BAP-04", Drop, "NS The service registry", "service ids 308 and above are dropped";
    Bap05 => "BAP-05", Hang, "NS The frame", "a response echoes its request's task id with status 200";
    Bap06 => "BAP-06", Hang, "NS The frame", "every request gets exactly one response";
    Bap07 => "BAP-07", Crash, "NS The body codec", "send-only services (18, 21, 23, 32, 34, 36, 38, 40, 46, 171) never get a reply";
    Bap12 => "BAP-12", Hang, "NS The service registry", "service 17 is 16 bytes: id, IPv4 not 0, reserved 0, port not 0";
    Bap13 => "BAP-13", Hang, "NS The service registry", "service 7 is 137 bytes: discriminator 2, session id not 0";
    Env01 => "ENV-01", Drop, "AH The activity envelope", "service 9 discriminator is 1";
    Env02 => "ENV-02", Wrong, "AH The activity envelope", "payload_len equals the bytes that follow";
    Env03 => "ENV-03", Crash, "AH The activity envelope", "payload_len below 0xFFFFFF70";
    Env04 => "ENV-04", Drop, "AH Message ids", "msg_type has an inbound handler";
    Env11 => "ENV-11", Drop, "AH Message ids", "the host sends no name-only id and no id the client only sends";
    Env05 => "ENV-05", Drop, "AH The activity envelope", "session_id matches an activity client";
    Env06 => "ENV-06", Drop, "AH The activity envelope", "only message 4 routes before the join is accepted";
    Env07 => "ENV-07", Drop, "AH The activity envelope", "after the join every push carries the stored host id";
    Env09 => "ENV-09", Drop, "AH The activity envelope", "a session id has the account's id shape";
    Env10 => "ENV-10", Duty, "AH The activity envelope", "service 9's sequence is zero";
    Join01 => "JOIN-01", Drop, "SR The join burst", "message 4 comes first in the burst";
    Join02 => "JOIN-02", Duty, "SR The join burst", "the burst is 4, 0, 1, 2, 54 (then 12), all together";
    Slots02 => "SLOTS-02", Duty, "AH Hazards for a host", "message 0 answers a join or a message 20, never a timer";
    Join03 => "JOIN-03", Drop, "AH join_result", "join_result is at least 6,053 bits";
    Join04 => "JOIN-04", Hang, "AH join_result", "join_result result is logical 0";
    Join05 => "JOIN-05", Hang, "AH join_result", "join_result correlates nonce and host id";
    Join06 => "JOIN-06", Drop, "AH join_result", "join_result's host id is not zero";
    Join07 => "JOIN-07", Duty, "AH join_result", "the keepalive interval is not 0, or the client sends message 16 every tick";
    Join09 => "JOIN-09", Hang, "AH join_result", "the status line reaches E, G and M";
    Global01 => "GLOBAL-01", Drop, "AH global_activity_state", "message 1 is whole: 1,161 bits with the client's descriptor";
    Global02 => "GLOBAL-02", Wrong, "AH global_activity_state", "message 1's bubble count equals the scenario's";
    Global03 => "GLOBAL-03", Wrong, "AH global_activity_state", "each bubble's slice-set state byte is 0x80, which adds the bubble, or 0x7F, which skips it (bias 128)";
    Global04 => "GLOBAL-04", Wrong, "AH global_activity_state", "message 1 replays the client's own selection descriptor exactly";
    World01 => "WORLD-01", Wrong, "AH world_globals_state", "the tick period is positive";
    World02 => "WORLD-02", Wrong, "AH world_globals_state", "the tick period is never NaN";
    Member01 => "MEMBER-01", Wrong, "AH Hazards for a host", "message 12 is applied without checks: every member's table names the members of the activity, the same at one revision";
    Member02 => "MEMBER-02", End, "AH The main messages", "the membership table holds the local player";
    Member07 => "MEMBER-07", Drop, "facts 4.10", "the client applies one update per revision: a changed table goes out under the next revision";
    Bhs01 => "BHS-01", Crash, "AH Values that crash the client", "message 54 has at most 32 rows";
    Auth01 => "AUTH-01", Drop, "AH Message 5", "message 5 echoes the latest message 52";
    Auth02 => "AUTH-02", Drop, "AH Message 5", "no message 5 before the first message 52";
    Auth04 => "AUTH-04", Drop, "AH Message 5", "roster_enable is 1";
    Auth05 => "AUTH-05", Wrong, "AH Message 5", "an object block's remainder is the exact length of the rest of the block";
    Auth06 => "AUTH-06", Wrong, "AH Message 5", "reset and root appear only when the slot has an Auth schema, the Sense bit only when it has a Sense schema";
    Auth07 => "AUTH-07", Drop, "AH Message 5", "a group keyed 0x811C9DC5 is skipped whole";
    Auth08 => "AUTH-08", Wrong, "AH How the client applies an Auth body", "every slot of every registered object has a block, or nothing in the bubble applies";
    Auth09 => "AUTH-09", Duty, "AH How the client applies an Auth body", "every message 5 repeats every Auth body the host still holds: reset-only installs the defaults";
    Auth10 => "AUTH-10", Sticky, "AH The activity envelope", "a message 5 body fits the per-tick budget of 471,859 bytes, or message 5 is ignored for the session";
    Auth12 => "AUTH-12", Wrong, "AH The bubble-authority block", "grants for bubbles 0 to 63 do not apply in this build; bubble 64 does";
    Slots04 => "SLOTS-04", Wrong, "AH The main messages", "two clients of one activity never hold the same entity slot";
    Slot01 => "SLOT-01", Drop, "AH Slots", "a ClientRef's type and index are not -1";
    Slot02 => "SLOT-02", Wrong, "AH Slot types", "the twelve types without a descriptor never appear in message 5";
    T1701 => "T17-01", Crash, "AH Type 17", "the type-17 lifetime state is -1 to 10";
    T1703 => "T17-03", Crash, "AH Type 17", "the type-17 switch list holds at most 50 entries";
    Body05 => "BODY-05", Crash, "AH How an Auth table is encoded", "an array count is at most the array's capacity: the client does not clamp it";
    Epoch01 => "EPOCH-01", End, "AH Hazards for a host", "message 44's epoch is the previous epoch plus one; a repeat or a skip ends the client";
    Sticky02 => "STICKY-02", Sticky, "AH Hazards for a host", "while the give-up flag is set, every message 5 is ignored";
    Epoch02 => "EPOCH-02", Sticky, "AH Hazards for a host", "message 44's abort bit is permanent: it sets the give-up flag";
    Incident01 => "INCIDENT-01", Crash, "AH incident, message 19", "the definition index is below 7,763: the client does not bound-check it";
    Incident02 => "INCIDENT-02", Crash, "AH incident, message 19", "rows 795, 4690 and 5375 have type code -1 and are never named";
    Incident03 => "INCIDENT-03", Crash, "AH Values that crash the client", "at most 25 extra targets";
    Incident04 => "INCIDENT-04", Crash, "AH Values that crash the client", "the compressed target selector bit stays clear";
    Incident05 => "INCIDENT-05", Drop, "AH incident, message 19", "the payload is at most 500 bytes";
    Host03 => "HOST-03", Duty, "SR What each client message gets", "message 18 gets the whole snapshot: messages 1, 2 and 12, then 5";
    Host04 => "HOST-04", Duty, "SR The Activity Host", "message 20 gets a message 0 grant of free slots; message 21 gets no reply";
    Member03 => "MEMBER-03", Duty, "SR Timed sends that remain", "message 12 goes out only when the table changed, the client moved region, or the client has not acknowledged the revision";
    Leave01 => "LEAVE-01", Duty, "AH peer_leave_request, message 15", "message 15 gets one message 5 that keeps every key and state byte, clears every registered key's presence bit, sets roster enable, and carries no Auth body and no grant";
    Leave02 => "LEAVE-02", Wrong, "AH peer_leave_request, message 15", "no roster goes out on the link after the leave delta";
    Link01 => "LINK-01", End, "AH Hazards for a host", "no 20.5 s of silence on the Activity Host link";
    Link03 => "LINK-03", Duty, "SR Timed sends that remain", "the host keepalive carries message 1 every 2 s";
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_round_trip() {
        for r in Rule::ALL {
            assert_eq!(Rule::from_id(r.id()), Some(*r));
        }
        let mut ids: Vec<_> = Rule::ALL.iter().map(|r| r.id()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Rule::ALL.len());
    }
}
