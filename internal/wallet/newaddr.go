package wallet

import (
	"context"
	"sort"
	"time"

	"github.com/descwallet/descwallet/internal/address"
)

// NewAddress hands out the next address of the active descriptor of type
// typ (Bech32 when typ is "") on the receive side (internal false, with an
// address book entry carrying label) or the change side (internal true, no
// entry). typ is checked here so that the errors come in Core's order.
func (w *Wallet) NewAddress(ctx context.Context, internal bool, typ string, label *string) (string, error) {
	if typ == "" {
		return w.NewAddressOfType(ctx, internal, nil, label)
	}
	return w.NewAddressOfType(ctx, internal, &typ, label)
}

// NewAddressOfType is NewAddress with the address type as given by the
// client: nil means the default (Bech32), and any given string, the empty
// one included, must name a type.
func (w *Wallet) NewAddressOfType(ctx context.Context, internal bool, typ *string, label *string) (string, error) {
	w.importMu.Lock()
	defer w.importMu.Unlock()

	w.mu.RLock()
	any := false
	for k := range w.active {
		if k.internal == internal {
			any = true
			break
		}
	}
	w.mu.RUnlock()
	if !any {
		return "", walletErr(ErrWallet, "Error: This wallet has no available keys")
	}
	if label != nil && *label == "*" {
		return "", walletErr(ErrInvalidLabel, "Invalid label name")
	}
	// Core's defaults: -addresstype for receiving, -changetype (else
	// -addresstype) for change.
	opt := w.Options()
	ot := opt.DefaultAddressType()
	if internal && opt.ChangeType != nil {
		ot = *opt.ChangeType
	}
	if typ != nil {
		t, ok := ParseOutputType(*typ)
		if !ok {
			return "", walletErr(ErrInvalidAddressOrKey, "Unknown address type '"+*typ+"'")
		}
		ot = t
	}
	w.mu.RLock()
	wd := w.active[activeKey{ot, internal}]
	w.mu.RUnlock()
	if wd == nil {
		return "", walletErr(ErrKeypoolRanOut, "Error: No "+string(ot)+" addresses available.")
	}
	if !wd.rec.Ranged {
		return "", walletErr(ErrKeypoolRanOut, "Error: Keypool ran out, please call keypoolrefill first")
	}
	if _, shared := w.store.(SharedStore); shared {
		return w.newAddressShared(ctx, wd, ot, internal, label)
	}
	n := wd.rec.NextIndex
	if n > maxIndex {
		return "", walletErr(ErrKeypoolRanOut, "Error: Keypool ran out, please call keypoolrefill first")
	}
	outs, err := wd.expand(uint32(n))
	if err != nil || len(outs) == 0 {
		if err := w.EnsureUnlocked(); err != nil {
			// Deriving needs hardened private steps.
			return "", err
		}
		return "", walletErr(ErrKeypoolRanOut, "Error: Keypool ran out, please call keypoolrefill first")
	}
	spk := outs[0].ScriptPubKey
	addr, ok := address.Encode(spk, w.cfg.Net)
	if !ok {
		return "", walletErr(ErrKeypoolRanOut, "Error: No "+string(ot)+" addresses available.")
	}

	// Top up to n + keypool before handing out n.
	end := wd.rec.RangeEnd
	if t := n + int64(w.cfg.Keypool); t > end {
		end = t
	}
	if end > maxIndex+1 {
		end = maxIndex + 1
	}
	derivedAt := time.Now()
	blocks, err := deriveDigests(ctx, wd.d, wd.cache, wd.rec.RangeEnd, end, wd.perIndex)
	if err == nil && len(blocks) > 0 {
		w.logDerived("key pool", wd.rec.ID, wd.rec.RangeEnd, end, blocks, time.Since(derivedAt))
	}
	if err != nil {
		if err := w.EnsureUnlocked(); err != nil {
			// Topping up needs hardened private steps.
			return "", err
		}
		return "", walletErr(ErrKeypoolRanOut, "Error: Keypool ran out, please call keypoolrefill first")
	}
	var entry *LabelRecord
	if !internal {
		l := ""
		if label != nil {
			l = *label
		}
		entry = &LabelRecord{Script: spk, Label: &l, Purpose: purposeReceive}
	}
	err = w.store.Update(ctx, func(tx StoreTx) error {
		if err := tx.SetNextIndex(wd.rec.ID, n+1, end); err != nil {
			return err
		}
		for _, c := range chunkRecords(wd.rec.ID, blocks) {
			if err := tx.PutChunk(c); err != nil {
				return err
			}
		}
		if entry != nil {
			return tx.PutLabel(*entry)
		}
		return nil
	})
	if err != nil {
		return "", storageErr(err)
	}
	w.mu.Lock()
	wd.rec.NextIndex = n + 1
	wd.rec.RangeEnd = end
	w.indexBlocks(wd, blocks)
	if entry != nil {
		w.book[string(spk)] = &bookEntry{label: entry.Label, purpose: entry.Purpose}
	}
	w.mu.Unlock()
	w.debug(w.cfg.Log, "address handed out", "type", string(ot), "internal", internal,
		"descriptor", descTag(wd.rec.ID), "index", n)
	return addr, nil
}

// KeypoolRefill derives every active ranged descriptor up to its next index
// plus size (the wallet's keypool when size is 0).
func (w *Wallet) KeypoolRefill(ctx context.Context, size int64) error {
	w.importMu.Lock()
	defer w.importMu.Unlock()
	asked := size
	if size <= 0 {
		size = int64(w.cfg.Keypool)
	}
	w.mu.RLock()
	var ds []*walletDesc
	for _, wd := range w.active {
		ds = append(ds, wd)
	}
	w.mu.RUnlock()
	sort.Slice(ds, func(i, j int) bool { return ds[i].slot < ds[j].slot })
	for _, wd := range ds {
		end := wd.rec.NextIndex + size
		if end > maxIndex+1 {
			end = maxIndex + 1
		}
		if end <= wd.rec.RangeEnd {
			continue
		}
		blocks, err := deriveDigests(ctx, wd.d, wd.cache, wd.rec.RangeEnd, end, wd.perIndex)
		if err != nil {
			return walletErr(ErrWallet, "Error refreshing keypool.")
		}
		err = w.store.Update(ctx, func(tx StoreTx) error {
			if err := tx.SetNextIndex(wd.rec.ID, wd.rec.NextIndex, end); err != nil {
				return err
			}
			for _, c := range chunkRecords(wd.rec.ID, blocks) {
				if err := tx.PutChunk(c); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return storageErr(err)
		}
		w.mu.Lock()
		wd.rec.RangeEnd = end
		w.indexBlocks(wd, blocks)
		w.mu.Unlock()
	}
	// As Core, a size asked for must be there afterwards, counted over
	// all active descriptors: a wallet without any fails.
	if asked > 0 {
		var pool int64
		w.mu.RLock()
		for _, wd := range ds {
			pool += int64(wd.rec.RangeEnd - wd.rec.NextIndex)
		}
		w.mu.RUnlock()
		if pool < asked {
			return walletErr(ErrWallet, "Error refreshing keypool.")
		}
	}
	return nil
}

// DescriptorInfo is one entry of listdescriptors.
type DescriptorInfo struct {
	Desc      string
	Timestamp int64
	Active    bool
	// Internal is set only for active descriptors.
	Internal *bool
	// Range is [start, end] inclusive for ranged descriptors.
	Range *[2]int64
	// Next is the next index for ranged descriptors.
	Next *int64
}

// ListDescriptors returns the wallet's descriptors sorted by the string
// shown; with private set, in their private form (Core's -4 when one has
// no private form).
func (w *Wallet) ListDescriptors(private bool) ([]DescriptorInfo, error) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if private && w.lockedLocked() {
		return nil, unlockNeeded()
	}
	activeOf := map[*walletDesc]activeKey{}
	for k, wd := range w.active {
		activeOf[wd] = k
	}
	out := make([]DescriptorInfo, 0, len(w.descs))
	for _, wd := range w.descs {
		in := DescriptorInfo{Desc: wd.normalized, Timestamp: wd.rec.Timestamp}
		if private {
			if !w.PrivateKeysEnabled() || !wd.d.HasPrivateForm() {
				return nil, walletErr(ErrWallet, "Can't get descriptor string.")
			}
			s, _ := wd.d.PrivateString()
			in.Desc = s
		}
		if k, ok := activeOf[wd]; ok {
			in.Active = true
			internal := k.internal
			in.Internal = &internal
		}
		if wd.rec.Ranged {
			in.Range = &[2]int64{wd.rec.RangeStart, wd.rec.RangeEnd - 1}
			next := wd.rec.NextIndex
			in.Next = &next
		}
		out = append(out, in)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Desc < out[j].Desc })
	return out, nil
}

// SetLabel gives the address of script the label (a receive entry when the
// address is the wallet's, a send entry otherwise).
func (w *Wallet) SetLabel(ctx context.Context, script []byte, label string) error {
	if label == "*" {
		return walletErr(ErrInvalidLabel, "Invalid label name")
	}
	w.importMu.Lock()
	defer w.importMu.Unlock()
	purpose := purposeSend
	if w.IsMine(script) {
		purpose = purposeReceive
	}
	l := label
	rec := LabelRecord{Script: script, Label: &l, Purpose: purpose}
	if err := w.store.Update(ctx, func(tx StoreTx) error { return tx.PutLabel(rec) }); err != nil {
		return storageErr(err)
	}
	w.mu.Lock()
	w.book[string(script)] = &bookEntry{label: rec.Label, purpose: purpose}
	w.mu.Unlock()
	return nil
}

// Labels returns the labels in use, sorted, optionally only those of one
// purpose.
func (w *Wallet) Labels(purpose string) []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	set := map[string]bool{}
	for _, e := range w.book {
		if e.label == nil {
			continue
		}
		if purpose != "" && e.purpose != purpose {
			continue
		}
		set[*e.label] = true
	}
	out := make([]string, 0, len(set))
	for l := range set {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// AddressesByLabel returns the scripts labelled label with their purposes.
func (w *Wallet) AddressesByLabel(label string) map[string]string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	out := map[string]string{}
	for s, e := range w.book {
		if e.label != nil && *e.label == label {
			out[s] = e.purpose
		}
	}
	return out
}
