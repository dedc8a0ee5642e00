-- The snapshot keeps an offer that went missing until it has been missing from N good snapshots
-- in a row (monitor.diff), so a brief gap is diffed against how it was last seen, not re-reported.
-- missing_runs counts those snapshots; 0 means it is in the latest one. Anything shown to users
-- as "on sale now" must read only rows with missing_runs = 0.
ALTER TABLE offers ADD COLUMN missing_runs INTEGER NOT NULL DEFAULT 0 CHECK (missing_runs >= 0);

-- Price and stock history: one row per CHANGE POINT of an offer, written only when its
-- (price_hour, stock, stock_count) differs from its latest row, so the table grows with changes
-- and not with the number of scrapes. gpu and gpu_count are copied so history queries by GPU
-- need no join, and survive the offer leaving the snapshot.
CREATE TABLE offer_history (
    id           INTEGER PRIMARY KEY,  -- insertion order: breaks ties between equal `at`
    provider     TEXT    NOT NULL,
    sku          TEXT    NOT NULL,
    location     TEXT    NOT NULL,
    gpu          TEXT    NOT NULL,
    gpu_count    INTEGER NOT NULL CHECK (gpu_count >= 1),
    at           TEXT    NOT NULL,  -- ISO 8601 UTC, fixed width, so text order is time order
    price_hour   REAL    NOT NULL CHECK (price_hour >= 0),
    stock        TEXT    NOT NULL
                 CHECK (stock IN ('in_stock', 'out_of_stock', 'preorder', 'unknown')),
    stock_count  INTEGER
) STRICT;

-- The latest point of one offer (change detection), and an offer's points over time.
CREATE INDEX offer_history_by_offer ON offer_history (provider, sku, location, at);
-- "Lowest in 30 days" and price charts: the points of some GPUs since a moment.
CREATE INDEX offer_history_by_gpu ON offer_history (gpu, at);
