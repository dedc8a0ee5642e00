-- Replicas pace each chat through the database: a claim skips a chat that any replica
-- messaged within the last second (storage.outbox.CHAT_GAP). At Telegram's 30 messages a
-- second these are a few dozen rows; a partial index finds them without reading the sent
-- history, and costs nothing to the refresh's inserts (they are pending).
CREATE INDEX outbox_recent_sent ON outbox (sent_at) WHERE status = 'sent';
