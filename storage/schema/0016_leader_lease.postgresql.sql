-- Leadership as a lease (storage.leader): one row, renewed by the leader every few seconds.
-- Its times are the database's clock (now()), the one clock every replica shares, so a lease
-- ends at the same moment for all of them. `term` grows by one at each takeover: a refresh
-- commit carries the term its leader won, and one behind the row's is refused.
CREATE TABLE leader_lease (
    singleton   boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    holder      text        NOT NULL,
    term        bigint      NOT NULL,
    expires_at  timestamptz NOT NULL
);
