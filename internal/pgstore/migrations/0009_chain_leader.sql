-- Schema version 9: the chain side of wallets served by several nodes.
-- chain_seq moves with every write of a shared wallet's transactions, chain
-- position, rescan record or events (change_seq keeps the keys, descriptors,
-- address book and settings), so that a node reloads only what moved.
-- chain_leaders holds the epoch of each leadership: a node that becomes
-- leader moves it, and every write of the follower checks it, so that a
-- former leader that has not noticed its loss yet cannot write.
ALTER TABLE wallets ADD COLUMN chain_seq BIGINT NOT NULL DEFAULT 0;
CREATE TABLE chain_leaders (
	name TEXT PRIMARY KEY,
	epoch BIGINT NOT NULL
);
