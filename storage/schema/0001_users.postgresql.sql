-- PostgreSQL's side of 0001_users.sqlite.sql: the same table, in PostgreSQL's types.
-- Flags stay 0/1 integers (not boolean) so that every query is the same text on both backends;
-- times are timestamptz, which asyncpg reads and writes as aware datetimes.
CREATE TABLE users (
    chat_id       bigint      PRIMARY KEY,
    language      text        NOT NULL CHECK (language IN ('ru', 'en')),
    timezone      text        NOT NULL,
    -- Quiet hours as minutes after local midnight; both NULL means "off".
    -- start > end wraps over midnight (22:00-08:00).
    quiet_start   integer     CHECK (quiet_start BETWEEN 0 AND 1439),
    quiet_end     integer     CHECK (quiet_end BETWEEN 0 AND 1439),
    blocked       integer     NOT NULL DEFAULT 0 CHECK (blocked IN (0, 1)),
    created_at    timestamptz NOT NULL,
    last_seen_at  timestamptz NOT NULL,
    CHECK ((quiet_start IS NULL) = (quiet_end IS NULL))
);
