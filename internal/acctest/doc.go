// Package acctest owns the model-based accounting test: an independent
// model of what a descriptor wallet must report (balances, unspent outputs,
// transaction listings) computed from nothing but the blocks and mempool of
// the full node and the set of scripts the wallet watches, and a test that
// drives a real node through a seeded random sequence of chain events and
// compares the wallet's answers with the model after each one. The steps
// include the wallet's own spending calls (sendtoaddress, sendmany,
// bumpfee, lockunspent, abandontransaction): the model learns of what they
// made only from the node's mempool and blocks, the txid a call returns
// being its one link to them. The sequence runs on SQLite, on PostgreSQL,
// and on two nodes sharing one PostgreSQL wallet.
//
// The model deliberately uses none of the wallet, scan, chain or store
// packages (archtest enforces it): it is a second implementation of the
// rules, written from Bitcoin Core's, to check the first against.
package acctest
