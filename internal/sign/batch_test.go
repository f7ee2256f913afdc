package sign

import (
	"crypto/sha256"
	"testing"

	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/script"
)

// TestSignECDSABatchMatchesSingle checks that a batch makes, job for job,
// the very signature SignECDSA makes alone (nonce, low-R grinding and low
// S included), for batches of 1 to 64 jobs with repeated keys and hashes,
// and that a job whose public key is not its key's is refused alone.
func TestSignECDSABatchMatchesSingle(t *testing.T) {
	keys := make([]*Key, 24)
	for i := range keys {
		keys[i] = benchKey(byte(100 + i))
	}
	for _, n := range []int{1, 2, 3, 7, 16, 64} {
		jobs := make([]ecdsaJob, n)
		for i := range jobs {
			k := keys[(i*7+n)%len(keys)]
			h := sha256.Sum256([]byte{byte(n), byte(i), 'j'})
			if i%5 == 4 {
				h = sha256.Sum256([]byte{byte(n), 'j'}) // a hash shared by jobs
			}
			jobs[i] = ecdsaJob{d: &k.priv.Key, pub: k.pub, hash: h[:]}
		}
		if n >= 3 {
			jobs[2].pub = keys[0].pub
			if jobs[2].d == &keys[0].priv.Key {
				jobs[2].pub = keys[1].pub
			}
		}
		signECDSABatch(jobs, nil)
		for i, j := range jobs {
			want, ok := signECDSAVerified(j.d, j.pub, j.hash, nil)
			if !ok {
				if j.der != nil {
					t.Fatalf("batch %d job %d: signature with a wrong public key not refused", n, i)
				}
				continue
			}
			if string(j.der) != string(want) {
				t.Fatalf("batch %d job %d: %x, alone %x", n, i, j.der, want)
			}
		}
	}
}

// TestSignECDSABatchFaults corrupts the nonce points (R + G) and, apart,
// the finished signatures of a batch: the verification refuses every
// signature, as it does alone.
func TestSignECDSABatchFaults(t *testing.T) {
	var g secp256k1.JacobianPoint
	var one secp256k1.ModNScalar
	one.SetInt(1)
	secp256k1.ScalarBaseMultNonConst(&one, &g)
	for name, f := range map[string]*faults{
		"nonce point": {noncePoint: func(p *secp256k1.JacobianPoint) {
			var sum secp256k1.JacobianPoint
			secp256k1.AddNonConst(p, &g, &sum)
			*p = sum
		}},
		"signature": {sig: func(b []byte) { b[len(b)-1] ^= 1 }},
	} {
		jobs := make([]ecdsaJob, 12)
		for i := range jobs {
			k := benchKey(byte(i))
			h := sha256.Sum256([]byte{byte(i), 'f'})
			jobs[i] = ecdsaJob{d: &k.priv.Key, pub: k.pub, hash: h[:]}
		}
		signECDSABatch(jobs, f)
		for i, j := range jobs {
			if j.der != nil {
				t.Fatalf("%s: job %d carries a faulty signature", name, i)
			}
		}
	}
}

// TestSignECDSABatchInfinityAlone makes the first nonce point of a batch
// the point at infinity: the batch cannot go to affine form, so its jobs
// are signed alone (where the later nonce points are sound), and the
// signatures are those SignECDSA makes.
func TestSignECDSABatchInfinityAlone(t *testing.T) {
	calls := 0
	f := &faults{noncePoint: func(p *secp256k1.JacobianPoint) {
		if calls == 0 {
			*p = secp256k1.JacobianPoint{}
		}
		calls++
	}}
	jobs := make([]ecdsaJob, 6)
	for i := range jobs {
		k := benchKey(byte(i))
		h := sha256.Sum256([]byte{byte(i), 'i'})
		jobs[i] = ecdsaJob{d: &k.priv.Key, pub: k.pub, hash: h[:]}
	}
	signECDSABatch(jobs, f)
	for i, j := range jobs {
		want, _ := signECDSAVerified(j.d, j.pub, j.hash, nil)
		if j.der == nil || string(j.der) != string(want) {
			t.Fatalf("job %d: %x, alone %x", i, j.der, want)
		}
	}
}

// TestPresignedMatchesSingle signs transactions of P2WPKH and P2PKH inputs
// (compressed and uncompressed keys, several hash types, inputs that
// presign leaves alone: no key, a witness already there, a P2SH-P2WPKH)
// through SignTransaction, and checks every witness and scriptSig against
// one made input by input with SignECDSA, and that presign made the
// signatures of the inputs it can sign ahead.
func TestPresignedMatchesSingle(t *testing.T) {
	for _, ht := range []txscript.SigHashType{SigHashDefault, txscript.SigHashAll,
		txscript.SigHashNone | txscript.SigHashAnyOneCanPay, txscript.SigHashSingle} {
		const n = 40
		keys := make([]*Key, n)
		for i := range keys {
			h := sha256.Sum256([]byte{byte(i), 'p'})
			keys[i] = NewKey(secp256k1.PrivKeyFromBytes(h[:]), i%4 != 3)
		}
		pkScript := func(i int) []byte {
			h := script.Hash160(keys[i].PubKey())
			if i%2 == 0 && keys[i].compressed {
				return script.PayToWitnessPubKeyHash(h[:])
			}
			return script.PayToPubKeyHash(h[:])
		}
		tx, coins := benchTx(n, pkScript)
		p := NewProvider(keys[:n-2]...) // the last two keys are missing
		ctx := newTxContext(tx, coins, p, ht)
		errs, err := ctx.run()
		if err != nil {
			t.Fatal(err)
		}
		want := 2 // the inputs without keys
		if ht&^txscript.SigHashAnyOneCanPay == txscript.SigHashSingle {
			want = n - 1 // SINGLE signs input 0 only (one output)
		}
		if len(errs) != want {
			t.Fatalf("hash type %v: %d errors, want %d: %v", ht, len(errs), want, errs)
		}
		sht := ht
		if sht == SigHashDefault {
			sht = txscript.SigHashAll
		}
		made := 0
		for i, in := range tx.TxIn {
			if ctx.presigned[i].made {
				made++
			}
			if i >= n-2 || (sht&^txscript.SigHashAnyOneCanPay == txscript.SigHashSingle && i > 0) {
				continue
			}
			k := keys[i]
			var hash []byte
			pk := pkScript(i)
			if pk[0] == 0 {
				h := script.Hash160(k.PubKey())
				hash, err = txscript.CalcWitnessSigHash(script.PayToPubKeyHash(h[:]), ctx.sigHashes, sht, tx, i, 100_000)
			} else {
				hash, err = txscript.CalcSignatureHash(pk, sht, tx, i)
			}
			if err != nil {
				t.Fatal(err)
			}
			der, ok := SignECDSA(k.priv, k.pub, hash)
			if !ok {
				t.Fatal("refused")
			}
			sig := append(der, byte(sht))
			if pk[0] == 0 {
				if len(in.Witness) != 2 || string(in.Witness[0]) != string(sig) || string(in.Witness[1]) != string(k.PubKey()) {
					t.Fatalf("hash type %v input %d: witness differs from the one-by-one signature", ht, i)
				}
			} else if string(in.SignatureScript) != string(pushAll([][]byte{sig, k.PubKey()})) {
				t.Fatalf("hash type %v input %d: scriptSig differs from the one-by-one signature", ht, i)
			}
		}
		if sht&^txscript.SigHashAnyOneCanPay != txscript.SigHashSingle && made != n-2 {
			t.Fatalf("hash type %v: presign made %d signatures, want %d", ht, made, n-2)
		}
	}
}
