-- The host processes sharing this database and which one holds each activity
-- (vex_host::lobby::placement). A process is named by the listener service 17 names; its
-- lease runs until lease_until, milliseconds since the Unix epoch, and a process whose
-- lease ran out is handed no new activity.
CREATE TABLE processes (
    address TEXT PRIMARY KEY,
    lease_until BIGINT NOT NULL
);

CREATE TABLE placements (
    host_id BIGINT PRIMARY KEY,
    address TEXT NOT NULL REFERENCES processes (address)
);
