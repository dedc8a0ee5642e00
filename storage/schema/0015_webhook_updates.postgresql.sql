-- PostgreSQL's side of 0015_webhook_updates.sqlite.sql: each webhook update's claim, so that
-- a retry POSTed to another replica is not handled twice.
CREATE TABLE webhook_updates (
    update_id   bigint      PRIMARY KEY,
    holder      text        NOT NULL,
    claimed_at  timestamptz NOT NULL,
    done        smallint    NOT NULL DEFAULT 0 CHECK (done IN (0, 1))
);
CREATE INDEX webhook_updates_by_time ON webhook_updates (claimed_at);
