-- The matchmaking advertisements of several host processes sharing this database
-- (vex_host::lobby::listing): each under an id from the one counter, never 0 and never
-- reused by any process, held for a link of the process that made it.
CREATE TABLE advertisements (
    id BIGINT PRIMARY KEY,
    process TEXT NOT NULL,
    link BIGINT NOT NULL,
    descriptor BYTEA NOT NULL
);

CREATE TABLE counters (
    name TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);

INSERT INTO counters (name, value) VALUES ('advertisement', 0);
