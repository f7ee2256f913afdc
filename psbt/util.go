package psbt

import (
	"bytes"
	"crypto/sha256"
	"slices"

	"github.com/btcsuite/btcd/wire/v2"
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // HASH160 is RIPEMD-160 by definition
)

type (
	txT    = wire.MsgTx
	txOutT = wire.TxOut
)

func hash160(b []byte) [20]byte {
	h := sha256.Sum256(b)
	r := ripemd160.New()
	r.Write(h[:])
	var out [20]byte
	copy(out[:], r.Sum(nil))
	return out
}

// validSigEncoding is Core's CheckSignatureEncoding under DERSIG and
// STRICTENC: a strict DER signature followed by a defined hash type.
func validSigEncoding(sig []byte) bool {
	if !validDER(sig) {
		return false
	}
	ht := sig[len(sig)-1] &^ 0x80
	return ht >= 1 && ht <= 3
}

// validDER is BIP 66's IsValidSignatureEncoding (the signature including
// its trailing hash type byte).
func validDER(sig []byte) bool {
	if len(sig) < 9 || len(sig) > 73 {
		return false
	}
	if sig[0] != 0x30 || int(sig[1]) != len(sig)-3 {
		return false
	}
	lenR := int(sig[3])
	if 5+lenR >= len(sig) {
		return false
	}
	lenS := int(sig[5+lenR])
	if lenR+lenS+7 != len(sig) {
		return false
	}
	if sig[2] != 0x02 || lenR == 0 || sig[4]&0x80 != 0 {
		return false
	}
	if lenR > 1 && sig[4] == 0 && sig[5]&0x80 == 0 {
		return false
	}
	if sig[lenR+4] != 0x02 || lenS == 0 || sig[lenR+6]&0x80 != 0 {
		return false
	}
	if lenS > 1 && sig[lenR+6] == 0 && sig[lenR+7]&0x80 == 0 {
		return false
	}
	return true
}

func sortHashes(h [][32]byte) {
	slices.SortFunc(h, func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
}

// compareOrigin is Core's KeyOriginInfo order: fingerprint bytes, then
// shorter paths first, then the path elements.
func compareOrigin(a, b KeyOrigin) int {
	if c := bytes.Compare(a.Fingerprint[:], b.Fingerprint[:]); c != 0 {
		return c
	}
	if len(a.Path) != len(b.Path) {
		if len(a.Path) < len(b.Path) {
			return -1
		}
		return 1
	}
	return slices.Compare(a.Path, b.Path)
}

// compareShortFirst is Core's ShortestVectorFirstComparator.
func compareShortFirst(a, b string) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return bytes.Compare([]byte(a), []byte(b))
}

func sortedKeys[K comparable, V any](m map[K]V, cmp func(a, b K) int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp)
	return keys
}

func cmpString(a, b string) int { return bytes.Compare([]byte(a), []byte(b)) }

func cmp20(a, b [20]byte) int { return bytes.Compare(a[:], b[:]) }
func cmp32(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) }
func cmp33(a, b [33]byte) int { return bytes.Compare(a[:], b[:]) }

func cmpMuSig2Key(a, b MuSig2Key) int {
	if c := cmp33(a.Aggregate, b.Aggregate); c != 0 {
		return c
	}
	return cmp32(a.LeafHash, b.LeafHash)
}

func cmpTapScriptSigKey(a, b TapScriptSigKey) int {
	if c := cmp32(a.XOnly, b.XOnly); c != 0 {
		return c
	}
	return cmp32(a.LeafHash, b.LeafHash)
}

func cmpTapLeaf(a, b TapLeaf) int {
	if c := cmpString(a.Script, b.Script); c != 0 {
		return c
	}
	return int(a.LeafVersion) - int(b.LeafVersion)
}

func cmpXPub(a, b XPub) int {
	if c := compareOrigin(a.Origin, b.Origin); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Key[45:], b.Key[45:]); c != 0 {
		return c
	}
	return bytes.Compare(a.Key[13:45], b.Key[13:45])
}
