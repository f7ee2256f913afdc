package wallet

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/descwallet/descwallet/descriptor"
)

// setupDefaultDescriptors gives a new wallet with private keys Core's eight
// active descriptors from a fresh random seed: pkh (BIP 44), sh(wpkh)
// (BIP 49), wpkh (BIP 84) and tr (BIP 86), each on the receive (/0/*) and
// change (/1/*) side, coin type 0 on mainnet and 1 elsewhere.
func (w *Wallet) setupDefaultDescriptors(ctx context.Context) error {
	w.importMu.Lock()
	defer w.importMu.Unlock()
	return w.setupDefaultDescriptorsLocked(ctx)
}

// setupDefaultDescriptorsLocked is setupDefaultDescriptors for a caller
// holding importMu.
func (w *Wallet) setupDefaultDescriptorsLocked(ctx context.Context) error {
	seed := make([]byte, 32)
	if _, err := rand.Read(seed); err != nil {
		return &Error{Kind: ErrWallet, Err: err, Description: "Unable to generate a seed"}
	}
	xprv, ok := descriptor.MasterXprv(seed, w.cfg.Net)
	clear(seed)
	if !ok {
		return &Error{Kind: ErrWallet, Description: "Unable to generate a seed"}
	}
	coin := w.cfg.Net.HDCoinType
	templates := []struct {
		purpose int
		wrap    func(string) string
	}{
		{44, func(k string) string { return "pkh(" + k + ")" }},
		{49, func(k string) string { return "sh(wpkh(" + k + "))" }},
		{84, func(k string) string { return "wpkh(" + k + ")" }},
		{86, func(k string) string { return "tr(" + k + ")" }},
	}
	// As in Core, a freshly generated key is born now (the wall clock, not
	// the chain's median time past, online or offline): it has no history
	// before its creation.
	now := time.Now().Unix()
	var elems []ImportElement
	for _, t := range templates {
		for _, internal := range []bool{false, true} {
			side := 0
			if internal {
				side = 1
			}
			s := t.wrap(fmt.Sprintf("%s/%dh/%dh/0h/%d/*", xprv, t.purpose, coin, side))
			elems = append(elems, ImportElement{HasDesc: true, Desc: descriptor.AddChecksum(s),
				Active: true, HasInternal: true, Internal: internal, Timestamp: now})
		}
	}
	for i := range elems {
		res := w.importOne(ctx, &elems[i])
		if res.Err != nil {
			return res.Err
		}
	}
	return nil
}
