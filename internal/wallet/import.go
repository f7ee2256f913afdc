package wallet

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
)

// ImportElement is one element of an importdescriptors request, as read
// from JSON. The RPC layer records which keys were present and, for a key
// whose value has the wrong JSON type, the error that fails the whole call
// (Core reads each field only when it reaches it, so the wallet decides
// when such an error counts).
type ImportElement struct {
	HasDesc bool
	Desc    string
	Active  bool
	// HasLabel is true when the label key is present, even as null; Label
	// is nil for null.
	HasLabel bool
	Label    *string
	// HasInternal is true when the internal key is present.
	HasInternal bool
	Internal    bool
	// HasRange is true when the range key is present; RangeErr is Core's
	// per-element error for a malformed range, else RangeStart and
	// RangeEnd (inclusive) hold it.
	HasRange             bool
	RangeErr             error
	RangeStart, RangeEnd int64
	// NextIndex is the next_index value, nil when absent.
	NextIndex *int64
	// Timestamp is the effective creation time (already at least 1).
	Timestamp int64
	// RescanFrom, when not zero, is the creation time whose rescan the
	// element asks for: the transaction that stores the element also
	// records it as a pending rescan (RescanState.From), so that a crash
	// before the rescan's heights are known and recorded leaves it to be
	// resumed.
	RescanFrom int64
	// FieldErr holds whole-call errors by field name: "desc", "active",
	// "label", "internal", "range", "next_index".
	FieldErr map[string]error
	// clearBlank makes the transaction that stores the element also clear
	// the wallet's blank flag (descriptors generated from the wallet's
	// own HD key, as Core's SetupDescriptorGeneration does).
	clearBlank bool
}

// ImportResult is the outcome of one element.
type ImportResult struct {
	Success  bool
	Err      error
	Warnings []string
}

// InvalidParameter returns an ErrInvalidParameter error with Core's
// message, for range errors found by the RPC layer.
func InvalidParameter(msg string) error { return walletErr(ErrInvalidParameter, msg) }

// wholeCall wraps an error that must fail the whole importdescriptors call.
type wholeCall struct{ err error }

func (w *wholeCall) Error() string { return w.err.Error() }
func (w *wholeCall) Unwrap() error { return w.err }

// Now returns what "now" means for timestamps.
func (w *Wallet) Now() int64 { return w.cfg.Now() }

// ImportDescriptors imports the elements in order. Each element is stored
// in one transaction, on disk before the next one starts. A non-nil error
// fails the whole call; the elements before it stay imported.
func (w *Wallet) ImportDescriptors(ctx context.Context, elems []ImportElement, timestampErr func(i int) error) ([]ImportResult, error) {
	// A locked wallet refuses the whole call, even an empty one (Core's
	// EnsureWalletIsUnlocked before any element).
	release, err := w.beginDescriptorChange(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	results := make([]ImportResult, 0, len(elems))
	for i := range elems {
		if timestampErr != nil {
			if err := timestampErr(i); err != nil {
				return nil, err
			}
		}
		res := w.importOne(ctx, &elems[i])
		var wc *wholeCall
		if errors.As(res.Err, &wc) {
			return nil, wc.err
		}
		w.debug(w.cfg.Log, "import element processed", "element", i, "success", res.Err == nil,
			"warnings", len(res.Warnings))
		results = append(results, res)
	}
	return results, nil
}

func (w *Wallet) isClosed() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.closed
}

func fieldErr(e *ImportElement, name string) error {
	if err := e.FieldErr[name]; err != nil {
		return &wholeCall{err}
	}
	return nil
}

// branchPlan is one descriptor an element adds or updates.
type branchPlan struct {
	d        *descriptor.Descriptor
	id       [32]byte
	internal bool
	existing *walletDesc
	rec      DescriptorRecord
	cache    *descriptor.Cache
	perIndex int
	blocks   []derived
	// spans are ranges [lo, hi) derived while they are stored, not
	// before (a wallet whose database indexes its scripts: the range
	// streams into it, whatever its size).
	spans      [][2]int64
	normalized string
	labels     []LabelRecord
	keys       descriptor.KeyMap
	outputType OutputType
}

// importOne runs the rules of one element in Core's order.
func (w *Wallet) importOne(ctx context.Context, e *ImportElement) ImportResult {
	var warnings []string
	fail := func(err error) ImportResult {
		return ImportResult{Err: err, Warnings: warnings}
	}

	// Steps 1-2: the descriptor string, active, label.
	if !e.HasDesc {
		return fail(walletErr(ErrInvalidParameter, "Descriptor not found."))
	}
	if err := fieldErr(e, "desc"); err != nil {
		return fail(err)
	}
	if err := fieldErr(e, "active"); err != nil {
		return fail(err)
	}
	if e.HasLabel {
		if err := fieldErr(e, "label"); err != nil {
			return fail(err)
		}
		if e.Label != nil && *e.Label == "*" {
			return fail(walletErr(ErrInvalidLabel, "Invalid label name"))
		}
	}

	// Step 3: parse with a mandatory checksum.
	parsed, err := descriptor.Parse(e.Desc, w.cfg.Net, descriptor.RequireChecksum())
	if err != nil {
		return fail(&Error{Kind: ErrInvalidAddressOrKey, Err: err, Description: err.Error()})
	}
	multipath := parsed.IsMultipath()

	// Step 4: internal.
	if e.HasInternal && multipath {
		return fail(walletErr(ErrInvalidAddressOrKey, "Cannot have multipath descriptor while also specifying 'internal'"))
	}
	if e.HasInternal {
		if err := fieldErr(e, "internal"); err != nil {
			return fail(err)
		}
	}

	// Step 5: range and next_index.
	ranged := parsed.IsRange()
	var rangeStart, rangeEnd int64 // [start, end)
	if !ranged && e.HasRange {
		return fail(walletErr(ErrInvalidParameter, "Range should not be specified for an un-ranged descriptor"))
	}
	if ranged {
		if e.HasRange {
			if err := fieldErr(e, "range"); err != nil {
				return fail(err)
			}
			if e.RangeErr != nil {
				return fail(e.RangeErr)
			}
			rangeStart, rangeEnd = e.RangeStart, e.RangeEnd+1
		} else {
			warnings = append(warnings, "Range not given, using default keypool range")
			rangeStart, rangeEnd = 0, int64(w.cfg.Keypool)
		}
	}
	nextIndex := rangeStart
	if ranged && e.NextIndex != nil {
		if err := fieldErr(e, "next_index"); err != nil {
			return fail(err)
		}
		nextIndex = *e.NextIndex
		if nextIndex < rangeStart || nextIndex >= rangeEnd {
			return fail(walletErr(ErrInvalidParameter, "next_index is out of range"))
		}
	} else if ranged {
		if err := fieldErr(e, "next_index"); err != nil {
			return fail(err)
		}
	}

	// Steps 6-11.
	if e.Active && !ranged {
		return fail(walletErr(ErrInvalidParameter, "Active descriptors must be ranged"))
	}
	if multipath && e.HasLabel {
		return fail(walletErr(ErrInvalidParameter, "Multipath descriptors should not have a label"))
	}
	if ranged && e.HasLabel {
		return fail(walletErr(ErrInvalidParameter, "Ranged descriptors should not have a label"))
	}
	if e.HasInternal && e.Internal && e.HasLabel {
		return fail(walletErr(ErrInvalidParameter, "Internal addresses should not have a label"))
	}
	if e.Active && parsed.Kind() == descriptor.KindCombo {
		return fail(walletErr(ErrWallet, "Combo descriptors cannot be set to active"))
	}
	privEnabled := w.PrivateKeysEnabled()
	if !privEnabled && parsed.HasPrivateKeys() {
		return fail(walletErr(ErrWallet, "Cannot import private keys to a wallet with private keys disabled"))
	}

	// Step 12: each branch, checked, stored and activated in turn as
	// Core does: a branch that fails leaves the earlier ones imported, and
	// each branch pushes its own warnings.
	branches := parsed.Multipath()
	for bi, bd := range branches {
		cache := descriptor.NewCache()
		first := uint32(0)
		outs, err := bd.Expand(first, cache)
		if err != nil {
			return fail(walletErr(ErrWallet, "Cannot expand descriptor. Probably because of hardened derivations without private keys provided"))
		}
		if privEnabled && !bd.HasPrivateKeys() {
			return fail(walletErr(ErrWallet, "Cannot import descriptor without private keys to a wallet with private keys enabled"))
		}
		if privEnabled && !knowsEveryKey(outs) {
			warnings = append(warnings, "Not all private keys provided. Some wallet functionality may return unexpected errors")
		}
		clearPrivKeys(outs)
		internal := e.Internal
		if multipath {
			internal = len(branches) == 2 && bi == 1
		}
		p := &branchPlan{d: bd, id: bd.ID(), internal: internal, cache: cache,
			perIndex: len(outs), keys: bd.PrivateKeys(), outputType: OutputType(bd.OutputType())}
		if perr := w.planBranch(ctx, e, p, ranged, rangeStart, rangeEnd, nextIndex); perr != nil {
			if errors.Is(perr, context.Canceled) || errors.Is(perr, context.DeadlineExceeded) {
				return fail(perr)
			}
			var we *Error
			if errors.As(perr, &we) && we.Kind == ErrStorage {
				return fail(perr)
			}
			return fail(walletErr(ErrWallet, "Could not add descriptor '"+e.Desc+"': "+perr.Error()))
		}
		if err := w.commitImport(ctx, e, []*branchPlan{p}); err != nil {
			return fail(err)
		}
		if e.Active && p.outputType == "" {
			warnings = append(warnings, "Unknown output type, cannot set descriptor to active.")
		}
	}
	return ImportResult{Success: true, Warnings: warnings}
}

// planBranch works out what adding one branch changes: the record, the
// indexes to derive (only those not derived yet), the labels.
func (w *Wallet) planBranch(ctx context.Context, e *ImportElement, p *branchPlan, ranged bool, rangeStart, rangeEnd, nextIndex int64) error {
	w.mu.RLock()
	existing := w.byID[p.id]
	w.mu.RUnlock()
	p.existing = existing

	rec := DescriptorRecord{ID: p.id, Public: p.d.Public().String(), Ranged: ranged,
		Timestamp: e.Timestamp}
	if existing != nil {
		rec.Seq = existing.rec.Seq
		// Keep the keys the wallet has; add the new ones.
		merged := existing.d.PrivateKeys()
		for k, v := range p.keys {
			merged[k] = v
		}
		p.keys = merged
		p.d = p.d.WithPrivateKeys(merged)
		if existing.cache != nil {
			p.cache = existing.cache
		}
		if existing.rec.Ranged && ranged {
			if rangeStart > existing.rec.RangeStart || rangeEnd < existing.rec.RangeEnd {
				return fmt.Errorf("new range must include current range = [%d,%d]",
					existing.rec.RangeStart, existing.rec.RangeEnd-1)
			}
		}
	}
	derivedAt := time.Now()
	if ranged {
		end := rangeEnd
		if t := nextIndex + int64(w.cfg.Keypool); t > end {
			end = t
		}
		if end > maxIndex+1 {
			end = maxIndex + 1
		}
		rec.RangeStart, rec.RangeEnd, rec.NextIndex = rangeStart, end, nextIndex
		// Derive only what is not derived yet.
		var blocks []derived
		if w.ScriptsInStore() {
			if existing != nil && existing.rec.Ranged {
				p.spans = [][2]int64{{rangeStart, existing.rec.RangeStart}, {existing.rec.RangeEnd, end}}
			} else {
				p.spans = [][2]int64{{rangeStart, end}}
			}
		} else if existing != nil && existing.rec.Ranged {
			lo, err := deriveDigests(ctx, p.d, p.cache, rangeStart, existing.rec.RangeStart, p.perIndex)
			if err != nil {
				return err
			}
			hi, err := deriveDigests(ctx, p.d, p.cache, existing.rec.RangeEnd, end, p.perIndex)
			if err != nil {
				return err
			}
			blocks = append(lo, hi...)
		} else {
			b, err := deriveDigests(ctx, p.d, p.cache, rangeStart, end, p.perIndex)
			if err != nil {
				return err
			}
			blocks = b
		}
		p.blocks = blocks
	} else if existing == nil {
		b, err := deriveDigests(ctx, p.d, p.cache, 0, 1, p.perIndex)
		if err != nil {
			return err
		}
		p.blocks = b
	}
	if p.spans == nil {
		w.logDerived("import", p.id, rec.RangeStart, rec.RangeEnd, p.blocks, time.Since(derivedAt))
	}
	if s, err := p.d.NormalizedString(p.cache); err == nil {
		p.normalized = s
	} else {
		p.normalized = rec.Public
	}
	cacheBytes, err := p.cache.MarshalBinary()
	if err != nil {
		return err
	}
	rec.Cache = cacheBytes
	p.rec = rec

	// Address book entries: non-ranged, non-internal descriptors label
	// every script that has an address.
	if !ranged && !p.internal {
		label := ""
		if e.Label != nil {
			label = *e.Label
		}
		outs, err := p.d.Expand(0, p.cache)
		if err != nil {
			return err
		}
		for _, o := range outs {
			if _, ok := address.Encode(o.ScriptPubKey, w.cfg.Net); !ok {
				continue
			}
			l := label
			p.labels = append(p.labels, LabelRecord{Script: o.ScriptPubKey, Label: &l, Purpose: purposeReceive})
		}
	}
	return nil
}

// commitImport writes the branches of one element in one transaction and
// then updates the in-memory state.
func (w *Wallet) commitImport(ctx context.Context, e *ImportElement, plans []*branchPlan) error {
	type activation struct {
		set   bool
		key   activeKey
		clear []activeKey
	}
	acts := make([]activation, len(plans))
	w.mu.RLock()
	curActive := make(map[activeKey]*walletDesc, len(w.active))
	for k, v := range w.active {
		curActive[k] = v
	}
	w.mu.RUnlock()
	// Work out activation against the state as it evolves through the
	// branches, as Core activates them one after the other.
	owner := map[activeKey][32]byte{}
	for k, v := range curActive {
		owner[k] = v.rec.ID
	}
	for i, p := range plans {
		if p.outputType == "" {
			continue
		}
		k := activeKey{p.outputType, p.internal}
		opp := activeKey{p.outputType, !p.internal}
		if e.Active {
			acts[i].set = true
			acts[i].key = k
			owner[k] = p.id
			if id, ok := owner[opp]; ok && id == p.id {
				acts[i].clear = append(acts[i].clear, opp)
				delete(owner, opp)
			}
		} else if id, ok := owner[k]; ok && id == p.id {
			acts[i].clear = append(acts[i].clear, k)
			delete(owner, k)
		}
	}

	// Private keys are sealed before they reach the database when the
	// wallet is encrypted.
	secrets := make([][]SecretRecord, len(plans))
	for i, p := range plans {
		recs, err := w.sealRecords(secretRecords(p.id, p.d, p.keys))
		if err != nil {
			return err
		}
		secrets[i] = recs
	}

	// The pending rescan, recorded with the descriptors.
	c := &w.chain
	var pending *RescanState
	if e.RescanFrom > 0 {
		if err := w.loadChain(ctx); err != nil {
			return err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		p := RescanState{Next: 1, Stop: 0}
		if c.rescan != nil {
			p = *c.rescan
		}
		if p.From <= 0 || e.RescanFrom < p.From {
			p.From = e.RescanFrom
			pending = &p
		}
	}

	seqs := make([]int64, len(plans))
	// A derivation that fails while streaming into the transaction is
	// the import's error as it would have been before it.
	var deriveErr error
	w.mu.RLock()
	flags := w.flags
	w.mu.RUnlock()
	clearBlank := e.clearBlank && flags&FlagBlankWallet != 0
	err := w.store.Update(ctx, func(tx StoreTx) error {
		if clearBlank {
			var b [8]byte
			binary.BigEndian.PutUint64(b[:], flags&^FlagBlankWallet)
			if err := tx.PutMeta(metaFlags, b[:]); err != nil {
				return err
			}
		}
		if pending != nil {
			if err := tx.PutMeta(metaRescanFrom, encodeRescanFrom(pending.From)); err != nil {
				return err
			}
		}
		for i, p := range plans {
			seq, err := tx.PutDescriptor(p.rec)
			if err != nil {
				return err
			}
			seqs[i] = seq
			for _, s := range secrets[i] {
				if err := tx.PutSecret(s); err != nil {
					return err
				}
			}
			for _, c := range chunkRecords(p.id, p.blocks) {
				if err := tx.PutChunk(c); err != nil {
					return err
				}
			}
			for _, s := range p.spans {
				t0 := time.Now()
				var storeErr error
				err := streamDigests(ctx, p.d, p.cache, s[0], s[1], p.perIndex, func(b derived) error {
					storeErr = tx.PutChunk(chunkRecord(p.id, b))
					return storeErr
				})
				if err != nil {
					if storeErr == nil {
						deriveErr = err
					}
					return err
				}
				w.debug(w.cfg.DescLog, "descriptor range expanded into the database", "for", "import",
					"descriptor", descTag(p.id), "start", s[0], "end", s[1], "took", time.Since(t0).Round(time.Microsecond))
			}
			for _, l := range p.labels {
				if err := tx.PutLabel(l); err != nil {
					return err
				}
			}
			for _, k := range acts[i].clear {
				if err := tx.ClearActive(string(k.outputType), k.internal); err != nil {
					return err
				}
			}
			if acts[i].set {
				if err := tx.SetActive(ActiveRecord{OutputType: string(acts[i].key.outputType),
					Internal: acts[i].key.internal, DescriptorID: p.id}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if deriveErr != nil {
		return deriveErr
	}
	if err != nil {
		return storageErr(err)
	}
	if pending != nil {
		c.rescan = pending
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if clearBlank {
		w.flags &^= FlagBlankWallet
	}
	for i, p := range plans {
		p.rec.Seq = seqs[i]
		wd := p.existing
		if wd == nil {
			wd = &walletDesc{slot: uint32(len(w.descs))}
			w.descs = append(w.descs, wd)
			w.byID[p.id] = wd
		} else if t := wd.rec.Timestamp; w.replacedBirth == 0 || t < w.replacedBirth {
			w.replacedBirth = t
		}
		wd.rec = p.rec
		wd.d = p.d
		wd.cache = p.cache
		wd.outputType = p.outputType
		wd.perIndex = p.perIndex
		wd.normalized = p.normalized
		wd.expansions.clear()
		w.indexBlocks(wd, p.blocks)
		if x, ok := w.index.(*dbIndex); ok && len(p.spans) > 0 {
			x.forgetAll()
		}
		for _, l := range p.labels {
			w.book[string(l.Script)] = &bookEntry{label: l.Label, purpose: l.Purpose}
		}
		for _, k := range acts[i].clear {
			delete(w.active, k)
		}
		if acts[i].set {
			w.active[acts[i].key] = wd
		}
	}
	return nil
}

// knowsEveryKey is Core's test before the "Not all private keys provided"
// warning: the expansion at index 0 met at least one private key and has a
// private key for every public key it met. Keys are matched by key, not by
// key expression, so an xpub that is a child of an xprv of the same
// descriptor counts as known.
func knowsEveryKey(outs []descriptor.Output) bool {
	some := false
	for _, o := range outs {
		for _, k := range o.Keys {
			if k.PrivKey == nil {
				return false
			}
			some = true
		}
	}
	return some
}

// clearPrivKeys zeroes the private keys an expansion returned.
func clearPrivKeys(outs []descriptor.Output) {
	for _, o := range outs {
		for _, k := range o.Keys {
			clear(k.PrivKey)
		}
	}
}

// beginDescriptorChange starts a change of the wallet's descriptors: it
// takes the wallet's exclusive lock (imports of nodes serving the wallet
// together run one at a time) and importMu, and checks that the wallet is
// open and unlocked. The returned function releases both locks.
func (w *Wallet) beginDescriptorChange(ctx context.Context) (func(), error) {
	release, err := w.exclusive(ctx)
	if err != nil {
		return nil, err
	}
	w.importMu.Lock()
	done := func() {
		w.importMu.Unlock()
		release()
	}
	if w.isClosed() {
		done()
		return nil, walletErr(ErrNotFound, "Requested wallet does not exist or is not loaded")
	}
	if err := w.EnsureUnlocked(); err != nil {
		done()
		return nil, err
	}
	return done, nil
}
