-- SQLite's side of 0016_leader_lease.postgresql.sql. One process owns the file and always
-- leads, so the lease table stays empty.
CREATE TABLE leader_lease (
    singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
    holder      TEXT    NOT NULL,
    term        INTEGER NOT NULL,
    expires_at  TEXT    NOT NULL
) STRICT;
