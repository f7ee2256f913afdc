package wallet

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// Event kinds of the wallet's event log.
const (
	// EventReceived: a transaction paying the wallet and spending none of
	// its coins was first recorded, unconfirmed or in a block.
	EventReceived = "received"
	// EventSent: a transaction spending the wallet's coins was first
	// recorded: one the wallet made (sendtoaddress, sendmany, ...) or one
	// seen in the mempool or a block.
	EventSent = "sent"
	// EventConfirmed: a transaction reached one of the configured
	// confirmation depths (Depth) in its block.
	EventConfirmed = "confirmed"
	// EventReorged: a confirmed transaction's block left the chain.
	EventReorged = "reorged"
	// EventReplaced: an unconfirmed transaction was replaced by another
	// spending the same coins (Related names the replacement).
	EventReplaced = "replaced"
	// EventConflicted: a transaction conflicts with one in a block
	// (Related names it).
	EventConflicted = "conflicted"
	// EventAbandoned: the transaction was abandoned (abandontransaction).
	EventAbandoned = "abandoned"
)

// DefaultEventDepths are the confirmation depths reported when none are
// configured.
var DefaultEventDepths = []int32{1, 6}

// EventOutput is an output of the event's transaction that pays the
// wallet.
type EventOutput struct {
	Vout uint32
	// Address is empty when the script has no address.
	Address string
	Amount  int64
	// Label is the address's label when the event was written, nil when
	// it has none (change).
	Label *string
	// ParentDescs are the wallet's descriptors that produce the script
	// (Core's parent_descs).
	ParentDescs []string
}

// EventRecord is one entry of the wallet's event log, written in the same
// store transaction as the change it reports. Cursor is its position
// (increasing, never reused); Height is -1 and BlockHash zero when the
// transaction has no block; Time is when it was written (UNIX seconds).
// Amount, Fee and Outputs describe the transaction as the wallet saw it
// when the event was written.
type EventRecord struct {
	Cursor    int64
	Kind      string
	TxID      [32]byte
	Depth     int32
	Height    int32
	BlockHash [32]byte
	Time      int64
	// Amount is the change of the wallet's balance, the fee left out
	// (Core's gettransaction amount), in satoshis: negative for sends.
	Amount int64
	// Fee is set on a transaction that spends the wallet's coins: the fee
	// it pays, negative, as Core shows it.
	Fee *int64
	// Outputs are the transaction's outputs that pay the wallet.
	Outputs []EventOutput
	// Related is the other transaction of a replaced or conflicted event
	// (zero when none is known).
	Related [32]byte
}

// eventDetail is the stored form of what an event carries besides its
// columns. Amounts are satoshis.
type eventDetail struct {
	Amount  int64             `json:"amount"`
	Fee     *int64            `json:"fee,omitempty"`
	Outputs []eventOutputJSON `json:"outputs,omitempty"`
	Related string            `json:"related,omitempty"`
}

type eventOutputJSON struct {
	Vout        uint32   `json:"n"`
	Address     string   `json:"address,omitempty"`
	Amount      int64    `json:"amount"`
	Label       *string  `json:"label,omitempty"`
	ParentDescs []string `json:"parent_descs,omitempty"`
}

// EncodeEventDetail is the stored form of e's amount, fee, outputs and
// related transaction, which a store keeps as given: eventDetail as
// encoding/json writes it, byte for byte, written directly (every block
// that pays the wallet encodes it).
func EncodeEventDetail(e EventRecord) []byte {
	b := make([]byte, 0, 64+160*len(e.Outputs))
	b = append(b, `{"amount":`...)
	b = strconv.AppendInt(b, e.Amount, 10)
	if e.Fee != nil {
		b = append(b, `,"fee":`...)
		b = strconv.AppendInt(b, *e.Fee, 10)
	}
	if len(e.Outputs) > 0 {
		b = append(b, `,"outputs":[`...)
		for i, o := range e.Outputs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"n":`...)
			b = strconv.AppendUint(b, uint64(o.Vout), 10)
			if o.Address != "" {
				b = append(b, `,"address":`...)
				b = appendJSONString(b, o.Address)
			}
			b = append(b, `,"amount":`...)
			b = strconv.AppendInt(b, o.Amount, 10)
			if o.Label != nil {
				b = append(b, `,"label":`...)
				b = appendJSONString(b, *o.Label)
			}
			if len(o.ParentDescs) > 0 {
				b = append(b, `,"parent_descs":[`...)
				for j, p := range o.ParentDescs {
					if j > 0 {
						b = append(b, ',')
					}
					b = appendJSONString(b, p)
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if e.Related != ([32]byte{}) {
		b = append(b, `,"related":"`...)
		b = append(b, chainhash.Hash(e.Related).String()...)
		b = append(b, '"')
	}
	return append(b, '}')
}

// appendJSONString appends s as encoding/json writes a string: as it is,
// quoted, when it holds only printable ASCII that needs no escape, else
// by encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(s)
			if err != nil {
				// A string always encodes.
				panic("event detail: " + err.Error())
			}
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// encodeEventDetailJSON is EncodeEventDetail by encoding/json, which the
// tests compare it with.
func encodeEventDetailJSON(e EventRecord) []byte {
	d := eventDetail{Amount: e.Amount, Fee: e.Fee}
	if e.Related != ([32]byte{}) {
		d.Related = chainhash.Hash(e.Related).String()
	}
	if len(e.Outputs) > 0 {
		d.Outputs = make([]eventOutputJSON, len(e.Outputs))
		for i, o := range e.Outputs {
			d.Outputs[i] = eventOutputJSON(o)
		}
	}
	b, err := json.Marshal(d)
	if err != nil {
		// Plain integers, strings and slices always encode.
		panic("event detail: " + err.Error())
	}
	return b
}

// SameEventDetail reports whether a and b carry the same amount, fee,
// outputs and related transaction by construction (events made from one
// description of a transaction), so that one encoding serves both. False
// says nothing.
func SameEventDetail(a, b EventRecord) bool {
	return a.Amount == b.Amount && a.Fee == b.Fee && a.Related == b.Related && len(a.Outputs) == len(b.Outputs) &&
		(len(a.Outputs) == 0 || &a.Outputs[0] == &b.Outputs[0])
}

// DecodeEventDetail fills e's amount, fee, outputs and related transaction
// from their stored form; empty (an event written before events carried
// them) leaves them empty.
func DecodeEventDetail(b []byte, e *EventRecord) error {
	if len(b) == 0 {
		return nil
	}
	var d eventDetail
	if err := json.Unmarshal(b, &d); err != nil {
		return storageErr(fmt.Errorf("event %d: %w", e.Cursor, err))
	}
	e.Amount, e.Fee = d.Amount, d.Fee
	if d.Related != "" {
		h, err := chainhash.NewHashFromStr(d.Related)
		if err != nil {
			return storageErr(fmt.Errorf("event %d: %w", e.Cursor, err))
		}
		e.Related = *h
	}
	if len(d.Outputs) > 0 {
		e.Outputs = make([]EventOutput, len(d.Outputs))
		for i, o := range d.Outputs {
			e.Outputs[i] = EventOutput(o)
		}
	}
	return nil
}

// EventStore is the optional part of a Store that reads the event log.
type EventStore interface {
	// Events returns at most limit events after the cursor, in order,
	// and the highest cursor retention removed (0: none), read together.
	Events(ctx context.Context, after int64, limit int) ([]EventRecord, int64, error)
}

// Events returns at most limit events of the log whose cursor is above
// after, in cursor order; none when the store keeps no log. A cursor below
// the highest one retention removed gets ErrEventsPruned: events after it
// are gone.
func (w *Wallet) Events(ctx context.Context, after int64, limit int) ([]EventRecord, error) {
	es, ok := w.store.(EventStore)
	if !ok {
		return nil, nil
	}
	evs, pruned, err := es.Events(ctx, after, limit)
	if err != nil {
		return nil, storageErr(err)
	}
	if after < pruned {
		return nil, walletErr(ErrEventsPruned, "Cursor "+strconv.FormatInt(after, 10)+
			" is older than the event log keeps: events through cursor "+strconv.FormatInt(pruned, 10)+
			" were removed (-eventretention); resume after "+strconv.FormatInt(pruned, 10)+" or later")
	}
	return evs, nil
}

// EventRetention says which events background pruning removes: all but the
// newest Count (0: no limit) and those written more than Age seconds ago
// (0: no limit). An event goes when either limit says so.
type EventRetention struct {
	Count int64
	Age   int64
}

// PruneEvents removes the events retention r no longer keeps, in one store
// transaction, and returns how many it removed. An event that one of the
// delivery targets held (the configured webhooks) has not acknowledged
// stays whatever r says, so that pruning never takes an event from a
// delivery that is behind or down: one that never acknowledged anything
// holds the whole log.
func (w *Wallet) PruneEvents(ctx context.Context, r EventRetention, now int64, held []string) (int64, error) {
	if r.Count <= 0 && r.Age <= 0 {
		return 0, nil
	}
	if _, ok := w.store.(EventStore); !ok {
		return 0, nil
	}
	before := int64(0)
	if r.Age > 0 {
		before = now - r.Age
	}
	var removed int64
	err := w.updateChain(ctx, func(tx ChainStoreTx) error {
		var err error
		_, removed, err = tx.PruneEvents(r.Count, before, held)
		return err
	})
	return removed, err
}

// eventDepths returns the configured confirmation depths, ascending.
func (w *Wallet) eventDepths() []int32 {
	if len(w.cfg.EventDepths) == 0 {
		return DefaultEventDepths
	}
	return w.cfg.EventDepths
}

// reportsDepth reports whether depth d is configured.
func (w *Wallet) reportsDepth(d int32) bool { return slices.Contains(w.eventDepths(), d) }

// topDepth is the deepest configured depth.
func (w *Wallet) topDepth() int32 {
	d := w.eventDepths()
	return d[len(d)-1]
}

// blockDepth is the reported depth of a transaction that just entered a
// block.
func (w *Wallet) blockDepth() int32 {
	if w.reportsDepth(1) {
		return 1
	}
	return 0
}

// txContent is what an event reports of a transaction.
type txContent struct {
	amount  int64
	fee     *int64
	outputs []EventOutput
}

// content describes tx for its events. prev finds the transactions its
// inputs spend (the wallet's, and those recorded with it). The caller
// holds c.mu, and not w.mu.
func (w *Wallet) content(tx *wire.MsgTx, prev func(chainhash.Hash) *wire.MsgTx) txContent {
	tc, _ := w.contentPrevs(tx, prev)
	return tc
}

// description is a transaction's content as its first events reported
// it, kept on the transaction for its deeper confirmed events, with what
// it follows from besides the transaction: the wallet's state generation
// (its scripts, labels and descriptors change only under w.mu's write
// lock, which starts a new one) and how many of its inputs spend a
// transaction prev knew.
type description struct {
	tc    txContent
	gen   uint64
	prevs int
}

// describe is content with what it follows from. The caller holds c.mu,
// and not w.mu.
func (w *Wallet) describe(tx *wire.MsgTx, prev func(chainhash.Hash) *wire.MsgTx) *description {
	gen := w.mu.gen.Load() // before: a change while describing makes it stale
	tc, prevs := w.contentPrevs(tx, prev)
	return &description{tc: tc, gen: gen, prevs: prevs}
}

// described returns wt's kept description when it still holds (nothing
// it follows from changed), else a new one. The caller holds c.mu, and
// not w.mu.
func (w *Wallet) described(wt *walletTx) *txContent {
	c := &w.chain
	if d := wt.description; d != nil && d.gen == w.mu.gen.Load() && knownPrevs(wt.tx, c.walletPrev) == d.prevs {
		return &d.tc
	}
	tc := w.content(wt.tx, c.walletPrev)
	return &tc
}

// knownPrevs is the number of tx's inputs whose spent output prev finds,
// as contentPrevs counts them.
func knownPrevs(tx *wire.MsgTx, prev func(chainhash.Hash) *wire.MsgTx) int {
	if isCoinbase(tx) {
		return 0
	}
	n := 0
	for _, in := range tx.TxIn {
		if p := prev(in.PreviousOutPoint.Hash); p != nil && int(in.PreviousOutPoint.Index) < len(p.TxOut) {
			n++
		}
	}
	return n
}

// contentPrevs is content, and the number of tx's inputs whose spent
// output prev found.
func (w *Wallet) contentPrevs(tx *wire.MsgTx, prev func(chainhash.Hash) *wire.MsgTx) (txContent, int) {
	var tc txContent
	var debit int64
	prevs := 0
	if !isCoinbase(tx) {
		for _, in := range tx.TxIn {
			p := prev(in.PreviousOutPoint.Hash)
			if p == nil || int(in.PreviousOutPoint.Index) >= len(p.TxOut) {
				continue
			}
			prevs++
			if out := p.TxOut[in.PreviousOutPoint.Index]; w.IsMine(out.PkScript) {
				debit += out.Value
			}
		}
	}
	var credit, outSum int64
	for i, o := range tx.TxOut {
		outSum += o.Value
		oi, mine := w.ownScriptInfo(o.PkScript)
		if !mine {
			continue
		}
		credit += o.Value
		eo := EventOutput{Vout: uint32(i), Address: oi.address, Amount: o.Value, ParentDescs: oi.parents}
		if oi.label != nil && oi.address != "" {
			l := *oi.label
			eo.Label = &l
		}
		tc.outputs = append(tc.outputs, eo)
	}
	tc.amount = credit - debit
	if debit > 0 {
		f := outSum - debit
		tc.fee = &f
		tc.amount -= f
	}
	return tc, prevs
}

// ownScriptInfo is scriptInfo of a script the wallet derives, false (and
// no address encoded) for one it does not.
func (w *Wallet) ownScriptInfo(spk []byte) (outInfo, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	ms := w.findScript(spk)
	if len(ms) == 0 {
		return outInfo{}, false
	}
	return w.infoOf(spk, ms), true
}

// walletPrev looks a transaction up among the wallet's. The caller holds
// c.mu.
func (c *chainData) walletPrev(h chainhash.Hash) *wire.MsgTx {
	if wt := c.txs[h]; wt != nil {
		return wt.tx
	}
	return nil
}

func txEvent(kind string, r TxRecord, depth int32, now int64, tc txContent) EventRecord {
	e := EventRecord{Kind: kind, TxID: r.TxID, Depth: depth, Height: r.Height, Time: now,
		Amount: tc.amount, Fee: tc.fee, Outputs: tc.outputs}
	if r.Height >= 0 {
		e.BlockHash = r.BlockHash
	} else {
		e.Height = -1
	}
	return e
}

// labelPayees gives the outputs of evs that pay an address of payees,
// which gets the label "" in the same write, that label.
func labelPayees(evs []EventRecord, payees map[string]bool) {
	if len(payees) == 0 {
		return
	}
	for i := range evs {
		for j := range evs[i].Outputs {
			if o := &evs[i].Outputs[j]; o.Label == nil && payees[o.Address] {
				l := ""
				o.Label = &l
			}
		}
	}
}

// appendRecordEvents appends to evs the events of recording r, given the
// transaction's previous state (nil when new): received or sent for a new
// transaction (sent when it spends the wallet's coins), then confirmed at
// depth 1 when it is in a block it was not in before. The description of
// a transaction recorded in a block goes into kept (when not nil), for its
// deeper confirmed events. The caller holds c.mu.
func (w *Wallet) appendRecordEvents(evs []EventRecord, old *walletTx, r TxRecord, tx *wire.MsgTx, prev func(chainhash.Hash) *wire.MsgTx, now int64, kept map[chainhash.Hash]*description) []EventRecord {
	moved := old == nil || old.rec.Height != r.Height || old.rec.BlockHash != r.BlockHash
	confirm := r.Height >= 0 && moved && w.reportsDepth(1)
	if old != nil && !confirm {
		return evs
	}
	d := w.describe(tx, prev)
	if kept != nil && r.Height >= 0 {
		kept[chainhash.Hash(r.TxID)] = d
	}
	tc := d.tc
	if old == nil {
		kind := EventReceived
		if tc.fee != nil {
			kind = EventSent
		}
		evs = append(evs, txEvent(kind, r, 0, now, tc))
	}
	if confirm {
		evs = append(evs, txEvent(EventConfirmed, r, 1, now, tc))
	}
	return evs
}

// depthEvents are the confirmed events due at tip height tip: each
// configured depth a confirmed transaction reached and was not reported
// at. Only the transactions not yet reported at the deepest depth are
// looked at (c.evPending), so the cost follows the transactions near the
// tip, not the wallet's history. It returns the new reported depth per
// transaction. The caller holds c.mu.
func (w *Wallet) depthEvents(tip int32, now int64) ([]EventRecord, map[*walletTx]int32) {
	return w.appendDepthEvents(nil, tip, now)
}

// appendDepthEvents is depthEvents appending to evs.
func (w *Wallet) appendDepthEvents(evs []EventRecord, tip int32, now int64) ([]EventRecord, map[*walletTx]int32) {
	c := &w.chain
	depths := w.eventDepths()
	top := depths[len(depths)-1]
	var due []*walletTx
	var done []chainhash.Hash
	for id := range c.evPending {
		wt := c.txs[id]
		if wt == nil || !wt.confirmed() || wt.evDepth >= top {
			done = append(done, id)
			continue
		}
		if have := tip - wt.rec.Height + 1; have > wt.evDepth {
			due = append(due, wt)
		}
	}
	for _, id := range done {
		c.untrackDepth(id)
	}
	slices.SortFunc(due, func(a, b *walletTx) int { return cmp.Compare(a.rec.Seq, b.rec.Seq) })
	var reached map[*walletTx]int32
	for _, wt := range due {
		have := tip - wt.rec.Height + 1
		var tc *txContent
		for _, d := range depths {
			if d > wt.evDepth && d <= have {
				if tc == nil {
					tc = w.described(wt)
				}
				evs = append(evs, txEvent(EventConfirmed, wt.rec, d, now, *tc))
				if reached == nil {
					reached = map[*walletTx]int32{}
				}
				reached[wt] = d
			}
		}
	}
	return evs, reached
}

// transitionEvent is the event of a state transition: the replacing or
// conflicting transaction as Related, and for a conflict the block holding
// it.
func transitionEvent(t TxTransition, now int64, tc txContent) (EventRecord, bool) {
	e := EventRecord{TxID: t.TxID, Height: -1, Time: now, Amount: tc.amount, Fee: tc.fee, Outputs: tc.outputs,
		Related: t.By}
	switch t.Kind {
	case TransitionReplaced:
		e.Kind = EventReplaced
	case TransitionConflicted:
		e.Kind = EventConflicted
		if t.Height >= 0 {
			e.Height, e.BlockHash = t.Height, t.BlockHash
		}
	case TransitionAbandoned:
		e.Kind, e.Related = EventAbandoned, [32]byte{}
	default:
		return EventRecord{}, false
	}
	return e, true
}

// trackDepth notes that wt's deeper confirmations are still to be
// reported (none when the wallet keeps no log). The caller holds c.mu for
// writing.
func (w *Wallet) trackDepth(wt *walletTx) {
	c := &w.chain
	if w.noEvents || !wt.confirmed() || wt.evDepth >= w.topDepth() {
		wt.description = nil
		return
	}
	if c.evPending == nil {
		c.evPending = map[chainhash.Hash]struct{}{}
	}
	c.evPending[wt.txid] = struct{}{}
	c.evPendingPeak = max(c.evPendingPeak, len(c.evPending))
	c.evGen++
}

// untrackDepth forgets that id's deeper confirmations are to be reported.
// A Go map keeps the buckets of its largest size and ranging over it walks
// them all, so once it holds a quarter of what it held (a rescan or a
// load of many recent transactions, then reported), the set is copied
// into a map of its present size: depthEvents then costs what is pending,
// not what once was. The caller holds c.mu for writing.
func (c *chainData) untrackDepth(id chainhash.Hash) {
	if wt := c.txs[id]; wt != nil {
		wt.description = nil
	}
	delete(c.evPending, id)
	if n := len(c.evPending); c.evPendingPeak > 64 && n*4 < c.evPendingPeak {
		m := make(map[chainhash.Hash]struct{}, n)
		for k := range c.evPending {
			m[k] = struct{}{}
		}
		c.evPending, c.evPendingPeak = m, n
	}
}

// Reported depths of transactions recorded while following the tip are
// not written with each transaction: they follow from the chain position
// on disk. A transaction first placed in a block above the last written
// one is stored with EventDepth followTip; every later write of the
// position (Checkpoint) writes, in the same store transaction, the
// confirmed events due at it, so the depths reported of such a
// transaction are exactly the configured depths up to its depth at the
// written position (depth 1 at least: the block's own write reports it).
// A write that would break that (a lower position after a rollback, a
// position written without its events by flushTip) first stores the
// transaction's reported depth explicitly (pinFollowers). The depths
// configured when such transactions were stored are kept in the settings
// (metaEventDepths); a wallet opened with other depths stores every such
// transaction's depth explicitly before anything else (pinAllFollowers),
// so that each configured depth is reported as it was before: late, if a
// depth added is already passed. Only a node that alone writes the wallet
// stores transactions so; an explicit depth (0 or more) is kept and
// written as before.
const followTip int32 = -1

// metaEventDepths is the settings key of the configured depths the
// followTip transactions were stored under: the depths in decimal,
// ascending, separated by commas.
const metaEventDepths = "event_depths"

// depthsKey is the configured depths as metaEventDepths stores them.
func (w *Wallet) depthsKey() string {
	var b []byte
	for i, d := range w.eventDepths() {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(d), 10)
	}
	return string(b)
}

// parseDepths reads a metaEventDepths value, nil when it is not one.
func parseDepths(s string) []int32 {
	var out []int32
	for _, f := range strings.Split(s, ",") {
		d, err := strconv.ParseInt(f, 10, 32)
		if err != nil || d < 1 || (len(out) > 0 && int32(d) <= out[len(out)-1]) {
			return nil
		}
		out = append(out, int32(d))
	}
	return out
}

// derivedDepth is the deepest of depths reported for a followTip
// transaction in the block at height h when the written position is tip
// (-1: none): the deepest configured depth up to its depth there, depth 1
// counting as reached once the block is recorded.
func derivedDepth(depths []int32, h, tip int32) int32 {
	have := max(1, tip-h+1)
	var best int32
	for _, d := range depths {
		if d <= have {
			best = d
		}
	}
	return best
}

// followsTip reports whether a transaction the wallet places in the block
// at height h now is stored with a followTip depth. The caller holds c.mu.
func (w *Wallet) followsTip(h int32) bool {
	if w.noEvents || h < 0 || h <= w.chain.written {
		return false
	}
	_, shared := w.store.(SharedStore)
	return !shared
}

// pinned is a followTip transaction whose reported depth a store
// transaction writes explicitly.
type pinned struct {
	wt    *walletTx
	depth int32
}

// pinFollowers writes the reported depth of each followTip transaction at
// or below height limit whose depth the position tip (-1: none), written
// in the same store transaction, would not give: after reached (the depths
// that transaction reports) is applied. It returns them for applyPins.
// Only a lower position, or one written without the events due at it,
// pins any. The caller holds c.mu.
func (w *Wallet) pinFollowers(tx ChainStoreTx, tip, limit int32, reached map[*walletTx]int32) ([]pinned, error) {
	c := &w.chain
	if w.noEvents {
		return nil, nil
	}
	var pins []pinned
	check := func(wt *walletTx) error {
		if wt == nil || !wt.evFollow || !wt.confirmed() || wt.rec.Height > limit {
			return nil
		}
		d, ok := reached[wt]
		if !ok {
			d = wt.evDepth
		}
		if derivedDepth(w.eventDepths(), wt.rec.Height, tip) == d {
			return nil
		}
		pins = append(pins, pinned{wt, d})
		return tx.SetEventDepth(wt.rec.TxID, d)
	}
	if tip >= c.written {
		// Only a transaction short of the deepest depth can be
		// behind a higher position.
		for id := range c.evPending {
			if err := check(c.txs[id]); err != nil {
				return nil, err
			}
		}
		return pins, nil
	}
	for _, wt := range c.order {
		if err := check(wt); err != nil {
			return nil, err
		}
	}
	return pins, nil
}

// applyPins records in memory that the pinned transactions' depths are
// stored explicitly. The caller holds c.mu for writing.
func applyPins(pins []pinned) {
	for _, p := range pins {
		p.wt.evFollow = false
		p.wt.evDepth, p.wt.rec.EventDepth = p.depth, p.depth
	}
}

// pinAllFollowers stores the reported depth of every followTip
// transaction explicitly when the configured depths are not those they
// were stored under, and records the configured ones, so that their
// depths are read as before whatever is configured now. The caller holds
// c.mu for writing, or runs in loadChain's once.
func (w *Wallet) pinAllFollowers(ctx context.Context) error {
	c := &w.chain
	cur := w.depthsKey()
	if c.followDepths == cur {
		return nil
	}
	var pins []pinned
	for _, wt := range c.order {
		if wt.evFollow {
			pins = append(pins, pinned{wt, wt.evDepth})
		}
	}
	if len(pins) == 0 {
		return nil
	}
	err := w.updateChain(ctx, func(tx ChainStoreTx) error {
		for _, p := range pins {
			if err := tx.SetEventDepth(p.wt.rec.TxID, p.depth); err != nil {
				return err
			}
		}
		return tx.PutMeta(metaEventDepths, []byte(cur))
	})
	if err != nil {
		return err
	}
	applyPins(pins)
	c.followDepths = cur
	return nil
}
