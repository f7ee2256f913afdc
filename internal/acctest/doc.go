// Package acctest owns the model-based accounting test: an independent
// model of what a descriptor wallet must report (balances, unspent outputs,
// transaction listings) computed from nothing but the blocks and mempool of
// the full node and the set of scripts the wallet watches, and a test that
// drives a real node through a seeded random sequence of chain events and
// compares the wallet's answers with the model after each one.
//
// The model deliberately uses none of the wallet, scan, chain or store
// packages (archtest enforces it): it is a second implementation of the
// rules, written from Bitcoin Core's, to check the first against.
package acctest
