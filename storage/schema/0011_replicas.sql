-- What replicas sharing one database tell each other (PostgreSQL; on SQLite one process owns
-- the file, and these tables stay empty). Times are Unix seconds from each replica's clock:
-- the rules that read them work in seconds, and NTP keeps hosts far closer than that.

-- Each replica's heartbeat: the senders split Telegram's per-bot budget by the live count.
CREATE TABLE replicas (
    id       text             PRIMARY KEY,
    role     text             NOT NULL CHECK (role IN ('leader', 'follower')),
    seen_at  double precision NOT NULL
);

-- Each user's flood state (monitor.flood.Flow), so the updates of one flood that land on
-- different replicas (webhook mode, a takeover) are judged as one.
CREATE TABLE user_flows (
    kind          text             NOT NULL,
    chat_id       bigint           NOT NULL,
    last_arrival  double precision NOT NULL,
    last_answer   double precision NOT NULL,
    dropped       integer          NOT NULL,
    warned        integer          NOT NULL CHECK (warned IN (0, 1)),
    PRIMARY KEY (kind, chat_id)
);
CREATE INDEX user_flows_by_arrival ON user_flows (last_arrival);
