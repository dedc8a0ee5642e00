-- History summaries (storage/history_tiers.py): for each offer and each span of a fixed length
-- (`grain`, in seconds: 4 hours and a day, counted from the Unix epoch, so from UTC midnight),
-- the span's cheapest point (rentable ones first), its dearest and its last, each kept whole,
-- as a row of its `role`. Kept current with every change point written, so a long range is
-- read as a few rows per offer and day instead of every change point: a year of an offer
-- changing every 10 minutes is 52 560 change points, 1 095 daily rows.
-- Daily rows are kept for good; the change points and the 4-hour rows only for the full-detail
-- window (storage.history_tiers.FULL_DETAIL). The rows of the points stored before this version
-- are made from them in the same transaction (storage.history_tiers.rebuild_tiers).
CREATE TABLE offer_history_tiers (
    grain        INTEGER NOT NULL CHECK (grain > 0),
    start        TEXT    NOT NULL,  -- the span's start, as offer_history.at is written
    role         TEXT    NOT NULL CHECK (role IN ('low', 'high', 'last')),
    provider     TEXT    NOT NULL,
    sku          TEXT    NOT NULL,
    location     TEXT    NOT NULL,
    gpu          TEXT    NOT NULL,
    gpu_count    INTEGER NOT NULL CHECK (gpu_count >= 1),
    at           TEXT    NOT NULL,
    price_hour   REAL    NOT NULL CHECK (price_hour >= 0),
    stock        TEXT    NOT NULL
                 CHECK (stock IN ('in_stock', 'out_of_stock', 'preorder', 'unknown')),
    stock_count  INTEGER,
    card_id      TEXT,
    card_family  TEXT,
    card_sizing  TEXT,
    card_vram_gb REAL,
    -- (grain, start) first: a range with no card condition, and the retention's deletes, are
    -- one range of the key.
    PRIMARY KEY (grain, start, provider, sku, location, role)
) STRICT, WITHOUT ROWID;

-- A history asked by card or by family, as offer_history_by_card and _by_family serve it.
CREATE INDEX offer_history_tiers_by_card ON offer_history_tiers (grain, card_id, start);
CREATE INDEX offer_history_tiers_by_family ON offer_history_tiers (grain, card_family, start);

-- The retention's deletes walk the change points oldest first. Nothing has read the points by
-- GPU name since history is asked by card (0022_offer_cards).
DROP INDEX offer_history_by_gpu;
CREATE INDEX offer_history_by_time ON offer_history (at);
