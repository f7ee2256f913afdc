package sign_test

import (
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/sign"
)

// TestSatisfactionWithinDescriptorBounds signs an output of each
// descriptor kind with the signer and checks the satisfaction against the
// descriptor's bounds: Core's MaxSatisfactionWeight (72-byte signatures,
// and 71-byte ones since the signer grinds R low) and rust-miniscript's
// MaxWeightToSatisfy are never exceeded, and are tight to a couple of
// bytes per signature.
func TestSatisfactionWithinDescriptorBounds(t *testing.T) {
	var keys []*sign.Key
	var hexKeys []string
	for i := range 3 {
		priv, _ := btcec.PrivKeyFromBytes([]byte(fmt.Sprintf("satisfaction bound key %02d......", i)))
		k := sign.NewKey(priv, true)
		keys = append(keys, k)
		hexKeys = append(hexKeys, hex.EncodeToString(k.PubKey()))
	}
	k1, k2, k3 := hexKeys[0], hexKeys[1], hexKeys[2]
	multi := "multi(2," + k1 + "," + k2 + "," + k3 + ")"
	for _, c := range []struct {
		desc string
		sigs int
		seq  uint32
	}{
		{"pkh(" + k1 + ")", 1, 0xffffffff},
		{"wpkh(" + k1 + ")", 1, 0xffffffff},
		{"sh(wpkh(" + k1 + "))", 1, 0xffffffff},
		{"pk(" + k1 + ")", 1, 0xffffffff},
		{multi, 2, 0xffffffff},
		{"sh(" + multi + ")", 2, 0xffffffff},
		{"wsh(" + multi + ")", 2, 0xffffffff},
		{"sh(wsh(" + multi + "))", 2, 0xffffffff},
		{"wsh(and_v(v:pk(" + k1 + "),older(10)))", 1, 10},
		{"tr(" + k1 + ")", 1, 0xffffffff},
	} {
		d, err := descriptor.Parse(c.desc, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatalf("%s: %v", c.desc, err)
		}
		outs, err := d.Expand(0, nil)
		if err != nil {
			t.Fatal(err)
		}
		o := outs[0]
		p := sign.NewProvider(keys...)
		if o.RedeemScript != nil {
			p.AddScript(o.RedeemScript)
		}
		if o.WitnessScript != nil {
			p.AddWitnessScript(o.WitnessScript)
		}
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(&wire.TxIn{PreviousOutPoint: wire.OutPoint{Index: 3}, Sequence: c.seq})
		tx.AddTxOut(&wire.TxOut{Value: 90_000, PkScript: []byte{0x51}})
		coins := sign.Coins{tx.TxIn[0].PreviousOutPoint: {PkScript: o.ScriptPubKey, Amount: 100_000}}
		errs, err := sign.SignTransaction(tx, coins, p, sign.SigHashDefault)
		if err != nil || len(errs) != 0 {
			t.Fatalf("%s: not signed: %v %v", c.desc, errs, err)
		}
		in := tx.TxIn[0]
		items := 0
		for _, w := range in.Witness {
			items += wire.VarIntSerializeSize(uint64(len(w))) + len(w)
		}
		// Core counts the scriptSig and the witness items, not their
		// prefixes; rust-miniscript counts how the prefixes grow too.
		core := 4*len(in.SignatureScript) + items
		rust := 4*(wire.VarIntSerializeSize(uint64(len(in.SignatureScript)))-1+len(in.SignatureScript)) + items
		if len(in.Witness) > 0 {
			rust += wire.VarIntSerializeSize(uint64(len(in.Witness))) - 1
		}
		hi, _ := d.MaxSatisfactionWeight(true)
		lo, _ := d.MaxSatisfactionWeight(false)
		rw, _ := d.MaxWeightToSatisfy()
		bound := lo
		if c.seq == 10 {
			bound = hi // miniscript always counts 72-byte signatures
		}
		if len(o.RedeemScript) > 75 {
			// Core counts one byte for the redeem script's push; a script
			// over 75 bytes takes OP_PUSHDATA1 and its length, so Core's
			// figure is 4 short (hidden with 72-byte signatures).
			bound += 4
			if hi < core {
				t.Errorf("%s: satisfaction weighs %d, above Core's 72-byte bound %d", c.desc, core, hi)
			}
		}
		slack := 4 * 2 * c.sigs
		if core > bound || bound-core > slack+4*c.sigs {
			t.Errorf("%s: satisfaction weighs %d, Core's bound %d (72-byte: %d)", c.desc, core, bound, hi)
		}
		if rust > rw || rw-rust > slack+4*c.sigs {
			t.Errorf("%s: satisfaction adds %d, rust-miniscript's bound %d", c.desc, rust, rw)
		}
	}
}
