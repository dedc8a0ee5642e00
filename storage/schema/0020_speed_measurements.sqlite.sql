-- A person's own measured training speed (estimator.measurement): «у меня 2,1 с/шаг на 4090
-- при bs 4». One row per user, replaced by each new measurement. `tokens_per_second` is per
-- GPU as measured on `gpus` × `gpu`; `predicted` is what the time model gave for the same
-- run (`run`, a /fit command); the user's later answers scale the model's times by their
-- ratio, and say so.
CREATE TABLE speed_measurements (
    user_id            INTEGER PRIMARY KEY,
    gpu                TEXT    NOT NULL,
    gpus               INTEGER NOT NULL CHECK (gpus >= 1),
    tokens_per_second  REAL    NOT NULL CHECK (tokens_per_second > 0),
    predicted          REAL    NOT NULL CHECK (predicted > 0),
    run                TEXT    NOT NULL,
    measured_at        TEXT    NOT NULL
) STRICT;
