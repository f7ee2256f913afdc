package descriptor

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/testvec"
)

type signingCheck struct {
	ExpectSuccess bool   `json:"expect_success"`
	LockTime      uint32 `json:"spender_nlocktime"`
	Sequence      uint32 `json:"spender_nsequence"`
	Preimages     []struct {
		Preimage string `json:"preimage"`
	} `json:"preimages"`
}

// TestDescriptorSigning signs a spend of every script of the core_check
// cases that carry a signing check, with the keys and scripts the expansion
// gives, through internal/sign; it must succeed as Core's test expects.
func TestDescriptorSigning(t *testing.T) {
	var v struct {
		Cases []struct {
			ID      string          `json:"id"`
			Kind    string          `json:"kind"`
			Network string          `json:"network"`
			Private string          `json:"private"`
			Signing *signingCheck   `json:"signing"`
			Scripts json.RawMessage `json:"scripts"`
		} `json:"cases"`
	}
	testvec.Load(t, "descriptors_valid.json", &v)
	ran := 0
	for _, c := range v.Cases {
		if c.Kind != "core_check" || c.Signing == nil {
			continue
		}
		if f, ok := testvec.Pending(c.ID); ok {
			t.Logf("%s: pending on %s", c.ID, f)
			continue
		}
		if f, ok := testvec.Pending(c.ID + ":signing"); ok {
			t.Logf("%s signing: pending on %s", c.ID, f)
			continue
		}
		ran++
		d, err := Parse(c.Private, netByName(t, c.Network))
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		outs, err := d.Expand(0, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		for _, o := range outs {
			ok := signSpend(t, o, c.Signing)
			if ok != c.Signing.ExpectSuccess {
				t.Errorf("%s: signing %x: success %v, want %v", c.ID, o.ScriptPubKey, ok, c.Signing.ExpectSuccess)
			}
		}
	}
	if ran == 0 {
		t.Fatal("no signing case ran")
	}
}

// signSpend signs a one-input transaction spending o and reports whether
// the input ends complete and valid.
func signSpend(t *testing.T, o Output, s *signingCheck) bool {
	p := sign.NewProvider()
	for _, k := range o.Keys {
		if k.PrivKey == nil {
			continue
		}
		priv, _ := btcec.PrivKeyFromBytes(k.PrivKey)
		p.AddKey(sign.NewKey(priv, len(k.PubKey) != 65))
	}
	for _, k := range o.Keys {
		p.AddPubKey(k.PubKey)
	}
	for _, sc := range o.Scripts {
		p.AddScript(sc)
	}
	trees := map[[32]byte]*Taproot{}
	for ok, tr := range o.Trees {
		trees[ok] = tr
	}
	if o.Taproot != nil {
		trees[o.Taproot.OutputKey] = o.Taproot
	}
	for outputKey, tr := range trees {
		d := sign.TaprootSpendData{InternalKey: tr.InternalKey, MerkleRoot: tr.MerkleRoot}
		for _, l := range tr.Leaves {
			d.Leaves = append(d.Leaves, sign.TapLeaf{LeafVersion: l.LeafVersion,
				Script: l.Script, ControlBlock: l.ControlBlock})
		}
		p.AddTaprootSpendData(outputKey, d)
	}
	for _, pre := range s.Preimages {
		b, err := hex.DecodeString(pre.Preimage)
		if err != nil {
			t.Fatalf("preimage %q: %v", pre.Preimage, err)
		}
		p.AddPreimage(b)
	}
	tx := wire.NewMsgTx(2)
	tx.LockTime = s.LockTime
	prev := wire.OutPoint{Hash: chainhash.Hash{1}, Index: 0}
	in := wire.NewTxIn(&prev, nil, nil)
	in.Sequence = s.Sequence
	tx.AddTxIn(in)
	tx.AddTxOut(wire.NewTxOut(90000, o.ScriptPubKey))
	coins := map[wire.OutPoint]*sign.Coin{prev: {PkScript: o.ScriptPubKey, Amount: 100000}}
	errs, err := sign.SignTransaction(tx, coins, p, txscript.SigHashAll)
	if err != nil {
		t.Logf("sign %s: %v", hex.EncodeToString(o.ScriptPubKey), err)
		return false
	}
	for _, e := range errs {
		t.Logf("sign %s: %s", hex.EncodeToString(o.ScriptPubKey), e.Message)
	}
	return len(errs) == 0
}
