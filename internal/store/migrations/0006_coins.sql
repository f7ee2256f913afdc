-- Schema version 6: locked outputs and used scripts.

-- locked_coins holds each persistently locked output (txid in internal byte
-- order, output index). Locks made without lockunspent's persistent flag
-- live only in memory, as in Core; a row is removed when its output is
-- unlocked or spent.
CREATE TABLE locked_coins (
	txid BLOB NOT NULL CHECK (length(txid) = 32),
	vout INTEGER NOT NULL CHECK (vout >= 0),
	PRIMARY KEY (txid, vout)
) WITHOUT ROWID;

-- used_scripts holds the wallet's output scripts a wallet transaction has
-- spent from while the avoid_reuse flag was set (Core's "used" address
-- book data): their outputs count as reused. A mark is never removed.
CREATE TABLE used_scripts (
	script BLOB PRIMARY KEY NOT NULL
) WITHOUT ROWID;
