package acctest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// coinbaseMaturity is the depth a coinbase output needs before it counts
// as spendable (Core's COINBASE_MATURITY + 1).
const coinbaseMaturity = 100

// Block is one block of the best chain.
type Block struct {
	Height int32
	Hash   chainhash.Hash
	Txs    []*wire.MsgTx
}

// Chain is the full node's state the model reads: its best chain from
// genesis and its mempool, and what the test knows of transactions that
// left the mempool.
type Chain struct {
	Blocks  []Block
	Mempool []*wire.MsgTx
	// Gone are transactions seen earlier (in the mempool, or handed to
	// the test by txid and never relayed) that are neither in the best
	// chain nor in the mempool now: replaced, conflicted, never relayed.
	// Those that are the wallet's stay in its listings, unconfirmed or
	// conflicted, as Core keeps them.
	Gone []*wire.MsgTx
	// Abandoned are the gone transactions abandontransaction abandoned.
	Abandoned map[chainhash.Hash]bool
	// Replacements are the transactions bumpfee made: while unconfirmed
	// their outputs are not safe to spend (Core's AvailableCoins skips
	// a transaction that replaces another).
	Replacements map[chainhash.Hash]bool
}

// Scripts are the scriptPubKeys the wallet watches.
type Scripts map[string]Watched

// Watched is a script the wallet watches: its address, and whether it is
// change (no address-book entry: an output to it in a transaction that
// spends the wallet's coins is neither a send nor a receive in the
// listings).
type Watched struct {
	Address string
	Change  bool
}

// Tx is a wallet transaction as the model sees it.
type Tx struct {
	Tx        *wire.MsgTx
	ID        chainhash.Hash
	Height    int32 // -1 in the mempool or gone
	BlockHash chainhash.Hash
	Coinbase  bool
	// Gone is a transaction in neither the chain nor the mempool.
	Gone bool
	// Abandoned, for a gone transaction, is abandontransaction's mark.
	Abandoned bool
	// ConflictHeight, for a gone transaction, is the height of the
	// lowest block of the best chain spending one of its inputs or one
	// of its wallet ancestors' (0 when none): Core's block conflict.
	ConflictHeight int32
	// MempoolConflict, for a gone transaction, tells that a mempool
	// transaction spends one of its inputs or one of its wallet
	// ancestors'.
	MempoolConflict bool
}

// spends reports whether the gone transaction t still spends its inputs
// (Core's IsSpent): neither abandoned nor conflicted.
func (t *Tx) spends() bool {
	return !t.Gone || !t.Abandoned && t.ConflictHeight == 0 && !t.MempoolConflict
}

// Unspent is one entry of listunspent.
type Unspent struct {
	TxID          string
	Vout          uint32
	Address       string
	Amount        int64
	Confirmations int64
	Safe          bool
}

func (u Unspent) String() string {
	return fmt.Sprintf("%s:%d %s %d conf=%d safe=%v", u.TxID, u.Vout, u.Address, u.Amount,
		u.Confirmations, u.Safe)
}

// Entry is one entry of listtransactions or of gettransaction's details.
type Entry struct {
	TxID          string
	Category      string
	Vout          uint32
	Address       string
	Amount        int64
	Fee           *int64
	Confirmations int64
	BlockHash     string
	Trusted       *bool
	// Abandoned is listtransactions' abandoned (gettransaction shows it
	// on sends only).
	Abandoned bool
}

func (e Entry) String() string {
	s := fmt.Sprintf("%s %s vout=%d %s amount=%d conf=%d block=%s", e.TxID, e.Category, e.Vout,
		e.Address, e.Amount, e.Confirmations, e.BlockHash)
	if e.Abandoned {
		s += " abandoned"
	}
	if e.Fee != nil {
		s += fmt.Sprintf(" fee=%d", *e.Fee)
	}
	if e.Trusted != nil {
		s += fmt.Sprintf(" trusted=%v", *e.Trusted)
	}
	return s
}

// TxView is gettransaction's reply.
type TxView struct {
	Amount        int64
	Fee           *int64
	Confirmations int64
	BlockHash     string
	Trusted       *bool
	Details       []Entry
}

func (v TxView) String() string {
	s := fmt.Sprintf("amount=%d conf=%d block=%s", v.Amount, v.Confirmations, v.BlockHash)
	if v.Fee != nil {
		s += fmt.Sprintf(" fee=%d", *v.Fee)
	}
	if v.Trusted != nil {
		s += fmt.Sprintf(" trusted=%v", *v.Trusted)
	}
	return s + " details=[" + JoinEntries(v.Details) + "]"
}

// Balances is getbalances' "mine", in satoshis.
type Balances struct {
	Trusted, UntrustedPending, Immature int64
}

// View is everything the model predicts of the wallet.
type View struct {
	Balances Balances
	// Unspent is listunspent with minconf 0, sorted.
	Unspent []Unspent
	// Entries is listtransactions over every transaction, sorted.
	Entries []Entry
	// Txs is gettransaction of every wallet transaction, by txid.
	Txs map[string]TxView
}

// Compute works out the wallet's view of chain given the scripts it
// watches, by Core's rules: a transaction is the wallet's when it pays one
// of its scripts or spends one of its outputs; an output is spent when a
// wallet transaction (mined or in the mempool) spends it; an unconfirmed
// transaction is trusted when every input spends a wallet output of a
// trusted transaction; listings show, for a transaction spending wallet
// outputs, a send for each output that is not change and the fee, and a
// receive for each output paying the wallet, change left out of a
// transaction spending wallet outputs (Core's CachedTxGetAmounts).
//
// A gone transaction of the wallet (chain.Gone) is listed with no block:
// at minus the depth of the lowest block spending one of its or its
// wallet ancestors' inputs (block-conflicted), else at depth 0; it is
// never trusted, its outputs are neither balance nor unspent, and it
// keeps its inputs spent only while neither abandoned nor conflicted
// with the chain or the mempool (Core's IsSpent).
//
// names gives the address of every script outside the wallet that the
// listings may show (the wallet prints the address of any standard script).
func Compute(c *Chain, s Scripts, names map[string]string) *View {
	m := &model{s: s, names: names, owned: map[wire.OutPoint]*wire.TxOut{}, byID: map[chainhash.Hash]*Tx{},
		spent: map[wire.OutPoint]bool{}, trust: map[chainhash.Hash]bool{}}
	tip := int32(-1)
	for _, b := range c.Blocks {
		tip = b.Height
		for i, tx := range b.Txs {
			m.consider(&Tx{Tx: tx, ID: tx.TxHash(), Height: b.Height, BlockHash: b.Hash, Coinbase: i == 0})
		}
	}
	// Mempool transactions in rounds, parents before children.
	taken := make([]bool, len(c.Mempool))
	for {
		progress := false
		for i, tx := range c.Mempool {
			if !taken[i] && m.consider(&Tx{Tx: tx, ID: tx.TxHash(), Height: -1}) {
				taken[i], progress = true, true
			}
		}
		if !progress {
			break
		}
	}
	m.considerGone(c)
	for _, t := range m.txs {
		if t.Coinbase || !t.spends() {
			continue
		}
		for _, in := range t.Tx.TxIn {
			if _, ok := m.owned[in.PreviousOutPoint]; ok {
				m.spent[in.PreviousOutPoint] = true
			}
		}
	}

	v := &View{Txs: map[string]TxView{}, Unspent: []Unspent{}, Entries: []Entry{}}
	for _, t := range m.txs {
		depth := int64(0)
		switch {
		case t.Height >= 0:
			depth = int64(tip-t.Height) + 1
		case t.ConflictHeight > 0:
			depth = -(int64(tip-t.ConflictHeight) + 1)
		}
		trusted := m.trusted(t)
		immature := t.Coinbase && depth <= coinbaseMaturity
		for i, out := range t.Tx.TxOut {
			op := wire.OutPoint{Hash: t.ID, Index: uint32(i)}
			if _, mine := m.owned[op]; !mine || m.spent[op] || t.Gone {
				continue
			}
			switch {
			case immature:
				v.Balances.Immature += out.Value
			case trusted:
				v.Balances.Trusted += out.Value
			default:
				v.Balances.UntrustedPending += out.Value
			}
			if !immature {
				v.Unspent = append(v.Unspent, Unspent{TxID: t.ID.String(), Vout: uint32(i),
					Address: s[string(out.PkScript)].Address, Amount: out.Value, Confirmations: depth,
					Safe: trusted && (depth > 0 || !c.Replacements[t.ID])})
			}
		}

		var debit, credit, valueOut int64
		for _, in := range t.Tx.TxIn {
			if o, ok := m.owned[in.PreviousOutPoint]; ok && !t.Coinbase {
				debit += o.Value
			}
		}
		for _, out := range t.Tx.TxOut {
			valueOut += out.Value
			if _, ok := s[string(out.PkScript)]; ok {
				credit += out.Value
			}
		}
		base := Entry{TxID: t.ID.String(), Confirmations: depth, Abandoned: t.Abandoned}
		if t.Height >= 0 {
			base.BlockHash = t.BlockHash.String()
		} else {
			tr := trusted
			base.Trusted = &tr
		}
		var fee *int64
		var sends, receives []Entry
		if debit > 0 {
			f := valueOut - debit
			fee = &f
			for i, out := range t.Tx.TxOut {
				if s[string(out.PkScript)].Change {
					continue
				}
				e := base
				e.Category, e.Vout, e.Amount, e.Fee = "send", uint32(i), -out.Value, fee
				e.Address = m.address(out.PkScript)
				sends = append(sends, e)
			}
		}
		for i, out := range t.Tx.TxOut {
			ws, ok := s[string(out.PkScript)]
			if !ok || debit > 0 && ws.Change {
				continue
			}
			e := base
			e.Category, e.Vout, e.Amount, e.Address = "receive", uint32(i), out.Value, ws.Address
			if t.Coinbase {
				switch {
				case depth < 1:
					e.Category = "orphan"
				case immature:
					e.Category = "immature"
				default:
					e.Category = "generate"
				}
			}
			receives = append(receives, e)
		}
		details := append(append([]Entry{}, sends...), receives...)
		v.Entries = append(v.Entries, details...)
		amount := credit - debit
		if fee != nil {
			amount -= *fee
		}
		for i := range details {
			details[i].Abandoned = details[i].Abandoned && details[i].Category == "send"
		}
		tv := TxView{Amount: amount, Fee: fee, Confirmations: depth, BlockHash: base.BlockHash,
			Trusted: base.Trusted, Details: SortEntries(details)}
		v.Txs[t.ID.String()] = tv
	}
	SortUnspent(v.Unspent)
	SortEntries(v.Entries)
	return v
}

// model is Compute's working state.
type model struct {
	s     Scripts
	names map[string]string
	txs   []*Tx
	byID  map[chainhash.Hash]*Tx
	owned map[wire.OutPoint]*wire.TxOut
	spent map[wire.OutPoint]bool
	trust map[chainhash.Hash]bool
}

// consider records t when it is the wallet's and reports whether it is.
func (m *model) consider(t *Tx) bool {
	mine := false
	if !t.Coinbase {
		for _, in := range t.Tx.TxIn {
			if _, ok := m.owned[in.PreviousOutPoint]; ok {
				mine = true
			}
		}
	}
	for i, out := range t.Tx.TxOut {
		if _, ok := m.s[string(out.PkScript)]; ok {
			mine = true
			m.owned[wire.OutPoint{Hash: t.ID, Index: uint32(i)}] = out
		}
	}
	if mine {
		m.txs = append(m.txs, t)
		m.byID[t.ID] = t
	}
	return mine
}

// considerGone records the gone transactions that are the wallet's,
// parents before children, with their conflicts.
func (m *model) considerGone(c *Chain) {
	// Which transaction of the chain (at which height) and of the mempool
	// spends each outpoint.
	inBlock := map[wire.OutPoint]int32{}
	blockTx := map[wire.OutPoint]chainhash.Hash{}
	for _, b := range c.Blocks {
		for _, tx := range b.Txs {
			id := tx.TxHash()
			for _, in := range tx.TxIn {
				inBlock[in.PreviousOutPoint], blockTx[in.PreviousOutPoint] = b.Height, id
			}
		}
	}
	inPool := map[wire.OutPoint]chainhash.Hash{}
	for _, tx := range c.Mempool {
		id := tx.TxHash()
		for _, in := range tx.TxIn {
			inPool[in.PreviousOutPoint] = id
		}
	}
	taken := make([]bool, len(c.Gone))
	for {
		progress := false
		for i, tx := range c.Gone {
			if taken[i] {
				continue
			}
			id := tx.TxHash()
			// A parent that is itself gone comes first.
			waiting := false
			for j, p := range c.Gone {
				if j != i && !taken[j] && spendsOutputOf(tx, p.TxHash()) {
					waiting = true
				}
			}
			if waiting {
				continue
			}
			taken[i], progress = true, true
			t := &Tx{Tx: tx, ID: id, Height: -1, Gone: true, Abandoned: c.Abandoned[id]}
			for _, in := range tx.TxIn {
				op := in.PreviousOutPoint
				if h, ok := inBlock[op]; ok && blockTx[op] != id && (t.ConflictHeight == 0 || h < t.ConflictHeight) {
					t.ConflictHeight = h
				}
				if p, ok := inPool[op]; ok && p != id {
					t.MempoolConflict = true
				}
				if parent := m.byID[op.Hash]; parent != nil && parent.Gone {
					if parent.ConflictHeight > 0 && (t.ConflictHeight == 0 || parent.ConflictHeight < t.ConflictHeight) {
						t.ConflictHeight = parent.ConflictHeight
					}
					t.MempoolConflict = t.MempoolConflict || parent.MempoolConflict
				}
			}
			// A block conflict replaces the abandoned state (Core's
			// MarkConflicted).
			t.Abandoned = t.Abandoned && t.ConflictHeight == 0
			m.consider(t)
		}
		if !progress {
			return
		}
	}
}

// spendsOutputOf reports whether tx spends an output of the transaction id.
func spendsOutputOf(tx *wire.MsgTx, id chainhash.Hash) bool {
	for _, in := range tx.TxIn {
		if in.PreviousOutPoint.Hash == id {
			return true
		}
	}
	return false
}

// trusted is Core's CachedTxIsTrusted for a transaction in the chain or the
// mempool; a gone one is never trusted.
func (m *model) trusted(t *Tx) bool {
	if t.Height >= 0 {
		return true
	}
	if t.Coinbase || t.Gone {
		return false
	}
	if v, ok := m.trust[t.ID]; ok {
		return v
	}
	ok := true
	for _, in := range t.Tx.TxIn {
		parent := m.byID[in.PreviousOutPoint.Hash]
		if _, mine := m.owned[in.PreviousOutPoint]; parent == nil || !mine || !m.trusted(parent) {
			ok = false
			break
		}
	}
	m.trust[t.ID] = ok
	return ok
}

// address returns the address of a script the wallet watches, or the one
// the caller named for outside scripts.
func (m *model) address(script []byte) string {
	if w, ok := m.s[string(script)]; ok {
		return w.Address
	}
	return m.names[string(script)]
}

// SortUnspent sorts entries by outpoint.
func SortUnspent(us []Unspent) {
	sort.Slice(us, func(i, j int) bool {
		if us[i].TxID != us[j].TxID {
			return us[i].TxID < us[j].TxID
		}
		return us[i].Vout < us[j].Vout
	})
}

// SortEntries sorts entries by transaction, category and output, and
// returns them.
func SortEntries(es []Entry) []Entry {
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.TxID != b.TxID {
			return a.TxID < b.TxID
		}
		if a.Category != b.Category {
			return a.Category < b.Category
		}
		return a.Vout < b.Vout
	})
	return es
}

// JoinEntries prints entries one per line.
func JoinEntries(es []Entry) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString("\n    " + e.String())
	}
	return b.String()
}
