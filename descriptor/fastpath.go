package descriptor

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"

	"github.com/btcsuite/btcd/btcec/v2"
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // HASH160 is consensus

	"github.com/descwallet/descwallet/internal/secp"
)

// scriptBatch is the number of indexes whose points share one field
// inversion in the fast path.
const scriptBatch = 256

// ForEachScript calls fn with the scriptPubKeys of every index in [begin,
// end] (inclusive), in index order; scripts holds the same scripts, in the
// same order, as the Outputs Expand returns for that index. The slices
// passed to fn are reused after fn returns: copy what must be kept.
//
// It derives exactly what Expand derives, through the same parent memo and
// cache (so a later Expand finds the cache filled), but builds no Output:
// for pkh(), wpkh(), sh(wpkh()) and tr() of one unhardened-ranged BIP 32 key
// it computes the child points in batches that share one field inversion
// per addition step (on secp's four-limb field, allocating nothing) and
// hashes them into scripts with no allocation per index; other
// descriptors go through Expand. An error stops the walk.
func (d *Descriptor) ForEachScript(begin, end uint32, cache *Cache, fn func(index uint32, scripts [][]byte) error) error {
	if len(d.branches) > 0 {
		return makeError(ErrMultipath, "cannot expand a multipath descriptor; expand its branches")
	}
	if end < begin {
		return makeError(ErrNotRange, "range end before begin")
	}
	if end >= hardenedFlag && d.IsRange() {
		return makeError(ErrNotRange, "index out of range")
	}
	if k, kind := d.fastKey(); k != nil {
		return d.fastScripts(k, kind, begin, end, cache, fn)
	}
	var scripts [][]byte
	for i := uint64(begin); i <= uint64(end); i++ {
		outs, err := d.Expand(uint32(i), cache)
		if err != nil {
			return err
		}
		scripts = scripts[:0]
		for _, o := range outs {
			scripts = append(scripts, o.ScriptPubKey)
		}
		if err := fn(uint32(i), scripts); err != nil {
			return err
		}
	}
	return nil
}

// fastKind is the script template of the fast path.
type fastKind int

const (
	fastPKH fastKind = iota
	fastWPKH
	fastSHWPKH
	fastTR
)

// fastKey returns the single BIP 32 key of a descriptor the fast path
// handles, or nil.
func (d *Descriptor) fastKey() (*bip32Key, fastKind) {
	n := d.root
	var kind fastKind
	switch {
	case n.kind == KindPKH && len(n.keys) == 1:
		kind = fastPKH
	case n.kind == KindWPKH && len(n.keys) == 1:
		kind = fastWPKH
	case n.kind == KindSH && len(n.subs) == 1 && n.subs[0].kind == KindWPKH && len(n.subs[0].keys) == 1:
		kind = fastSHWPKH
		n = n.subs[0]
	case n.kind == KindTR && len(n.keys) == 1 && len(n.subs) == 0:
		kind = fastTR
	default:
		return nil, 0
	}
	k := n.keys[0]
	if o, ok := k.(*originKey); ok {
		k = o.inner
	}
	b, ok := k.(*bip32Key)
	if !ok || b.mp != nil || b.derive_ != unhardenedRanged {
		return nil, 0
	}
	return b, kind
}

// fastScripts is the batched derivation of ForEachScript.
func (d *Descriptor) fastScripts(k *bip32Key, kind fastKind, begin, end uint32, cache *Cache, fn func(uint32, [][]byte) error) error {
	e := d.env(cache)
	privRoot, havePriv := k.rootPriv(e)
	der, err := e.memo.pubParent(k, e, privRoot, havePriv)
	if err != nil {
		return err
	}
	mac := hmacFor(der)
	sha := sha256.New()
	rip := ripemd160.New()
	var par secp.AffinePoint
	par.SetFieldVals(&der.point.X, &der.point.Y)
	batch := new(pointBatch)
	var (
		ks     [scriptBatch]btcec.ModNScalar
		data   [37]byte
		ilr    [64]byte
		pub    [33]byte
		sum    [32]byte
		script [34]byte
		redeem [22]byte
		one    [1][]byte
	)
	copy(data[:33], der.parent.pub[:])
	hash160To := func(dst []byte, b []byte) {
		sha.Reset()
		sha.Write(b)
		sha.Sum(sum[:0])
		rip.Reset()
		rip.Write(sum[:])
		rip.Sum(dst[:0])
	}
	for lo := uint64(begin); lo <= uint64(end); lo += scriptBatch {
		hi := lo + scriptBatch - 1
		if hi > uint64(end) {
			hi = uint64(end)
		}
		n := int(hi - lo + 1)
		for j := 0; j < n; j++ {
			binary.BigEndian.PutUint32(data[33:], uint32(lo)+uint32(j))
			mac.Reset()
			mac.Write(data[:])
			mac.Sum(ilr[:0])
			if overflow := ks[j].SetByteSlice(ilr[:32]); overflow {
				return errInvalidChild
			}
		}
		batch.childPoints(ks[:n], &par)
		for j := 0; j < n; j++ {
			if !batch.bad[j] {
				continue
			}
			// An addition the batch could not do: the general way.
			var ij, p btcec.JacobianPoint
			btcec.ScalarBaseMultNonConst(&ks[j], &ij)
			btcec.AddNonConst(&ij, &der.point, &p)
			if (p.X.IsZero() && p.Y.IsZero()) || !secp.ToAffine(&p) {
				return errInvalidChild
			}
			batch.p[j].SetFieldVals(&p.X, &p.Y)
		}
		for j := 0; j < n; j++ {
			batch.p[j].PutCompressed(&pub)
			var s []byte
			switch kind {
			case fastPKH:
				script[0], script[1], script[2] = 0x76, 0xa9, 20
				hash160To(script[3:23], pub[:])
				script[23], script[24] = 0x88, 0xac
				s = script[:25]
			case fastWPKH:
				script[0], script[1] = 0x00, 20
				hash160To(script[2:22], pub[:])
				s = script[:22]
			case fastSHWPKH:
				redeem[0], redeem[1] = 0x00, 20
				hash160To(redeem[2:22], pub[:])
				script[0], script[1] = 0xa9, 20
				hash160To(script[2:22], redeem[:])
				script[22] = 0x87
				s = script[:23]
			case fastTR:
				tr, ok := makeTaproot(pub[1:], nil, nil)
				if !ok {
					return makeError(ErrDerivation, "invalid taproot output")
				}
				script[0], script[1] = 0x51, 32
				copy(script[2:], tr.OutputKey[:])
				s = script[:34]
			}
			one[0] = s
			if err := fn(uint32(lo)+uint32(j), one[:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// hmacFor takes an HMAC keyed by the parent's chain code from the
// deriver's pool; it is not returned, the walk owning it to the end.
func hmacFor(d *pubDeriver) hash.Hash {
	return d.macs.Get().(*macState).mac
}
