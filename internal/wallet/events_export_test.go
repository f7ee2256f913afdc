package wallet

import "context"

// SetNoEvents leaves the event log out of w's updates (benchmarks of what
// the log costs).
func SetNoEvents(w *Wallet, off bool) { w.noEvents = off }

// ChainWrites is the number of chain-store transactions w committed.
func ChainWrites(w *Wallet) uint64 { return w.chainWrites.Load() }

// HoldChainLock takes w's chain lock for writing, as a Checkpoint or a
// block delivery holds it, until release is called.
func HoldChainLock(w *Wallet) (release func()) {
	w.chain.mu.Lock()
	return w.chain.mu.Unlock
}

// WalletReadable reports whether w's lock can be taken for reading now, as
// a holder of the chain lock takes it to describe a transaction.
func WalletReadable(w *Wallet) bool {
	if !w.mu.TryRLock() {
		return false
	}
	w.mu.RUnlock()
	return true
}

// HoldWalletLock takes w's lock for writing, as SetFlag holds it while it
// writes the store, until release is called.
func HoldWalletLock(w *Wallet) (release func()) {
	w.mu.Lock()
	return w.mu.Unlock
}

// WriteSetting writes a setting in a store transaction of its own, as
// SetFlag does under w's lock.
func WriteSetting(ctx context.Context, w *Wallet) error {
	return w.store.Update(ctx, func(tx StoreTx) error { return tx.PutMeta("test_setting", []byte{1}) })
}
