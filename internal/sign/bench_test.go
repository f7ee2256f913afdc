package sign

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	btcecdsa "github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/benchcpu"
	"github.com/descwallet/descwallet/internal/script"
)

// benchKey returns a deterministic compressed key.
func benchKey(seed byte) *Key {
	h := sha256.Sum256([]byte{seed, 'b', 'e', 'n', 'c', 'h'})
	return NewKey(secp256k1.PrivKeyFromBytes(h[:]), true)
}

// benchTx builds an n-input, one-output transaction spending outputs of
// pkScript (one per input) and the matching coins.
func benchTx(n int, pkScript func(i int) []byte) (*wire.MsgTx, Coins) {
	tx := wire.NewMsgTx(2)
	coins := Coins{}
	for i := range n {
		var op wire.OutPoint
		binary.LittleEndian.PutUint32(op.Hash[:], uint32(i)+1)
		tx.AddTxIn(&wire.TxIn{PreviousOutPoint: op, Sequence: 0xfffffffd})
		coins[op] = &Coin{PkScript: pkScript(i), Amount: 100_000}
	}
	tx.AddTxOut(&wire.TxOut{Value: 50_000, PkScript: script.PayToWitnessPubKeyHash(make([]byte, 20))})
	return tx, coins
}

func p2wpkhFor(k *Key) []byte {
	h := script.Hash160(k.PubKey())
	return script.PayToWitnessPubKeyHash(h[:])
}

func p2trFor(k *Key) []byte {
	plain, _ := k.schnorrKeys()
	return script.PayToTaproot(plain.xonly[:])
}

// BenchmarkInputP2WPKH is the signer's path for one P2WPKH input: solving
// the script, finding the key, the BIP 143 signature hash from the shared
// midstate, low-R ground signing, the verification with the public key and
// the witness. The script-engine check that follows (as in Core; it finds
// the signature in the call's cache) is measured by
// BenchmarkInputP2WPKHVerified.
func BenchmarkInputP2WPKH(b *testing.B) {
	k := benchKey(1)
	tx, coins := benchTx(1, func(int) []byte { return p2wpkhFor(k) })
	ctx := newTxContext(tx, coins, NewProvider(k), SigHashDefault)
	view := ctx.newView()
	b.ReportAllocs()
	cpu := benchcpu.Used()
	for b.Loop() {
		s := &inputSigner{ctx: ctx, idx: 0, view: view, coin: ctx.coins[0],
			sigs: make(map[[20]byte]sigPair, 1)}
		res, class, ok := s.signStep(s.coin.PkScript, sigBase)
		if !ok || class != script.WitnessV0KeyHash {
			b.Fatal("not solved")
		}
		if _, _, ok := s.signStep(script.PayToPubKeyHash(res[0]), sigWitnessV0); !ok {
			b.Fatal("not signed")
		}
	}
	benchcpu.Report(b, cpu)
}

// BenchmarkRawP2WPKH is the raw work of one P2WPKH signature: the BIP 143
// hash, the low-R ground ECDSA signature and its verification with the
// public key.
func BenchmarkRawP2WPKH(b *testing.B) {
	k := benchKey(1)
	tx, coins := benchTx(1, func(int) []byte { return p2wpkhFor(k) })
	ctx := newTxContext(tx, coins, NewProvider(k), SigHashDefault)
	h := script.Hash160(k.PubKey())
	sc := script.PayToPubKeyHash(h[:])
	b.ReportAllocs()
	cpu := benchcpu.Used()
	for b.Loop() {
		hash, err := txscript.CalcWitnessSigHash(sc, ctx.sigHashes, txscript.SigHashAll, tx, 0, 100_000)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := SignECDSA(k.priv, k.pub, hash); !ok {
			b.Fatal("refused")
		}
	}
	benchcpu.Report(b, cpu)
}

// BenchmarkInputTaproot is the signer's path for one taproot key-path
// input (the key is the output key), verification included.
func BenchmarkInputTaproot(b *testing.B) {
	k := benchKey(2)
	tx, coins := benchTx(1, func(int) []byte { return p2trFor(k) })
	ctx := newTxContext(tx, coins, NewProvider(k), SigHashDefault)
	view := ctx.newView()
	b.ReportAllocs()
	cpu := benchcpu.Used()
	for b.Loop() {
		s := &inputSigner{ctx: ctx, idx: 0, view: view, coin: ctx.coins[0],
			sigs: make(map[[20]byte]sigPair, 1)}
		if _, _, ok := s.signStep(s.coin.PkScript, sigBase); !ok {
			b.Fatal("not signed")
		}
	}
	benchcpu.Report(b, cpu)
}

// BenchmarkRawTaproot is the raw work of one key-path signature: the
// BIP 341 hash, the BIP 340 signature and its verification with the public
// key.
func BenchmarkRawTaproot(b *testing.B) {
	k := benchKey(2)
	tx, coins := benchTx(1, func(int) []byte { return p2trFor(k) })
	ctx := newTxContext(tx, coins, NewProvider(k), SigHashDefault)
	plain, _ := k.schnorrKeys()
	b.ReportAllocs()
	cpu := benchcpu.Used()
	for b.Loop() {
		hash, err := txscript.CalcTaprootSignatureHash(ctx.sigHashes, SigHashDefault, tx, 0, ctx.fetcher)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := plain.signSchnorr(hash, nil); !ok {
			b.Fatal("refused")
		}
	}
	benchcpu.Report(b, cpu)
}

// BenchmarkInputP2WPKHVerified is one P2WPKH input through SignTransaction:
// signing plus the script-engine verification.
func BenchmarkInputP2WPKHVerified(b *testing.B) {
	k := benchKey(1)
	p := NewProvider(k)
	tx, coins := benchTx(1, func(int) []byte { return p2wpkhFor(k) })
	b.ReportAllocs()
	for b.Loop() {
		tx.TxIn[0].Witness = nil
		errs, err := SignTransaction(tx, coins, p, SigHashDefault)
		if err != nil || len(errs) != 0 {
			b.Fatal(err, errs)
		}
	}
}

// BenchmarkSignTransaction200P2WPKH signs and verifies a 200-input P2WPKH
// transaction (inputs in parallel).
func BenchmarkSignTransaction200P2WPKH(b *testing.B) {
	keys := make([]*Key, 200)
	for i := range keys {
		keys[i] = benchKey(byte(i))
	}
	p := NewProvider(keys...)
	tx, coins := benchTx(200, func(i int) []byte { return p2wpkhFor(keys[i]) })
	b.ReportAllocs()
	cpu := benchcpu.Used()
	for b.Loop() {
		for _, in := range tx.TxIn {
			in.Witness = nil
		}
		errs, err := SignTransaction(tx, coins, p, SigHashDefault)
		if err != nil || len(errs) != 0 {
			b.Fatal(err, errs)
		}
	}
	benchcpu.Report(b, cpu)
}

// BenchmarkRawVerifyECDSA is the raw ECDSA verification the script engine
// runs for each signature (pubkey parsing included).
func BenchmarkRawVerifyECDSA(b *testing.B) {
	k := benchKey(1)
	hash := sha256.Sum256([]byte("bench"))
	der, _ := SignECDSA(k.priv, k.pub, hash[:])
	b.ReportAllocs()
	for b.Loop() {
		pub, err := btcec.ParsePubKey(k.PubKey())
		if err != nil {
			b.Fatal(err)
		}
		sig, err := btcecdsa.ParseDERSignature(der)
		if err != nil || !sig.Verify(hash[:], pub) {
			b.Fatal("bad signature")
		}
	}
}

// BenchmarkRawPubKey is the public key computation of one key.
func BenchmarkRawPubKey(b *testing.B) {
	k := benchKey(1)
	b.ReportAllocs()
	for b.Loop() {
		_ = k.priv.PubKey()
	}
}

// BenchmarkSignTransaction200Verify signs 200-input P2WPKH and taproot
// key-path transactions with the fast check of the signed inputs and with
// every input through the script engine (fastAccept off), in one run.
func BenchmarkSignTransaction200Verify(b *testing.B) {
	keys := make([]*Key, 200)
	for i := range keys {
		keys[i] = benchKey(byte(i))
	}
	p := NewProvider(keys...)
	for _, kind := range []struct {
		name string
		pk   func(*Key) []byte
	}{{"p2wpkh", p2wpkhFor}, {"p2tr", p2trFor}} {
		tx, coins := benchTx(200, func(i int) []byte { return kind.pk(keys[i]) })
		for _, engine := range []bool{false, true} {
			name := kind.name + "/fast"
			if engine {
				name = kind.name + "/engine"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				cpu := benchcpu.Used()
				for b.Loop() {
					for _, in := range tx.TxIn {
						in.Witness = nil
					}
					ctx := newTxContext(tx, coins, p, SigHashDefault)
					ctx.noFastVerify = engine
					errs, err := ctx.run()
					if err != nil || len(errs) != 0 {
						b.Fatal(err, errs)
					}
				}
				benchcpu.Report(b, cpu)
			})
		}
	}
}
