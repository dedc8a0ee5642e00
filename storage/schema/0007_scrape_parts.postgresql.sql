-- PostgreSQL's side of 0007_scrape_parts.sqlite.sql (the comments there say what each part is for).
ALTER TABLE offers ADD COLUMN part text COLLATE "C" NOT NULL DEFAULT '';

CREATE TABLE provider_parts (
    provider              text COLLATE "C" NOT NULL,
    part                  text COLLATE "C" NOT NULL,
    state                 text        NOT NULL CHECK (state IN ('ok', 'failed', 'empty', 'suspect')),
    offers                integer     NOT NULL DEFAULT 0 CHECK (offers >= 0),
    kept                  integer     NOT NULL DEFAULT 0 CHECK (kept >= 0),
    consecutive_failures  integer     NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
    suspect_runs          integer     NOT NULL DEFAULT 0 CHECK (suspect_runs >= 0),
    error_class           text,
    error                 text,
    last_attempt_at       timestamptz NOT NULL,
    last_success_at       timestamptz,
    PRIMARY KEY (provider, part)
);
