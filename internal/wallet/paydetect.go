package wallet

import (
	"bytes"
	"context"
	"slices"
	"sort"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
)

// Payment detection: the listings Core's listsinceblock, getreceivedby*,
// listreceivedby* and listaddressgroupings make of the wallet's
// transactions.

// indexScripts records the transaction under each script it pays, so that
// what one address received is read without walking every transaction.
// The caller holds c.mu.
func (c *chainData) indexScripts(wt *walletTx) {
	if c.byScript == nil {
		c.byScript = map[string][]*walletTx{}
	}
	for _, o := range wt.tx.TxOut {
		k := string(o.PkScript)
		l := c.byScript[k]
		if len(l) > 0 && l[len(l)-1] == wt {
			continue
		}
		c.byScript[k] = append(l, wt)
	}
}

// paying returns the wallet transactions that pay spk, skipping those the
// wallet has dropped since they were indexed. The caller holds c.mu.
func (c *chainData) paying(spk []byte) []*walletTx {
	var out []*walletTx
	for _, wt := range c.byScript[string(spk)] {
		if c.txs[wt.txid] == wt {
			out = append(out, wt)
		}
	}
	return out
}

// listEntries is Core's ListTransactions for one transaction: the send
// entries (none when label is set) and the receive entries whose label is
// label (every one when label is nil) when the transaction's depth is at
// least minDepth. The caller holds c.mu.
func (w *Wallet) listEntries(wt *walletTx, tip int32, minDepth int64, includeChange bool, label *string, out []TxEntry) []TxEntry {
	sent, received, _, _ := w.entriesOpt(wt, tip, includeChange)
	if label == nil {
		out = append(out, sent...)
	}
	if len(received) == 0 || w.chain.depth(wt, tip) < minDepth {
		return out
	}
	for _, e := range received {
		if label != nil {
			l := ""
			if e.Label != nil {
				l = *e.Label
			}
			if l != *label {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// SinceBlockList is listsinceblock's transactions and the blocks the
// wallet had processed when they were listed, so that lastblock names a
// block the entries' confirmations count to.
type SinceBlockList struct {
	Entries []TxEntry
	// Recent is the wallet's last processed blocks, the last one the tip.
	Recent []BlockRef
	// Gone is set when the block asked for is no longer one of Recent (a
	// reorg replaced it since the caller found it there): nothing is
	// listed, the caller finds the fork point again.
	Gone bool
}

// Last returns the last processed block the entries were listed at, false
// when none.
func (l SinceBlockList) Last() (BlockRef, bool) { return lastOf(l.Recent) }

// SinceBlock returns listsinceblock's transactions: the entries of every
// transaction not confirmed at or below height (every transaction when all
// is true), change outputs included when includeChange is true, only
// receive entries of label when label is not nil. from, when not nil, is
// the block asked for as the caller found it among the wallet's last
// processed blocks, at height: it is looked up again in the same view as
// the transactions, so that a reorg in between does not leave out the
// transactions of the blocks that replaced it (Gone).
func (w *Wallet) SinceBlock(ctx context.Context, from *chainhash.Hash, height int32, all, includeChange bool, label *string) (SinceBlockList, error) {
	if err := w.loadChain(ctx); err != nil {
		return SinceBlockList{}, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	if from != nil && !slices.Contains(c.recent, BlockRef{Height: height, Hash: [32]byte(*from)}) {
		return SinceBlockList{Recent: append([]BlockRef(nil), c.recent...), Gone: true}, nil
	}
	tip := c.tipHeight()
	out := []TxEntry{}
	for _, wt := range c.order {
		if !all && wt.confirmed() && wt.rec.Height <= height {
			continue
		}
		// Core lists a conflicted transaction while its conflict is
		// less deep than the block asked for.
		if !all && !wt.confirmed() && wt.conflictHeight >= 0 && wt.conflictHeight <= height {
			continue
		}
		out = w.listEntries(wt, tip, 0, includeChange, label, out)
	}
	return SinceBlockList{Entries: out, Recent: append([]BlockRef(nil), c.recent...)}, nil
}

// RemovedEntries returns listsinceblock's "removed" entries of the
// transactions of blocks that left the best chain: those the wallet holds,
// and those it no longer holds that paid it or spent its outputs (shown
// as unconfirmed).
func (w *Wallet) RemovedEntries(ctx context.Context, txs []*wire.MsgTx, includeChange bool, label *string) ([]TxEntry, error) {
	if err := w.loadChain(ctx); err != nil {
		return nil, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	tip := c.tipHeight()
	out := []TxEntry{}
	now := w.cfg.Now()
	for _, tx := range txs {
		txid := tx.TxHash()
		wt, ok := c.txs[txid]
		if !ok {
			if d, _ := w.debit(tx); d == 0 && !w.paysWallet(tx) {
				continue
			}
			wt = &walletTx{rec: TxRecord{TxID: txid, Height: -1, TimeReceived: now}, tx: tx,
				txid: txid, coinbase: isCoinbase(tx)}
		}
		out = w.listEntries(wt, tip, -100000000, includeChange, label, out)
	}
	return out, nil
}

func (w *Wallet) paysWallet(tx *wire.MsgTx) bool {
	for _, o := range tx.TxOut {
		if w.IsMine(o.PkScript) {
			return true
		}
	}
	return false
}

// countsAsReceived is Core's filter of the received tallies: deep enough,
// in the best chain when a coinbase, and a mature coinbase unless
// includeImmature. The caller holds c.mu.
func (w *Wallet) countsAsReceived(wt *walletTx, tip int32, minDepth int64, includeImmature bool) (int64, bool) {
	depth := w.chain.depth(wt, tip)
	if depth < minDepth || (wt.coinbase && depth < 1) || (immature(wt, depth) && !includeImmature) {
		return depth, false
	}
	return depth, true
}

// Received returns what the wallet's scripts among scripts received in
// transactions at least minDepth deep (Core's GetReceived); found is false
// when none of scripts is the wallet's.
func (w *Wallet) Received(ctx context.Context, scripts [][]byte, minDepth int64, includeImmature bool) (amount int64, found bool, err error) {
	if err := w.loadChain(ctx); err != nil {
		return 0, false, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	amount, found = w.receivedLocked(scripts, minDepth, includeImmature)
	return amount, found, nil
}

// receivedLocked is Received; the caller holds c.mu.
func (w *Wallet) receivedLocked(scripts [][]byte, minDepth int64, includeImmature bool) (amount int64, found bool) {
	var mine [][]byte
	seen := map[string]bool{}
	for _, s := range scripts {
		if !seen[string(s)] && w.IsMine(s) {
			seen[string(s)] = true
			mine = append(mine, s)
		}
	}
	if len(mine) == 0 {
		return 0, false
	}
	c := &w.chain
	tip := c.tipHeight()
	counted := map[*walletTx]bool{}
	for _, s := range mine {
		for _, wt := range c.paying(s) {
			if counted[wt] {
				continue
			}
			counted[wt] = true
			if _, ok := w.countsAsReceived(wt, tip, minDepth, includeImmature); !ok {
				continue
			}
			for _, o := range wt.tx.TxOut {
				if seen[string(o.PkScript)] {
					amount += o.Value
				}
			}
		}
	}
	return amount, true
}

// ReceivedByLabelTotal is Received over the scripts labelled label, read
// in the same view as the address book (Core's getreceivedbylabel):
// labelled is false when no script has the label, found false when none of
// them is the wallet's.
func (w *Wallet) ReceivedByLabelTotal(ctx context.Context, label string, minDepth int64, includeImmature bool) (amount int64, labelled, found bool, err error) {
	if err := w.loadChain(ctx); err != nil {
		return 0, false, false, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	scripts := w.AddressesByLabel(label)
	if len(scripts) == 0 {
		return 0, false, false, nil
	}
	list := make([][]byte, 0, len(scripts))
	for s := range scripts {
		list = append(list, []byte(s))
	}
	amount, found = w.receivedLocked(list, minDepth, includeImmature)
	return amount, true, found, nil
}

// Tally is what one address (or label) received: the amount, the depth of
// the shallowest transaction counted (-1: none) and their ids.
type Tally struct {
	Address string
	Label   string
	Amount  int64
	Conf    int64
	TxIDs   []chainhash.Hash
}

// ReceivedByAddress is Core's ListReceived by address: the address-book
// entries that are not change, in Core's order of destinations, with what
// each received in transactions at least minDepth deep; those that
// received nothing only when includeEmpty. filter, when not nil, keeps
// only that script.
func (w *Wallet) ReceivedByAddress(ctx context.Context, minDepth int64, includeEmpty, includeImmature bool, filter []byte) ([]Tally, error) {
	if err := w.loadChain(ctx); err != nil {
		return nil, err
	}
	type bookAddr struct {
		spk   []byte
		label string
	}
	// The address book is read under c.mu too (taken first), so that it
	// holds the labels the block of each transaction gave its addresses.
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	w.mu.RLock()
	var book []bookAddr
	for s, e := range w.book {
		if e.label == nil {
			continue
		}
		if filter != nil && s != string(filter) {
			continue
		}
		book = append(book, bookAddr{[]byte(s), *e.label})
	}
	w.mu.RUnlock()
	sort.Slice(book, func(i, j int) bool {
		return bytes.Compare(destOrderKey(book[i].spk), destOrderKey(book[j].spk)) < 0
	})
	tip := c.tipHeight()
	out := []Tally{}
	for _, b := range book {
		addr, ok := address.Encode(b.spk, w.cfg.Net)
		if !ok || addr == "" {
			continue
		}
		t := Tally{Address: addr, Label: b.label, Conf: -1}
		if w.IsMine(b.spk) {
			for _, wt := range c.paying(b.spk) {
				depth, ok := w.countsAsReceived(wt, tip, minDepth, includeImmature)
				if !ok {
					continue
				}
				for _, o := range wt.tx.TxOut {
					if bytes.Equal(o.PkScript, b.spk) {
						t.Amount += o.Value
						if t.Conf < 0 || depth < t.Conf {
							t.Conf = depth
						}
						t.TxIDs = append(t.TxIDs, wt.txid)
					}
				}
			}
		}
		if t.Conf < 0 && !includeEmpty {
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// ReceivedByLabel is Core's ListReceived by label: the tallies of
// ReceivedByAddress summed per label, in label order.
func (w *Wallet) ReceivedByLabel(ctx context.Context, minDepth int64, includeEmpty, includeImmature bool) ([]Tally, error) {
	by, err := w.ReceivedByAddress(ctx, minDepth, includeEmpty, includeImmature, nil)
	if err != nil {
		return nil, err
	}
	sums := map[string]*Tally{}
	var labels []string
	for _, t := range by {
		s := sums[t.Label]
		if s == nil {
			s = &Tally{Label: t.Label, Conf: -1}
			sums[t.Label] = s
			labels = append(labels, t.Label)
		}
		s.Amount += t.Amount
		if t.Conf >= 0 && (s.Conf < 0 || t.Conf < s.Conf) {
			s.Conf = t.Conf
		}
	}
	sort.Strings(labels)
	out := make([]Tally, 0, len(labels))
	for _, l := range labels {
		out = append(out, *sums[l])
	}
	return out, nil
}

// destOrderKey orders scripts as Core orders its CTxDestination variant
// (the address book is a map by destination): by kind (P2PKH, P2SH,
// P2WSH, P2WPKH, P2TR, anchor, other witness programs), then by the hash
// or program bytes.
func destOrderKey(spk []byte) []byte {
	n := len(spk)
	switch {
	case n == 25 && spk[0] == 0x76 && spk[1] == 0xa9 && spk[2] == 20 && spk[23] == 0x88 && spk[24] == 0xac:
		return append([]byte{2}, spk[3:23]...)
	case n == 23 && spk[0] == 0xa9 && spk[1] == 20 && spk[22] == 0x87:
		return append([]byte{3}, spk[2:22]...)
	case n == 34 && spk[0] == 0 && spk[1] == 32:
		return append([]byte{4}, spk[2:]...)
	case n == 22 && spk[0] == 0 && spk[1] == 20:
		return append([]byte{5}, spk[2:]...)
	case n == 34 && spk[0] == 0x51 && spk[1] == 32:
		return append([]byte{6}, spk[2:]...)
	case bytes.Equal(spk, []byte{0x51, 0x02, 0x4e, 0x73}):
		return []byte{7}
	case n >= 4 && n <= 42 && (spk[0] == 0 || (spk[0] >= 0x51 && spk[0] <= 0x60)) && int(spk[1]) == n-2:
		v := byte(0)
		if spk[0] != 0 {
			v = spk[0] - 0x50
		}
		return append([]byte{8, v}, spk[2:]...)
	}
	return append([]byte{9}, spk...)
}

// IsChange is Core's OutputIsChange: a script of the wallet with no
// address, or with no address-book entry other than a change one.
func (w *Wallet) IsChange(spk []byte) bool {
	return w.scriptInfo(spk).isChange
}

// GroupedAddress is one address of listaddressgroupings: its balance and,
// when it has a non-change address-book entry, its label.
type GroupedAddress struct {
	Address string
	Amount  int64
	Label   *string
}

// AddressGroupings is Core's GetAddressGroupings with the balances of
// GetAddressBalances: the wallet's addresses grouped by common ownership
// made public (inputs spent together, and the change of those spends),
// each group and the groups in Core's order of destinations.
func (w *Wallet) AddressGroupings(ctx context.Context) ([][]GroupedAddress, error) {
	if err := w.loadChain(ctx); err != nil {
		return nil, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	tip := c.tipHeight()

	// Union-find over scripts.
	parent := map[string]string{}
	var find func(string) string
	find = func(s string) string {
		p, ok := parent[s]
		if !ok {
			parent[s] = s
			return s
		}
		if p == s {
			return s
		}
		r := find(p)
		parent[s] = r
		return r
	}
	union := func(a, b string) {
		ra, rb := find(a), find(b)
		if ra != rb {
			parent[ra] = rb
		}
	}
	hasAddr := func(spk []byte) bool {
		a, ok := address.Encode(spk, w.cfg.Net)
		return ok && a != ""
	}
	balances := map[string]int64{}
	for _, wt := range c.order {
		var group []string
		if !wt.coinbase {
			for _, in := range wt.tx.TxIn {
				prev, ok := c.txs[in.PreviousOutPoint.Hash]
				if !ok || int(in.PreviousOutPoint.Index) >= len(prev.tx.TxOut) {
					continue
				}
				spk := prev.tx.TxOut[in.PreviousOutPoint.Index].PkScript
				if !w.IsMine(spk) || !hasAddr(spk) {
					continue
				}
				group = append(group, string(spk))
			}
			if len(group) > 0 {
				for _, o := range wt.tx.TxOut {
					if w.scriptInfo(o.PkScript).isChange && hasAddr(o.PkScript) {
						group = append(group, string(o.PkScript))
					}
				}
			}
		}
		for _, s := range group {
			union(group[0], s)
		}
		depth := c.depth(wt, tip)
		fromMe := w.isFromMe(wt.tx)
		counts := w.trusted(wt, depth) && !immature(wt, depth) && (depth >= 1 || (fromMe && depth >= 0))
		for i, o := range wt.tx.TxOut {
			if !w.IsMine(o.PkScript) || !hasAddr(o.PkScript) {
				continue
			}
			find(string(o.PkScript))
			if !counts {
				continue
			}
			if !c.spent(wire.OutPoint{Hash: wt.txid, Index: uint32(i)}) {
				balances[string(o.PkScript)] += o.Value
			}
		}
	}
	members := map[string][]string{}
	for s := range parent {
		r := find(s)
		members[r] = append(members[r], s)
	}
	groups := make([][]string, 0, len(members))
	for _, m := range members {
		sort.Slice(m, func(i, j int) bool {
			return bytes.Compare(destOrderKey([]byte(m[i])), destOrderKey([]byte(m[j]))) < 0
		})
		groups = append(groups, m)
	}
	// std::set's order of sets: element by element, a prefix first.
	sort.Slice(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		for k := 0; k < len(a) && k < len(b); k++ {
			if c := bytes.Compare(destOrderKey([]byte(a[k])), destOrderKey([]byte(b[k]))); c != 0 {
				return c < 0
			}
		}
		return len(a) < len(b)
	})
	w.mu.RLock()
	defer w.mu.RUnlock()
	out := make([][]GroupedAddress, len(groups))
	for i, g := range groups {
		for _, s := range g {
			a, _ := address.Encode([]byte(s), w.cfg.Net)
			ga := GroupedAddress{Address: a, Amount: balances[s]}
			if e := w.book[s]; e != nil && e.label != nil {
				l := *e.label
				ga.Label = &l
			}
			out[i] = append(out[i], ga)
		}
	}
	return out, nil
}

// ImportPrunedTx records tx as confirmed in block blk at position index
// (importprunedfunds: the caller has checked the block and the proof). A
// transaction paying none of the wallet's scripts is refused, as Core's
// IsMine(tx).
func (w *Wallet) ImportPrunedTx(ctx context.Context, tx *wire.MsgTx, blk BlockInfo, index int) error {
	if !w.paysWallet(tx) {
		return walletErr(ErrInvalidAddressOrKey, "No addresses in wallet correspond to included transaction")
	}
	return w.BlockConnected(ctx, blk, []*wire.MsgTx{tx}, []int{index})
}

// RemoveTx forgets a wallet transaction (removeprunedfunds), in the store
// and in memory; the outputs it spent are unspent again unless another
// wallet transaction spends them.
func (w *Wallet) RemoveTx(ctx context.Context, txid chainhash.Hash) error {
	if err := w.loadChain(ctx); err != nil {
		return err
	}
	w.importMu.Lock()
	defer w.importMu.Unlock()
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	gone, ok := c.txs[txid]
	if !ok {
		return walletErr(ErrWallet, "Transaction "+txid.String()+" does not belong to this wallet")
	}
	if err := w.updateChain(ctx, func(tx ChainStoreTx) error { return tx.DeleteTx(txid) }); err != nil {
		return err
	}
	delete(c.txs, txid)
	kept := c.order[:0]
	for _, wt := range c.order {
		if wt.txid != txid {
			kept = append(kept, wt)
		}
	}
	c.order[len(c.order)-1] = nil
	c.order = kept
	if !gone.coinbase {
		for _, in := range gone.tx.TxIn {
			c.unspend(in.PreviousOutPoint, gone)
		}
	}
	delete(c.committed, txid)
	c.refreshStates()
	return nil
}
