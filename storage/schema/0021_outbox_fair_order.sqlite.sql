-- The claim's fair order (storage.outbox_claims): events take turns, so a claim walks the
-- pending rows event by event, the first few of each, instead of ranking the whole backlog.
-- Rows queued before outbox_events (0008) had no event: each becomes its own, under its row's
-- id negated (identities are positive, so the two never meet).
INSERT INTO outbox_events (id, payload)
SELECT -id, payload FROM outbox WHERE event_id IS NULL AND status = 'pending';
UPDATE outbox SET event_id = -id WHERE event_id IS NULL AND status = 'pending';
-- Pending rows only: a sent row leaves it, so it stays the size of the backlog.
CREATE INDEX outbox_pending_event ON outbox (event_id, due_at, id) WHERE status = 'pending';
