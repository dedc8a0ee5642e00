-- PostgreSQL's side of 0010_refresh_port.sqlite.sql: each provider's refresh revision, and
-- when the cooldown an alert started ends.
CREATE TABLE refresh_revisions (
    provider  text    PRIMARY KEY,
    revision  integer NOT NULL CHECK (revision > 0)
);

ALTER TABLE outbox ADD COLUMN cooling_until timestamptz;
UPDATE outbox SET cooling_until = created_at + make_interval(secs => coalesce(
    (SELECT cooldown_s FROM subscriptions WHERE subscriptions.id = outbox.subscription_id),
    21600
));
CREATE INDEX outbox_cooling ON outbox (provider, cooling_until);
DROP INDEX outbox_cooldown;

CREATE INDEX users_held ON users (chat_id) WHERE blocked = 1 OR quiet_start IS NOT NULL;
