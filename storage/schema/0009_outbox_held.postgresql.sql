-- PostgreSQL's side of 0009_outbox_held.sqlite.sql (the comments there say what it is for).
ALTER TABLE outbox ADD COLUMN held integer NOT NULL DEFAULT 0 CHECK (held IN (0, 1));
UPDATE outbox SET held = 1
WHERE status = 'pending' AND due_at - created_at > interval '1 minute';
