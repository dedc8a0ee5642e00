-- A refresh talks to storage in two calls (storage.refresh): it loads what it needs, decides
-- in monitor with no lock held, then commits. Two replicas may both lead for a few seconds
-- while one takes over; each committed refresh of a provider moves its revision on, and a
-- commit made from an older revision is refused, so nothing is applied twice.
CREATE TABLE refresh_revisions (
    provider  TEXT    PRIMARY KEY,
    revision  INTEGER NOT NULL CHECK (revision > 0)
) STRICT;

-- When the cooldown an alert started ends (monitor.queueing): a refresh loads only the rows
-- still cooling, an index range, where it used to look up each of its candidate alerts in
-- outbox_cooldown inside its write transaction.
ALTER TABLE outbox ADD COLUMN cooling_until TEXT;
-- Rows queued before this column: their subscription's cooldown (6 h, the default, for one
-- since deleted), in the same text form as the other times (UTC, microseconds).
UPDATE outbox SET cooling_until = strftime(
    '%Y-%m-%dT%H:%M:%f', created_at, '+' || coalesce(
        (SELECT cooldown_s FROM subscriptions WHERE subscriptions.id = outbox.subscription_id),
        21600
    ) || ' seconds'
) || '000+00:00';
CREATE INDEX outbox_cooling ON outbox (provider, cooling_until);
-- Nothing reads it any more, and every index costs each of a big refresh's 20k inserts.
DROP INDEX outbox_cooldown;

-- The users a refresh must know about (blocked, or with quiet hours): the few, not everyone.
CREATE INDEX users_held ON users (chat_id) WHERE blocked = 1 OR quiet_start IS NOT NULL;
