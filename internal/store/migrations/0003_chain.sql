-- Schema version 3: the chain as the wallet saw it.

-- wallet_txs holds every transaction that pays or spends the wallet, in its
-- serialized form (with witnesses). seq keeps the order the wallet first saw
-- them in; a confirmed transaction has its block's hash, height, time and
-- its position in the block, an unconfirmed one (a block rolled back by a
-- reorg) has block_height NULL.
CREATE TABLE wallet_txs (
	txid          BLOB PRIMARY KEY NOT NULL CHECK (length(txid) = 32),
	seq           INTEGER NOT NULL UNIQUE,
	raw           BLOB NOT NULL,
	time_received INTEGER NOT NULL,
	block_hash    BLOB CHECK (block_hash IS NULL OR length(block_hash) = 32),
	block_height  INTEGER,
	block_time    INTEGER,
	block_index   INTEGER
) WITHOUT ROWID;

-- chain_blocks holds the last blocks the wallet processed (height and
-- hash), the highest being its last processed block.
CREATE TABLE chain_blocks (
	height INTEGER PRIMARY KEY NOT NULL CHECK (height >= 0),
	hash   BLOB NOT NULL CHECK (length(hash) = 32)
);

-- rescan records a running rescan: heights below next_height are done, the
-- scan goes up to stop_height. The row is removed when the rescan ends or is
-- aborted, so a row found at load is a rescan to resume.
CREATE TABLE rescan (
	id          INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
	next_height INTEGER NOT NULL,
	stop_height INTEGER NOT NULL
);
