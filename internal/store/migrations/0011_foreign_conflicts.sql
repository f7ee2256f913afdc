-- Schema version 11: the block that conflicts with a wallet transaction
-- through an input the wallet does not own.

-- A transaction paying the wallet can be double-spent by its sender: the
-- block holds a transaction the wallet does not record, so the conflict
-- (Core's TxStateBlockConflicted) is written with the transaction's marks:
-- the height and hash of that block, NULL for none. A reorg that takes the
-- block away clears them.
ALTER TABLE wallet_tx_marks ADD COLUMN conflict_height INTEGER;
ALTER TABLE wallet_tx_marks ADD COLUMN conflict_hash BLOB CHECK (conflict_hash IS NULL OR length(conflict_hash) = 32);
