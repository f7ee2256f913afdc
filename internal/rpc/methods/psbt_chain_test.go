package methods

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
	"github.com/descwallet/descwallet/psbt"
)

// psbtChainCase is one output type the PSBT chain test pays to and spends:
// the descriptor updaters see, and one descriptor per signer.
type psbtChainCase struct {
	name    string
	public  string
	signers []string
	// witnessItems is the size of the final witness (0: none).
	witnessItems int
}

// TestPSBTChain spends coins of every output type through the PSBT calls
// of a running node following btcd: createpsbt -> utxoupdatepsbt (which
// finds the previous transaction through the chain backend) ->
// descriptorprocesspsbt (two signers combined with combinepsbt for the
// multisig) -> finalizepsbt -> btcd's sendrawtransaction, and btcd mines
// every spend.
func TestPSBTChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	b := testenv.StartBtcd(t, nil)
	d := startOnBtcd(t, b)

	k1, k2 := testenv.NewKey("psbt chain 1"), testenv.NewKey("psbt chain 2")
	k3, k4 := testenv.NewKey("psbt chain 3"), testenv.NewKey("psbt chain 4")
	x := func(k *testenv.Key) string { return k.PubKeyHex[2:] }
	cases := []psbtChainCase{
		{name: "p2pkh", public: "pkh(" + k1.PubKeyHex + ")", signers: []string{"pkh(" + k1.WIF + ")"}},
		{name: "p2sh-p2wpkh", public: "sh(wpkh(" + k2.PubKeyHex + "))",
			signers: []string{"sh(wpkh(" + k2.WIF + "))"}, witnessItems: 2},
		{name: "p2wpkh", public: "wpkh(" + k1.PubKeyHex + ")",
			signers: []string{"wpkh(" + k1.WIF + ")"}, witnessItems: 2},
		{name: "p2wsh-multisig-two-signers",
			public: "wsh(multi(2," + k1.PubKeyHex + "," + k2.PubKeyHex + "))",
			signers: []string{
				"wsh(multi(2," + k1.WIF + "," + k2.PubKeyHex + "))",
				"wsh(multi(2," + k1.PubKeyHex + "," + k2.WIF + "))",
			}, witnessItems: 4},
		{name: "miniscript-wsh",
			public:       "wsh(and_v(v:pk(" + k1.PubKeyHex + "),pk(" + k2.PubKeyHex + ")))",
			signers:      []string{"wsh(and_v(v:pk(" + k1.WIF + "),pk(" + k2.WIF + ")))"},
			witnessItems: 3},
		{name: "p2tr-key-path", public: "tr(" + x(k3) + ")", signers: []string{"tr(" + k3.WIF + ")"},
			witnessItems: 1},
		{name: "p2tr-script-path",
			public:       "tr(" + x(k4) + ",{pk(" + x(k1) + "),pk(" + x(k2) + ")})",
			signers:      []string{"tr(" + x(k4) + ",{pk(" + k1.WIF + "),pk(" + x(k2) + ")})"},
			witnessItems: 3},
	}

	const value, fee = 2_000_000, 20_000
	var outs []*wire.TxOut
	for _, c := range cases {
		desc, err := descriptor.Parse(c.public, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		o, err := desc.Expand(0, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		outs = append(outs, wire.NewTxOut(value, o[0].ScriptPubKey))
	}
	fundID := b.Fund(outs...)
	b.Generate(1)

	miner := testenv.MinerKey()
	amount := fmt.Sprintf("%d.%08d", (value-fee)/100_000_000, (value-fee)%100_000_000)
	call := func(out any, method string, params ...any) {
		t.Helper()
		if err := d.CallResult(out, method, params...); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	var spent []string
	for i, c := range cases {
		var created, updated string
		call(&created, "createpsbt", []map[string]any{{"txid": fundID, "vout": i}},
			[]map[string]any{{miner.WPKH.Address: json.Number(amount)}})
		call(&updated, "utxoupdatepsbt", created, []string{c.public})
		up, err := psbt.DecodeBase64(updated)
		if err != nil {
			t.Fatal(err)
		}
		// The previous transaction is found; for taproot only the
		// output is kept (Core's RemoveUnnecessaryTransactions).
		if up.Inputs[0].NonWitnessUTXO == nil && (!strings.HasPrefix(c.name, "p2tr") || up.Inputs[0].WitnessUTXO == nil) {
			t.Fatalf("%s: utxoupdatepsbt did not find the previous transaction", c.name)
		}
		var signed []string
		for _, s := range c.signers {
			var res struct {
				PSBT     string `json:"psbt"`
				Complete bool   `json:"complete"`
			}
			call(&res, "descriptorprocesspsbt", updated, []string{s}, nil, true, false)
			signed = append(signed, res.PSBT)
		}
		combined := signed[0]
		if len(signed) > 1 {
			call(&combined, "combinepsbt", signed)
			for _, s := range signed {
				var one struct {
					Complete bool `json:"complete"`
				}
				call(&one, "finalizepsbt", s)
				if one.Complete {
					t.Fatalf("%s: one signer alone completed the multisig", c.name)
				}
			}
		}
		var fin struct {
			Hex      string `json:"hex"`
			Complete bool   `json:"complete"`
		}
		call(&fin, "finalizepsbt", combined)
		if !fin.Complete {
			raw, _ := base64.StdEncoding.DecodeString(combined)
			t.Fatalf("%s: not complete: %x", c.name, raw)
		}
		var dec struct {
			Vin []struct {
				TxInWitness []string `json:"txinwitness"`
			} `json:"vin"`
		}
		call(&dec, "decoderawtransaction", fin.Hex)
		if got := len(dec.Vin[0].TxInWitness); got != c.witnessItems {
			t.Fatalf("%s: %d witness items, want %d", c.name, got, c.witnessItems)
		}
		id, err := b.SendRawTransaction(fin.Hex)
		if err != nil {
			t.Fatalf("%s: btcd rejected %s: %v", c.name, fin.Hex, err)
		}
		spent = append(spent, c.name+" "+id)
	}
	b.Generate(1)
	for _, s := range spent {
		id := s[strings.LastIndex(s, " ")+1:]
		if b.Confirmations(id) != 1 {
			t.Fatalf("%s not mined", s)
		}
	}
	t.Logf("btcd mined %d PSBT spends: %s", len(spent), strings.Join(spent, ", "))
}
