-- PostgreSQL's side of 0018_sizing_memory_model.sqlite.sql (the comments there say what it
-- is for): a config-defined model's shapes, as JSON text, beside the remembered command.
ALTER TABLE sizing_memory ADD COLUMN model text;
