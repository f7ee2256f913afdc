package wallet

import (
	"bytes"

	"github.com/descwallet/descwallet/descriptor"
)

// ScriptOutputs returns, for each script the wallet derives, the expanded
// descriptor output (Core's signing providers of the descriptors that give
// it), whether or not the wallet is locked. Private keys, when present,
// are the wallet's: a caller that is not signing must not use them.
func (w *Wallet) ScriptOutputs(scripts [][]byte) []descriptor.Output {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var outs []descriptor.Output
	for _, s := range scripts {
		for _, m := range w.findScript(s) {
			outs = append(outs, m.out)
		}
	}
	return outs
}

// KeyOutputs returns the expanded outputs, at the derivation index a key's
// origin path ends with (index 0 for a descriptor that is not ranged), of
// the wallet's descriptors that derive one of keys: Core's signing
// provider of a public key listed in a PSBT's BIP 32 derivations. A key
// given x-only matches either parity.
func (w *Wallet) KeyOutputs(keys [][]byte, paths [][]uint32) []descriptor.Output {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var outs []descriptor.Output
	for i, key := range keys {
		for _, wd := range w.descs {
			index := uint32(0)
			if wd.rec.Ranged {
				p := paths[i]
				if len(p) == 0 || p[len(p)-1] >= 1<<31 {
					continue
				}
				index = p[len(p)-1]
				if int64(index) < wd.rec.RangeStart || int64(index) > wd.rec.RangeEnd {
					continue
				}
			}
			expanded, err := wd.expand(index)
			if err != nil {
				continue
			}
			for _, o := range expanded {
				if outputHasKey(o, key) {
					outs = append(outs, o)
				}
			}
		}
	}
	return outs
}

// outputHasKey reports whether o derives key (33 or 65 bytes, or 32 bytes
// x-only).
func outputHasKey(o descriptor.Output, key []byte) bool {
	for _, k := range o.Keys {
		if bytes.Equal(k.PubKey, key) || (len(key) == 32 && len(k.PubKey) == 33 && bytes.Equal(k.PubKey[1:], key)) {
			return true
		}
	}
	return false
}
