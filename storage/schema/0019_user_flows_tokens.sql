-- The flood rule became a bucket of answers judged at the time a message was sent
-- (monitor.flood): a flow keeps the answers left in it instead of its last answer's time.
-- A row written before holds a time there, far above the bucket's size: it reads as a full
-- bucket, which is what a person who was answered last time has.
ALTER TABLE user_flows RENAME COLUMN last_answer TO tokens;
