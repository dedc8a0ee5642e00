-- Each chat's last sizing answer, so that a reply to it («а с qlora?», «dataset=20k») adjusts
-- it instead of starting over. One row per chat, replaced by each new answer; rows older
-- than storage.conversations.REMEMBER_FOR are ignored, and purged by the daily housekeeping.
-- `command` is the sizing as the /fit command grammar reads it (what the user stated, the
-- assumptions left out so that they are worked out anew); `language` is the answer's.
CREATE TABLE sizing_memory (
    chat_id        INTEGER PRIMARY KEY,
    command        TEXT    NOT NULL,
    language       TEXT    NOT NULL CHECK (language IN ('ru', 'en')),
    remembered_at  TEXT    NOT NULL
) STRICT;
CREATE INDEX sizing_memory_by_time ON sizing_memory (remembered_at);
