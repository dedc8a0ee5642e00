-- The last good snapshot of each provider's offers. A failed scrape never touches it.
CREATE TABLE offers (
    provider      TEXT    NOT NULL,
    sku           TEXT    NOT NULL,
    location      TEXT    NOT NULL,
    gpu           TEXT    NOT NULL,
    gpu_raw       TEXT    NOT NULL,
    gpu_known     INTEGER NOT NULL CHECK (gpu_known IN (0, 1)),
    gpu_count     INTEGER NOT NULL CHECK (gpu_count >= 1),
    vram_gb       REAL,
    price_hour    REAL    NOT NULL CHECK (price_hour >= 0),
    price_month   REAL    NOT NULL CHECK (price_month >= 0),
    price_source  TEXT    NOT NULL,
    price_period  TEXT    NOT NULL CHECK (price_period IN ('hour', 'month')),
    converted     INTEGER NOT NULL CHECK (converted IN (0, 1)),
    vat           TEXT    NOT NULL CHECK (vat IN ('yes', 'no', 'unknown')),
    stock         TEXT    NOT NULL
                  CHECK (stock IN ('in_stock', 'out_of_stock', 'preorder', 'unknown')),
    stock_count   INTEGER,
    vcpu          INTEGER,
    ram_gb        REAL,
    disk_gb       REAL,
    url           TEXT    NOT NULL,
    title         TEXT    NOT NULL DEFAULT '',
    note          TEXT    NOT NULL DEFAULT '',
    fetched_at    TEXT    NOT NULL,
    PRIMARY KEY (provider, sku, location)
) STRICT;

CREATE INDEX offers_by_gpu ON offers (gpu);

-- One row per provider: how its last runs went.
CREATE TABLE provider_health (
    provider              TEXT    PRIMARY KEY,
    last_success_at       TEXT,
    last_attempt_at       TEXT    NOT NULL,
    last_error_at         TEXT,
    last_error_class      TEXT,
    last_error            TEXT,
    consecutive_failures  INTEGER NOT NULL DEFAULT 0,
    last_duration_s       REAL    NOT NULL,
    offer_count           INTEGER NOT NULL DEFAULT 0
) STRICT;
