-- Users are keyed by their private chat id; a user writes to the bot only from a private chat.
CREATE TABLE users (
    chat_id       INTEGER PRIMARY KEY,
    language      TEXT    NOT NULL CHECK (language IN ('ru', 'en')),
    timezone      TEXT    NOT NULL,
    -- Quiet hours as minutes after local midnight; both NULL means "off".
    -- start > end wraps over midnight (22:00-08:00).
    quiet_start   INTEGER CHECK (quiet_start BETWEEN 0 AND 1439),
    quiet_end     INTEGER CHECK (quiet_end BETWEEN 0 AND 1439),
    blocked       INTEGER NOT NULL DEFAULT 0 CHECK (blocked IN (0, 1)),
    created_at    TEXT    NOT NULL,
    last_seen_at  TEXT    NOT NULL,
    CHECK ((quiet_start IS NULL) = (quiet_end IS NULL))
) STRICT;
