-- Delivery at Telegram's ceiling (issue 10).

-- A sender claims the rows it is about to send until `claimed_until` (a lease), so a claim
-- maps one to one onto PostgreSQL's FOR UPDATE SKIP LOCKED later. With SQLite one process
-- holds the database (bot.app takes a file lock), so a claim left by a killed process is
-- released at the next start.
ALTER TABLE outbox ADD COLUMN claimed_until TEXT;

-- Each event's JSON once, shared by all its alerts: a fan-out to 20k subscribers wrote the
-- same 600-byte payload 20k times. Rows queued from now on point here and leave
-- outbox.payload empty; older rows keep their own. The daily purge drops unreferenced ones.
CREATE TABLE outbox_events (
    id       INTEGER PRIMARY KEY,
    payload  TEXT    NOT NULL
) STRICT;
ALTER TABLE outbox ADD COLUMN event_id INTEGER REFERENCES outbox_events (id);

-- The claim's scan: pending rows chat by chat in due order (k of them per chat); also one
-- chat's pending rows (a 403's drop, a snooze, a backoff). It replaces both outbox_by_chat
-- and outbox_due: every index costs each of a big refresh's 20k inserts.
CREATE INDEX outbox_pending_chat ON outbox (status, chat_id, due_at, id);
DROP INDEX outbox_by_chat;
DROP INDEX outbox_due;
-- The daily purge of old sent and dropped rows.
CREATE INDEX outbox_created ON outbox (created_at) WHERE status != 'pending';

-- 1 when a 403 paused this subscription, 0 when the user did (or it is not paused): the user's
-- next update resumes only the first kind.
ALTER TABLE subscriptions ADD COLUMN paused_by_block INTEGER NOT NULL DEFAULT 0
    CHECK (paused_by_block IN (0, 1));

-- Which subscriptions changed, in order: the monitor keeps its match index in memory and
-- replays these since the last one it applied, instead of rebuilding the index. Triggers
-- catch every writer (a /subs button, an alert's mute button, a 403 pausing a blocked user).
-- Old rows are pruned; a reader that fell behind the pruning reloads everything.
CREATE TABLE subscription_changes (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    subscription_id  INTEGER NOT NULL
) STRICT;

CREATE TRIGGER subscriptions_change_insert AFTER INSERT ON subscriptions
BEGIN
    INSERT INTO subscription_changes (subscription_id) VALUES (new.id);
END;
CREATE TRIGGER subscriptions_change_update AFTER UPDATE ON subscriptions
BEGIN
    INSERT INTO subscription_changes (subscription_id) VALUES (new.id);
END;
CREATE TRIGGER subscriptions_change_delete AFTER DELETE ON subscriptions
BEGIN
    INSERT INTO subscription_changes (subscription_id) VALUES (old.id);
END;
-- A blocked user's subscriptions leave the index, and come back when they unblock.
CREATE TRIGGER users_blocked_change AFTER UPDATE OF blocked ON users
WHEN old.blocked != new.blocked
BEGIN
    INSERT INTO subscription_changes (subscription_id)
    SELECT id FROM subscriptions WHERE chat_id = new.chat_id;
END;

-- The change log replaces the single revision counter of 0006.
DROP TRIGGER subscriptions_revision_insert;
DROP TRIGGER subscriptions_revision_update;
DROP TRIGGER subscriptions_revision_delete;
DROP TABLE subscription_revision;
