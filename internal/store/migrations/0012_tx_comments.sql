-- Schema version 12: the comments sendtoaddress and sendmany store with
-- the wallet's own transaction.

-- Core keeps a transaction's "comment" and comment_to ("to") in its
-- mapValue and shows them in gettransaction, listtransactions and
-- listsinceblock; a fee bump copies them to the replacement. They are
-- written with the transaction's marks, NULL when not given.
ALTER TABLE wallet_tx_marks ADD COLUMN comment TEXT;
ALTER TABLE wallet_tx_marks ADD COLUMN comment_to TEXT;
