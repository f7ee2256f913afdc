package musig

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr/musig2"
	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
)

// SyntheticChainCode is the chain code of every BIP 328 synthetic xpub: the
// SHA256 of the ASCII text "MuSig2MuSig2MuSig2".
var SyntheticChainCode = [32]byte{
	0x86, 0x80, 0x87, 0xca, 0x02, 0xa6, 0xf9, 0x74,
	0xc4, 0x59, 0x89, 0x24, 0xc3, 0x6b, 0x57, 0x76,
	0x2d, 0x32, 0xcb, 0x45, 0x71, 0x71, 0x67, 0xe3,
	0x00, 0x62, 0x2c, 0x71, 0x67, 0xe3, 0x89, 0x65,
}

// Sort returns the keys in BIP 327 KeySort order: ascending byte order of
// their 33-byte compressed serializations. The input is not modified.
func Sort(pubkeys [][]byte) [][]byte {
	out := slices.Clone(pubkeys)
	slices.SortStableFunc(out, bytes.Compare)
	return out
}

// KeyAgg returns the BIP 327 aggregate of 33-byte compressed public keys,
// taken in the order given (sort them first with Sort where BIP 390 says
// so). The result is the plain aggregate, before any tweak.
func KeyAgg(pubkeys [][]byte) (*btcec.PublicKey, error) {
	if len(pubkeys) == 0 {
		return nil, newError(ErrNoKeys, -1,
			"musig key aggregation needs at least one key", nil)
	}
	keys := make([]*btcec.PublicKey, len(pubkeys))
	for i, b := range pubkeys {
		if len(b) != btcec.PubKeyBytesLenCompressed || (b[0] != 2 && b[0] != 3) {
			return nil, newError(ErrInvalidPubKey, i,
				fmt.Sprintf("musig participant %d: not a compressed public key", i), nil)
		}
		k, err := btcec.ParsePubKey(b)
		if err != nil {
			return nil, newError(ErrInvalidPubKey, i,
				fmt.Sprintf("musig participant %d: %v", i, err), err)
		}
		keys[i] = k
	}
	agg, _, _, err := musig2.AggregateKeys(keys, false)
	if err != nil {
		return nil, newError(ErrInfinity, -1,
			fmt.Sprintf("musig key aggregation failed: %v", err), err)
	}
	if !agg.PreTweakedKey.IsOnCurve() {
		return nil, newError(ErrInfinity, -1,
			"musig aggregate key is the point at infinity", nil)
	}
	return agg.PreTweakedKey, nil
}

// SyntheticXPub returns the BIP 328 synthetic extended public key of an
// aggregate key, with net's extended public key version (xpub or tpub).
func SyntheticXPub(agg *btcec.PublicKey, net *chaincfg.Params) *hdkeychain.ExtendedKey {
	return hdkeychain.NewExtendedKey(net.HDPublicKeyID[:],
		agg.SerializeCompressed(), SyntheticChainCode[:],
		[]byte{0, 0, 0, 0}, 0, 0, false)
}
