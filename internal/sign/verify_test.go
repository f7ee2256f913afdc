package sign

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"

	btcecdsa "github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/secp"
)

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

// TestVerifiedSignaturesSeeded checks that each signature made is verified
// with its public key and seeded under exactly what the script engine
// looks up for the finished transaction: the signature hash btcd computes
// for it, the signature bytes and the key bytes of the script. The engine
// therefore finds it and does not verify it a second time.
func TestVerifiedSignaturesSeeded(t *testing.T) {
	for _, c := range faultCases() {
		for _, n := range []int{1, parallelThreshold + 4} {
			ctx, tx := faultContext(c, n)
			errs, err := ctx.run()
			if err != nil || len(errs) != 0 {
				t.Fatalf("%s/%d: %v %v", c.name, n, err, errs)
			}
			if got := ctx.verified.Load(); got != int64(n) || ctx.refused.Load() != 0 {
				t.Fatalf("%s/%d: verified %d refused %d", c.name, n, got, ctx.refused.Load())
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

// unsignedErrors signs tx (a fresh copy of c's n-input spend) with no key
// at all: the per-input errors Core reports for inputs it could not sign.
func unsignedErrors(t *testing.T, c faultCase, n int) []InputError {
	t.Helper()
	ctx, tx := faultContext(c, n)
	errs, err := SignTransaction(tx, ctx.coinMap(), NewProvider(), c.hashType)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != n {
		t.Fatalf("%s/%d: %d errors unsigned", c.name, n, len(errs))
	}
	return errs
}

// coinMap returns the call's coins by outpoint.
func (ctx *txContext) coinMap() map[wire.OutPoint]*Coin {
	m := map[wire.OutPoint]*Coin{}
	for i, in := range ctx.tx.TxIn {
		m[in.PreviousOutPoint] = ctx.coins[i]
	}
	return m
}

// checkRefused checks that every signature of the call was refused, that
// no input carries a signature, and that each input reports what an input
// signed with no key reports.
func checkRefused(t *testing.T, c faultCase, n int, ctx *txContext, tx *wire.MsgTx, errs []InputError) {
	t.Helper()
	if ctx.verified.Load() != 0 || ctx.refused.Load() != int64(n) {
		t.Fatalf("%s/%d: verified %d refused %d", c.name, n, ctx.verified.Load(), ctx.refused.Load())
	}
	want := unsignedErrors(t, c, n)
	if len(errs) != n {
		t.Fatalf("%s/%d: %d errors, want %d: %v", c.name, n, len(errs), n, errs)
	}
	for i, e := range errs {
		if e != want[i] {
			t.Fatalf("%s/%d: error %d = %+v, want %+v", c.name, n, i, e, want[i])
		}
		if len(tx.TxIn[i].Witness) != 0 || len(tx.TxIn[i].SignatureScript) != 0 {
			t.Fatalf("%s/%d: input %d carries a refused signature", c.name, n, i)
		}
	}
}

// TestFaultyNoncePointRefused corrupts each nonce point R = k·G as it is
// computed (R + G instead of R): the signature is then consistent with
// its private key and nonce (s·k = e + r·d holds, which is all that a
// check with the private key could see) but not valid, and the
// verification with the public key refuses it. No input carries it; each
// reports what an unsigned input reports.
func TestFaultyNoncePointRefused(t *testing.T) {
	var g secp256k1.JacobianPoint
	var one secp256k1.ModNScalar
	one.SetInt(1)
	secp256k1.ScalarBaseMultNonConst(&one, &g)
	plusG := func(p *secp256k1.JacobianPoint) {
		var sum secp256k1.JacobianPoint
		secp256k1.AddNonConst(p, &g, &sum)
		*p = sum
	}
	for _, c := range faultCases() {
		for _, n := range []int{1, parallelThreshold + 4} {
			ctx, tx := faultContext(c, n)
			ctx.faults = &faults{noncePoint: plusG}
			errs, err := ctx.run()
			if err != nil {
				t.Fatal(err)
			}
			checkRefused(t, c, n, ctx, tx, errs)
		}
	}

	// The faulty signatures themselves: well formed, consistent with the
	// private key and the nonce (the check the signer used to rely on
	// passes), and invalid.
	k := benchKey(9)
	hash := sha256.Sum256([]byte("nonce fault"))
	f := &faults{noncePoint: plusG}
	der := signECDSA(&k.priv.Key, hash[:], f)
	parsed, err := btcecdsa.ParseDERSignature(der)
	if err != nil || verifyECDSA(der, hash[:], k.pub) {
		t.Fatalf("faulty ECDSA signature: parse %v, verifies %v", err, verifyECDSA(der, hash[:], k.pub))
	}
	nonce := groundNonce(t, k, hash[:], f)
	r, sv := parsed.R(), parsed.S()
	var e, lhs, rhs secp256k1.ModNScalar
	e.SetByteSlice(hash[:])
	lhs.Mul2(&sv, &nonce)
	rhs.Mul2(&r, &k.priv.Key).Add(&e)
	if !lhs.Equals(&rhs) {
		t.Fatal("faulty signature fails s·k = e + r·d: the fault is not the one a private-key check misses")
	}
	if _, ok := SignECDSA(k.priv, k.pub, hash[:]); !ok {
		t.Fatal("sound ECDSA signature refused")
	}
	plain, _ := k.schnorrKeys()
	sig := plain.signSchnorrRaw(hash[:], f)
	if verifySchnorr(sig[:], hash[:], plain.pub) {
		t.Fatal("faulty Schnorr signature verifies")
	}
	if _, ok := plain.signSchnorr(hash[:], f); ok {
		t.Fatal("faulty Schnorr signature not refused")
	}
}

// groundNonce returns the nonce signECDSA settles on for hash (with the
// faults f), as the signature uses it: negated when s was made low.
func groundNonce(t *testing.T, k *Key, hash []byte, f *faults) secp256k1.ModNScalar {
	t.Helper()
	d := privBytes(k)
	nonce, r := nonceRFC6979(d, hash, nil, f)
	var extra [32]byte
	for counter := uint32(1); !lowR(&r); counter++ {
		binary.LittleEndian.PutUint32(extra[:4], counter)
		nonce, r = nonceRFC6979(d, hash, extra[:], f)
	}
	var e, s secp256k1.ModNScalar
	e.SetByteSlice(hash)
	kinv := secp.InvertScalar(&nonce)
	s.Mul2(&k.priv.Key, &r).Add(&e).Mul(&kinv)
	if s.IsOverHalfOrder() {
		nonce.Negate()
	}
	return nonce
}

// TestCorruptSignatureRefused alters each new signature after signing and
// before its verification (one bit of s, then one bit of r): the
// verification refuses it and no input carries it.
func TestCorruptSignatureRefused(t *testing.T) {
	flips := map[string]func([]byte){
		"s": func(sig []byte) {
			if len(sig) == 64 {
				sig[63] ^= 1 // Schnorr: last byte of s
			} else {
				sig[len(sig)-1] ^= 1 // DER: last byte of s
			}
		},
		"r": func(sig []byte) {
			if len(sig) == 64 {
				sig[31] ^= 1 // Schnorr: last byte of R.x
			} else {
				sig[4+int(sig[3])-1] ^= 1 // DER: last byte of r
			}
		},
	}
	for name, flip := range flips {
		t.Run(name, func(t *testing.T) {
			for _, c := range faultCases() {
				for _, n := range []int{1, parallelThreshold + 4} {
					ctx, tx := faultContext(c, n)
					ctx.faults = &faults{sig: flip}
					errs, err := ctx.run()
					if err != nil {
						t.Fatal(err)
					}
					checkRefused(t, c, n, ctx, tx, errs)
				}
			}
		})
	}
}

// TestSigHashMismatchVerifiedInFull signs each input over a wrong hash:
// the signature is valid for that hash, so it verifies and is seeded under
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
			if ctx.verified.Load() != int64(n) || ctx.refused.Load() != 0 {
				t.Fatalf("%s/%d: verified %d refused %d", c.name, n, ctx.verified.Load(), ctx.refused.Load())
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

// TestSignCompact compares signCompact with the library's compact
// signature (same RFC 6979 nonce, recovery id and header) for both key
// forms, and checks that SignMessage refuses a signature made with a
// faulty nonce point or corrupted before its check.
func TestSignCompact(t *testing.T) {
	for i := range 60 {
		k := benchKey(byte(i))
		h := sha256.Sum256([]byte{byte(i), 'c'})
		for _, comp := range []bool{true, false} {
			got := signCompact(&k.priv.Key, h[:], comp, nil)
			want := btcecdsa.SignCompact(k.priv, h[:], comp)
			if string(got[:]) != string(want) {
				t.Fatalf("key %d compressed %v: %x, library %x", i, comp, got, want)
			}
		}
	}
	var g secp256k1.JacobianPoint
	var one secp256k1.ModNScalar
	one.SetInt(1)
	secp256k1.ScalarBaseMultNonConst(&one, &g)
	k := benchKey(5)
	if _, err := signMessage(k, "hello", nil); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*faults{
		"nonce point": {noncePoint: func(p *secp256k1.JacobianPoint) {
			var sum secp256k1.JacobianPoint
			secp256k1.AddNonConst(p, &g, &sum)
			*p = sum
		}},
		"signature": {sig: func(b []byte) { b[64] ^= 1 }},
	} {
		if sig, err := signMessage(k, "hello", f); err == nil || sig != "" {
			t.Fatalf("%s fault: signature %q emitted", name, sig)
		}
	}
}
