-- Claims fenced in the statement (storage.outbox_claims): each claim writes its own token on
-- the rows it takes, and a holder's release or renewal changes only the rows that still carry
-- its token. A replica frozen between its local deadline check and its statement (the lease
-- ran out meanwhile, another replica claimed the rows) then changes nothing. NULL: never
-- claimed, or claimed before this column.
ALTER TABLE outbox ADD COLUMN claim_token bigint;
