-- Schema version 7: the comments sendtoaddress and sendmany store with
-- the wallet's own transaction (Core's mapValue "comment" and "to"), as
-- the SQLite store's version 12; NULL when not given.
ALTER TABLE wallet_tx_marks ADD COLUMN comment TEXT;
ALTER TABLE wallet_tx_marks ADD COLUMN comment_to TEXT;
