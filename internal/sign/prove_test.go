package sign

import (
	"crypto/sha256"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	btcecdsa "github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/script"
)

// TestProveECDSA checks the algebraic proof against full verification: it
// accepts every signature the signer makes (which btcec verifies too) and
// rejects each single-bit change of the signature, another hash, another
// key and another nonce.
func TestProveECDSA(t *testing.T) {
	for i := range 40 {
		k := benchKey(byte(i))
		hash := sha256.Sum256([]byte{byte(i), 'm'})
		der, nonce := signECDSA(k.priv, hash[:])
		if !proveECDSA(der, hash[:], &k.priv.Key, &nonce) {
			t.Fatalf("key %d: own signature not proven", i)
		}
		pub, _ := btcec.ParsePubKey(k.PubKey())
		sig, err := btcecdsa.ParseDERSignature(der)
		if err != nil || !sig.Verify(hash[:], pub) {
			t.Fatalf("key %d: signature does not verify", i)
		}
		for bit := range len(der) * 8 {
			bad := append([]byte(nil), der...)
			bad[bit/8] ^= 1 << (bit % 8)
			if proveECDSA(bad, hash[:], &k.priv.Key, &nonce) {
				t.Fatalf("key %d: bit %d flipped still proven", i, bit)
			}
		}
		other := hash
		other[31] ^= 1
		if proveECDSA(der, other[:], &k.priv.Key, &nonce) {
			t.Fatalf("key %d: proven for another hash", i)
		}
		k2 := benchKey(byte(i + 100))
		if proveECDSA(der, hash[:], &k2.priv.Key, &nonce) {
			t.Fatalf("key %d: proven with another key", i)
		}
		var one secp256k1.ModNScalar
		one.SetInt(1)
		wrongK := nonce
		wrongK.Add(&one)
		if proveECDSA(der, hash[:], &k.priv.Key, &wrongK) {
			t.Fatalf("key %d: proven with another nonce", i)
		}
		// The nonce before low-S normalisation is the one the signature
		// uses only when s was not negated.
		negK := nonce
		negK.Negate()
		if proveECDSA(der, hash[:], &k.priv.Key, &negK) {
			t.Fatalf("key %d: proven with the negated nonce", i)
		}
	}
}

// TestProveSchnorr is TestProveECDSA for BIP 340 signatures, with and
// without a hash-type byte.
func TestProveSchnorr(t *testing.T) {
	for i := range 40 {
		k := benchKey(byte(i))
		plain, tweaked := k.schnorrKeys()
		for _, sk := range []*schnorrKey{plain, tweaked} {
			hash := sha256.Sum256([]byte{byte(i), 's'})
			sig, nonce := sk.signSchnorrNonce(hash[:])
			pub, err := schnorr.ParsePubKey(sk.xonly[:])
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := schnorr.ParseSignature(sig[:])
			if err != nil || !parsed.Verify(hash[:], pub) {
				t.Fatalf("key %d: signature does not verify", i)
			}
			for _, full := range [][]byte{sig[:], append(sig[:], 0x01)} {
				if !sk.proveSchnorr(full, hash[:], &nonce) {
					t.Fatalf("key %d: own signature not proven", i)
				}
				for bit := range 64 * 8 {
					bad := append([]byte(nil), full...)
					bad[bit/8] ^= 1 << (bit % 8)
					if sk.proveSchnorr(bad, hash[:], &nonce) {
						t.Fatalf("key %d: bit %d flipped still proven", i, bit)
					}
				}
			}
			other := hash
			other[0] ^= 0x80
			if sk.proveSchnorr(sig[:], other[:], &nonce) {
				t.Fatalf("key %d: proven for another hash", i)
			}
			negK := nonce
			negK.Negate()
			if sk.proveSchnorr(sig[:], hash[:], &negK) {
				t.Fatalf("key %d: proven with the negated nonce", i)
			}
		}
	}
}

// faultCase is one single-input spend for the fault tests.
type faultCase struct {
	name     string
	pkScript func(k *Key) []byte
	hashType txscript.SigHashType
	// badSig is the engine's failure for an invalid signature, as Core
	// words it.
	badSig string
}

func faultCases() []faultCase {
	return []faultCase{
		{"p2pkh", func(k *Key) []byte {
			h := script.Hash160(k.PubKey())
			return script.PayToPubKeyHash(h[:])
		}, txscript.SigHashAll, MsgNeedMoreSignature},
		{"p2wpkh", p2wpkhFor, SigHashDefault, MsgNeedMoreSignature},
		{"p2wpkh-none-acp", p2wpkhFor, txscript.SigHashNone | txscript.SigHashAnyOneCanPay, MsgNeedMoreSignature},
		{"p2tr-default", p2trFor, SigHashDefault, "Invalid Schnorr signature"},
		{"p2tr-none", p2trFor, txscript.SigHashNone, "Invalid Schnorr signature"},
	}
}

// faultContext prepares a call signing n inputs of c's kind, each with its
// own key.
func faultContext(c faultCase, n int) (*txContext, *wire.MsgTx) {
	keys := make([]*Key, n)
	for i := range keys {
		keys[i] = benchKey(byte(i + 7))
	}
	tx, coins := benchTx(n, func(i int) []byte { return c.pkScript(keys[i]) })
	return newTxContext(tx, coins, NewProvider(keys...), c.hashType), tx
}

// TestProvenSignaturesSeeded checks that each signature made is proven
// and seeded under exactly what the script engine looks up for the
// finished transaction: the signature hash btcd computes for it, the
// signature bytes and the key bytes of the script.
func TestProvenSignaturesSeeded(t *testing.T) {
	for _, c := range faultCases() {
		for _, n := range []int{1, parallelThreshold + 4} {
			ctx, tx := faultContext(c, n)
			errs, err := ctx.run()
			if err != nil || len(errs) != 0 {
				t.Fatalf("%s/%d: %v %v", c.name, n, err, errs)
			}
			if got := ctx.proven.Load(); got != int64(n) || ctx.unproven.Load() != 0 {
				t.Fatalf("%s/%d: proven %d unproven %d", c.name, n, got, ctx.unproven.Load())
			}
			for i, l := range engineLookups(t, ctx, tx) {
				if !ctx.sigCache.Exists(l.hash, l.sig, l.pub) {
					t.Fatalf("%s/%d: input %d not seeded as the engine looks it up", c.name, n, i)
				}
			}
		}
	}
}

// lookup is what the script engine looks up in the signature cache for
// one signature.
type lookup struct {
	hash     chainhash.Hash
	sig, pub []byte
}

// engineLookups returns, for each input of the signed transaction, the
// signature hash (computed by btcd for the transaction as signed),
// signature and key the script engine checks.
func engineLookups(t *testing.T, ctx *txContext, tx *wire.MsgTx) []lookup {
	t.Helper()
	fetcher := txscript.NewMultiPrevOutFetcher(nil)
	for i, in := range tx.TxIn {
		fetcher.AddPrevOut(in.PreviousOutPoint, &wire.TxOut{
			Value: ctx.coins[i].Amount, PkScript: ctx.coins[i].PkScript})
	}
	hashes := txscript.NewTxSigHashes(tx, fetcher)
	out := make([]lookup, len(tx.TxIn))
	for i := range tx.TxIn {
		out[i].hash, out[i].sig, out[i].pub = engineLookup(t, tx, i, ctx.coins[i], hashes, fetcher)
	}
	return out
}

func engineLookup(t *testing.T, tx *wire.MsgTx, i int, coin *Coin,
	hashes *txscript.TxSigHashes, fetcher txscript.PrevOutputFetcher) (chainhash.Hash, []byte, []byte) {

	t.Helper()
	in := tx.TxIn[i]
	var hash []byte
	var sig, pub []byte
	var err error
	switch {
	case isTaproot(coin.PkScript):
		sig = in.Witness[0]
		pub = coin.PkScript[2:]
		ht := SigHashDefault
		if len(sig) == 65 {
			ht = txscript.SigHashType(sig[64])
		}
		hash, err = txscript.CalcTaprootSignatureHash(hashes, ht, tx, i, fetcher)
	case len(in.Witness) == 2:
		full := in.Witness[0]
		sig, pub = full[:len(full)-1], in.Witness[1]
		h := script.Hash160(pub)
		hash, err = txscript.CalcWitnessSigHash(script.PayToPubKeyHash(h[:]), hashes,
			txscript.SigHashType(full[len(full)-1]), tx, i, coin.Amount)
	default:
		stack, ok := pushStack(in.SignatureScript)
		if !ok || len(stack) != 2 {
			t.Fatalf("input %d: unexpected scriptSig", i)
		}
		full := stack[0]
		sig, pub = full[:len(full)-1], stack[1]
		hash, err = txscript.CalcSignatureHash(coin.PkScript,
			txscript.SigHashType(full[len(full)-1]), tx, i)
	}
	if err != nil {
		t.Fatal(err)
	}
	var h chainhash.Hash
	copy(h[:], hash)
	return h, sig, pub
}

// TestCorruptSignatureCaught alters each new signature after signing and
// before its proof (one bit of s): the proof fails, nothing is seeded, and
// the script engine, verifying in full, reports the input with Core's
// text.
func TestCorruptSignatureCaught(t *testing.T) {
	for _, c := range faultCases() {
		for _, n := range []int{1, parallelThreshold + 4} {
			ctx, tx := faultContext(c, n)
			ctx.sigFault = func(sig []byte) {
				if len(sig) >= 64 && len(sig) <= 65 && sig[0] != 0x30 {
					sig[63] ^= 1 // Schnorr: last byte of s
				} else {
					sig[len(sig)-1] ^= 1 // DER: last byte of s
				}
			}
			errs, err := ctx.run()
			if err != nil {
				t.Fatal(err)
			}
			if ctx.proven.Load() != 0 || ctx.unproven.Load() != int64(n) {
				t.Fatalf("%s/%d: proven %d unproven %d", c.name, n, ctx.proven.Load(), ctx.unproven.Load())
			}
			if len(errs) != n {
				t.Fatalf("%s/%d: %d errors, want %d: %v", c.name, n, len(errs), n, errs)
			}
			for i, e := range errs {
				if e.Index != i || e.Message != c.badSig {
					t.Fatalf("%s/%d: error %d = %+v, want %q", c.name, n, i, e, c.badSig)
				}
				if len(tx.TxIn[i].Witness) == 0 && len(tx.TxIn[i].SignatureScript) == 0 {
					t.Fatalf("%s/%d: input %d left empty", c.name, n, i)
				}
			}
		}
	}
}

// TestSigHashMismatchVerifiedInFull signs each input over a wrong hash:
// the signature is valid for that hash, so it is proven and seeded under
// it, but the engine looks up the hash it computes itself, misses, verifies
// in full and rejects the input.
func TestSigHashMismatchVerifiedInFull(t *testing.T) {
	for _, c := range faultCases() {
		for _, n := range []int{1, parallelThreshold + 4} {
			ctx, tx := faultContext(c, n)
			ctx.sigHashFault = func(h []byte) []byte {
				w := append([]byte(nil), h...)
				w[0] ^= 0x01
				return w
			}
			errs, err := ctx.run()
			if err != nil {
				t.Fatal(err)
			}
			if ctx.proven.Load() != int64(n) || ctx.unproven.Load() != 0 {
				t.Fatalf("%s/%d: proven %d unproven %d", c.name, n, ctx.proven.Load(), ctx.unproven.Load())
			}
			// The seeds are there, under the wrong hash only.
			for i, l := range engineLookups(t, ctx, tx) {
				w := l.hash
				w[0] ^= 0x01
				if !ctx.sigCache.Exists(w, l.sig, l.pub) || ctx.sigCache.Exists(l.hash, l.sig, l.pub) {
					t.Fatalf("%s/%d: input %d: cache does not hold the signature under the wrong hash only", c.name, n, i)
				}
			}
			if len(errs) != n {
				t.Fatalf("%s/%d: %d errors, want %d: %v", c.name, n, len(errs), n, errs)
			}
			for i, e := range errs {
				if e.Index != i || e.Message != c.badSig {
					t.Fatalf("%s/%d: error %d = %+v, want %q", c.name, n, i, e, c.badSig)
				}
			}
		}
	}
}

// TestNeedsDataEmptyFails backs the shortcut in extract: an empty input of
// each template needsData names fails the script engine, and other
// scripts are not named.
func TestNeedsDataEmptyFails(t *testing.T) {
	k := benchKey(3)
	h := script.Hash160(k.PubKey())
	wsh := sha256.Sum256([]byte{0x51})
	named := [][]byte{
		script.PayToPubKeyHash(h[:]),
		script.PayToScriptHash(h[:]),
		script.PayToWitnessPubKeyHash(h[:]),
		script.PayToWitnessScriptHash(wsh[:]),
		p2trFor(k),
	}
	for i, pk := range named {
		if !needsData(pk) {
			t.Fatalf("script %d not named", i)
		}
		tx, coins := benchTx(1, func(int) []byte { return pk })
		ctx := newTxContext(tx, coins, NewProvider(), txscript.SigHashAll)
		s := &inputSigner{ctx: ctx, idx: 0, view: ctx.newView(), coin: ctx.coins[0]}
		if err := s.verify(nil, nil); err == nil {
			t.Fatalf("script %d: empty input verifies", i)
		}
	}
	for i, pk := range [][]byte{{0x51}, script.PayToPubKey(k.PubKey()), script.PayToAnchor(),
		append([]byte{0x00, 0x13}, make([]byte, 19)...)} {
		if needsData(pk) {
			t.Fatalf("other script %d named", i)
		}
	}
}
