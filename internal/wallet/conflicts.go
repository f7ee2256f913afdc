package wallet

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// This file holds the states of the wallet's unconfirmed transactions as
// Core keeps them (src/wallet/transaction.h's TxState): in the mempool,
// inactive (left the mempool; abandoned when abandontransaction said so),
// conflicted by a block (negative confirmations), with the wallet's
// conflicting transactions (walletconflicts, mempoolconflicts) and the
// fee-bump links bumpfee records.

// TxMarks is what the wallet records of a transaction beyond its block:
// Core's abandoned state and the fee-bump links of its mapValue (zero
// hashes: none).
type TxMarks struct {
	Abandoned  bool
	ReplacedBy [32]byte
	Replaces   [32]byte
	// ConflictHash and ConflictHeight are the block holding a
	// transaction the wallet does not record (a payment's sender
	// spending the same coin again) that spends one of its inputs: Core's
	// TxStateBlockConflicted for a conflict the wallet's own transactions
	// do not show (zero hash: none).
	ConflictHash   [32]byte
	ConflictHeight int32
	// Comment and To are the comments the wallet's own transaction was
	// made with (TxComments).
	Comment, To string
	// LeftMempool: the unconfirmed transaction left the backend's mempool
	// as the node that reads it saw (written only for a wallet several
	// nodes serve, where the others take their mempool state from it).
	LeftMempool bool
	// MempoolReplaced is the mempool transaction the wallet does not
	// record (a payment's sender spending the same coin again) that the
	// last `replaced` event of this transaction named (zero: none), so
	// that a restart reading the same mempool again does not report it
	// twice. The conflict itself is kept in memory (mempoolConflicts).
	MempoolReplaced [32]byte
}

// TxComments are the comment and comment_to of sendtoaddress and
// sendmany: Core's mapValue "comment" and "to", kept with the transaction
// and shown by gettransaction, listtransactions and listsinceblock. Empty
// strings are not stored.
type TxComments struct {
	Comment, To string
}

// TransitionKind names a change of a transaction's state.
type TransitionKind string

// Transition kinds.
const (
	// TransitionConflicted: a block holds a transaction spending one of
	// its inputs (or an input of one of its unconfirmed ancestors).
	TransitionConflicted TransitionKind = "conflicted"
	// TransitionReplaced: a mempool transaction spends one of its inputs
	// (a replacement, bumpfee's or another's).
	TransitionReplaced TransitionKind = "replaced"
	// TransitionAbandoned: abandontransaction marked it abandoned.
	TransitionAbandoned TransitionKind = "abandoned"
)

// TxTransition is one transaction's change of state: By is the
// conflicting or replacing transaction (zero for an abandonment), Height
// and BlockHash the block holding By for a conflict (-1 and zero
// otherwise).
type TxTransition struct {
	Kind      TransitionKind
	TxID      chainhash.Hash
	By        chainhash.Hash
	Height    int32
	BlockHash chainhash.Hash
}

// recordTransitions is the one place where the wallet's state transitions
// of conflicted, replaced and abandoned transactions pass, called inside
// the store transaction that records the change that caused them (a block,
// a mempool transaction, an abandonment), so that whatever it writes
// commits with that change: each becomes an event of the wallet's log
// (events.go). A replacement is reported once, whether the mempool showed
// it first or a fee bump recorded it first. The caller holds importMu.
func (w *Wallet) recordTransitions(tx ChainStoreTx, ts []TxTransition, now int64) error {
	c := &w.chain
	for _, t := range ts {
		w.debug(w.cfg.Log, "transaction state", "txid", t.TxID.String(), "state", string(t.Kind), "by", t.By.String())
		wt := c.txs[t.TxID]
		if wt == nil || w.noEvents {
			continue
		}
		if t.Kind == TransitionReplaced && (wt.marks.ReplacedBy == t.By || wt.marks.MempoolReplaced == t.By ||
			slices.Contains(wt.mempoolConflicts, t.By)) {
			continue
		}
		e, ok := transitionEvent(t, now, w.content(wt.tx, c.walletPrev))
		if !ok {
			continue
		}
		if _, err := tx.AppendEvent(e); err != nil {
			return err
		}
	}
	return nil
}

// refreshStates derives the conflict state of every unconfirmed
// transaction from the wallet's transactions (refreshTxs of all of them).
// The caller holds c.mu for writing.
func (c *chainData) refreshStates() { c.refreshTxs(c.order) }

// refreshTxs derives the conflict state of the transactions whose inputs
// or own state changed (changed: recorded, moved in or out of a block or
// the mempool, marked or unmarked) and of those that depend on them: the
// other wallet transactions spending the same outputs and, at any depth,
// the unconfirmed ones spending their outputs. Every other transaction
// keeps the state it has, so the work follows what changed, not the
// wallet's history. The state of a transaction is the lowest block height
// of a confirmed transaction spending one of its inputs, and its mempool
// transactions doing so, each inherited by the descendants (Core's
// MarkConflicted and mempool_conflicts, which RecursiveUpdateTxState
// spreads to descendants). One that a block conflicts leaves the mempool
// (Core's states exclude each other), which in turn changes the state of
// the transactions spending the same outputs: they are derived again until
// nothing leaves. The caller holds c.mu for writing.
func (c *chainData) refreshTxs(changed []*walletTx) {
	for len(changed) > 0 {
		set := c.affected(changed)
		done := make(map[*walletTx]bool, len(set))
		var visit func(wt *walletTx)
		visit = func(wt *walletTx) {
			if done[wt] || !set[wt] {
				return
			}
			done[wt] = true
			c.deriveState(wt, visit)
		}
		// Visit in the wallet's order (parents are derived first
		// either way).
		list := c.order
		if len(set) < len(c.order) {
			list = make([]*walletTx, 0, len(set))
			for wt := range set {
				list = append(list, wt)
			}
			sort.Slice(list, func(i, j int) bool { return list[i].rec.Seq < list[j].rec.Seq })
		}
		for _, wt := range list {
			visit(wt)
		}
		// A transaction that starts or stops counting as spending its
		// inputs changes its parents' unspent credit (balance.go).
		changed = nil
		for _, wt := range list {
			if wt.conflictHeight >= 0 && wt.inMempool {
				wt.inMempool = false
				delete(c.committed, wt.txid)
				changed = append(changed, wt)
			}
			if s := wt.spends(); s != wt.spending {
				wt.spending = s
				c.inputsChanged(wt)
			}
		}
	}
}

// affected is changed with the transactions whose state may follow from
// theirs: the other spenders of their inputs, then the unconfirmed
// spenders of the outputs of any of these, at any depth. The caller holds
// c.mu.
func (c *chainData) affected(changed []*walletTx) map[*walletTx]bool {
	set := make(map[*walletTx]bool, len(changed))
	queue := make([]*walletTx, 0, len(changed))
	add := func(wt *walletTx) {
		if !set[wt] {
			set[wt] = true
			queue = append(queue, wt)
		}
	}
	for _, wt := range changed {
		add(wt)
		if wt.coinbase {
			continue
		}
		for _, in := range wt.tx.TxIn {
			for _, s := range c.spenders[in.PreviousOutPoint] {
				add(s)
			}
		}
	}
	for i := 0; i < len(queue); i++ {
		t := queue[i]
		for n := range t.tx.TxOut {
			for _, s := range c.spenders[wire.OutPoint{Hash: t.txid, Index: uint32(n)}] {
				if !s.confirmed() {
					add(s)
				}
			}
		}
	}
	return set
}

// deriveState sets wt's conflictHeight and mempoolConflicts from the
// spenders of its inputs (the wallet's and the foreign mempool
// transactions of c.pool) and from its unconfirmed parents, which visit
// derives first when they are being derived too. The caller holds c.mu for
// writing.
func (c *chainData) deriveState(wt *walletTx, visit func(*walletTx)) {
	wt.conflictHeight, wt.mempoolConflicts = -1, nil
	if wt.confirmed() || wt.coinbase {
		return
	}
	if wt.marks.ConflictHash != ([32]byte{}) {
		wt.conflictHeight = wt.marks.ConflictHeight
	}
	var pool map[chainhash.Hash]bool
	add := func(id chainhash.Hash) {
		if pool == nil {
			pool = map[chainhash.Hash]bool{}
		}
		pool[id] = true
	}
	for _, in := range wt.tx.TxIn {
		for _, s := range c.spenders[in.PreviousOutPoint] {
			switch {
			case s == wt:
			case s.confirmed():
				if wt.conflictHeight < 0 || s.rec.Height < wt.conflictHeight {
					wt.conflictHeight = s.rec.Height
				}
			case s.inMempool:
				add(s.txid)
			}
		}
		for _, id := range c.pool.spends[in.PreviousOutPoint] {
			if id != wt.txid {
				add(id)
			}
		}
		if p := c.txs[in.PreviousOutPoint.Hash]; p != nil && !p.confirmed() {
			visit(p)
			if p.conflictHeight >= 0 && (wt.conflictHeight < 0 || p.conflictHeight < wt.conflictHeight) {
				wt.conflictHeight = p.conflictHeight
			}
			for _, id := range p.mempoolConflicts {
				add(id)
			}
		}
	}
	if len(pool) > 0 {
		wt.mempoolConflicts = sortedHashes(pool)
	}
}

// inputsChanged drops the cached unspent credit of the transactions wt
// spends from. The caller holds c.mu for writing.
func (c *chainData) inputsChanged(wt *walletTx) {
	if wt.coinbase {
		return
	}
	for _, in := range wt.tx.TxIn {
		c.creditChanged(in.PreviousOutPoint.Hash)
	}
}

// sortedHashes returns the set's hashes in Core's std::set<Txid> order
// (the bytes in internal order).
func sortedHashes(set map[chainhash.Hash]bool) []chainhash.Hash {
	out := make([]chainhash.Hash, 0, len(set))
	for h := range set {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i][:], out[j][:]) < 0 })
	return out
}

// abandoned reports Core's isAbandoned: marked abandoned and still
// inactive (neither in a block, in the mempool nor conflicted by a block).
func (wt *walletTx) abandoned() bool {
	return wt.marks.Abandoned && !wt.confirmed() && !wt.inMempool && wt.conflictHeight < 0
}

// bumpLinked reports whether a fee bump replaced wt or wt replaces
// another: Core's AvailableCoins takes the outputs of such an unconfirmed
// transaction as unsafe.
func (wt *walletTx) bumpLinked() bool {
	return wt.marks.ReplacedBy != [32]byte{} || wt.marks.Replaces != [32]byte{}
}

// spends reports whether wt counts as spending its inputs (Core's
// IsSpent): not abandoned, not conflicted by a block or by a mempool
// transaction.
func (wt *walletTx) spends() bool {
	return !wt.abandoned() && wt.conflictHeight < 0 && len(wt.mempoolConflicts) == 0
}

// spent reports Core's IsSpent for an outpoint: a wallet transaction that
// counts spends it. The caller holds c.mu.
func (c *chainData) spent(op wire.OutPoint) bool {
	for _, s := range c.spenders[op] {
		if s.spends() {
			return true
		}
	}
	return false
}

// unspend removes wt from the spenders of op. The caller holds c.mu for
// writing.
func (c *chainData) unspend(op wire.OutPoint, wt *walletTx) {
	list := c.spenders[op]
	kept := list[:0]
	for _, s := range list {
		if s != wt {
			kept = append(kept, s)
		}
	}
	c.creditChanged(op.Hash)
	if len(kept) == 0 {
		delete(c.spenders, op)
	} else {
		c.spenders[op] = kept
	}
}

// spentInBlock reports whether a confirmed wallet transaction spends op.
// The caller holds c.mu.
func (c *chainData) spentInBlock(op wire.OutPoint) bool {
	for _, s := range c.spenders[op] {
		if s.confirmed() {
			return true
		}
	}
	return false
}

// conflicts returns Core's GetTxConflicts: the other wallet transactions
// spending one of wt's inputs, in Core's order. The caller holds c.mu.
func (c *chainData) conflicts(wt *walletTx) []chainhash.Hash {
	if wt.coinbase {
		return nil
	}
	var set map[chainhash.Hash]bool
	for _, in := range wt.tx.TxIn {
		for _, s := range c.spenders[in.PreviousOutPoint] {
			if s != wt {
				if set == nil {
					set = map[chainhash.Hash]bool{}
				}
				set[s.txid] = true
			}
		}
	}
	if set == nil {
		return nil
	}
	return sortedHashes(set)
}

// descendants returns wt and the unconfirmed wallet transactions spending
// its outputs, at any depth. The caller holds c.mu.
func (c *chainData) descendants(wt *walletTx) []*walletTx {
	seen := map[*walletTx]bool{wt: true}
	out := []*walletTx{wt}
	for i := 0; i < len(out); i++ {
		t := out[i]
		for n := range t.tx.TxOut {
			for _, s := range c.spenders[wire.OutPoint{Hash: t.txid, Index: uint32(n)}] {
				if !seen[s] && !s.confirmed() {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// conflictTransitions returns the transitions txs cause when recorded in
// block blk (Height -1: the mempool): the other unconfirmed wallet
// transactions spending their inputs, with their descendants, become
// conflicted by the block or replaced by the mempool transaction, unless
// they already were. The caller holds c.mu.
func (c *chainData) conflictTransitions(txs []*wire.MsgTx, blk BlockInfo) []TxTransition {
	var out []TxTransition
	seen := map[*walletTx]bool{}
	for _, tx := range txs {
		id := tx.TxHash()
		if isCoinbase(tx) {
			continue
		}
		for _, in := range tx.TxIn {
			for _, s := range c.spenders[in.PreviousOutPoint] {
				if s.txid == id || s.confirmed() {
					continue
				}
				for _, d := range c.descendants(s) {
					if seen[d] {
						continue
					}
					seen[d] = true
					t := TxTransition{TxID: d.txid, By: id, Height: -1}
					switch {
					case blk.Height >= 0 && d.conflictHeight < 0:
						t.Kind, t.Height, t.BlockHash = TransitionConflicted, blk.Height, blk.Hash
					case blk.Height < 0 && len(d.mempoolConflicts) == 0 && d.conflictHeight < 0:
						t.Kind = TransitionReplaced
					default:
						continue
					}
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// MempoolLeft takes a complete read of the backend's mempool: the
// wallet's unconfirmed transactions in it are in the mempool, those
// outside it left it without being mined (replaced, evicted, expired, or
// dropped by a reorg and not taken back) and stay in the wallet, inactive,
// as Core keeps them. A transaction the wallet committed stays in the
// mempool until a read has shown it there, so that a read taken before
// the relay does not count it out. It returns how many left.
func (w *Wallet) MempoolLeft(ctx context.Context, inMempool func(chainhash.Hash) bool) (int, error) {
	if err := w.loadChain(ctx); err != nil {
		return 0, err
	}
	w.importMu.Lock()
	defer w.importMu.Unlock()
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	var back, gone []*walletTx
	for _, wt := range c.order {
		if wt.confirmed() || wt.coinbase {
			continue
		}
		switch {
		case inMempool(wt.txid):
			delete(c.committed, wt.txid)
			if !wt.inMempool {
				back = append(back, wt)
			}
		case c.committed[wt.txid]:
		case wt.inMempool:
			wt.inMempool = false
			gone = append(gone, wt)
		}
	}
	left := len(gone)
	// A foreign mempool conflict ends when its transaction leaves the
	// mempool, whatever the reason (Core's transactionRemovedFromMempool
	// erases it from mempool_conflicts for every reason; one mined is a
	// block conflict now).
	dropped := c.pool.dropGone(c, inMempool)
	// Abandonment ends when the transaction is seen again.
	marked := map[*walletTx]TxMarks{}
	for _, wt := range back {
		wt.inMempool = true
		if wt.marks.Abandoned {
			m := wt.marks
			m.Abandoned = false
			marked[wt] = m
		}
	}
	// The other nodes of a shared wallet do not read the mempool: they
	// learn from the marks which unconfirmed transactions left it.
	if _, shared := w.store.(SharedStore); shared {
		for _, wt := range c.order {
			if wt.confirmed() || wt.coinbase {
				continue
			}
			m, ok := marked[wt]
			if !ok {
				m = wt.marks
			}
			if m.LeftMempool != !wt.inMempool {
				m.LeftMempool = !wt.inMempool
				marked[wt] = m
			}
		}
	}
	if len(marked) > 0 {
		err := w.updateChain(ctx, func(tx ChainStoreTx) error {
			for wt, m := range marked {
				if err := tx.PutTxMarks(wt.txid, m); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		for wt, m := range marked {
			wt.marks = m
		}
	}
	if left > 0 || len(back) > 0 || len(dropped) > 0 {
		c.refreshTxs(append(append(gone, back...), dropped...))
	}
	return left, nil
}

// DropUnconfirmed is MempoolLeft under its former name: the wallet no
// longer forgets the transactions that left the mempool.
func (w *Wallet) DropUnconfirmed(ctx context.Context, inMempool func(chainhash.Hash) bool) (int, error) {
	return w.MempoolLeft(ctx, inMempool)
}

// AbandonTransaction is Core's abandontransaction: an unconfirmed wallet
// transaction that is neither in the mempool nor conflicted by a block is
// marked abandoned, with the wallet's inactive transactions spending its
// outputs at any depth, so that the outputs they spent are spendable
// again. They stay listed, with "abandoned": true. inMempool, when not nil,
// is a fresh read of the backend's mempool, which then decides over the
// wallet's own view. Abandoning an abandoned transaction does nothing.
func (w *Wallet) AbandonTransaction(ctx context.Context, txid chainhash.Hash, inMempool func(chainhash.Hash) bool) error {
	if err := w.loadChain(ctx); err != nil {
		return err
	}
	w.importMu.Lock()
	defer w.importMu.Unlock()
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	wt, ok := c.txs[txid]
	if !ok {
		return walletErr(ErrInvalidAddressOrKey, "Invalid or non-wallet transaction id")
	}
	pooled := wt.inMempool
	if inMempool != nil {
		pooled = inMempool(txid)
	}
	if wt.confirmed() || wt.conflictHeight >= 0 || pooled {
		return walletErr(ErrInvalidAddressOrKey, "Transaction not eligible for abandonment")
	}
	var marked []*walletTx
	var ts []TxTransition
	for _, d := range c.descendants(wt) {
		if d.conflictHeight >= 0 || d.marks.Abandoned {
			continue
		}
		marked = append(marked, d)
		ts = append(ts, TxTransition{Kind: TransitionAbandoned, TxID: d.txid, Height: -1})
	}
	now := time.Now().Unix()
	err := w.updateChain(ctx, func(tx ChainStoreTx) error {
		for _, d := range marked {
			m := d.marks
			m.Abandoned = true
			if err := tx.PutTxMarks(d.txid, m); err != nil {
				return err
			}
		}
		return w.recordTransitions(tx, ts, now)
	})
	if err != nil {
		return err
	}
	for _, d := range marked {
		d.marks.Abandoned = true
		d.inMempool = false
	}
	wt.inMempool = false
	delete(c.committed, txid)
	c.refreshTxs(append(marked, wt))
	return nil
}

// MarkReplaced records a fee bump (Core's MarkReplaced and the
// replaces_txid of the new transaction): original gets replaced_by_txid
// replacement, replacement gets replaces_txid original. Both must be
// wallet transactions.
func (w *Wallet) MarkReplaced(ctx context.Context, original, replacement chainhash.Hash) error {
	if err := w.loadChain(ctx); err != nil {
		return err
	}
	w.importMu.Lock()
	defer w.importMu.Unlock()
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok1 := c.txs[original]
	r, ok2 := c.txs[replacement]
	if !ok1 || !ok2 {
		return walletErr(ErrInvalidAddressOrKey, "Invalid or non-wallet transaction id")
	}
	om, rm := o.marks, r.marks
	om.ReplacedBy = replacement
	rm.Replaces = original
	// The replacement keeps the original's comments (Core copies its
	// mapValue).
	rm.Comment, rm.To = om.Comment, om.To
	ts := []TxTransition{{Kind: TransitionReplaced, TxID: original, By: replacement, Height: -1}}
	now := time.Now().Unix()
	err := w.updateChain(ctx, func(tx ChainStoreTx) error {
		if err := tx.PutTxMarks(original, om); err != nil {
			return err
		}
		if err := tx.PutTxMarks(replacement, rm); err != nil {
			return err
		}
		return w.recordTransitions(tx, ts, now)
	})
	if err != nil {
		return err
	}
	o.marks, r.marks = om, rm
	return nil
}

// BumpCandidate is what a fee bump needs to know of a wallet transaction
// (Core's feebumper precondition checks).
type BumpCandidate struct {
	// Tx is the transaction, shared with the wallet: read only.
	Tx *wire.MsgTx
	// Prevs are the outputs its inputs spend, nil where the wallet does
	// not hold the previous transaction; InBlockSpent tells, per input,
	// that a confirmed wallet transaction spends that output.
	Prevs        []*wire.TxOut
	InBlockSpent []bool
	// HasWalletSpend: a wallet transaction spends one of its outputs.
	HasWalletSpend bool
	// Depth is Core's GetTxDepthInMainChain.
	Depth int64
	// ReplacedBy is the bump that replaced it, nil for none.
	ReplacedBy *chainhash.Hash
}

// BumpCandidate returns what a fee bump of txid needs, false when it is
// not a wallet transaction.
func (w *Wallet) BumpCandidate(ctx context.Context, txid chainhash.Hash) (*BumpCandidate, bool) {
	if w.loadChain(ctx) != nil {
		return nil, false
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	wt, ok := c.txs[txid]
	if !ok {
		return nil, false
	}
	bc := &BumpCandidate{Tx: wt.tx, Depth: c.depth(wt, c.tipHeight())}
	for _, in := range wt.tx.TxIn {
		var prev *wire.TxOut
		if p, ok := c.txs[in.PreviousOutPoint.Hash]; ok && int(in.PreviousOutPoint.Index) < len(p.tx.TxOut) {
			prev = p.tx.TxOut[in.PreviousOutPoint.Index]
		}
		spent := false
		for _, s := range c.spenders[in.PreviousOutPoint] {
			if s != wt && s.confirmed() {
				spent = true
			}
		}
		bc.Prevs = append(bc.Prevs, prev)
		bc.InBlockSpent = append(bc.InBlockSpent, spent)
	}
	for i := range wt.tx.TxOut {
		if len(c.spenders[wire.OutPoint{Hash: txid, Index: uint32(i)}]) > 0 {
			bc.HasWalletSpend = true
		}
	}
	if wt.marks.ReplacedBy != [32]byte{} {
		h := chainhash.Hash(wt.marks.ReplacedBy)
		bc.ReplacedBy = &h
	}
	return bc, true
}

// OutputState is what the wallet knows of one outpoint (Core's
// GetWalletTx, IsMine and IsSpent for a preset input).
type OutputState struct {
	// Out is the output, nil when the wallet does not hold the
	// transaction or it has no such output.
	Out *wire.TxOut
	// Mine: the wallet derives its script.
	Mine bool
	// Spent is Core's IsSpent.
	Spent bool
	// Depth is the creating transaction's depth; Version its version.
	Depth   int64
	Version int32
}

// Output returns what the wallet knows of op.
func (w *Wallet) Output(ctx context.Context, op wire.OutPoint) OutputState {
	var st OutputState
	if w.loadChain(ctx) != nil {
		return st
	}
	c := &w.chain
	c.mu.RLock()
	st.Spent = c.spent(op)
	wt, ok := c.txs[op.Hash]
	if ok && int(op.Index) < len(wt.tx.TxOut) {
		st.Out = wt.tx.TxOut[op.Index]
		st.Depth = c.depth(wt, c.tipHeight())
		st.Version = wt.tx.Version
	}
	c.mu.RUnlock()
	if st.Out != nil {
		st.Mine = w.IsMine(st.Out.PkScript)
	}
	return st
}

// conflictNotices returns the -walletnotify notices of the transactions
// that the block conflicts (ts) while the backend's mempool held them:
// Core's transactionRemovedFromMempool with the reason CONFLICT syncs each
// such transaction again, inactive, which runs the command (%b
// unconfirmed), before the block's own transactions are synced. One that
// had left the mempool before (replaced, evicted: reasons that only refresh
// its state) gets none, nor does a mempool conflict (Core's
// transactionAddedToMempool changes mempool_conflicts without a sync). The
// caller holds c.mu, before refreshTxs takes them out of the mempool.
func (c *chainData) conflictNotices(ts []TxTransition) []TxNotice {
	var out []TxNotice
	for _, t := range ts {
		if t.Kind != TransitionConflicted {
			continue
		}
		if wt := c.txs[t.TxID]; wt != nil && wt.inMempool && !wt.confirmed() {
			out = append(out, TxNotice{TxID: wt.txid, Height: -1})
		}
	}
	return out
}

// foreignPool holds the mempool transactions the wallet does not record
// that spend an input of one of its unconfirmed transactions: a payment's
// sender spending the same coin again, typically a BIP 125 replacement
// paying elsewhere. They are Core's mempool_conflicts with transactions
// that are not the wallet's (Core's mapTxSpends holds every input of every
// wallet transaction, so CWallet::transactionAddedToMempool records any
// mempool transaction spending one). As in Core they are kept in memory
// only: the chain follower's first mempool read after a start hands them
// in again (and the marks' MempoolReplaced keeps the event log from
// reporting them twice). An entry goes when its transaction leaves the
// backend's mempool (MempoolLeft), is mined (a block conflict then) or is
// recorded as the wallet's own. Guarded by c.mu.
type foreignPool struct {
	// spends are the pool's transactions by the outputs they spend, ins
	// the outputs each spends.
	spends map[wire.OutPoint][]chainhash.Hash
	ins    map[chainhash.Hash][]wire.OutPoint
}

// conflictsUnconfirmed reports whether tx, a transaction the wallet does
// not record, spends an input of an unconfirmed wallet transaction. The
// caller holds c.mu.
func (c *chainData) conflictsUnconfirmed(tx *wire.MsgTx) bool {
	if isCoinbase(tx) {
		return false
	}
	id := tx.TxHash()
	for _, in := range tx.TxIn {
		for _, s := range c.spenders[in.PreviousOutPoint] {
			if s.txid != id && !s.confirmed() && !s.coinbase {
				return true
			}
		}
	}
	return false
}

// poolTransitions returns the replaced transitions that the foreign
// mempool transactions txs cause (a wallet transaction, or one it descends
// from, with no conflict yet loses an input to one of them) and notes in
// marks (connectTxs' marks to write, falling back to the recorded ones)
// the replacement each names, written with the event so that a restart
// reading the same mempool again does not report it a second time. The
// caller holds c.mu.
func (c *chainData) poolTransitions(txs []*wire.MsgTx, marks map[chainhash.Hash]TxMarks) []TxTransition {
	if len(txs) == 0 {
		return nil
	}
	ts := c.conflictTransitions(txs, BlockInfo{Height: -1})
	for _, t := range ts {
		m, ok := marks[t.TxID]
		if !ok {
			wt := c.txs[t.TxID]
			if wt == nil {
				continue
			}
			m = wt.marks
		}
		if m.MempoolReplaced != t.By {
			m.MempoolReplaced = t.By
			marks[t.TxID] = m
		}
	}
	return ts
}

// add puts txs into the pool and returns the wallet transactions whose
// state follows: those spending the same outputs, which are out of the
// backend's mempool now with their unconfirmed descendants (replacedIn).
// The caller holds c.mu for writing.
func (p *foreignPool) add(c *chainData, txs []*wire.MsgTx) []*walletTx {
	var touched []*walletTx
	for _, tx := range txs {
		id := tx.TxHash()
		if _, ok := p.ins[id]; ok || c.txs[id] != nil {
			continue
		}
		if p.spends == nil {
			p.spends = map[wire.OutPoint][]chainhash.Hash{}
			p.ins = map[chainhash.Hash][]wire.OutPoint{}
		}
		ins := make([]wire.OutPoint, 0, len(tx.TxIn))
		for _, in := range tx.TxIn {
			op := in.PreviousOutPoint
			ins = append(ins, op)
			p.spends[op] = append(p.spends[op], id)
			touched = append(touched, c.spenders[op]...)
		}
		p.ins[id] = ins
		touched = append(touched, c.replacedIn(tx)...)
	}
	return touched
}

// replacedIn takes out of the mempool the unconfirmed wallet transactions
// other than tx that spend an output tx spends, with their unconfirmed
// descendants, tx being a transaction just seen in the backend's mempool:
// the mempool holds no two spends of one output, so tx replaced them
// (Core's wallet learns of the replaced ones' removal before the
// replacement's arrival). A later mempool read showing one again puts it
// back. It returns those it took out. The caller holds c.mu for writing.
func (c *chainData) replacedIn(tx *wire.MsgTx) []*walletTx {
	if isCoinbase(tx) {
		return nil
	}
	id := tx.TxHash()
	var out []*walletTx
	for _, in := range tx.TxIn {
		for _, s := range c.spenders[in.PreviousOutPoint] {
			if s.txid == id || s.confirmed() {
				continue
			}
			for _, d := range c.descendants(s) {
				if d.inMempool {
					d.inMempool = false
					delete(c.committed, d.txid)
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// remove takes id out of the pool and returns the wallet transactions
// spending the outputs it spent. The caller holds c.mu for writing.
func (p *foreignPool) remove(c *chainData, id chainhash.Hash) []*walletTx {
	ins, ok := p.ins[id]
	if !ok {
		return nil
	}
	delete(p.ins, id)
	var touched []*walletTx
	for _, op := range ins {
		kept := slices.DeleteFunc(p.spends[op], func(h chainhash.Hash) bool { return h == id })
		if len(kept) == 0 {
			delete(p.spends, op)
		} else {
			p.spends[op] = kept
		}
		touched = append(touched, c.spenders[op]...)
	}
	return touched
}

// drop takes out of the pool the transactions the wallet records now
// (recs) and the foreign ones a block holds (mined: a block conflict from
// now on), and returns the wallet transactions whose state follows. The
// caller holds c.mu for writing.
func (p *foreignPool) drop(c *chainData, recs []TxRecord, mined []*wire.MsgTx) []*walletTx {
	if len(p.ins) == 0 {
		return nil
	}
	var touched []*walletTx
	for _, r := range recs {
		touched = append(touched, p.remove(c, chainhash.Hash(r.TxID))...)
	}
	for _, tx := range mined {
		touched = append(touched, p.remove(c, tx.TxHash())...)
	}
	return touched
}

// dropGone takes out of the pool the transactions a complete read of the
// backend's mempool (inMempool) no longer shows, and returns the wallet
// transactions whose state follows. The caller holds c.mu for writing.
func (p *foreignPool) dropGone(c *chainData, inMempool func(chainhash.Hash) bool) []*walletTx {
	var gone []chainhash.Hash
	for id := range p.ins {
		if !inMempool(id) {
			gone = append(gone, id)
		}
	}
	var touched []*walletTx
	for _, id := range gone {
		touched = append(touched, p.remove(c, id)...)
	}
	return touched
}
