package wallet

// SetNoEvents leaves the event log out of w's updates (benchmarks of what
// the log costs).
func SetNoEvents(w *Wallet, off bool) { w.noEvents = off }

// ChainWrites is the number of chain-store transactions w committed.
func ChainWrites(w *Wallet) uint64 { return w.chainWrites.Load() }
