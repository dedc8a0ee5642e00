-- PostgreSQL's side of 0021_offer_cards.sqlite.sql (the comments there say what it is for).
ALTER TABLE offers ADD COLUMN card_id text COLLATE "C";
ALTER TABLE offers ADD COLUMN card_family text COLLATE "C";
ALTER TABLE offers ADD COLUMN card_sizing text COLLATE "C";
ALTER TABLE offers ADD COLUMN card_vram_gb double precision;

ALTER TABLE offer_history ADD COLUMN card_id text COLLATE "C";
ALTER TABLE offer_history ADD COLUMN card_family text COLLATE "C";
ALTER TABLE offer_history ADD COLUMN card_sizing text COLLATE "C";
ALTER TABLE offer_history ADD COLUMN card_vram_gb double precision;

CREATE INDEX offer_history_by_card ON offer_history (card_id, at);
CREATE INDEX offer_history_by_family ON offer_history (card_family, at);
