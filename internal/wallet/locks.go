package wallet

import (
	"bytes"
	"context"
	"sort"
	"sync"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/script"
)

// coinLocks are the outputs locked with lockunspent (Core's
// m_locked_coins): each maps to whether the lock is persistent, that is
// kept in the database across restarts.
type coinLocks struct {
	mu sync.Mutex
	m  map[wire.OutPoint]bool
	// used holds the output scripts marked used (avoid_reuse), by
	// script bytes.
	used map[string]bool
	// seen are the persistent locks the database held when this node last
	// read them: a wallet served by several nodes tells a lock another
	// node took or released since from one this node changed itself.
	seen map[wire.OutPoint]bool
}

func outpointRecord(op wire.OutPoint) OutpointRecord {
	return OutpointRecord{TxID: op.Hash, Vout: op.Index}
}

// restoreLocks loads the persistent locks of a snapshot.
func (w *Wallet) restoreLocks(snap *Snapshot) {
	w.locks.m = map[wire.OutPoint]bool{}
	w.locks.used = map[string]bool{}
	for _, spk := range snap.UsedScripts {
		w.locks.used[string(spk)] = true
	}
	w.locks.seen = map[wire.OutPoint]bool{}
	for _, r := range snap.LockedCoins {
		op := wire.OutPoint{Hash: r.TxID, Index: r.Vout}
		w.locks.m[op] = true
		w.locks.seen[op] = true
	}
}

// mergeLocks takes in the persistent locks another node changed, fresh
// being the database's as read now: a lock that appeared since the last
// read is added, a persistent one that disappeared is released; this
// node's own changes since (and its non-persistent locks) stay. The caller
// holds no lock of w.locks.
func (w *Wallet) mergeLocks(fresh *coinLocks) {
	w.locks.mu.Lock()
	defer w.locks.mu.Unlock()
	for op := range fresh.seen {
		if !w.locks.seen[op] {
			w.locks.m[op] = true
		}
	}
	for op := range w.locks.seen {
		if fresh.seen[op] {
			continue
		}
		if persistent, ok := w.locks.m[op]; ok && persistent {
			delete(w.locks.m, op)
		}
	}
	w.locks.seen = fresh.seen
	for spk := range fresh.used {
		w.locks.used[spk] = true
	}
}

// IsLockedCoin reports whether op is locked.
func (w *Wallet) IsLockedCoin(op wire.OutPoint) bool {
	w.locks.mu.Lock()
	defer w.locks.mu.Unlock()
	_, ok := w.locks.m[op]
	return ok
}

// LockedCoins returns the locked outputs in Core's order (txid in internal
// byte order, then index).
func (w *Wallet) LockedCoins() []wire.OutPoint {
	w.locks.mu.Lock()
	out := make([]wire.OutPoint, 0, len(w.locks.m))
	for op := range w.locks.m {
		out = append(out, op)
	}
	w.locks.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if c := bytes.Compare(out[i].Hash[:], out[j].Hash[:]); c != 0 {
			return c < 0
		}
		return out[i].Index < out[j].Index
	})
	return out
}

// UnlockAllCoins removes every lock, persistent ones from the database in
// the same transaction.
func (w *Wallet) UnlockAllCoins(ctx context.Context) error {
	w.locks.mu.Lock()
	defer w.locks.mu.Unlock()
	var persisted []wire.OutPoint
	for op, p := range w.locks.m {
		if p {
			persisted = append(persisted, op)
		}
	}
	if len(persisted) > 0 {
		err := w.store.Update(ctx, func(tx StoreTx) error {
			for _, op := range persisted {
				if err := tx.DeleteLockedCoin(outpointRecord(op)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return storageErr(err)
		}
	}
	w.locks.m = map[wire.OutPoint]bool{}
	return nil
}

// LockCoins locks (unlock false) or unlocks outputs as Core's lockunspent
// does: every output is checked first (a wallet transaction's unspent
// output; locked to be unlocked; not already locked unless the new lock is
// persistent), then all change at once, the persistent rows in one
// database transaction.
func (w *Wallet) LockCoins(ctx context.Context, unlock, persistent bool, ops []wire.OutPoint) error {
	if err := w.loadChain(ctx); err != nil {
		return err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	w.locks.mu.Lock()
	defer w.locks.mu.Unlock()
	for _, op := range ops {
		wt, ok := c.txs[op.Hash]
		if !ok {
			return walletErr(ErrInvalidParameter, "Invalid parameter, unknown transaction")
		}
		if int(op.Index) >= len(wt.tx.TxOut) {
			return walletErr(ErrInvalidParameter, "Invalid parameter, vout index out of bounds")
		}
		if c.spent(op) {
			return walletErr(ErrInvalidParameter, "Invalid parameter, expected unspent output")
		}
		_, locked := w.locks.m[op]
		if unlock && !locked {
			return walletErr(ErrInvalidParameter, "Invalid parameter, expected locked output")
		}
		if !unlock && locked && !persistent {
			return walletErr(ErrInvalidParameter, "Invalid parameter, output already locked")
		}
	}
	err := w.store.Update(ctx, func(tx StoreTx) error {
		for _, op := range ops {
			switch {
			case unlock && w.locks.m[op]:
				if err := tx.DeleteLockedCoin(outpointRecord(op)); err != nil {
					return err
				}
			case !unlock && persistent:
				if err := tx.PutLockedCoin(outpointRecord(op)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return storageErr(err)
	}
	for _, op := range ops {
		if unlock {
			delete(w.locks.m, op)
		} else {
			w.locks.m[op] = persistent
		}
	}
	return nil
}

// unlockSpent removes the locks of outputs the transactions spend (Core
// unlocks a coin when a wallet transaction spends it), persistent ones
// from the database too.
func (w *Wallet) unlockSpent(ctx context.Context, txs []*wire.MsgTx) error {
	w.locks.mu.Lock()
	defer w.locks.mu.Unlock()
	if len(w.locks.m) == 0 {
		return nil
	}
	var gone []wire.OutPoint
	var persisted []wire.OutPoint
	for _, tx := range txs {
		for _, in := range tx.TxIn {
			if p, ok := w.locks.m[in.PreviousOutPoint]; ok {
				gone = append(gone, in.PreviousOutPoint)
				if p {
					persisted = append(persisted, in.PreviousOutPoint)
				}
			}
		}
	}
	if len(persisted) > 0 {
		err := w.store.Update(ctx, func(tx StoreTx) error {
			for _, op := range persisted {
				if err := tx.DeleteLockedCoin(outpointRecord(op)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return storageErr(err)
		}
	}
	for _, op := range gone {
		delete(w.locks.m, op)
	}
	return nil
}

// hasDestination reports whether an output script has an address-like
// destination (Core's ExtractDestination succeeds): only those are marked
// used.
func hasDestination(spk []byte) bool {
	switch cls, _ := script.Solve(spk); cls {
	case script.Nonstandard, script.Multisig, script.NullData:
		return false
	}
	return true
}

// spentScripts returns the wallet's output scripts, not yet marked used,
// that txs spend from, when the avoid_reuse flag is set (Core's
// SetSpentKeyState, run as each transaction is added); nil otherwise. The
// caller holds c.mu.
func (w *Wallet) spentScripts(txs []*wire.MsgTx) [][]byte {
	w.mu.RLock()
	flag := w.flags&FlagAvoidReuse != 0
	w.mu.RUnlock()
	if !flag {
		return nil
	}
	c := &w.chain
	batch := map[chainhash.Hash]*wire.MsgTx{}
	for _, tx := range txs {
		batch[tx.TxHash()] = tx
	}
	w.locks.mu.Lock()
	defer w.locks.mu.Unlock()
	seen := map[string]bool{}
	var out [][]byte
	for _, tx := range txs {
		for _, in := range tx.TxIn {
			var prev *wire.MsgTx
			if wt, ok := c.txs[in.PreviousOutPoint.Hash]; ok {
				prev = wt.tx
			} else if p, ok := batch[in.PreviousOutPoint.Hash]; ok {
				prev = p
			}
			if prev == nil || int(in.PreviousOutPoint.Index) >= len(prev.TxOut) {
				continue
			}
			spk := prev.TxOut[in.PreviousOutPoint.Index].PkScript
			k := string(spk)
			if seen[k] || w.locks.used[k] || !hasDestination(spk) || !w.IsMine(spk) {
				continue
			}
			seen[k] = true
			out = append(out, spk)
		}
	}
	return out
}

// markUsed records scripts as used in memory (the caller stored them).
func (w *Wallet) markUsed(spks [][]byte) {
	if len(spks) == 0 {
		return
	}
	w.locks.mu.Lock()
	for _, spk := range spks {
		w.locks.used[string(spk)] = true
	}
	w.locks.mu.Unlock()
}

// IsSpentKey reports whether an output script is marked used: a wallet
// transaction spent from it while the avoid_reuse flag was set (Core's
// IsSpentKey).
func (w *Wallet) IsSpentKey(spk []byte) bool {
	w.locks.mu.Lock()
	defer w.locks.mu.Unlock()
	return w.locks.used[string(spk)]
}

// CoinFilter chooses the unspent outputs a spend may select from (Core's
// CoinFilterParams and the coin-control fields that narrow
// AvailableCoins).
type CoinFilter struct {
	// MinConf and MaxConf bound the confirmations.
	MinConf, MaxConf int64
	// IncludeLocked keeps outputs locked with lockunspent (Core skips
	// them unless told otherwise).
	IncludeLocked bool
	// AvoidReuse leaves out outputs to scripts marked used; it has effect
	// only when the wallet's avoid_reuse flag is set.
	AvoidReuse bool
	// IncludeUnsafe keeps unconfirmed outputs of transactions that are
	// not trusted (others' unconfirmed payments).
	IncludeUnsafe bool
}

// SelectableCoins returns the unspent outputs a spend may use under f, in
// the order the wallet saw them: listunspent's set without locked outputs,
// used ones (avoid_reuse) and unsafe ones, as the filter asks.
func (w *Wallet) SelectableCoins(ctx context.Context, f CoinFilter) ([]Unspent, error) {
	all, err := w.ListUnspent(ctx, f.MinConf, f.MaxConf, nil)
	if err != nil {
		return nil, err
	}
	skipUsed := f.AvoidReuse && w.AvoidReuse()
	out := all[:0]
	for _, u := range all {
		op := wire.OutPoint{Hash: u.TxID, Index: u.Vout}
		if !f.IncludeLocked && w.IsLockedCoin(op) {
			continue
		}
		if skipUsed && w.IsSpentKey(u.Script) {
			continue
		}
		if !f.IncludeUnsafe && !u.Safe {
			continue
		}
		out = append(out, u)
	}
	return out, nil
}
