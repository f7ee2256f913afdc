package descriptor

import (
	"github.com/descwallet/descwallet/internal/musig"
)

// aggregate returns the BIP 327 aggregate (33-byte compressed) of the
// participants' keys, sorted with KeySort first as BIP 390 requires.
func aggregate(keys [][]byte) ([]byte, error) {
	agg, err := musig.KeyAgg(musig.Sort(keys))
	if err != nil {
		return nil, makeError(ErrDerivation, "musig(): "+err.Error())
	}
	return agg.SerializeCompressed(), nil
}

// aggregateKey returns the key expression of the aggregate when the
// participants are not ranged: a constant key, or with a derivation path a
// BIP 32 key over the BIP 328 synthetic xpub. It is computed once.
func (k *musigKey) aggregateKey(e *env) (keyExpr, error) {
	e.memo.mu.Lock()
	a := e.memo.musig[k.idx]
	e.memo.mu.Unlock()
	if a != nil {
		return a, nil
	}
	keys := make([][]byte, len(k.parts))
	for i, p := range k.parts {
		pub, err := p.derive(0, e, newCollector())
		if err != nil {
			return nil, err
		}
		keys[i] = pub
	}
	agg, err := aggregate(keys)
	if err != nil {
		return nil, err
	}
	if k.derive_ != nonRanged || len(k.path) > 0 {
		x := &extKey{chain: musig.SyntheticChainCode}
		copy(x.pub[:], agg)
		a = &bip32Key{idx: k.idx, root: x, rootFP: x.fingerprint(), path: k.path, derive_: k.derive_}
	} else {
		a = &constKey{idx: k.idx, pub: agg}
	}
	e.memo.mu.Lock()
	e.memo.musig[k.idx] = a
	e.memo.mu.Unlock()
	return a, nil
}

// derive computes the aggregate key of the participants at pos and, with a
// derivation path, the child of its synthetic xpub. The participants' keys
// and the aggregate (with its own fingerprint as origin) are recorded.
func (k *musigKey) derive(pos uint32, e *env, out *collector) ([]byte, error) {
	if k.paths() > 1 {
		return nil, makeError(ErrMultipath, "cannot expand a multipath descriptor; expand its branches")
	}
	ranged := false
	for _, p := range k.parts {
		ranged = ranged || p.isRange()
	}
	var agg keyExpr
	if !ranged {
		a, err := k.aggregateKey(e)
		if err != nil {
			return nil, err
		}
		agg = a
	}
	keys := make([][]byte, len(k.parts))
	for i, p := range k.parts {
		pub, err := p.derive(pos, e, out)
		if err != nil {
			return nil, err
		}
		keys[i] = pub
	}
	if agg != nil {
		noKeys := &env{net: e.net, cache: e.cache, memo: e.memo}
		return agg.derive(pos, noKeys, out)
	}
	pub, err := aggregate(keys)
	if err != nil {
		return nil, err
	}
	c := &constKey{idx: k.idx, pub: pub}
	return c.derive(0, &env{net: e.net}, out)
}
