-- PostgreSQL's side of 0023_history_tiers.sqlite.sql (the comments there say what it is for).
CREATE TABLE offer_history_tiers (
    grain        integer          NOT NULL CHECK (grain > 0),
    start        timestamptz      NOT NULL,
    role         text COLLATE "C" NOT NULL CHECK (role IN ('low', 'high', 'last')),
    provider     text COLLATE "C" NOT NULL,
    sku          text COLLATE "C" NOT NULL,
    location     text COLLATE "C" NOT NULL,
    gpu          text COLLATE "C" NOT NULL,
    gpu_count    integer          NOT NULL CHECK (gpu_count >= 1),
    at           timestamptz      NOT NULL,
    price_hour   double precision NOT NULL CHECK (price_hour >= 0),
    stock        text             NOT NULL
                 CHECK (stock IN ('in_stock', 'out_of_stock', 'preorder', 'unknown')),
    stock_count  integer,
    card_id      text COLLATE "C",
    card_family  text COLLATE "C",
    card_sizing  text COLLATE "C",
    card_vram_gb double precision,
    PRIMARY KEY (grain, start, provider, sku, location, role)
);

CREATE INDEX offer_history_tiers_by_card ON offer_history_tiers (grain, card_id, start);
CREATE INDEX offer_history_tiers_by_family ON offer_history_tiers (grain, card_family, start);

DROP INDEX offer_history_by_gpu;
CREATE INDEX offer_history_by_time ON offer_history (at);
