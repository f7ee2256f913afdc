package sign

import (
	"sync"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/base58"
	"github.com/descwallet/descwallet/internal/script"
)

// Key is a private key with everything the signer needs from it computed
// once: its public key serialized as the WIF says (compressed or not), that
// serialization's HASH160 (Core's key id) and, lazily, its BIP 340 forms.
type Key struct {
	priv       *secp256k1.PrivateKey
	pub        *secp256k1.PublicKey
	compressed bool
	pubBytes   []byte
	id         [20]byte

	// plain signs for the X coordinate of the key itself; tweaked signs for
	// the BIP 86 output key of the key used as an internal key.
	once    sync.Once
	plain   *schnorrKey
	tweaked *schnorrKey
}

// NewKey wraps a private key; compressed selects the public key
// serialization the key stands for (33 or 65 bytes).
func NewKey(priv *secp256k1.PrivateKey, compressed bool) *Key {
	return newKey(priv, pubKeyOf(&priv.Key), compressed)
}

// newKey is NewKey with the public key already computed.
func newKey(priv *secp256k1.PrivateKey, pub *secp256k1.PublicKey, compressed bool) *Key {
	k := &Key{priv: priv, pub: pub, compressed: compressed}
	if compressed {
		k.pubBytes = k.pub.SerializeCompressed()
	} else {
		k.pubBytes = k.pub.SerializeUncompressed()
	}
	k.id = script.Hash160(k.pubBytes)
	return k
}

// DecodeWIF decodes a private key in wallet import format for the network
// net, as Core's DecodeSecret does: base58check, the network's version byte,
// then 32 bytes of key, optionally followed by 0x01 for a compressed key;
// the scalar must be in [1, n-1]. Anything else is ErrInvalidKey.
func DecodeWIF(s string, net *chaincfg.Params) (*Key, error) {
	priv, compressed, err := decodeWIF(s, net)
	if err != nil {
		return nil, err
	}
	return NewKey(priv, compressed), nil
}

// DecodeWIFs decodes several keys as DecodeWIF does; the first bad one (in
// order) is the error, and then the keys decoded are cleared. The keys are
// decoded and their public keys (one scalar multiplication each) computed
// in batches that share one field inversion, by several goroutines when
// there are many keys.
func DecodeWIFs(wifs []string, net *chaincfg.Params) ([]*Key, error) {
	keys := make([]*Key, len(wifs))
	errs := make([]error, len(wifs))
	const batch = 16
	chunks := (len(wifs) + batch - 1) / batch
	if err := runWorkers(chunks, len(wifs) > parallelThreshold, func() func(int) {
		ds := make([]*secp256k1.ModNScalar, 0, batch)
		privs := make([]*secp256k1.PrivateKey, 0, batch)
		comp := make([]bool, 0, batch)
		idx := make([]int, 0, batch)
		return func(c int) {
			ds, privs, comp, idx = ds[:0], privs[:0], comp[:0], idx[:0]
			for i := c * batch; i < min((c+1)*batch, len(wifs)); i++ {
				p, compressed, err := decodeWIF(wifs[i], net)
				if err != nil {
					errs[i] = err
					continue
				}
				ds = append(ds, &p.Key)
				privs = append(privs, p)
				comp = append(comp, compressed)
				idx = append(idx, i)
			}
			for j, pub := range pubKeysOf(ds) {
				keys[idx[j]] = newKey(privs[j], pub, comp[j])
			}
		}
	}); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			for _, k := range keys {
				if k != nil {
					k.Zero()
				}
			}
			return nil, err
		}
	}
	return keys, nil
}

func decodeWIF(s string, net *chaincfg.Params) (*secp256k1.PrivateKey, bool, error) {
	// The project's decoder: the same work whatever the key, where btcd's
	// divides with math/big. Version byte, key, compression flag.
	raw, ok := base58.DecodeCheckSecret(s, 34)
	if !ok || len(raw) < 1 || raw[0] != net.PrivateKeyID {
		clear(raw)
		return nil, false, newError(ErrInvalidKey, "Invalid private key")
	}
	defer clear(raw)
	payload := raw[1:]
	compressed := false
	switch {
	case len(payload) == 32:
	case len(payload) == 33 && payload[32] == 1:
		compressed = true
	default:
		return nil, false, newError(ErrInvalidKey, "Invalid private key")
	}
	var scalar secp256k1.ModNScalar
	overflow := scalar.SetByteSlice(payload[:32])
	for i := range payload {
		payload[i] = 0
	}
	if overflow || scalar.IsZero() {
		return nil, false, newError(ErrInvalidKey, "Invalid private key")
	}
	return secp256k1.NewPrivateKey(&scalar), compressed, nil
}

// Zero clears the private scalar and the BIP 340 forms made from it; the
// key cannot sign afterwards. It must not run while the key signs.
func (k *Key) Zero() {
	k.priv.Zero()
	if k.plain != nil {
		k.plain.d.Zero()
	}
	if k.tweaked != nil {
		k.tweaked.d.Zero()
	}
}

// PubKey returns the serialized public key (compressed or not, as the key
// was given).
func (k *Key) PubKey() []byte { return k.pubBytes }

// Compressed reports whether the key stands for its compressed public key.
func (k *Key) Compressed() bool { return k.compressed }

// signECDSA makes Core's ECDSA signature of hash with the key and verifies
// it against the key's public key (signECDSAVerified).
func (k *Key) signECDSA(hash []byte, f *faults) ([]byte, bool) {
	return signECDSAVerified(&k.priv.Key, k.pub, hash, f)
}

// schnorrKeys prepares the key's BIP 340 forms: the key itself, and the key
// tweaked as the internal key of a BIP 86 output (no script tree).
func (k *Key) schnorrKeys() (plain, tweaked *schnorrKey) {
	k.once.Do(func() {
		k.plain = newSchnorrKey(&k.priv.Key, k.pub)

		// BIP 341: t = tagged_hash("TapTweak", x(P)); d' = d + t with d
		// already negated for an even Y.
		t := chainhash.TaggedHash(chainhash.TagTapTweak, k.plain.xonly[:])
		var ts secp256k1.ModNScalar
		ts.SetBytes((*[32]byte)(t))
		d := k.plain.d
		d.Add(&ts)
		k.tweaked = newSchnorrKey(&d, pubKeyOf(&d))
		d.Zero()
	})
	return k.plain, k.tweaked
}
