-- Whether quiet hours or a snooze held a row back (it then arrives in the quiet-hours digest).
-- A stored flag rather than "due well after it was made": a retry after a 5xx or a 429 also
-- moves due_at later, and such an alert is not a digest.
ALTER TABLE outbox ADD COLUMN held INTEGER NOT NULL DEFAULT 0 CHECK (held IN (0, 1));
-- Rows queued before this column: the old rule, due more than a minute after they were made.
UPDATE outbox SET held = 1
WHERE status = 'pending' AND julianday(due_at) - julianday(created_at) > 1.0 / 1440;
