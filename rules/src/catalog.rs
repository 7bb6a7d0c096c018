//! Every row of `rules.md` (`../shared/rules.md`), once. Variants are the id without its
//! dash, the family in title case (`BAP-01` is `Bap01`, `T17-01` is `T1701`); sources are
//! short (`AH`, `SR`, `NS`, `AI`, `TD` and a section, or `facts` and a number); effects and
//! order follow the page.

use crate::Effect;
use std::fmt;

catalog! {
    Bap "BAP" "framing and services" {
        Bap01 => "BAP-01", End, "NS The frame", "outer header: magic 1, frame type 0, 1 or 2";
        Bap02 => "BAP-02", End, "NS The frame", "an encrypted frame's GCM tag verifies";
        Bap03 => "BAP-03", End, "NS The frame", "the inner header is whole";
        Bap04 => "BAP-04", Drop, "NS The service registry", "service ids 308 and above are dropped";
        Bap05 => "BAP-05", Hang, "NS The frame", "a response echoes its request's task id with status 200";
        Bap06 => "BAP-06", Hang, "NS The frame", "every request gets exactly one response";
        Bap07 => "BAP-07", Crash, "NS The body codec", "send-only services (18, 21, 23, 32, 34, 36, 38, 40, 46, 171) never get a reply";
        Bap08 => "BAP-08", Hang, "NS The service registry", "the 19 fixed-length services reject a body of any other size";
        Bap09 => "BAP-09", Crash, "NS Pushes", "pushes arrive only on ids 6, 8, 9, 20, 27, 28, 47, 51, 100, 123, 124, 150, 160, 161 and 301";
        Bap10 => "BAP-10", Crash, "NS Pushes", "a push that decodes on id 6 or 161 has no handler behind it";
        Bap11 => "BAP-11", End, "NS The service registry", "an empty reply to service 23 (account id translation) kills the link";
        Bap12 => "BAP-12", Hang, "NS The service registry", "service 17 is 16 bytes: id, IPv4 not 0, reserved 0, port not 0";
        Bap13 => "BAP-13", Hang, "NS The service registry", "service 7 is 137 bytes: discriminator 2, session id not 0";
        Bap14 => "BAP-14", Hang, "NS The service registry", "service 6 always gets service 7, even when the request is malformed";
        Bap15 => "BAP-15", Duty, "NS The service registry", "services 12/13, 121/122, 250/251 and 302/303 answer with an empty body";
        Bap16 => "BAP-16", Hang, "facts 2.2", "responses go out in the order of their requests: the client matches only the head of its pending ring";
        Bap17 => "BAP-17", Hang, "NS The service registry", "service 26 is the 84-byte secure hello reply: IV, the CBC-sealed GCM nonce and key, an HMAC-SHA256";
        Bap18 => "BAP-18", End, "facts 1.3, 1.4", "encrypted frames use service 26's key and nonce, no AAD, and every frame takes the next nonce";
        Bap19 => "BAP-19", Hang, "NS The service registry", "service 31 (channel start reply) is exactly 128 bytes";
        Bap20 => "BAP-20", Duty, "NS The service registry", "service 14 gets 15; 13, 15, 122, 251 and 303 are the empty-body services";
        Bap21 => "BAP-21", Hang, "NS The service registry", "services 19, 22, 33, 43 and 305 carry protobuf that must pass PB-01";
        Bap22 => "BAP-22", Duty, "NS The service registry", "service 23 sends 12 bytes and service 24 answers with a bit-packed list of account ids";
    }
    Env "ENV" "the activity envelope" {
        Env01 => "ENV-01", Drop, "AH The activity envelope", "service 9 discriminator is 1";
        Env02 => "ENV-02", Wrong, "AH The activity envelope", "payload_len equals the bytes that follow";
        Env03 => "ENV-03", Crash, "AH The activity envelope", "payload_len below 0xFFFFFF70";
        Env04 => "ENV-04", Drop, "AH Message ids", "msg_type has an inbound handler";
        Env05 => "ENV-05", Drop, "AH The activity envelope", "session_id matches an activity client";
        Env06 => "ENV-06", Drop, "AH The activity envelope", "only message 4 routes before the join is accepted";
        Env07 => "ENV-07", Drop, "AH The activity envelope", "after the join every push carries the stored host id";
        Env08 => "ENV-08", Hang, "AH The activity envelope", "every activity session has its own id: a shared one strands the joining client";
        Env09 => "ENV-09", Drop, "AH The activity envelope", "a session id has the account's id shape";
        Env10 => "ENV-10", Duty, "AH The activity envelope", "service 9's sequence is zero";
        Env11 => "ENV-11", Drop, "AH Message ids", "the host sends no name-only id and no id the client only sends";
        Env12 => "ENV-12", Drop, "AH The main messages", "messages 40, 41, 56 and 57 are decoded and discarded: a host drives nothing through them";
        Env13 => "ENV-13", Drop, "AH The main messages", "message 7 reaches only a method its target bound at spawn; it cannot create an entity";
        Env14 => "ENV-14", Hang, "AH The main messages", "message 45 (reservations_failed) is what ends the client's wait on a failed reservation";
    }
    Body "BODY" "the bitstream codec" {
        Body01 => "BODY-01", Wrong, "AH Body encoding", "bits are MSB first, nothing byte-aligned, the last byte zero-padded";
        Body02 => "BODY-02", Wrong, "AH Body encoding", "a field is value + bias in width bits: all-zero bits decode to minus the bias";
        Body03 => "BODY-03", Wrong, "AH Body encoding", "a presence flag is one bit before its field; a field without one is always on the wire";
        Body04 => "BODY-04", Drop, "AH Body encoding", "a decode fails only on a read past the end, and a failed decode drops the message silently";
        Body05 => "BODY-05", Crash, "AH How an Auth table is encoded", "an array count is at most the array's capacity: the client does not clamp it";
        Body06 => "BODY-06", Wrong, "TD The bit-packed codec", "codes 13, 34 and 38 take their wire size from the type, not the descriptor";
        Body07 => "BODY-07", Duty, "AH Body encoding", "a host decoder accepts a client body with unread bits or a trailing byte";
        Body08 => "BODY-08", Duty, "TD The walker's view", "a body nests at most 32 levels deep: the walker has a stack of 32 frames";
        Body09 => "BODY-09", Wrong, "TD Nullable tag references", "nullable tag references (codes 18, 20, 30) take the activity form: 1 bit, then 13 + 4 bits or 1 bit";
        Body10 => "BODY-10", Wrong, "TD Real numbers", "a real field's params are its float range and its bit count; params[1] is not a width";
    }
    Join "JOIN" "the route and the join burst" {
        Join01 => "JOIN-01", Drop, "SR The join burst", "message 4 comes first in the burst";
        Join02 => "JOIN-02", Duty, "SR The join burst", "the burst is 4, 0, 1, 2, 54 (then 12), all together";
        Join03 => "JOIN-03", Drop, "AH join_result", "join_result is at least 6,053 bits";
        Join04 => "JOIN-04", Hang, "AH join_result", "join_result result is logical 0";
        Join05 => "JOIN-05", Hang, "AH join_result", "join_result correlates nonce and host id";
        Join06 => "JOIN-06", Drop, "AH join_result", "join_result's host id is not zero";
        Join07 => "JOIN-07", Duty, "AH join_result", "the keepalive interval is not 0, or the client sends message 16 every tick";
        Join08 => "JOIN-08", Duty, "AH join_result", "the clock base (field 6) counts 673,200 ticks a second; 0 starts the activity at zero";
        Join09 => "JOIN-09", Hang, "AH join_result", "the status line reaches E, G and M";
        Join10 => "JOIN-10", Hang, "facts 8", "an unpatched client sends message 3 only once its join readiness predicate passes: a test cannot assume it comes";
    }
    Slots "SLOTS" "entity slot grants and authority masks" {
        Slots01 => "SLOTS-01", Wrong, "AH The main messages", "message 0 is a 1,024-byte slot mask ORed into the client's lease";
        Slots02 => "SLOTS-02", Duty, "AH Hazards for a host", "message 0 answers a join or a message 20, never a timer";
        Slots03 => "SLOTS-03", Wrong, "AH The main messages", "a slot grant applies only after message 12 has arrived";
        Slots04 => "SLOTS-04", Wrong, "AH The main messages", "two clients of one activity never hold the same entity slot";
        Slots05 => "SLOTS-05", Duty, "AH The main messages", "messages 28 and 30 carry a token: 28 is answered with 29, 30 with 31 then 32";
    }
    Global "GLOBAL" "message 1, global_activity_state" {
        Global01 => "GLOBAL-01", Drop, "AH global_activity_state", "message 1 is whole: 1,161 bits with the client's descriptor";
        Global02 => "GLOBAL-02", Wrong, "AH global_activity_state", "message 1's bubble count equals the scenario's";
        Global03 => "GLOBAL-03", Wrong, "AH global_activity_state", "each bubble's slice-set state byte is 0x80, which adds the bubble, or 0x7F, which skips it (bias 128)";
        Global04 => "GLOBAL-04", Wrong, "AH global_activity_state", "message 1 replays the client's own selection descriptor exactly";
        Global05 => "GLOBAL-05", Wrong, "AH global_activity_state", "every member of one activity gets the same activity time base";
        Global06 => "GLOBAL-06", Wrong, "AH global_activity_state", "every message 1, keepalive copies included, is whole and current: the client copies it over its own";
        Global07 => "GLOBAL-07", Wrong, "facts 4.5", "bit 0 arms the initial slice set: the slice-set index and spawn-set hash are read only when it is 1";
    }
    World "WORLD" "message 2, world_globals_state" {
        World01 => "WORLD-01", Wrong, "AH world_globals_state", "the tick period is positive";
        World02 => "WORLD-02", Wrong, "AH world_globals_state", "the tick period is never NaN";
        World03 => "WORLD-03", Wrong, "AH world_globals_state", "a positive tick period other than 1000 / 30 ms skews scoreboard stats";
    }
    Epoch "EPOCH" "replication epochs" {
        Epoch01 => "EPOCH-01", End, "AH Hazards for a host", "message 44's epoch is the previous epoch plus one; a repeat or a skip ends the client";
        Epoch02 => "EPOCH-02", Sticky, "AH Hazards for a host", "message 44's abort bit is permanent: it sets the give-up flag";
    }
    Sticky "STICKY" "the give-up flag" {
        Sticky01 => "STICKY-01", Sticky, "AH Hazards for a host", "a consumer failure on message 24, 25, 28 or 30 sets the give-up flag";
        Sticky02 => "STICKY-02", Sticky, "AH Hazards for a host", "while the give-up flag is set, every message 5 is ignored";
    }
    Auth "AUTH" "message 5, the roster and Auth state" {
        Auth01 => "AUTH-01", Drop, "AH Message 5", "message 5 echoes the latest message 52";
        Auth02 => "AUTH-02", Drop, "AH Message 5", "no message 5 before the first message 52";
        Auth03 => "AUTH-03", Drop, "AH Message 5", "the hardwipe token is checked only when SignOn named use_hardwipe_tokens";
        Auth04 => "AUTH-04", Drop, "AH Message 5", "roster_enable is 1";
        Auth05 => "AUTH-05", Wrong, "AH Message 5", "an object block's remainder is the exact length of the rest of the block";
        Auth06 => "AUTH-06", Wrong, "AH Message 5", "reset and root appear only when the slot has an Auth schema, the Sense bit only when it has a Sense schema";
        Auth07 => "AUTH-07", Drop, "AH Message 5", "a group keyed 0x811C9DC5 is skipped whole";
        Auth08 => "AUTH-08", Wrong, "AH How the client applies an Auth body", "every slot of every registered object has a block, or nothing in the bubble applies";
        Auth09 => "AUTH-09", Duty, "AH How the client applies an Auth body", "every message 5 repeats every Auth body the host still holds: reset-only installs the defaults";
        Auth10 => "AUTH-10", Sticky, "AH The activity envelope", "a message 5 body fits the per-tick budget of 471,859 bytes, or message 5 is ignored for the session";
        Auth11 => "AUTH-11", Wrong, "AH The bubble-authority block", "a grant sets the authority bit and changes the token in one message; a held grant keeps its token";
        Auth12 => "AUTH-12", Wrong, "AH The bubble-authority block", "grants for bubbles 0 to 63 do not apply in this build; bubble 64 does";
        Auth13 => "AUTH-13", Wrong, "AH How the client applies an Auth body", "no message 5 between a region-change report (message 22) and the roster request, which gets a whole roster";
        Auth14 => "AUTH-14", Crash, "AH How the client applies an Auth body", "the 870,400-byte sensor heap is shared: publish a bubble's objects only on the link that hosts it";
        Auth15 => "AUTH-15", Duty, "AH How the client applies an Auth body", "Sense decodes against the identity map of the last complete message 5 on the same link";
        Auth16 => "AUTH-16", Duty, "AH Message 5", "the first message 5 answers the first message 52 when a roster is owed; later ones follow a change the host owns";
        Auth17 => "AUTH-17", Duty, "AH Message 5", "the singleton gate bit after the entity groups is 0";
        Auth18 => "AUTH-18", Duty, "AH The bubble-authority block", "the bubble-authority block's header_present is 0";
        Auth19 => "AUTH-19", Duty, "AH The bubble-authority block", "each bubble element's host_token_present is 0";
    }
    Seed "SEED" "roster seeding and the spawn gate" {
        Seed01 => "SEED-01", Wrong, "AH Message 5", "a slot with an Auth schema sends reset 1 on its first send";
        Seed02 => "SEED-02", Hang, "facts 4.7", "a usable roster has a type-13 slot and a type-17 slot";
        Seed03 => "SEED-03", Duty, "facts 4.7", "the player key rides only on a top-level group, in its first type-13 slot";
        Seed04 => "SEED-04", Duty, "facts 4.8", "the spawn gate reads the player's type-13 Auth record at +8 and +10; the values it accepts are not documented";
        Seed05 => "SEED-05", Hang, "AH Type 17", "the spawn gate accepts type-17 lifetime states 3, 6 and 10 only: send 3 for the live case";
        Seed06 => "SEED-06", Wrong, "facts 4.7", "a changed roster state byte rebuilds every roster-owned object: change it only to rebuild them";
    }
    Member "MEMBER" "message 12, replicate_membership" {
        Member01 => "MEMBER-01", Wrong, "AH The main messages", "message 12 is 3,696 bytes and applied without checks";
        Member02 => "MEMBER-02", End, "AH The main messages", "the membership table holds the local player";
        Member03 => "MEMBER-03", Duty, "SR Timed sends that remain", "message 12 goes out only when the table changed, the client moved region, or the client has not acknowledged the revision";
        Member04 => "MEMBER-04", Wrong, "facts 4.10", "each member's field1 and field2 are -1 (wire 0 and 0x7FFFFFFF)";
        Member05 => "MEMBER-05", Wrong, "facts 4.10", "the membership epoch stays the same: changing it clears the client's peer table";
        Member06 => "MEMBER-06", Duty, "facts 4.10", "a region record's ambassador slot is never 0, which is the client itself";
        Member07 => "MEMBER-07", Drop, "facts 4.10", "one update per revision: a changed table goes out under the next revision";
    }
    Leave "LEAVE" "message 15, peer_leave_request" {
        Leave01 => "LEAVE-01", Duty, "AH peer_leave_request, message 15", "message 15 gets one message 5 that keeps every key and state byte, clears every registered key's presence bit, sets roster enable, and carries no Auth body and no grant";
        Leave02 => "LEAVE-02", Wrong, "AH peer_leave_request, message 15", "no roster goes out on the link after the leave delta";
        Leave03 => "LEAVE-03", Duty, "AH peer_leave_request, message 15", "after message 15 the client waits out its own timer: no host message ends that wait";
    }
    Incident "INCIDENT" "message 19, incident" {
        Incident01 => "INCIDENT-01", Crash, "AH incident, message 19", "the definition index is below 7,763: the client does not bound-check it";
        Incident02 => "INCIDENT-02", Crash, "AH incident, message 19", "rows 795, 4690 and 5375 have type code -1 and are never named";
        Incident03 => "INCIDENT-03", Crash, "AH Values that crash the client", "at most 25 extra targets";
        Incident04 => "INCIDENT-04", Crash, "AH Values that crash the client", "the compressed target selector bit stays clear";
        Incident05 => "INCIDENT-05", Drop, "AH incident, message 19", "the payload is at most 500 bytes";
    }
    Bhs "BHS" "message 54" {
        Bhs01 => "BHS-01", Crash, "AH Values that crash the client", "message 54 has at most 32 rows";
    }
    Link "LINK" "timing" {
        Link01 => "LINK-01", End, "AH Hazards for a host", "no 20.5 s of silence on the Activity Host link";
        Link02 => "LINK-02", Duty, "AH join_result", "the client sends message 16 after a keepalive interval with nothing sent, and message 52 every second";
        Link03 => "LINK-03", Duty, "SR Timed sends that remain", "the host keepalive carries message 1 every 2 s";
    }
    Slot "SLOT" "Auth bodies by slot type" {
        Slot01 => "SLOT-01", Drop, "AH Slots", "a ClientRef's type and index are not -1";
        Slot02 => "SLOT-02", Wrong, "AH Slot types", "the twelve types without a descriptor never appear in message 5";
        Slot03 => "SLOT-03", Wrong, "AH How an Auth table is encoded", "a zeroed clock window is not a neutral timer: without a real one, send types 18 and 35 reset-only";
    }
    T17 "T17" "slot type 17, activity_lifetime_sensor" {
        T1701 => "T17-01", Crash, "AH Type 17", "the type-17 lifetime state is -1 to 10";
        T1702 => "T17-02", Drop, "AH Type 17", "type 17 has 20 fields and no presence bits: at least 423 bits";
        T1703 => "T17-03", Crash, "AH Type 17", "the type-17 switch list holds at most 50 entries";
        T1704 => "T17-04", Wrong, "AH Type 17", "spawn-point pairs are turned off with index 0 and hash 0x811C9DC5 on the wire";
        T1705 => "T17-05", Wrong, "AH Type 17", "only the first type-17 slot is read: every type-17 slot gets the same body";
        T1706 => "T17-06", Wrong, "AH Type 17", "current_bubble is a bubble index (the region / 8), not a slice-set index";
        T1707 => "T17-07", Wrong, "AH Type 17", "join_flag_inverted is 1 when absent: 0 raises a join-policy flag";
        T1708 => "T17-08", Wrong, "AH Type 17", "cycle_override_on stays 0 unless the host owns an authored phase";
        T1709 => "T17-09", Wrong, "AH Type 17", "a neutral body sends selection_id -1 (wire 0x7FFFFFFF), which clears the global selection";
    }
    T3 "T3" "slot type 3, objective_sensor" {
        T301 => "T3-01", Wrong, "AH Type 3", "type 3 has no leave-alone encoding: re-send the current byte to keep an objective";
        T302 => "T3-02", Wrong, "AH Type 3", "the int32 is a reset generation: re-send the same one to keep the latch bits";
    }
    T1 "T1" "slot type 1, squad_sensor" {
        T101 => "T1-01", Wrong, "AH Type 1", "the squad spawn generation is positive; a changed one tears the squad down first";
        T102 => "T1-02", Crash, "AH Type 1", "a squad bind's slot index stays within the named group's slot count";
        T103 => "T1-03", Wrong, "AH Type 1", "the first apply seeds part of the squad from the last Sense, not from the Auth";
        T104 => "T1-04", Duty, "AI The Auth body", "slot_count (+0x2C) matches the spawner definition";
        T105 => "T1-05", Wrong, "AI The Auth body", "the spawn-rule reference at +0x98 holds the unset sentinel unless it names a good rule";
        T106 => "T1-06", Drop, "AI Placing members", "member requests share one global table of 80; when it is full, new ones are dropped";
    }
    T2 "T2" "slot type 2, combatant_sensor" {
        T201 => "T2-01", Crash, "AH Type 2", "combatant limits: 32 lanes, 6 temperaments, 16 channel rows, 8 referenced slots";
        T202 => "T2-02", Wrong, "AH Type 2", "field .1 nonzero keeps the actor active; zero tears it down";
        T203 => "T2-03", Wrong, "AH Type 2", "a keyed result lane's bit from the host wins only with a newer lane generation";
        T204 => "T2-04", Duty, "AH Type 2", "a sequence atom times out after 15 s by default";
    }
    T5 "T5" "slot type 5, sequence_sensor" {
        T501 => "T5-01", Wrong, "AH Type 5", "a changed type-5 state value destroys the live instance: re-send the same value to keep it";
    }
    T53 "T53" "slot type 53, dialog" {
        T5301 => "T53-01", Crash, "AH Values that crash the client", "each dialog body replaces every row; the 129 references stay within the group's slot count";
    }
    T65 "T65" "slot type 65, ghost_link" {
        T6501 => "T65-01", Wrong, "AH Key slot types", "raise the ghost_link generation .0 every time .1 changes";
        T6502 => "T65-02", Wrong, "AH Key slot types", "the scan bar finishes only with a Sense fraction above 1.0 and the current generation";
    }
    T24 "T24" "slot type 24, channel rows" {
        T2401 => "T24-01", Crash, "AH Values that crash the client", "at most 4 channel rows; targets clamped to [-100, 100]";
    }
    T37 "T37" "slot type 37, map generator" {
        T3701 => "T37-01", Wrong, "AH Key slot types", "the map generator's four override integers are -1 when neutral";
    }
    T43 "T43" "slot type 43, scene_sensor" {
        T4301 => "T43-01", Crash, "AH Type 43", "at most 32 scene event keys; the host never sends the start trigger";
        T4302 => "T43-02", Wrong, "AH Type 43", "a newer activation generation restarts the scene; the teardown flag ends it";
    }
    T67 "T67" "slot type 67, faction matrix" {
        T6701 => "T67-01", Wrong, "AH Key slot types", "a type-67 body replaces the whole faction matrix";
    }
    T68 "T68" "slot type 68, directives" {
        T6801 => "T68-01", Crash, "AH Values that crash the client", "a type-68 element index stays within the directive's sub-array, with a hash the target authors";
    }
    T38 "T38" "slot type 38" {
        T3801 => "T38-01", Crash, "AH Values that crash the client", "a changed type-38 value goes only to a slot whose authored reference resolves";
    }
    Host "HOST" "host duties: answer what was asked" {
        Host01 => "HOST-01", Duty, "SR Answer what was asked", "a request gets its whole answer, a report the state change it implies, nothing else";
        Host02 => "HOST-02", Duty, "SR Answer what was asked", "a push happens only on an event or a change the host owns";
        Host03 => "HOST-03", Duty, "SR What each client message gets", "message 18 gets the whole snapshot: messages 1, 2 and 12, then 5";
        Host04 => "HOST-04", Duty, "SR The Activity Host", "message 20 gets a message 0 grant of free slots; message 21 gets no reply";
        Host05 => "HOST-05", Duty, "SR What each client message gets", "message 22 commits region, spawn and teleport state; on a private link 12 if membership changed, 5 if the region moved";
        Host06 => "HOST-06", Duty, "SR What each client message gets", "a message from a link that does not own its session is recorded and dropped; the frame is accepted";
        Host07 => "HOST-07", Duty, "SR What each client message gets", "reports enter the host in the order the client sent them";
        Host08 => "HOST-08", Duty, "SR What each client message gets", "message 27 gets a purge notice that keeps the client's mask and reason";
        Host09 => "HOST-09", Duty, "SR Timed sends that remain", "a failed message 19 send and a held-back membership body are retried after 250 ms";
        Host10 => "HOST-10", Duty, "AH Client to host, service 8", "service 8's discriminator is 1 or 2; 2 carries no peer-heard mask";
        Host11 => "HOST-11", Duty, "facts 1.2", "the activity link's service 25 hello is not refused on shape";
        Host12 => "HOST-12", Duty, "facts 2.2", "service 8 is one-way: no BAP response; what it causes goes back as service 9 pushes";
        Host13 => "HOST-13", Duty, "AH incident, message 19", "message 19 has no acknowledgement: a host neither waits for one nor sends one";
        Host14 => "HOST-14", Duty, "SR The join burst", "a public join binds the link to that session; its burst carries the player's private member table";
        Host15 => "HOST-15", Duty, "SR What each client message gets", "message 23 commits the member identity and, on a private link, gets message 12";
        Host16 => "HOST-16", Duty, "SR What each client message gets", "messages 29, 31 and 32 are recorded as the answers to 28 and 30; no reply";
        Host17 => "HOST-17", Duty, "SR What each client message gets", "message 33 releases authority over the entities it names; no reply";
        Host18 => "HOST-18", Duty, "SR What each client message gets", "a client's message 19 reaches the host runtime as an incident";
        Host19 => "HOST-19", Duty, "SR Auth state goes out", "script requests that commit together go out in one message 5";
        Host20 => "HOST-20", Duty, "SR What the host pushes on its own", "pending host output is checked on every pass, not on the 50 ms poll";
        Host21 => "HOST-21", Duty, "SR Answer what was asked", "host state is world state: a flag that tracks what the client asked before is a defect";
    }
    Signon "SIGNON" "sign-in" {
        Signon01 => "SIGNON-01", End, "NS The success fields", "success fields 1 to 7 are required; field 12's f4 is exactly 128 bytes";
        Signon02 => "SIGNON-02", Duty, "NS SignOn", "response field 1 picks the outcome: success, queued, error, denied or throttled";
        Signon03 => "SIGNON-03", Duty, "NS The success fields", "success fields 2 and 3 are the secure hello keys, 4 the session token, 6 and 7 the BAP server's address";
        Signon04 => "SIGNON-04", Wrong, "NS The success fields", "success field 13 blocks five UI launch handlers; the official server omits it";
        Signon05 => "SIGNON-05", Wrong, "NS SignOn", "the response's feature names are the client's only feature flags";
        Signon06 => "SIGNON-06", End, "NS The other outcomes", "queued: position, time remaining and retry delay are required";
        Signon07 => "SIGNON-07", Wrong, "NS The other outcomes", "queued: a zero keeps the previous value, and the cookie comes back byte for byte";
        Signon08 => "SIGNON-08", Duty, "NS The other outcomes", "throttled: no retry delay means exactly 60 s; an explicit zero means zero";
        Signon09 => "SIGNON-09", End, "NS The other outcomes", "error: the reason picks a terminal state";
        Signon10 => "SIGNON-10", Wrong, "NS The other outcomes", "the denial screen shows the error's title and body only when both are present";
    }
    Manifest "MANIFEST" "the signed content manifest" {
        Manifest01 => "MANIFEST-01", Drop, "NS The content manifest", "the manifest's RSA-2048 signature verifies only under the client's one public key";
        Manifest02 => "MANIFEST-02", Drop, "NS The content manifest", "a failed manifest records one code: 1, 2, 5, 6 or 8";
    }
    Ws "WS" "web-service RPC" {
        Ws01 => "WS-01", Hang, "NS The reply's version barrier", "a reply to a change names the revision of the update that publishes it; any other reply sends -1";
        Ws02 => "WS-02", Crash, "NS Web-service RPC, services 10 and 11", "a ws message is a bit-packed RPC, not protobuf; an unknown opcode aborts";
        Ws03 => "WS-03", Duty, "NS Web-service RPC, services 10 and 11", "the wire opcode is a u16 from the client's 115 descriptors, never the table index";
        Ws04 => "WS-04", Duty, "NS Web-service RPC, services 10 and 11", "no item action carries a plug or shader hash: the server works out the rest";
        Ws05 => "WS-05", Wrong, "NS The reply's version barrier", "75 of the 115 responses open with a 5-bit status and a 32-bit value; status 0 or 7 completes";
        Ws06 => "WS-06", Duty, "NS The reply's version barrier", "replies 1103, 2200 and 2300 write the 37 bits inline; their second field is not a revision";
    }
    Qz "QZ" "replicated objects, queuez" {
        Qz01 => "QZ-01", End, "NS Replicated objects, service 123", "service 123 refuses family count 0, version -1, a version gap, an oversized payload or a mismatched key";
        Qz02 => "QZ-02", Duty, "NS Replicated objects, service 123", "service 123 is big-endian families of objects, the client's only source of Investment state";
        Qz03 => "QZ-03", End, "NS Replicated objects, service 123", "an unsubscribed family, an unknown object id or a full slot table is an error";
        Qz04 => "QZ-04", Wrong, "NS Replicated objects, service 123", "a full snapshot deletes every object it does not name; payload length 0 deletes the named one";
        Qz05 => "QZ-05", Wrong, "NS Replicated objects, service 123", "encoding 1 is a schema delta applied in place; encoding 2 a binary diff";
        Qz06 => "QZ-06", Crash, "NS Replicated objects, service 123", "encoding 3 is raw bytes copied with no clamp to the slot size";
        Qz07 => "QZ-07", Duty, "NS Replicated objects, service 123", "encoding 4 (Oodle) expands to exactly the slot's object size";
        Qz08 => "QZ-08", End, "NS Replicated objects, service 123", "a whole service-123 message has a size limit: 46,973 bytes work, 143,285 end the link";
    }
    Mm "MM" "matchmaking" {
        Mm01 => "MM-01", Hang, "NS Matchmaking, services 42 and 43", "the service 43 reply kind matches the request kind";
        Mm02 => "MM-02", Duty, "NS Matchmaking, services 42 and 43", "every matchmaking request is service 42 with one 2,624-byte body; field 2 is the kind";
        Mm03 => "MM-03", Duty, "NS Matchmaking, services 42 and 43", "configuration (kind 4) is accepted on field 4's presence; a useful reply sets a fair queue base";
        Mm04 => "MM-04", Duty, "NS Matchmaking, services 42 and 43", "search (kind 1) returns up to 50 results, each with a 128-byte join descriptor";
        Mm05 => "MM-05", Drop, "NS Matchmaking, services 42 and 43", "a session the client failed to join is refused for a while: do not reuse its id";
        Mm06 => "MM-06", Duty, "NS Matchmaking, services 42 and 43", "a successful advertisement (kind 2) sets field 1 to 2 and a non-zero advertisement id";
    }
    Pb "PB" "protobuf" {
        Pb01 => "PB-01", Drop, "NS Protobuf in the client", "nanopb: a missing required field or an oversized string or bytes value fails the message";
        Pb02 => "PB-02", Drop, "NS Protobuf in the client", "a bytes slot of N bytes holds N - 8; a longer value is rejected";
    }
    Peer "PEER" "the engine peer transport" {
        Peer01 => "PEER-01", End, "NS The engine peer transport", "a peer sequence more than 128 ahead of the window is never recovered";
        Peer02 => "PEER-02", End, "NS The engine peer transport", "membership-update: addr_len 86, machine_id_len 8, a current join id, a matching lookup3 hash";
        Peer03 => "PEER-03", Wrong, "NS The engine peer transport", "the join descriptor's transport method picks the path: 6 and 7 Steam Datagram Relay, else bdNet";
        Peer04 => "PEER-04", Duty, "NS The join descriptor", "a join descriptor is exactly 128 bytes: machine id, host NetAddr, join key, online session id";
        Peer05 => "PEER-05", Wrong, "NS The peer address", "a NetAddr is 86 bytes, ports low byte first, reserved bytes zero; all 86 bytes compare";
        Peer06 => "PEER-06", Wrong, "NS The peer address", "on bdNet only the first 41 bytes are read; no public endpoint means NAT traversal";
        Peer07 => "PEER-07", Hang, "NS The association handshake", "a bdNet connection opens with four packets: init, init ack, cookie echo, cookie ack";
        Peer08 => "PEER-08", Duty, "NS The association handshake", "the init ack carries the cookie, tags, seen address and security id; the echo returns it unchanged";
        Peer09 => "PEER-09", Drop, "NS The association handshake", "the security id routes every packet; a packet matching no association is dropped silently";
        Peer10 => "PEER-10", Duty, "NS The association handshake", "the key exchange is ECDH on secp224r1, keys zero-padded to 100 bytes; nothing authenticates the host";
        Peer11 => "PEER-11", Duty, "NS The association handshake", "data travels in type-6 records: header, truncated MAC, length, AES-128-CBC ciphertext";
        Peer12 => "PEER-12", Drop, "NS The association handshake", "a 32-slot sliding window rejects replayed records";
        Peer13 => "PEER-13", Drop, "NS The peer message channel", "a peer message's 18-bit struct_size equals its id's fixed size, or the message is dropped";
        Peer14 => "PEER-14", Duty, "NS The peer message channel", "out-of-band ids go length-prefixed; session messages ride the reliable connection";
        Peer15 => "PEER-15", Duty, "NS Peer message ids", "peer ids 43 and 44 are test controls: never send them";
        Peer16 => "PEER-16", Hang, "NS Peer message ids", "clock sync (id 29): a reply is terminal, and answering one loops forever";
        Peer17 => "PEER-17", Duty, "NS What a host checks in a join request", "a group-session host checks a join request in order: version, session state, build bounds, executable type";
        Peer18 => "PEER-18", Wrong, "NS Session membership, peer message 30", "membership-update is one 31,104-byte struct; base revision 0 is a snapshot, any other a delta";
        Peer19 => "PEER-19", Wrong, "NS Root fields", "root and member fields are copied straight into the receiver's session state";
        Peer20 => "PEER-20", Wrong, "NS Peer and player deltas", "a player delta carries the profile an activity join reads";
        Peer21 => "PEER-21", Wrong, "NS What a bad update costs", "the receiver applies an update before validating it and on most failures rebuilds a minimal session";
        Peer22 => "PEER-22", End, "NS What a bad update costs", "the hash at +31096 is lookup3 over the receiver's session state after applying";
        Peer23 => "PEER-23", Drop, "NS Gameplay replication", "a replication view opens in six stages; a scheduler signature mismatch replicates nothing";
    }
    Qos "QOS" "the QoS probe and the session advertisement" {
        Qos01 => "QOS-01", Hang, "NS QoS probe and the session advertisement", "a QoS reply needs a non-empty advertisement that passes the version, kind and build checks";
        Qos02 => "QOS-02", Hang, "NS QoS probe and the session advertisement", "the probe request is 18 bytes, unframed; an unanswered session is never joined";
        Qos03 => "QOS-03", Duty, "NS QoS probe and the session advertisement", "the reply is 27 bytes plus payload, echoing the probe id, send time and security id";
        Qos04 => "QOS-04", Hang, "NS QoS probe and the session advertisement", "accepted 0 is a refusal: the session is not joined";
        Qos05 => "QOS-05", Hang, "NS QoS probe and the session advertisement", "the payload is required: an empty or undecodable one marks the session unsuitable";
        Qos06 => "QOS-06", Hang, "NS The session advertisement", "the payload is the 13,184-byte session advertisement, with protocol version 0xA4F8 and kind 5";
    }
    Actor "ACTOR" "actor orders" {
        Actor01 => "ACTOR-01", Drop, "AI Command records", "only the entity's owner can update an actor group's command list";
        Actor02 => "ACTOR-02", Drop, "AI The 98 actor command selectors", "the event ring drops selector 45 (set faction): it acts only through the persistent list";
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests;
