package sign

import (
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/script"
)

// NewKeyWithPubKey wraps a private key whose serialized public key (33 or
// 65 bytes) the caller already derived, as a descriptor's expansion does,
// so that it is not derived a second time. It returns nil when pub does
// not parse. Every signature made with the key is checked against pub
// before it is used, so a pub that is not priv's yields no signature.
func NewKeyWithPubKey(priv *secp256k1.PrivateKey, pub []byte) *Key {
	p, err := secp256k1.ParsePubKey(pub)
	if err != nil || (len(pub) != 33 && len(pub) != 65) {
		return nil
	}
	k := &Key{priv: priv, pub: p, compressed: len(pub) == 33, pubBytes: append([]byte(nil), pub...)}
	k.id = script.Hash160(k.pubBytes)
	return k
}
