-- A remembered sizing whose model came from the user's config.json (estimator.config_query):
-- no /fit command can name it, so `command` says the run on a stand-in size and `model` holds
-- the model's shapes as JSON (estimator.model_config.spec_json, a few hundred bytes, not the
-- file). NULL for a catalog model.
ALTER TABLE sizing_memory ADD COLUMN model TEXT;
