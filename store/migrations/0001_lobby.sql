-- What the lobby stores (vex_host::lobby::stored): per account, its character, the items
-- it holds in order, the family-4 revision and sign-in count, and its family-4 objects.
-- One schema for SQLite and PostgreSQL: SQLite keeps a BYTEA column's blobs as they are.
CREATE TABLE accounts (
    account BIGINT PRIMARY KEY,
    character_id BIGINT NOT NULL,
    revision BIGINT NOT NULL,
    sign_ins BIGINT NOT NULL
);

CREATE TABLE items (
    account BIGINT NOT NULL REFERENCES accounts (account),
    position BIGINT NOT NULL,
    item BIGINT NOT NULL,
    PRIMARY KEY (account, position)
);

CREATE TABLE objects (
    account BIGINT NOT NULL REFERENCES accounts (account),
    family BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    object_key BIGINT NOT NULL,
    payload BYTEA NOT NULL,
    PRIMARY KEY (account, family, object_id)
);
