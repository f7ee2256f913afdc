-- Schema version 5: change counters of wallets served by several nodes.
-- A node that opened a wallet shared moves handout_seq with every address
-- handout and change_seq with every other write, in the transaction of the
-- write; the other nodes read both at the start of a call and reload the
-- wallet when one moved.
ALTER TABLE wallets ADD COLUMN change_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE wallets ADD COLUMN handout_seq BIGINT NOT NULL DEFAULT 0;
