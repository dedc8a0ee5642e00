-- The card an offer is (monitor.cards.Card), decided once when the offer is scraped and kept
-- with it, so that matching, quotes, history and the open data read one value: the catalogue
-- id when the name pins one row, the family, the card it is sized as, the memory per card.
-- History points keep the card too: /history asks by card ("every A100 with 80 GB"), never
-- by the provider's name for it. The rows written before this version get their cards from
-- storage.cards.fill_cards, in the same transaction (storage.migrations runs it after this).
ALTER TABLE offers ADD COLUMN card_id TEXT;
ALTER TABLE offers ADD COLUMN card_family TEXT;
ALTER TABLE offers ADD COLUMN card_sizing TEXT;
ALTER TABLE offers ADD COLUMN card_vram_gb REAL;

ALTER TABLE offer_history ADD COLUMN card_id TEXT;
ALTER TABLE offer_history ADD COLUMN card_family TEXT;
ALTER TABLE offer_history ADD COLUMN card_sizing TEXT;
ALTER TABLE offer_history ADD COLUMN card_vram_gb REAL;

-- A history asked by card or by family: the points since a moment.
CREATE INDEX offer_history_by_card ON offer_history (card_id, at);
CREATE INDEX offer_history_by_family ON offer_history (card_family, at);
