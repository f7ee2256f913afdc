package wallet

import (
	"context"
	"encoding/hex"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/script"
)

// CoinbaseMaturity is the depth a coinbase needs before the wallet spends
// it (Core's COINBASE_MATURITY + 1: 100 blocks on top of its own).
const CoinbaseMaturity = 100

// Unspent is one entry of listunspent.
type Unspent struct {
	TxID          chainhash.Hash
	Vout          uint32
	Address       string
	Label         *string
	RedeemScript  string
	WitnessScript string
	Script        []byte
	Amount        int64
	Confirmations int64
	Solvable      bool
	Desc          string
	ParentDescs   []string
	Safe          bool
	// Reused is set when the avoid_reuse flag is: whether the script is
	// marked used.
	Reused *bool
}

// Balances is getbalances' "mine" section, in satoshis.
type Balances struct {
	Trusted, UntrustedPending, Immature int64
}

// TxInfo is what Core's WalletTxToJSON reports of a transaction.
type TxInfo struct {
	Confirmations int64
	Generated     bool
	// Trusted is set only for an unconfirmed transaction.
	Trusted      *bool
	Confirmed    bool
	BlockHash    chainhash.Hash
	BlockHeight  int32
	BlockIndex   int32
	BlockTime    int64
	TxID         chainhash.Hash
	WTxID        chainhash.Hash
	Time         int64
	TimeReceived int64
	// WalletConflicts are the other wallet transactions spending one of
	// its inputs; MempoolConflicts the wallet's mempool transactions
	// doing so for it or an unconfirmed ancestor (Core's order).
	WalletConflicts  []chainhash.Hash
	MempoolConflicts []chainhash.Hash
	// Abandoned is Core's isAbandoned.
	Abandoned bool
	// ReplacedBy and Replaces are bumpfee's links, nil when unset.
	ReplacedBy, Replaces *chainhash.Hash
	// Comment and To are the comments it was sent with, empty for none.
	Comment, To string
	// Tx is the transaction itself, shared with the wallet: read only.
	Tx *wire.MsgTx
}

// TxEntry is one entry of listtransactions or of gettransaction's details.
type TxEntry struct {
	Address     string
	ParentDescs []string
	Category    string
	// Amount is negative for sends.
	Amount int64
	Label  *string
	Vout   uint32
	// Fee is set (negative) on sends.
	Fee  *int64
	Info TxInfo
}

// TxDetails is gettransaction's reply.
type TxDetails struct {
	Amount  int64
	Fee     *int64
	Info    TxInfo
	Details []TxEntry
	Hex     string
	// Last is the last processed block the details were computed at,
	// when HasLast.
	Last    BlockRef
	HasLast bool
}

// tipHeight is the height of the last processed block, or the highest
// block holding a wallet transaction when that is higher. The caller holds
// c.mu.
func (c *chainData) tipHeight() int32 {
	h := int32(-1)
	if len(c.recent) > 0 {
		h = c.recent[len(c.recent)-1].Height
	}
	for _, wt := range c.order {
		if wt.rec.Height > h {
			h = wt.rec.Height
		}
	}
	return h
}

// depth is Core's GetTxDepthInMainChain: the confirmations of a mined
// transaction, minus those of the block conflicting with an unconfirmed
// one, 0 otherwise.
func (c *chainData) depth(wt *walletTx, tip int32) int64 {
	if !wt.confirmed() {
		if wt.conflictHeight >= 0 {
			return -(int64(tip-wt.conflictHeight) + 1)
		}
		return 0
	}
	return int64(tip-wt.rec.Height) + 1
}

// immature reports whether wt is a coinbase too young to spend.
func immature(wt *walletTx, depth int64) bool {
	return wt.coinbase && depth <= CoinbaseMaturity
}

// outInfo is what the wallet knows of one output script.
type outInfo struct {
	mine     bool
	address  string
	label    *string
	parents  []string
	isChange bool
}

// scriptInfo describes an output script. The caller holds no lock.
func (w *Wallet) scriptInfo(spk []byte) outInfo {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.infoOf(spk, w.findScript(spk))
}

// infoOf is scriptInfo given the script's matches. The caller holds w.mu.
func (w *Wallet) infoOf(spk []byte, ms []match) outInfo {
	var oi outInfo
	oi.mine = len(ms) > 0
	for _, m := range ms {
		oi.parents = append(oi.parents, m.wd.normalized)
	}
	oi.address, _ = address.Encode(spk, w.cfg.Net)
	if e := w.book[string(spk)]; e != nil {
		oi.label = e.label
	}
	oi.isChange = oi.mine && (oi.address == "" || oi.label == nil)
	return oi
}

// debit returns the value of the wallet's outputs tx spends. The caller
// holds c.mu.
func (w *Wallet) debit(tx *wire.MsgTx) (int64, bool) {
	c := &w.chain
	var sum int64
	all := len(tx.TxIn) > 0
	for _, in := range tx.TxIn {
		prev, ok := c.txs[in.PreviousOutPoint.Hash]
		if !ok || int(in.PreviousOutPoint.Index) >= len(prev.tx.TxOut) {
			all = false
			continue
		}
		out := prev.tx.TxOut[in.PreviousOutPoint.Index]
		if w.IsMine(out.PkScript) {
			sum += out.Value
		} else {
			all = false
		}
	}
	return sum, all
}

// trusted reports whether a transaction's outputs count as the wallet's
// own money: a confirmed one, or, as Core's CachedTxIsTrusted, an
// unconfirmed one whose every input spends a wallet output of a trusted
// transaction (its parents are checked in turn). The caller holds c.mu.
func (w *Wallet) trusted(wt *walletTx, depth int64) bool {
	if depth >= 1 {
		return true
	}
	return w.trustedUnconfirmed(wt, map[chainhash.Hash]bool{})
}

// trustedUnconfirmed is trusted for a transaction of any depth; known
// holds the transactions already found trusted. The caller holds c.mu.
func (w *Wallet) trustedUnconfirmed(wt *walletTx, known map[chainhash.Hash]bool) bool {
	if wt.confirmed() || known[wt.txid] {
		return true
	}
	// Conflicted, or outside the mempool (Core trusts its own
	// unconfirmed transactions only in the mempool).
	if wt.coinbase || len(wt.tx.TxIn) == 0 || wt.conflictHeight >= 0 || !wt.inMempool {
		return false
	}
	c := &w.chain
	for _, in := range wt.tx.TxIn {
		parent, ok := c.txs[in.PreviousOutPoint.Hash]
		if !ok || int(in.PreviousOutPoint.Index) >= len(parent.tx.TxOut) ||
			!w.IsMine(parent.tx.TxOut[in.PreviousOutPoint.Index].PkScript) {
			return false
		}
		if !known[parent.txid] {
			if !w.trustedUnconfirmed(parent, known) {
				return false
			}
			known[parent.txid] = true
		}
	}
	return true
}

// ListUnspent returns the wallet's unspent outputs with between minConf and
// maxConf confirmations, only those paying one of scripts when scripts is
// not empty, in the order the wallet saw them. Immature coinbase outputs
// are left out.
func (w *Wallet) ListUnspent(ctx context.Context, minConf, maxConf int64, scripts [][]byte) ([]Unspent, error) {
	return w.listUnspent(ctx, minConf, maxConf, scripts, false)
}

// ListUnspentWithImmature is ListUnspent with immature coinbase outputs
// included (listunspent's include_immature_coinbase).
func (w *Wallet) ListUnspentWithImmature(ctx context.Context, minConf, maxConf int64, scripts [][]byte) ([]Unspent, error) {
	return w.listUnspent(ctx, minConf, maxConf, scripts, true)
}

func (w *Wallet) listUnspent(ctx context.Context, minConf, maxConf int64, scripts [][]byte, includeImmature bool) ([]Unspent, error) {
	if err := w.loadChain(ctx); err != nil {
		return nil, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	tip := c.tipHeight()
	avoidReuse := w.AvoidReuse()
	var want map[string]bool
	if len(scripts) > 0 {
		want = make(map[string]bool, len(scripts))
		for _, s := range scripts {
			want[string(s)] = true
		}
	}
	// The script's part of an entry is worked out once per script.
	memo := map[string]*Unspent{}
	var out []Unspent
	for _, wt := range c.order {
		depth := c.depth(wt, tip)
		if depth < minConf || depth > maxConf || (immature(wt, depth) && !includeImmature) {
			continue
		}
		if wt.coinbase && depth < 1 {
			continue
		}
		// Core's AvailableCoins: not conflicted, at least in the
		// mempool.
		if depth < 0 || (depth == 0 && !wt.inMempool) {
			continue
		}
		trusted := w.trusted(wt, depth) && !(depth == 0 && wt.bumpLinked())
		for i, o := range wt.tx.TxOut {
			op := wire.OutPoint{Hash: wt.txid, Index: uint32(i)}
			if c.spent(op) {
				continue
			}
			if want != nil && !want[string(o.PkScript)] {
				continue
			}
			sm, ok := memo[string(o.PkScript)]
			if !ok {
				sm = w.unspentScript(o.PkScript, avoidReuse)
				memo[string(o.PkScript)] = sm
			}
			if sm == nil {
				continue
			}
			u := *sm
			u.TxID, u.Vout, u.Amount, u.Confirmations, u.Safe = wt.txid, uint32(i), o.Value, depth, trusted
			out = append(out, u)
		}
	}
	return out, nil
}

// unspentScript fills the fields of a listunspent entry that depend on its
// script alone; nil when the wallet does not own the script.
func (w *Wallet) unspentScript(spk []byte, avoidReuse bool) *Unspent {
	oi := w.scriptInfo(spk)
	if !oi.mine {
		return nil
	}
	ai := w.AddressInfo(spk)
	u := &Unspent{Address: oi.address, Label: oi.label, Script: spk, Solvable: ai.Solvable,
		Desc: ai.Desc, ParentDescs: oi.parents}
	if avoidReuse {
		r := w.IsSpentKey(spk)
		u.Reused = &r
	}
	if oi.address == "" {
		u.Label = nil
	}
	cls, _ := script.Solve(spk)
	switch cls {
	case script.ScriptHash:
		u.RedeemScript = ai.Hex
		if ai.Embedded != nil {
			if ec, _ := script.Solve(mustHex(ai.Hex)); ec == script.WitnessV0ScriptHash {
				u.WitnessScript = ai.Embedded.Hex
			}
		}
	case script.WitnessV0ScriptHash:
		u.WitnessScript = ai.Hex
	}
	return u
}

func mustHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

// BalanceReport is what getbalances shows, read in one view of the chain
// so that the balances and the last processed block agree.
type BalanceReport struct {
	// Mine is Core's GetBalance with no minimum depth, leaving out outputs
	// to used scripts when the avoid_reuse flag is set.
	Mine Balances
	// Full counts the outputs to used scripts too; set only with the
	// avoid_reuse flag.
	Full *Balances
	// Last is the last processed block, when HasLast.
	Last    BlockRef
	HasLast bool
}

// Balances returns the wallet's balances as getbalances shows them: Core's
// GetBalance with no minimum depth, leaving out outputs to used scripts
// when the avoid_reuse flag is set.
func (w *Wallet) Balances(ctx context.Context) (Balances, error) {
	r, err := w.BalancesReport(ctx)
	return r.Mine, err
}

// BalancesReport returns getbalances' whole reply: the balances, those
// counting used scripts, and the last processed block they were computed
// at.
func (w *Wallet) BalancesReport(ctx context.Context) (BalanceReport, error) {
	var r BalanceReport
	if err := w.loadChain(ctx); err != nil {
		return r, err
	}
	avoidReuse := w.AvoidReuse()
	gen := w.scriptGen()
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	var err error
	if r.Mine, err = w.balanceLocked(ctx, 0, avoidReuse, gen); err != nil {
		return r, err
	}
	if avoidReuse {
		full, err := w.balanceLocked(ctx, 0, false, gen)
		if err != nil {
			return r, err
		}
		r.Full = &full
	}
	r.Last, r.HasLast = c.lastBlock()
	return r, nil
}

// AvoidReuse reports whether the wallet's avoid_reuse flag is set.
func (w *Wallet) AvoidReuse() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.flags&FlagAvoidReuse != 0
}

// Balance is Core's GetBalance: the unspent outputs of the wallet, trusted
// ones counted only from minDepth confirmations, and with avoidReuse set
// (it has effect only with the avoid_reuse flag) without the outputs to
// scripts marked used.
func (w *Wallet) Balance(ctx context.Context, minDepth int64, avoidReuse bool) (Balances, error) {
	var b Balances
	if err := w.loadChain(ctx); err != nil {
		return b, err
	}
	skipUsed := avoidReuse && w.AvoidReuse()
	gen := w.scriptGen()
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	return w.balanceLocked(ctx, minDepth, skipUsed, gen)
}

// balanceLocked is Balance under c.mu (read), skipUsed already resolved
// against the wallet's flag and gen its script generation.
func (w *Wallet) balanceLocked(ctx context.Context, minDepth int64, skipUsed bool, gen uint64) (Balances, error) {
	var b Balances
	c := &w.chain
	c.credMu.Lock()
	defer c.credMu.Unlock()
	key := balanceKey{chainGen: c.mu.gen.Load(), scriptGen: gen, minDepth: minDepth, avoidReuse: skipUsed}
	// Scripts marked used change outside chainData.mu: a balance leaving
	// them out is not kept.
	if b, ok := c.balMemo[key]; ok && !skipUsed {
		return b, nil
	}
	if err := w.prefetchOwn(ctx, c.order, gen); err != nil {
		return b, err
	}
	tip := c.tipHeight()
	for _, wt := range c.order {
		depth := c.depth(wt, tip)
		if wt.coinbase && depth < 1 {
			continue
		}
		credit := w.unspentCredit(wt, gen, skipUsed)
		if credit == 0 {
			// Nothing of it counts, whatever its depth or trust.
			continue
		}
		trusted := w.trusted(wt, depth)
		switch {
		case immature(wt, depth):
			b.Immature += credit
		case trusted:
			if depth >= minDepth {
				b.Trusted += credit
			}
		case wt.inMempool && !wt.confirmed():
			b.UntrustedPending += credit
		}
	}
	if skipUsed {
		return b, nil
	}
	if len(c.balMemo) >= 16 {
		c.balMemo = nil
	}
	if c.balMemo == nil {
		c.balMemo = map[balanceKey]Balances{}
	}
	c.balMemo[key] = b
	return b, nil
}

// TxCount returns the number of wallet transactions.
func (w *Wallet) TxCount() int {
	if w.loadChain(context.Background()) != nil {
		return 0
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.order)
}

// txInfo fills the common fields. The caller holds c.mu.
func (w *Wallet) txInfo(wt *walletTx, tip int32) TxInfo {
	depth := w.chain.depth(wt, tip)
	in := TxInfo{Confirmations: depth, Generated: wt.coinbase, TxID: wt.txid,
		WTxID: wt.tx.WitnessHash(), TimeReceived: wt.rec.TimeReceived, Time: wt.rec.TimeSmart, Tx: wt.tx,
		WalletConflicts: w.chain.conflicts(wt), MempoolConflicts: wt.mempoolConflicts, Abandoned: wt.abandoned(),
		Comment: wt.marks.Comment, To: wt.marks.To}
	if wt.marks.ReplacedBy != [32]byte{} {
		h := chainhash.Hash(wt.marks.ReplacedBy)
		in.ReplacedBy = &h
	}
	if wt.marks.Replaces != [32]byte{} {
		h := chainhash.Hash(wt.marks.Replaces)
		in.Replaces = &h
	}
	if in.Time == 0 {
		in.Time = wt.rec.TimeReceived
	}
	if wt.confirmed() {
		in.Confirmed = true
		in.BlockHash = chainhash.Hash(wt.rec.BlockHash)
		in.BlockHeight = wt.rec.Height
		in.BlockIndex = wt.rec.BlockIndex
		in.BlockTime = wt.rec.BlockTime
	} else {
		t := w.trusted(wt, depth)
		in.Trusted = &t
	}
	return in
}

// entries returns the listtransactions entries of one transaction: sends
// then receives, change left out of both when the wallet sent it. The
// caller holds c.mu.
func (w *Wallet) entries(wt *walletTx, tip int32) (sent, received []TxEntry, fee *int64, net int64) {
	return w.entriesOpt(wt, tip, false)
}

// entriesOpt is entries, with the change of a transaction the wallet sent
// listed as both a send and a receive when includeChange is true (Core's
// include_change). The caller holds c.mu.
func (w *Wallet) entriesOpt(wt *walletTx, tip int32, includeChange bool) (sent, received []TxEntry, fee *int64, net int64) {
	info := w.txInfo(wt, tip)
	debit, _ := w.debit(wt.tx)
	depth := info.Confirmations
	if debit > 0 {
		var outSum int64
		for _, o := range wt.tx.TxOut {
			outSum += o.Value
		}
		f := -(debit - outSum)
		fee = &f
	}
	var credit int64
	for i, o := range wt.tx.TxOut {
		oi := w.scriptInfo(o.PkScript)
		if oi.mine {
			credit += o.Value
		}
		if debit > 0 && oi.isChange && !includeChange {
			// Change of a transaction the wallet sent is neither a
			// send nor a receive (Core's CachedTxGetAmounts).
			continue
		}
		if debit > 0 {
			e := TxEntry{Address: oi.address, Category: "send", Amount: -o.Value,
				Label: oi.label, Vout: uint32(i), Fee: fee, Info: info}
			if oi.address == "" {
				e.Label = nil
			}
			sent = append(sent, e)
		}
		if oi.mine {
			cat := "receive"
			if wt.coinbase {
				switch {
				case depth < 1:
					cat = "orphan"
				case immature(wt, depth):
					cat = "immature"
				default:
					cat = "generate"
				}
			}
			e := TxEntry{Address: oi.address, ParentDescs: oi.parents, Category: cat,
				Amount: o.Value, Label: oi.label, Vout: uint32(i), Info: info}
			if oi.address == "" {
				e.Label = nil
			}
			received = append(received, e)
		}
	}
	net = credit - debit
	if fee != nil {
		net -= *fee
	}
	return sent, received, fee, net
}

// ListTransactions returns the most recent count entries after skipping
// skip, oldest first, of every label (label nil) or of one.
func (w *Wallet) ListTransactions(ctx context.Context, label *string, count, skip int) ([]TxEntry, error) {
	if err := w.loadChain(ctx); err != nil {
		return nil, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	tip := c.tipHeight()
	var all []TxEntry
	keep := func(e TxEntry) bool {
		if label == nil {
			return true
		}
		return e.Label != nil && *e.Label == *label
	}
	for _, wt := range c.order {
		sent, received, _, _ := w.entries(wt, tip)
		for _, e := range sent {
			if keep(e) {
				all = append(all, e)
			}
		}
		for _, e := range received {
			if keep(e) {
				all = append(all, e)
			}
		}
	}
	end := len(all) - skip
	if end <= 0 {
		return []TxEntry{}, nil
	}
	start := max(end-count, 0)
	return append([]TxEntry{}, all[start:end]...), nil
}

// Transaction returns gettransaction's view of a wallet transaction.
func (w *Wallet) Transaction(ctx context.Context, txid chainhash.Hash) (*TxDetails, error) {
	if err := w.loadChain(ctx); err != nil {
		return nil, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	wt, ok := c.txs[txid]
	if !ok {
		return nil, walletErr(ErrInvalidAddressOrKey, "Invalid or non-wallet transaction id")
	}
	tip := c.tipHeight()
	sent, received, fee, net := w.entries(wt, tip)
	d := &TxDetails{Amount: net, Fee: fee, Info: w.txInfo(wt, tip), Hex: hex.EncodeToString(wt.rec.Raw)}
	d.Details = append(append([]TxEntry{}, sent...), received...)
	d.Last, d.HasLast = c.lastBlock()
	return d, nil
}
