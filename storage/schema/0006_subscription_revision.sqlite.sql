-- A counter that every change to subscriptions bumps, whoever makes it (a /subs button, an
-- alert's mute button, a 403 pausing a blocked user). The monitor keeps its match index in
-- memory and rebuilds it only when this number moved.
CREATE TABLE subscription_revision (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    revision  INTEGER NOT NULL
) STRICT;
INSERT INTO subscription_revision (id, revision) VALUES (1, 0);

CREATE TRIGGER subscriptions_revision_insert AFTER INSERT ON subscriptions
BEGIN
    UPDATE subscription_revision SET revision = revision + 1 WHERE id = 1;
END;
CREATE TRIGGER subscriptions_revision_update AFTER UPDATE ON subscriptions
BEGIN
    UPDATE subscription_revision SET revision = revision + 1 WHERE id = 1;
END;
CREATE TRIGGER subscriptions_revision_delete AFTER DELETE ON subscriptions
BEGIN
    UPDATE subscription_revision SET revision = revision + 1 WHERE id = 1;
END;
