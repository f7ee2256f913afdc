package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/btcutil/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
)

// Output is one way of paying a key: its regtest address and scriptPubKey.
type Output struct {
	// Address is the regtest address.
	Address string

	// Script is the scriptPubKey.
	Script []byte

	// ScriptHex is Script in lowercase hex, as RPC replies print it.
	ScriptHex string
}

// Key is a deterministic regtest test key with its single-key outputs, named
// after the descriptor functions that produce them.
type Key struct {
	// Seed is the string the key was derived from.
	Seed string

	// Priv is the private key.
	Priv *btcec.PrivateKey

	// WIF is the private key in wallet import format for regtest, with the
	// compressed-public-key flag set.
	WIF string

	// PubKey is the 33-byte compressed public key.
	PubKey []byte

	// PubKeyHex is PubKey in lowercase hex.
	PubKeyHex string

	// PKH pays to the public key's hash (pkh(K)).
	PKH Output

	// WPKH pays to the public key's hash in a version 0 witness program
	// (wpkh(K)).
	WPKH Output

	// SHWPKH wraps WPKH's script in P2SH (sh(wpkh(K))).
	SHWPKH Output

	// TR pays to the key's taproot output key with no script tree (tr(K)).
	TR Output
}

// NewKey derives a regtest key from seed: the private key is SHA-256 of the
// seed text. The same seed always gives the same key.
func NewKey(seed string) *Key {
	sum := sha256.Sum256([]byte(seed))
	priv, pub := btcec.PrivKeyFromBytes(sum[:])
	net := &chaincfg.RegressionNetParams

	wif, err := btcutil.NewWIF(priv, net, true)
	if err != nil {
		panic(fmt.Sprintf("testenv: WIF for seed %q: %v", seed, err))
	}
	pubBytes := pub.SerializeCompressed()
	pkHash := address.Hash160(pubBytes)

	k := &Key{
		Seed:      seed,
		Priv:      priv,
		WIF:       wif.String(),
		PubKey:    pubBytes,
		PubKeyHex: hex.EncodeToString(pubBytes),
	}

	pkh, err := address.NewAddressPubKeyHash(pkHash, net)
	must(err)
	k.PKH = outputOf(pkh)

	wpkh, err := address.NewAddressWitnessPubKeyHash(pkHash, net)
	must(err)
	k.WPKH = outputOf(wpkh)

	sh, err := address.NewAddressScriptHash(k.WPKH.Script, net)
	must(err)
	k.SHWPKH = outputOf(sh)

	outKey := txscript.ComputeTaprootKeyNoScript(pub)
	tr, err := address.NewAddressTaproot(schnorr.SerializePubKey(outKey), net)
	must(err)
	k.TR = outputOf(tr)

	return k
}

// MinerKey is the key whose WPKH address a btcd started by StartBtcd mines
// to unless told otherwise.
func MinerKey() *Key {
	return NewKey("descwallet testenv miner")
}

// outputOf builds an Output from an address.
func outputOf(a address.Address) Output {
	script, err := txscript.PayToAddrScript(a)
	must(err)
	return Output{
		Address:   a.EncodeAddress(),
		Script:    script,
		ScriptHex: hex.EncodeToString(script),
	}
}

// must panics on an error that cannot happen for well-formed inputs.
func must(err error) {
	if err != nil {
		panic("testenv: " + err.Error())
	}
}
