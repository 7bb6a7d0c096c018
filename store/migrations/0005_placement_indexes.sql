-- Placing an activity or a region counts what each live process holds
-- (Store::least_held): by process address, so each count reads an index, not the table.
CREATE INDEX placements_by_address ON placements (address);
CREATE INDEX region_placements_by_address ON region_placements (address);
