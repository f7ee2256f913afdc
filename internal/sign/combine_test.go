package sign

import (
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/script"
)

// TestCombineTransaction signs a 2-of-3 input (P2WSH and bare P2SH) once
// with each of two keys, then combines the two halves: the result verifies.
// A complete version is taken as it is, and an input with no previous
// output is left alone.
func TestCombineTransaction(t *testing.T) {
	var keys []*Key
	var pubs [][]byte
	for range 3 {
		priv, err := btcec.NewPrivateKey()
		if err != nil {
			t.Fatal(err)
		}
		k := NewKey(priv, true)
		keys = append(keys, k)
		pubs = append(pubs, k.PubKey())
	}
	ms, err := script.PayToMultisig(2, pubs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		spk  []byte
		add  func(*Provider)
	}{
		{"p2wsh", P2WSH(ms), func(p *Provider) { p.AddWitnessScript(ms) }},
		{"p2sh", p2shOf(ms), func(p *Provider) { p.AddScript(ms) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := wire.NewMsgTx(2)
			base.AddTxIn(&wire.TxIn{PreviousOutPoint: wire.OutPoint{Index: 1}, Sequence: 0xfffffffd})
			base.AddTxOut(&wire.TxOut{Value: 90_000, PkScript: []byte{0x51}})
			coins := Coins{base.TxIn[0].PreviousOutPoint: {PkScript: c.spk, Amount: 100_000}}

			half := func(k *Key) *wire.MsgTx {
				tx := base.Copy()
				p := NewProvider(k)
				c.add(p)
				errs, err := SignTransaction(tx, coins, p, SigHashDefault)
				if err != nil || len(errs) != 1 {
					t.Fatalf("one signature of two: %v %v", errs, err)
				}
				return tx
			}
			a, b := half(keys[0]), half(keys[2])
			got := CombineTransaction([]*wire.MsgTx{a, b}, coins)
			if errs := verifyAll(t, got, coins); len(errs) != 0 {
				t.Fatalf("combined transaction does not verify: %v", errs)
			}
			// The versions are left as they were.
			if errs := verifyAll(t, a, coins); len(errs) != 1 {
				t.Fatal("a version was modified")
			}
			// A complete version wins over a partial one.
			again := CombineTransaction([]*wire.MsgTx{a, got}, coins)
			if again.TxHash() != got.TxHash() || again.WitnessHash() != got.WitnessHash() {
				t.Fatal("complete version not taken")
			}
			// Without the previous output nothing changes.
			same := CombineTransaction([]*wire.MsgTx{a, b}, Coins{})
			if same.WitnessHash() != a.WitnessHash() {
				t.Fatal("input without a coin changed")
			}
		})
	}
}

// verifyAll runs the verifier over every input (signing with no key).
func verifyAll(t *testing.T, tx *wire.MsgTx, coins Coins) []InputError {
	t.Helper()
	c := tx.Copy()
	errs, err := SignTransaction(c, coins, NewProvider(), SigHashDefault)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

func p2shOf(redeem []byte) []byte {
	h := script.Hash160(redeem)
	return script.PayToScriptHash(h[:])
}
