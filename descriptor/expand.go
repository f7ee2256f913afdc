package descriptor

import (
	"context"
	"runtime"

	"github.com/descwallet/descwallet/internal/safego"
	"github.com/descwallet/descwallet/internal/script"
)

// Key is a public key met while expanding a descriptor at one index.
type Key struct {
	// PubKey is the serialized key as derived: 33 bytes compressed or 65
	// uncompressed. Keys used x-only (in tr()) are still 33 bytes here; a
	// key written x-only in the descriptor has the 02 prefix.
	PubKey []byte
	// Origin is the key's origin: the explicit [fingerprint/path] joined
	// with the derivation steps, or for a plain key its own fingerprint and
	// an empty path.
	Origin KeyOrigin
	// PrivKey is the 32-byte private key when the descriptor knows it.
	PrivKey []byte
}

// Output is one scriptPubKey of a descriptor at an index, with everything
// needed to solve and sign for it.
type Output struct {
	ScriptPubKey []byte
	// RedeemScript is the P2SH redeem script (nil unless inside sh()).
	RedeemScript []byte
	// WitnessScript is the P2WSH witness script (nil unless inside wsh()).
	WitnessScript []byte
	// Taproot is the spend data of tr() and rawtr() outputs.
	Taproot *Taproot
	// Keys are all public keys of the expansion with their origins.
	Keys []Key
	// Scripts are all scripts met by their HASH160 (redeem and witness
	// scripts, combo()'s P2WPKH script).
	Scripts map[[20]byte][]byte
	// Trees holds the taproot spend data met, by output key.
	Trees map[[32]byte]*Taproot
}

// Expand returns the outputs of the descriptor at index (ignored when the
// descriptor is not ranged): one for most descriptors, up to four for
// combo(). cache may be nil; when given, derived xpubs are read from it and
// written to it (Core's read and write caches in one), so that a later
// expansion without private keys can go past hardened steps.
//
// Expanding a key with hardened steps needs its private key or a filled
// cache: the error is then ErrHardenedFromPublic with Core's message
// "Cannot derive script without private keys".
func (d *Descriptor) Expand(index uint32, cache *Cache) ([]Output, error) {
	if len(d.branches) > 0 {
		return nil, makeError(ErrMultipath, "cannot expand a multipath descriptor; expand its branches")
	}
	if index >= hardenedFlag && d.IsRange() {
		return nil, makeError(ErrNotRange, "index out of range")
	}
	// The environment and the collector of one expansion are allocated
	// together.
	x := &struct {
		e   env
		out collector
	}{e: env{net: d.net, keys: d.keys, cache: cache, memo: d.memo}}
	scripts, err := d.root.expand(index, &x.e, &x.out)
	if err != nil {
		return nil, err
	}
	return d.root.outputs(scripts, &x.out), nil
}

// ExpandRange expands every index in [begin, end] (inclusive) and returns the
// outputs of each index in order. The parents of all keys are derived once;
// large ranges are spread over GOMAXPROCS goroutines.
func (d *Descriptor) ExpandRange(begin, end uint32, cache *Cache) ([][]Output, error) {
	return d.ExpandRangeContext(context.Background(), begin, end, cache)
}

// ExpandRangeContext is ExpandRange that gives up with ctx's error once
// ctx ends: each worker looks at it before each index (an index of a
// many-key descriptor takes milliseconds; the look, nanoseconds).
func (d *Descriptor) ExpandRangeContext(ctx context.Context, begin, end uint32, cache *Cache) ([][]Output, error) {
	if end < begin {
		return nil, makeError(ErrNotRange, "range end before begin")
	}
	n := int(end-begin) + 1
	res := make([][]Output, n)
	// The first index fills the memo and the cache sequentially.
	first, err := d.Expand(begin, cache)
	if err != nil {
		return nil, err
	}
	res[0] = first
	if n == 1 {
		return res, nil
	}
	workers := runtime.GOMAXPROCS(0)
	if n < 256 || workers < 2 {
		workers = 1
	}
	chunk := (n - 1 + workers - 1) / workers
	var g safego.Group
	for w := 0; w < workers; w++ {
		lo := 1 + w*chunk
		hi := lo + chunk
		if hi > n {
			hi = n
		}
		if lo >= hi {
			break
		}
		g.Go("descriptor expansion", func() error {
			for i := lo; i < hi; i++ {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				o, err := d.Expand(begin+uint32(i), cache)
				if err != nil {
					return err
				}
				res[i] = o
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// expand returns the scripts of n at pos (one, except for combo()).
func (n *node) expand(pos uint32, e *env, out *collector) ([][]byte, error) {
	if len(n.keys) == 1 && len(n.subs) == 0 && (n.kind == KindPKH || n.kind == KindWPKH) {
		// The common single-key scripts, without the key and script lists.
		p, err := n.keys[0].derive(pos, e, out)
		if err != nil {
			return nil, err
		}
		if n.kind == KindPKH {
			return out.single(p2pkh(p)), nil
		}
		return out.single(p2wpkh(p)), nil
	}
	pubs := make([][]byte, len(n.keys))
	for i, k := range n.keys {
		p, err := k.derive(pos, e, out)
		if err != nil {
			return nil, err
		}
		pubs[i] = p
	}
	subs := make([][]byte, len(n.subs))
	for i, s := range n.subs {
		sc, err := s.expand(pos, e, out)
		if err != nil {
			return nil, err
		}
		subs[i] = sc[0]
	}
	switch n.kind {
	case KindPK:
		if n.xonly {
			return [][]byte{append(pushData(nil, xonlyOf(pubs[0])), 0xac)}, nil
		}
		return [][]byte{p2pk(pubs[0])}, nil
	case KindPKH:
		return [][]byte{p2pkh(pubs[0])}, nil
	case KindWPKH:
		return [][]byte{p2wpkh(pubs[0])}, nil
	case KindCombo:
		r := [][]byte{p2pk(pubs[0]), p2pkh(pubs[0])}
		if len(pubs[0]) == 33 {
			w := p2wpkh(pubs[0])
			out.addScript(w)
			r = append(r, w, p2sh(w))
		}
		return r, nil
	case KindMulti:
		return [][]byte{multisigScript(n.threshold, pubs)}, nil
	case KindSortedMulti:
		return [][]byte{multisigScript(n.threshold, sortKeys(pubs))}, nil
	case KindMultiA, KindSortedMultiA:
		xs := make([][]byte, len(pubs))
		for i, p := range pubs {
			xs[i] = xonlyOf(p)
		}
		if n.kind == KindSortedMultiA {
			xs = sortKeys(xs)
		}
		var b []byte
		for i, x := range xs {
			b = pushData(b, x)
			if i == 0 {
				b = append(b, 0xac) // OP_CHECKSIG
			} else {
				b = append(b, 0xba) // OP_CHECKSIGADD
			}
		}
		b = pushInt(b, n.threshold)
		return [][]byte{append(b, 0x9c)}, nil // OP_NUMEQUAL
	case KindSH:
		out.addScript(subs[0])
		return out.single(p2sh(subs[0])), nil
	case KindWSH:
		out.addScript(subs[0])
		return out.single(p2wsh(subs[0])), nil
	case KindTR:
		tr, ok := makeTaproot(xonlyOf(pubs[0]), n.depths, subs)
		if !ok {
			return nil, makeError(ErrDerivation, "invalid taproot output")
		}
		if out.trees == nil {
			out.trees = map[[32]byte]*Taproot{}
		}
		out.trees[tr.OutputKey] = tr
		return [][]byte{p2tr(tr.OutputKey[:])}, nil
	case KindRawTR:
		x := xonlyOf(pubs[0])
		if _, ok := xonlyToFull(x); !ok {
			return nil, makeError(ErrDerivation, "invalid taproot output key")
		}
		return [][]byte{p2tr(x)}, nil
	case KindAddr, KindRaw:
		return [][]byte{append([]byte(nil), n.script...)}, nil
	case KindMiniscript:
		keys := pubs
		if n.xonly {
			keys = make([][]byte, len(pubs))
			for i, p := range pubs {
				keys[i] = xonlyOf(p)
			}
		}
		s, err := n.ms.Script(keys)
		if err != nil {
			return nil, err
		}
		return [][]byte{s}, nil
	}
	return nil, errSyntax("unknown script expression")
}

// outputs turns the scripts of the top node into Outputs.
func (n *node) outputs(scripts [][]byte, c *collector) []Output {
	var res []Output
	if len(scripts) == 1 {
		res = c.outBuf[:]
	} else {
		res = make([]Output, len(scripts))
	}
	for i, s := range scripts {
		o := Output{ScriptPubKey: s, Keys: c.keys, Scripts: c.scripts, Trees: c.trees}
		switch n.kind {
		case KindSH:
			o.RedeemScript = nil
			for _, sc := range c.scripts {
				if h := script.Hash160(sc); string(h[:]) == string(s[2:22]) {
					o.RedeemScript = sc
				}
			}
			if n.subs[0].kind == KindWSH {
				o.WitnessScript = witnessFor(o.RedeemScript, c)
			}
		case KindWSH:
			o.WitnessScript = witnessFor(s, c)
		case KindCombo:
			if len(s) == 23 && s[0] == 0xa9 {
				o.RedeemScript = scripts[2]
			}
		case KindTR:
			var k [32]byte
			copy(k[:], s[2:])
			o.Taproot = c.trees[k]
		case KindRawTR:
			tr := &Taproot{}
			copy(tr.OutputKey[:], s[2:])
			o.Taproot = tr
		}
		res[i] = o
	}
	return res
}

// witnessFor finds the witness script committed to by a P2WSH script.
func witnessFor(spk []byte, c *collector) []byte {
	if len(spk) != 34 || spk[0] != 0 || spk[1] != 32 {
		return nil
	}
	for _, sc := range c.scripts {
		if h := sha256Sum(sc); string(h[:]) == string(spk[2:]) {
			return sc
		}
	}
	return nil
}
