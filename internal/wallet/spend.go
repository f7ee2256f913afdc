package wallet

import (
	"context"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/script"
)

// SpendCoin is an unspent output of the wallet as funding sees it: what
// coin selection needs to weigh it and to sign it later.
type SpendCoin struct {
	OutPoint wire.OutPoint
	Value    int64
	Script   []byte
	// Type is the coin's address type, "" when it has none of Core's.
	Type OutputType
	// SatWeight and SatElems are the descriptor's maximum satisfaction
	// weight and stack element count (low-R signatures when the wallet
	// holds private keys, as Core's CanGrindR); Sizable is false when the
	// wallet cannot size a spend of the coin.
	SatWeight, SatElems int
	Sizable             bool
	// Segwit: the coin is spent with a witness.
	Segwit bool
	// Depth is the number of confirmations, 0 in the mempool.
	Depth int64
	// FromMe: the creating transaction spent only the wallet's coins.
	FromMe bool
	// Safe is listunspent's safe flag.
	Safe bool
}

// SpendCoins returns the wallet's spendable outputs (mature, not spent
// by a wallet transaction, not conflicted), in the order the wallet saw
// them; skip, when not nil, leaves out further coins (locked coins,
// reused addresses). skip must not take the wallet's chain lock.
func (w *Wallet) SpendCoins(ctx context.Context, skip func(op wire.OutPoint, spk []byte) bool) ([]SpendCoin, error) {
	if err := w.loadChain(ctx); err != nil {
		return nil, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	tip := c.tipHeight()
	lowR := w.PrivateKeysEnabled()
	type sized struct {
		weight, elems int
		ok, segwit    bool
		typ           OutputType
	}
	bySlot := map[uint32]sized{}
	// Coins to one address share its lookup: a script is looked up in the
	// descriptors once a call.
	type scriptSize struct {
		sz   sized
		mine bool
	}
	byScript := map[string]scriptSize{}
	hint := c.spendHint.Load()
	out := make([]SpendCoin, 0, hint+hint/8+16)
	defer func() { c.spendHint.Store(int64(len(out))) }()
	for _, wt := range c.order {
		depth := c.depth(wt, tip)
		if depth < 0 || immature(wt, depth) || (wt.coinbase && depth < 1) || (depth == 0 && !wt.inMempool) {
			continue
		}
		var safe, fromMe, known bool
		for i, o := range wt.tx.TxOut {
			op := wire.OutPoint{Hash: wt.txid, Index: uint32(i)}
			if c.spent(op) {
				continue
			}
			if skip != nil && skip(op, o.PkScript) {
				continue
			}
			ss, seen := byScript[string(o.PkScript)]
			if !seen {
				w.mu.RLock()
				if ms := w.findScript(o.PkScript); len(ms) > 0 {
					wd := ms[0].wd
					sz, ok := bySlot[wd.slot]
					if !ok {
						sz.weight, sz.elems, sz.ok, sz.typ = descSize(wd, lowR)
						bySlot[wd.slot] = sz
					}
					ss = scriptSize{sz: sz, mine: true}
				}
				w.mu.RUnlock()
				byScript[string(o.PkScript)] = ss
			}
			if !ss.mine {
				continue
			}
			sz := ss.sz
			if !known {
				known = true
				safe = w.trusted(wt, depth) && !(depth == 0 && wt.bumpLinked())
				fromMe = depth == 0 && w.trustedUnconfirmed(wt, map[chainhash.Hash]bool{}) && len(wt.tx.TxIn) > 0
			}
			typ := sz.typ
			if typ == "" {
				typ = scriptOutputType(o.PkScript)
			}
			out = append(out, SpendCoin{OutPoint: op, Value: o.Value, Script: o.PkScript, Type: typ,
				SatWeight: sz.weight, SatElems: sz.elems, Sizable: sz.ok,
				Segwit: typ == P2SHSegwit || typ == Bech32 || typ == Bech32m,
				Depth:  depth, FromMe: fromMe, Safe: safe})
		}
	}
	return out, nil
}

// descSize is a descriptor's maximum satisfaction weight and element
// count (low-R signatures when lowR) and its address type.
func descSize(wd *walletDesc, lowR bool) (weight, elems int, ok bool, typ OutputType) {
	weight, ok = wd.d.MaxSatisfactionWeight(!lowR)
	elems, eok := wd.d.MaxSatisfactionElems()
	typ, _ = ParseOutputType(wd.d.OutputType())
	return weight, elems, ok && eok, typ
}

// ScriptSpendSize sizes a spend of a script the wallet derives (the
// change script): SatWeight, SatElems and Segwit of the result are set.
func (w *Wallet) ScriptSpendSize(spk []byte) (SpendCoin, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	ms := w.findScript(spk)
	if len(ms) == 0 {
		return SpendCoin{}, false
	}
	weight, elems, ok, typ := descSize(ms[0].wd, w.PrivateKeysEnabled())
	if typ == "" {
		typ = scriptOutputType(spk)
	}
	return SpendCoin{Script: spk, Type: typ, SatWeight: weight, SatElems: elems, Sizable: ok,
		Segwit: typ == P2SHSegwit || typ == Bech32 || typ == Bech32m}, ok
}

// scriptOutputType is the address type of a scriptPubKey alone.
func scriptOutputType(spk []byte) OutputType {
	switch cls, _ := script.Solve(spk); cls {
	case script.PubKeyHash, script.ScriptHash, script.PubKey:
		return Legacy
	case script.WitnessV0KeyHash, script.WitnessV0ScriptHash:
		return Bech32
	case script.WitnessV1Taproot:
		return Bech32m
	}
	return ""
}

// SigningOutputs returns, for each script the wallet derives, the expanded
// descriptor output with the private keys the wallet holds, for a signer.
// A locked encrypted wallet answers Core's -13.
func (w *Wallet) SigningOutputs(scripts [][]byte) ([]descriptor.Output, error) {
	if err := w.EnsureUnlocked(); err != nil {
		return nil, err
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	var outs []descriptor.Output
	for _, s := range scripts {
		for _, m := range w.findScript(s) {
			outs = append(outs, m.out)
		}
	}
	return outs, nil
}

// WalletTx returns a transaction the wallet holds, shared: read only.
func (w *Wallet) WalletTx(ctx context.Context, txid chainhash.Hash) (*wire.MsgTx, bool) {
	if err := w.loadChain(ctx); err != nil {
		return nil, false
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	wt, ok := c.txs[txid]
	if !ok {
		return nil, false
	}
	return wt.tx, true
}

// TipHeight is the height of the last block the wallet processed, -1 for
// none.
func (w *Wallet) TipHeight(ctx context.Context) int32 {
	if err := w.loadChain(ctx); err != nil {
		return -1
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.tipHeight()
}

// CommitTx records a transaction the wallet made, unconfirmed, before it is
// relayed (Core's CommitTransaction): its inputs are spent from then on,
// and it stays while the backend's mempool has not shown it yet. Its
// comments are written with it, in the same store transaction.
func (w *Wallet) CommitTx(ctx context.Context, tx *wire.MsgTx, comments TxComments) error {
	if err := w.loadChain(ctx); err != nil {
		return err
	}
	c := &w.chain
	c.mu.Lock()
	if c.committed == nil {
		c.committed = map[chainhash.Hash]bool{}
	}
	c.committed[tx.TxHash()] = true
	c.mu.Unlock()
	var notes map[chainhash.Hash]TxComments
	if comments != (TxComments{}) {
		notes = map[chainhash.Hash]TxComments{tx.TxHash(): comments}
	}
	if err := w.connect(ctx, BlockInfo{Height: -1}, []*wire.MsgTx{tx}, nil, notes, false); err != nil {
		return err
	}
	// The wallet's mempool transactions it conflicts with leave the
	// mempool when it enters (it replaces them).
	id := tx.TxHash()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, in := range tx.TxIn {
		for _, s := range c.spenders[in.PreviousOutPoint] {
			if s.txid != id && !s.confirmed() && s.inMempool {
				s.inMempool = false
				delete(c.committed, s.txid)
			}
		}
	}
	c.refreshStates()
	return nil
}

// RelayFailed tells the wallet that a transaction it committed was not
// accepted by the backend's mempool (or not relayed, -walletbroadcast=0):
// it stays in the wallet, inactive, its inputs spent, as Core keeps a
// transaction its node refused.
func (w *Wallet) RelayFailed(ctx context.Context, txid chainhash.Hash) {
	if w.setInMempool(ctx, txid, false) {
		w.relayFailures.Add(1)
	}
}

// setInMempool records whether an unconfirmed wallet transaction is in the
// backend's mempool, as the wallet's own relay or resubmission found. One
// put in is held there as a just committed one (a mempool read taken
// before does not take it out again); one taken out loses that hold. It
// reports false, changing nothing, when txid is no unconfirmed wallet
// transaction or is already in the mempool when in is true.
func (w *Wallet) setInMempool(ctx context.Context, txid chainhash.Hash, in bool) bool {
	if w.loadChain(ctx) != nil {
		return false
	}
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	wt, ok := c.txs[txid]
	if !ok || wt.confirmed() || (in && wt.inMempool) {
		return false
	}
	if in {
		if c.committed == nil {
			c.committed = map[chainhash.Hash]bool{}
		}
		c.committed[txid] = true
	} else {
		delete(c.committed, txid)
	}
	wt.inMempool = in
	c.refreshStates()
	return true
}

// RelayFailures returns how many times RelayFailed took a transaction out
// of the mempool the wallet believes in; a change means something waits to
// be submitted again.
func (w *Wallet) RelayFailures() uint64 { return w.relayFailures.Load() }
