-- Schema version 6: the block that conflicts with a wallet transaction
-- through an input the wallet does not own, as the SQLite store's
-- version 11 (NULL for none; a reorg that takes the block away clears it).
ALTER TABLE wallet_tx_marks ADD COLUMN conflict_height INTEGER;
ALTER TABLE wallet_tx_marks ADD COLUMN conflict_hash BYTEA CHECK (conflict_hash IS NULL OR length(conflict_hash) = 32);
