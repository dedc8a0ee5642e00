-- PostgreSQL's side of 0014_sizing_memory.sqlite.sql: each chat's last sizing answer, shared
-- by the replicas (a follow-up may reach another replica than the answer it follows).
CREATE TABLE sizing_memory (
    chat_id        bigint      PRIMARY KEY,
    command        text        NOT NULL,
    language       text        NOT NULL CHECK (language IN ('ru', 'en')),
    remembered_at  timestamptz NOT NULL
);
CREATE INDEX sizing_memory_by_time ON sizing_memory (remembered_at);
