package wallet

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/descwallet/descwallet/descriptor"
)

// HDKeyUse is one descriptor that uses an HD key (an element of
// gethdkeys' "descriptors").
type HDKeyUse struct {
	// Desc is the descriptor's public form, as listdescriptors shows it.
	Desc   string
	Active bool
	// HasPrivate reports whether this descriptor holds the key's private
	// key.
	HasPrivate bool
}

// HDKeyInfo is one BIP 32 key of the wallet's descriptors (an entry of
// gethdkeys).
type HDKeyInfo struct {
	Xpub       string
	HasPrivate bool
	// Xprv is the extended private key; set only when asked for. It is a
	// secret: it goes to the client and nowhere else.
	Xprv        string
	Descriptors []HDKeyUse
	key         descriptor.HDKey
}

// errNoXprv is Core's answer when gethdkeys is asked for private keys the
// wallet does not hold for some key: its std::map::at throws, and the RPC
// server turns the exception's text into RPC_MISC_ERROR.
var errNoXprv = walletErr(ErrMisc, "map::at")

// HDKeys lists the wallet's BIP 32 keys (the extended key each key
// expression of its descriptors is written with) with the descriptors using
// them, in Core's order: keys by public key and chain code, each key's
// descriptors by string. activeOnly looks at the active descriptors only;
// private adds each key's xprv (Core's -13 when the wallet is locked, and
// the -1 of Core's failing map lookup when some key has no private key in
// the wallet).
func (w *Wallet) HDKeys(ctx context.Context, activeOnly, private bool) ([]HDKeyInfo, error) {
	// Holding importMu keeps the wallet from being locked or unlocked
	// meanwhile.
	w.importMu.Lock()
	defer w.importMu.Unlock()
	if private {
		if err := w.EnsureUnlocked(); err != nil {
			return nil, err
		}
	}
	// A locked wallet has dropped its private keys from memory; which
	// keys it holds is read from the ids of its sealed records.
	var stored map[[32]byte]map[descriptor.KeyID]bool
	if w.IsLocked() {
		var err error
		if stored, err = w.storedKeyIDs(ctx); err != nil {
			return nil, err
		}
	}

	w.mu.RLock()
	defer w.mu.RUnlock()
	active := map[*walletDesc]bool{}
	for _, wd := range w.active {
		active[wd] = true
	}
	var out []*HDKeyInfo
	find := func(h descriptor.HDKey) *HDKeyInfo {
		i := sort.Search(len(out), func(i int) bool { return descriptor.CompareHDKeys(&out[i].key, &h) >= 0 })
		if i < len(out) && descriptor.CompareHDKeys(&out[i].key, &h) == 0 {
			return out[i]
		}
		e := &HDKeyInfo{Xpub: h.Xpub, key: h}
		out = append(out, nil)
		copy(out[i+1:], out[i:])
		out[i] = e
		return e
	}
	for _, wd := range w.descs {
		if activeOnly && !active[wd] {
			continue
		}
		for _, h := range wd.d.HDKeys() {
			e := find(h)
			has := h.HasPrivate || stored[wd.rec.ID][h.ID]
			e.Descriptors = append(e.Descriptors, HDKeyUse{Desc: wd.normalized, Active: active[wd], HasPrivate: has})
			e.HasPrivate = e.HasPrivate || has
			if private && e.Xprv == "" && h.HasPrivate {
				e.Xprv, _ = wd.d.HDXprv(&h)
			}
		}
	}
	res := make([]HDKeyInfo, len(out))
	for i, e := range out {
		if private && e.Xprv == "" {
			return nil, errNoXprv
		}
		// Core keeps each key's descriptors in a set of (string,
		// active, has private key).
		ds := e.Descriptors
		sort.SliceStable(ds, func(a, b int) bool { return useLess(&ds[a], &ds[b]) })
		e.Descriptors = ds[:0]
		for j := range ds {
			if j > 0 && ds[j] == ds[j-1] {
				continue
			}
			e.Descriptors = append(e.Descriptors, ds[j])
		}
		res[i] = *e
	}
	return res, nil
}

func useLess(a, b *HDKeyUse) bool {
	if a.Desc != b.Desc {
		return a.Desc < b.Desc
	}
	if a.Active != b.Active {
		return !a.Active
	}
	return !a.HasPrivate && b.HasPrivate
}

// storedKeyIDs returns the ids of the private keys stored for each
// descriptor (sealed or not).
func (w *Wallet) storedKeyIDs(ctx context.Context) (map[[32]byte]map[descriptor.KeyID]bool, error) {
	out := map[[32]byte]map[descriptor.KeyID]bool{}
	err := w.store.Update(ctx, func(tx StoreTx) error {
		recs, err := tx.Secrets()
		if err != nil {
			return err
		}
		for _, r := range recs {
			wipe(r.Secret)
			if len(r.KeyID) != len(descriptor.KeyID{}) {
				continue
			}
			m := out[r.DescriptorID]
			if m == nil {
				m = map[descriptor.KeyID]bool{}
				out[r.DescriptorID] = m
			}
			m[descriptor.KeyID(r.KeyID)] = true
		}
		return nil
	})
	if err != nil {
		return nil, storageErr(err)
	}
	return out, nil
}

// descriptorTemplates are the descriptors Core generates from an HD key for
// each output type: purpose and the script around the key.
var descriptorTemplates = map[OutputType]struct {
	purpose int
	format  string
}{
	Legacy:     {44, "pkh(%s)"},
	P2SHSegwit: {49, "sh(wpkh(%s))"},
	Bech32:     {84, "wpkh(%s)"},
	Bech32m:    {86, "tr(%s)"},
}

// walletDescriptor returns Core's descriptor of output type typ on the
// receive or change side for the extended key key (an xpub or an xprv):
// purpose'/coin'/0'/side/*.
func (w *Wallet) walletDescriptor(key string, typ OutputType, internal bool) string {
	t := descriptorTemplates[typ]
	side := 0
	if internal {
		side = 1
	}
	path := fmt.Sprintf("%s/%dh/%dh/0h/%d/*", key, t.purpose, w.cfg.Net.HDCoinType, side)
	return descriptor.AddChecksum(fmt.Sprintf(t.format, path))
}

// CreateWalletDescriptor adds the active descriptors of output type typ
// made from one of the wallet's HD keys (Core's createwalletdescriptor):
// the receive and change ones, or only the side internal names. hdkey
// names the key (an xpub); nil takes the one key of the active
// descriptors. Descriptors the wallet has already are left out (Core's -4
// when that leaves none). The new descriptors, their keys, their scripts,
// their activation and the end of the blank flag are written in one
// transaction. It returns their public forms, as listdescriptors shows
// them.
func (w *Wallet) CreateWalletDescriptor(ctx context.Context, typ OutputType, internal *bool, hdkey *string) ([]string, error) {
	if _, ok := descriptorTemplates[typ]; !ok {
		return nil, walletErr(ErrInvalidAddressOrKey, "Unknown address type '"+string(typ)+"'")
	}
	sides := []bool{false, true}
	if internal != nil {
		sides = []bool{*internal}
	}
	release, err := w.beginDescriptorChange(ctx)
	if err != nil {
		return nil, err
	}
	defer release()

	// The HD key, and its private key from whichever descriptor holds
	// it (Core's GetKey).
	var xpub descriptor.HDKey
	w.mu.RLock()
	if hdkey == nil {
		var keys []descriptor.HDKey
		for _, wd := range w.active {
			for _, h := range wd.d.HDKeys() {
				dup := false
				for i := range keys {
					dup = dup || descriptor.CompareHDKeys(&keys[i], &h) == 0
				}
				if !dup {
					keys = append(keys, h)
				}
			}
		}
		if len(keys) != 1 {
			w.mu.RUnlock()
			return nil, walletErr(ErrInvalidAddressOrKey, "Unable to determine which HD key to use from active descriptors. Please specify with 'hdkey'")
		}
		xpub = keys[0]
	} else {
		h, ok := descriptor.ParseXpub(*hdkey, w.cfg.Net)
		if !ok {
			w.mu.RUnlock()
			return nil, walletErr(ErrInvalidAddressOrKey, "Unable to parse HD key. Please provide a valid xpub")
		}
		xpub = h
	}
	var priv descriptor.PrivateKey
	found := false
	for _, wd := range w.descs {
		if priv, found = wd.d.PrivateKey(xpub.ID); found {
			break
		}
	}
	w.mu.RUnlock()
	if !found {
		return nil, walletErr(ErrInvalidAddressOrKey, "Private key for "+xpub.Xpub+" is not known")
	}
	xprv, ok := descriptor.ExtendXprv(xpub.Xpub, &priv, w.cfg.Net)
	clear(priv.Key[:])
	if !ok {
		return nil, walletErr(ErrInvalidAddressOrKey, "Private key for "+xpub.Xpub+" is not known")
	}

	// One element for every side: Core generates each descriptor now,
	// with the key pool as its range.
	e := &ImportElement{HasDesc: true, Active: true, HasInternal: true, Timestamp: time.Now().Unix(),
		clearBlank: true}
	var plans []*branchPlan
	for _, side := range sides {
		d, err := descriptor.Parse(w.walletDescriptor(xprv, typ, side), w.cfg.Net)
		if err != nil {
			// Never quote the error: it could hold the key.
			return nil, walletErr(ErrWallet, "Cannot generate a descriptor from the HD key")
		}
		id := d.ID()
		w.mu.RLock()
		_, exists := w.byID[id]
		w.mu.RUnlock()
		if exists {
			continue
		}
		cache := descriptor.NewCache()
		outs, err := d.Expand(0, cache)
		if err != nil {
			return nil, walletErr(ErrWallet, "Cannot expand descriptor. Probably because of hardened derivations without private keys provided")
		}
		clearPrivKeys(outs)
		p := &branchPlan{d: d, id: id, internal: side, cache: cache, perIndex: len(outs),
			keys: d.PrivateKeys(), outputType: typ}
		e.Internal = side
		if err := w.planBranch(ctx, e, p, true, 0, 0, 0); err != nil {
			if we, ok := err.(*Error); ok {
				return nil, we
			}
			return nil, &Error{Kind: ErrWallet, Err: err, Description: "Cannot generate a descriptor from the HD key"}
		}
		plans = append(plans, p)
	}
	if len(plans) == 0 {
		return nil, walletErr(ErrWallet, "Descriptor already exists")
	}
	if err := w.commitImport(ctx, e, plans); err != nil {
		return nil, err
	}
	w.debug(w.cfg.Log, "wallet descriptors created", "type", string(typ), "count", len(plans))
	out := make([]string, len(plans))
	for i, p := range plans {
		out[i] = p.normalized
	}
	return out, nil
}
