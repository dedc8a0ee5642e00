-- Webhook updates handled once across replicas: Telegram retries a delivery that got no 200
-- in time, possibly to another replica. A replica claims an update_id here before handling it
-- and marks it done after; a retry finds it done (answered 200, not handled again) or still
-- claimed (answered 503, so Telegram tries again later, and takes it over once the claim has
-- lapsed: the first replica may have died). Rows older than storage.updates.KEEP_UPDATES are
-- purged by the daily housekeeping.
CREATE TABLE webhook_updates (
    update_id   INTEGER PRIMARY KEY,
    holder      TEXT    NOT NULL,
    claimed_at  TEXT    NOT NULL,
    done        INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1))
) STRICT;
CREATE INDEX webhook_updates_by_time ON webhook_updates (claimed_at);
