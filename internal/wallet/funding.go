package wallet

import (
	"context"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/script"
)

// This file holds what the funding calls (fundrawtransaction,
// walletcreatefundedpsbt, send and the sending calls) need of the wallet
// beyond its spendable coins: the change type, giving back a change
// address that was not used, preset inputs, and locks taken by a funding.

// ChangeOutputType is Core's TransactionChangeType: the requested type
// when there is one, else -changetype; otherwise the type of an internal descriptor matching
// one of the recipients' scripts (taproot, then P2WPKH, P2SH, P2PKH), else
// bech32m, else bech32 when the wallet has such an internal descriptor,
// else the default address type (-addresstype).
func (w *Wallet) ChangeOutputType(requested *OutputType, recipients [][]byte) OutputType {
	if requested != nil {
		return *requested
	}
	if t := w.Options().ChangeType; t != nil {
		return *t
	}
	var anyTR, anyWPKH, anySH, anyPKH bool
	for _, spk := range recipients {
		switch cls, _ := script.Solve(spk); cls {
		case script.WitnessV1Taproot:
			anyTR = true
		case script.WitnessV0KeyHash:
			anyWPKH = true
		case script.ScriptHash:
			anySH = true
		case script.PubKeyHash:
			anyPKH = true
		}
	}
	w.mu.RLock()
	has := func(t OutputType) bool { return w.active[activeKey{t, true}] != nil }
	hasTR, hasWPKH, hasSH, hasPKH := has(Bech32m), has(Bech32), has(P2SHSegwit), has(Legacy)
	w.mu.RUnlock()
	switch {
	case hasTR && anyTR:
		return Bech32m
	case hasWPKH && anyWPKH:
		return Bech32
	case hasSH && anySH:
		return P2SHSegwit
	case hasPKH && anyPKH:
		return Legacy
	case hasTR:
		return Bech32m
	case hasWPKH:
		return Bech32
	}
	return w.Options().DefaultAddressType()
}

// ReturnChangeAddress gives back a change address reserved for a funding
// that did not use it (Core's ReserveDestination::ReturnDestination): when
// spk is the last index handed out of an active internal descriptor, that
// index is handed out again next time. Otherwise nothing changes.
func (w *Wallet) ReturnChangeAddress(ctx context.Context, spk []byte) error {
	w.importMu.Lock()
	defer w.importMu.Unlock()
	w.mu.RLock()
	var wd *walletDesc
	var index int64
	for _, m := range w.findScript(spk) {
		if m.wd.rec.Ranged && w.active[activeKey{outputTypeOf(m.wd), true}] == m.wd {
			wd, index = m.wd, int64(m.index)
			break
		}
	}
	w.mu.RUnlock()
	if wd == nil || wd.rec.NextIndex-1 != index {
		return nil
	}
	end := wd.rec.RangeEnd
	err := w.store.Update(ctx, func(tx StoreTx) error {
		return tx.SetNextIndex(wd.rec.ID, index, end)
	})
	if err != nil {
		return storageErr(err)
	}
	w.mu.Lock()
	wd.rec.NextIndex = index
	w.mu.Unlock()
	return nil
}

// outputTypeOf is a descriptor's address type, "" when it has none.
func outputTypeOf(wd *walletDesc) OutputType {
	t, _ := ParseOutputType(wd.d.OutputType())
	return t
}

// OwnOutput returns an output of a transaction the wallet holds when the
// wallet derives its script (Core's GetTXO, spent or not), sized as
// SpendCoins sizes coins; Sizable is false when the wallet cannot size a
// spend of it. Depth is the creating transaction's, -1 when conflicted.
func (w *Wallet) OwnOutput(ctx context.Context, op wire.OutPoint) (SpendCoin, bool) {
	if err := w.loadChain(ctx); err != nil {
		return SpendCoin{}, false
	}
	c := &w.chain
	c.mu.RLock()
	wt, ok := c.txs[op.Hash]
	var out *wire.TxOut
	var depth int64
	if ok && int(op.Index) < len(wt.tx.TxOut) {
		out = wt.tx.TxOut[op.Index]
		depth = c.depth(wt, c.tipHeight())
	}
	c.mu.RUnlock()
	if out == nil {
		return SpendCoin{}, false
	}
	w.mu.RLock()
	ms := w.findScript(out.PkScript)
	if len(ms) == 0 {
		w.mu.RUnlock()
		return SpendCoin{}, false
	}
	weight, elems, sizable, typ := descSize(ms[0].wd, w.PrivateKeysEnabled())
	w.mu.RUnlock()
	if typ == "" {
		typ = scriptOutputType(out.PkScript)
	}
	return SpendCoin{OutPoint: op, Value: out.Value, Script: out.PkScript, Type: typ,
		SatWeight: weight, SatElems: elems, Sizable: sizable,
		Segwit: typ == P2SHSegwit || typ == Bech32 || typ == Bech32m, Depth: depth}, true
}

// LockFundedCoins locks the inputs of a funded transaction for this
// session only (Core's LockCoin without persisting, for lock_unspents):
// no checks, an output already locked stays as it was.
func (w *Wallet) LockFundedCoins(ops []wire.OutPoint) {
	w.locks.mu.Lock()
	defer w.locks.mu.Unlock()
	if w.locks.m == nil {
		w.locks.m = map[wire.OutPoint]bool{}
	}
	for _, op := range ops {
		if _, ok := w.locks.m[op]; !ok {
			w.locks.m[op] = false
		}
	}
}
