-- The delivery outbox: one row per alert (subscription + offer + change), written in the same
-- transaction as the events that caused it, so an alert is never lost between "detected" and
-- "queued". The sender marks a row sent right after Telegram accepted it.
CREATE TABLE outbox (
    id               INTEGER PRIMARY KEY,
    chat_id          INTEGER NOT NULL,
    subscription_id  INTEGER NOT NULL,
    -- monitor.Alert.dedupe_key: inserting the same alert twice (a retried refresh, a re-derived
    -- event) is a no-op thanks to INSERT OR IGNORE against this constraint.
    dedupe_key       TEXT    NOT NULL UNIQUE,
    kind             TEXT    NOT NULL CHECK (kind IN (
                         'appeared', 'sold_out', 'price_drop', 'price_rise', 'new_offer', 'removed'
                     )),
    provider         TEXT    NOT NULL,
    sku              TEXT    NOT NULL,
    location         TEXT    NOT NULL,
    -- JSON of the whole Event (offer included): the message is rendered from the row alone,
    -- even if the offer has since left the snapshot.
    payload          TEXT    NOT NULL,
    -- Times are ISO 8601 UTC with microseconds (fixed width), so text order is time order.
    created_at       TEXT    NOT NULL,
    due_at           TEXT    NOT NULL,  -- later than created_at in quiet hours or a snooze
    status           TEXT    NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'sent', 'dropped')),
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error       TEXT,  -- the last failure; for a dropped row, why it was dropped
    sent_at          TEXT,
    CHECK ((status = 'sent') = (sent_at IS NOT NULL))
) STRICT;

-- The sender's scan: pending rows that are due, oldest first.
CREATE INDEX outbox_due ON outbox (status, due_at);
-- One chat's pending rows: its whole backlog as one digest, 403 drops, snoozes.
CREATE INDEX outbox_by_chat ON outbox (chat_id, status);
-- The pipeline's cooldown check: the last alert of one subscription about one offer and kind.
CREATE INDEX outbox_cooldown ON outbox (subscription_id, provider, sku, location, kind, created_at);

-- "💤 until morning": the chat hears nothing until `until`. Rows queued meanwhile are made due
-- then, so the night's alerts arrive as one digest.
CREATE TABLE chat_snooze (
    chat_id  INTEGER PRIMARY KEY,
    until    TEXT    NOT NULL
) STRICT;
