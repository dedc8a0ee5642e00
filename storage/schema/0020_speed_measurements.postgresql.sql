-- PostgreSQL's side of 0020_speed_measurements.sqlite.sql: each user's own measured training
-- speed, shared by the replicas.
CREATE TABLE speed_measurements (
    user_id            bigint           PRIMARY KEY,
    gpu                text             NOT NULL,
    gpus               integer          NOT NULL CHECK (gpus >= 1),
    tokens_per_second  double precision NOT NULL CHECK (tokens_per_second > 0),
    predicted          double precision NOT NULL CHECK (predicted > 0),
    run                text             NOT NULL,
    measured_at        timestamptz      NOT NULL
);
