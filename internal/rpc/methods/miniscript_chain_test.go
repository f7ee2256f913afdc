package methods

import (
	"encoding/hex"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestSignRawTransactionWithKeyMiniscriptChain lets a real btcd judge
// miniscript satisfactions: outputs paying to wsh() miniscript policies (a
// timelocked recovery path, an absolute timelock, a 2-of-3 thresh) are
// spent through signrawtransactionwithkey with their witnessScript, with
// the sequence and locktime the policy needs, and btcd must mine them.
func TestSignRawTransactionWithKeyMiniscriptChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd")
	}
	net := &chaincfg.RegressionNetParams
	a, b2, c := testenv.NewKey("ms chain A"), testenv.NewKey("ms chain B"), testenv.NewKey("ms chain C")
	policies := []struct {
		name     string
		desc     string
		keys     []string
		sequence uint32
		lockTime uint32
	}{
		{"or_d-recovery", "wsh(or_d(pk(" + a.PubKeyHex + "),and_v(v:pk(" + b2.PubKeyHex + "),older(2))))",
			[]string{b2.WIF}, 2, 0},
		{"and_v-after", "wsh(and_v(v:pk(" + a.PubKeyHex + "),after(100)))",
			[]string{a.WIF}, 0xfffffffe, 100},
		{"thresh-2of3", "wsh(thresh(2,pk(" + a.PubKeyHex + "),s:pk(" + b2.PubKeyHex + "),s:pk(" + c.PubKeyHex + ")))",
			[]string{a.WIF, c.WIF}, 0xffffffff, 0},
	}
	m := newSignRawTransactionWithKey(&Deps{Net: net})
	btcd := testenv.StartBtcd(t, nil)
	miner := testenv.MinerKey()
	coin := btcd.MatureCoinbases(1)[0]

	const value = 10_000_000
	var outs []*wire.TxOut
	var witnessScripts [][]byte
	for _, p := range policies {
		d, err := descriptor.Parse(p.desc, net)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		o, err := d.Expand(0, nil)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		outs = append(outs, wire.NewTxOut(value, o[0].ScriptPubKey))
		witnessScripts = append(witnessScripts, o[0].WitnessScript)
	}
	outs = append(outs, wire.NewTxOut(coin.Value-int64(len(policies))*value-100_000, miner.WPKH.Script))
	fund := testenv.UnsignedSpend(t, []testenv.Coin{coin}, outs...)
	res, rerr := chainCall(t, m, testenv.TxHex(t, fund), []string{miner.WIF}, []any{prevtx(coin, nil)})
	if rerr != nil || !res.Complete {
		t.Fatalf("funding not signed: %v %+v", rerr, res)
	}
	fundID, err := btcd.SendRawTransaction(res.Hex)
	if err != nil {
		t.Fatalf("funding rejected: %v", err)
	}
	btcd.Generate(2) // older(2) needs two confirmations

	var txids []string
	for i, p := range policies {
		cn := testenv.Coin{TxID: fundID, Vout: uint32(i), Value: value, Script: outs[i].PkScript}
		tx := testenv.UnsignedSpend(t, []testenv.Coin{cn}, wire.NewTxOut(value-5_000, miner.WPKH.Script))
		tx.TxIn[0].Sequence = p.sequence
		tx.LockTime = p.lockTime
		prev := []any{prevtx(cn, map[string]any{"witnessScript": hex.EncodeToString(witnessScripts[i])})}
		r, rerr := chainCall(t, m, testenv.TxHex(t, tx), p.keys, prev)
		if rerr != nil || !r.Complete {
			t.Fatalf("%s: not signed: %v %+v", p.name, rerr, r)
		}
		id, err := btcd.SendRawTransaction(r.Hex)
		if err != nil {
			t.Fatalf("%s: btcd rejected %s: %v", p.name, r.Hex, err)
		}
		txids = append(txids, id)
	}
	btcd.Generate(1)
	for i, id := range txids {
		if btcd.Confirmations(id) != 1 {
			t.Fatalf("%s: %s not mined", policies[i].name, id)
		}
	}
}
