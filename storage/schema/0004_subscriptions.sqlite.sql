-- Alert subscriptions: one row per /watch. The whole filter is JSON (monitor.WatchFilter, fit
-- table included), so a new filter field needs no migration; gpu and family are copied out
-- because they are what an operator asks ("who watches H100?").
CREATE TABLE subscriptions (
    id           INTEGER PRIMARY KEY,
    chat_id      INTEGER NOT NULL REFERENCES users (chat_id) ON DELETE CASCADE,
    gpu          TEXT,
    family       TEXT,
    filter       TEXT    NOT NULL CHECK (json_valid(filter)),
    cooldown_s   INTEGER NOT NULL CHECK (cooldown_s >= 0),
    paused       INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    muted_until  TEXT,  -- ISO 8601 UTC; alerts resume at this moment
    created_at   TEXT    NOT NULL
) STRICT;

-- A user's list (/subs) and the per-user limit; the foreign key's cascade uses it too.
CREATE INDEX subscriptions_by_chat ON subscriptions (chat_id, id);
CREATE INDEX subscriptions_by_gpu ON subscriptions (gpu) WHERE gpu IS NOT NULL;
CREATE INDEX subscriptions_by_family ON subscriptions (family) WHERE family IS NOT NULL;
