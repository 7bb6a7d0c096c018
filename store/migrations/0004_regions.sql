-- The regions of activities a shared fleet spreads over its processes
-- (vex_host::fleet_regions): the process holding an activity (owner) hosts its arrival
-- region, and each other region a member moves into is placed on a live process here.
-- The group session of a region is hosted while its owner's lease runs and the row stays;
-- the owner deletes its rows when the activity ends.
CREATE TABLE region_placements (
    session BIGINT NOT NULL,
    bubble INTEGER NOT NULL,
    owner TEXT NOT NULL REFERENCES processes (address),
    address TEXT NOT NULL REFERENCES processes (address),
    PRIMARY KEY (session, bubble)
);
