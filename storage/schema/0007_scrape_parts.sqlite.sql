-- A provider is scraped in parts that fail on their own (monitor.parts): a failed, empty or
-- suspect part keeps its own last good offers while the other parts go on. Each offer row says
-- which part it belongs to; '' is a provider scraped as one piece, and every row stored before
-- parts existed (the next scrape relabels the ones it sees).
ALTER TABLE offers ADD COLUMN part TEXT NOT NULL DEFAULT '';

-- How each part of a provider fared in its latest scrape, plus the two counters monitor.parts
-- carries from scrape to scrape: failed-or-empty scrapes in a row, and scrapes in a row that
-- showed the same big drop (held until seen 3 times).
CREATE TABLE provider_parts (
    provider              TEXT    NOT NULL,
    part                  TEXT    NOT NULL,
    state                 TEXT    NOT NULL CHECK (state IN ('ok', 'failed', 'empty', 'suspect')),
    offers                INTEGER NOT NULL DEFAULT 0 CHECK (offers >= 0),
    kept                  INTEGER NOT NULL DEFAULT 0 CHECK (kept >= 0),
    consecutive_failures  INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
    suspect_runs          INTEGER NOT NULL DEFAULT 0 CHECK (suspect_runs >= 0),
    error_class           TEXT,
    error                 TEXT,
    last_attempt_at       TEXT    NOT NULL,
    last_success_at       TEXT,
    PRIMARY KEY (provider, part)
) STRICT;
