-- SQLite's side of 0017_outbox_claim_token.postgresql.sql (the comments there say what it is
-- for). One process claims from the file, but the sender is the same code on both backends.
ALTER TABLE outbox ADD COLUMN claim_token INTEGER;
