-- PostgreSQL's side of 0002_offers.sqlite.sql. Identifiers sort by their bytes (COLLATE "C"),
-- as SQLite sorts them, whatever locale the database was created with.
-- The last good snapshot of each provider's offers. A failed scrape never touches it.
CREATE TABLE offers (
    provider      text COLLATE "C" NOT NULL,
    sku           text COLLATE "C" NOT NULL,
    location      text COLLATE "C" NOT NULL,
    gpu           text COLLATE "C" NOT NULL,
    gpu_raw       text             NOT NULL,
    gpu_known     integer          NOT NULL CHECK (gpu_known IN (0, 1)),
    gpu_count     integer          NOT NULL CHECK (gpu_count >= 1),
    vram_gb       double precision,
    price_hour    double precision NOT NULL CHECK (price_hour >= 0),
    price_month   double precision NOT NULL CHECK (price_month >= 0),
    price_source  text             NOT NULL,
    price_period  text             NOT NULL CHECK (price_period IN ('hour', 'month')),
    converted     integer          NOT NULL CHECK (converted IN (0, 1)),
    vat           text             NOT NULL CHECK (vat IN ('yes', 'no', 'unknown')),
    stock         text             NOT NULL
                  CHECK (stock IN ('in_stock', 'out_of_stock', 'preorder', 'unknown')),
    stock_count   integer,
    vcpu          integer,
    ram_gb        double precision,
    disk_gb       double precision,
    url           text             NOT NULL,
    title         text             NOT NULL DEFAULT '',
    note          text             NOT NULL DEFAULT '',
    fetched_at    timestamptz      NOT NULL,
    PRIMARY KEY (provider, sku, location)
);

CREATE INDEX offers_by_gpu ON offers (gpu);

-- One row per provider: how its last runs went.
CREATE TABLE provider_health (
    provider              text COLLATE "C" PRIMARY KEY,
    last_success_at       timestamptz,
    last_attempt_at       timestamptz      NOT NULL,
    last_error_at         timestamptz,
    last_error_class      text,
    last_error            text,
    consecutive_failures  integer          NOT NULL DEFAULT 0,
    last_duration_s       double precision NOT NULL,
    offer_count           integer          NOT NULL DEFAULT 0
);
