package methods

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/testenv"
)

// chainSpend is one kind of output the chain test pays to and spends: its
// script, the prevtxs fields describing it, the keys that sign it, and for
// multisig the keys of a first, partial call.
type chainSpend struct {
	name    string
	script  []byte
	extra   map[string]any
	keys    []string
	partial []string
}

// chainSpends builds every script type the signer supports.
func chainSpends() []chainSpend {
	k1, k2, k3 := testenv.NewKey("sign chain 1"), testenv.NewKey("sign chain 2"), testenv.NewKey("sign chain 3")
	multi, _ := script.PayToMultisig(2, [][]byte{k1.PubKey, k2.PubKey, k3.PubKey})
	pkh := script.Hash160(k2.PubKey)
	shPKH := script.PayToPubKeyHash(pkh[:])
	rawtr := testenv.NewKey("sign chain rawtr")
	return []chainSpend{
		{name: "p2pk", script: script.PayToPubKey(k1.PubKey), keys: []string{k1.WIF}},
		{name: "p2pkh", script: k1.PKH.Script, keys: []string{k1.WIF}},
		{name: "p2sh-multisig", script: p2sh(multi),
			extra: map[string]any{"redeemScript": hex.EncodeToString(multi)},
			keys:  []string{k3.WIF}, partial: []string{k1.WIF}},
		{name: "p2sh-p2pkh", script: p2sh(shPKH),
			extra: map[string]any{"redeemScript": hex.EncodeToString(shPKH)},
			keys:  []string{k2.WIF}},
		{name: "p2wpkh", script: k1.WPKH.Script, keys: []string{k1.WIF}},
		{name: "p2sh-p2wpkh", script: k2.SHWPKH.Script,
			extra: map[string]any{"redeemScript": hex.EncodeToString(k2.WPKH.Script)},
			keys:  []string{k2.WIF}},
		{name: "p2wsh-multisig", script: sign.P2WSH(multi),
			extra: map[string]any{"witnessScript": hex.EncodeToString(multi)},
			keys:  []string{k2.WIF}, partial: []string{k1.WIF}},
		{name: "p2sh-p2wsh-multisig", script: p2sh(sign.P2WSH(multi)),
			extra: map[string]any{"witnessScript": hex.EncodeToString(multi),
				"redeemScript": hex.EncodeToString(sign.P2WSH(multi))},
			keys: []string{k3.WIF}, partial: []string{k2.WIF}},
		{name: "bare-multisig", script: multi, keys: []string{k2.WIF}, partial: []string{k3.WIF}},
		{name: "p2tr-bip86", script: k3.TR.Script, keys: []string{k3.WIF}},
		{name: "p2tr-rawtr", script: script.PayToTaproot(schnorr.SerializePubKey(rawtr.Priv.PubKey())),
			keys: []string{rawtr.WIF}},
	}
}

var chainSighashes = []string{"", "DEFAULT", "ALL", "NONE", "SINGLE",
	"ALL|ANYONECANPAY", "NONE|ANYONECANPAY", "SINGLE|ANYONECANPAY"}

// chainCall runs signrawtransactionwithkey with Go values as parameters.
func chainCall(t *testing.T, m *rpc.Method, params ...any) (*signResult, *rpc.Error) {
	t.Helper()
	args := make([]json.RawMessage, len(params))
	for i, p := range params {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		args[i] = b
	}
	res, err := m.Handler(context.Background(), &rpc.Request{Method: m.Name, Params: args})
	if err != nil {
		var re *rpc.Error
		if !errors.As(MapError(err), &re) {
			t.Fatalf("unmapped error %v", err)
		}
		return nil, re
	}
	return res.(*signResult), nil
}

func prevtx(c testenv.Coin, extra map[string]any) map[string]any {
	p := map[string]any{"txid": c.TxID, "vout": c.Vout,
		"scriptPubKey": hex.EncodeToString(c.Script),
		"amount":       json.Number(fmt.Sprintf("%d.%08d", c.Value/1e8, c.Value%1e8))}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// TestSignRawTransactionWithKeyChain lets a real btcd judge the signatures:
// a mined coin is spent into every supported script type once per sighash
// type, then each of those outputs is spent with its sighash type
// (multisig in two calls, the first leaving it partial), and btcd must
// accept and mine every transaction. The bad-input errors are checked
// against the same transactions.
func TestSignRawTransactionWithKeyChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd")
	}
	m := newSignRawTransactionWithKey(&Deps{Net: &chaincfg.RegressionNetParams})
	b := testenv.StartBtcd(t, nil)
	miner := testenv.MinerKey()
	coin := b.MatureCoinbases(1)[0]

	// Fund one output per (script type, sighash type).
	spends := chainSpends()
	const value = 10_000_000
	var outs []*wire.TxOut
	for _, s := range spends {
		for range chainSighashes {
			outs = append(outs, wire.NewTxOut(value, s.script))
		}
	}
	fee := int64(100_000)
	outs = append(outs, wire.NewTxOut(coin.Value-int64(len(outs))*value-fee, miner.WPKH.Script))
	fund := testenv.UnsignedSpend(t, []testenv.Coin{coin}, outs...)
	res, rerr := chainCall(t, m, testenv.TxHex(t, fund), []string{miner.WIF},
		[]any{prevtx(coin, nil)})
	if rerr != nil || !res.Complete {
		t.Fatalf("funding not signed: %v %+v", rerr, res)
	}
	fundID, err := b.SendRawTransaction(res.Hex)
	if err != nil {
		t.Fatalf("funding rejected: %v", err)
	}
	b.Generate(1)

	// Spend each output with its sighash type.
	var txids []string
	n := 0
	for _, s := range spends {
		for _, sh := range chainSighashes {
			c := testenv.Coin{TxID: fundID, Vout: uint32(n), Value: value, Script: s.script}
			n++
			name := s.name + "/" + sh
			tx := testenv.UnsignedSpend(t, []testenv.Coin{c},
				wire.NewTxOut(value-5_000, miner.WPKH.Script))
			hexTx := testenv.TxHex(t, tx)
			prev := []any{prevtx(c, s.extra)}
			var shArg any = sh
			if sh == "" {
				shArg = nil
			}
			if s.partial != nil {
				r, rerr := chainCall(t, m, hexTx, s.partial, prev, shArg)
				if rerr != nil || r.Complete || len(r.Errors) != 1 ||
					r.Errors[0].Error != sign.MsgNeedMoreSignature {
					t.Fatalf("%s: first partial call: %v %+v", name, rerr, r)
				}
				hexTx = r.Hex
			}
			r, rerr := chainCall(t, m, hexTx, s.keys, prev, shArg)
			if rerr != nil || !r.Complete {
				t.Fatalf("%s: not signed: %v %+v", name, rerr, r)
			}
			id, err := b.SendRawTransaction(r.Hex)
			if err != nil {
				t.Fatalf("%s: btcd rejected %s: %v", name, r.Hex, err)
			}
			txids = append(txids, id)
		}
	}
	if len(txids) != len(spends)*len(chainSighashes) {
		t.Fatalf("%d spends", len(txids))
	}
	t.Logf("btcd accepted %d spends (%d script types x %d sighash types)",
		len(txids), len(spends), len(chainSighashes))
	b.Generate(1)
	for _, id := range txids {
		if b.Confirmations(id) != 1 {
			t.Fatalf("%s not mined", id)
		}
	}

	chainBadInputs(t, m, fundID)
}

// chainBadInputs checks the whole-call and per-input errors of Core's
// signrawtransactionwithkey on a real output (the funding transaction's
// change spent as P2WPKH is not needed: the outputs are described by
// prevtxs).
func chainBadInputs(t *testing.T, m *rpc.Method, fundID string) {
	k := testenv.NewKey("sign chain 1")
	other := testenv.NewKey("sign chain other")
	multi, _ := script.PayToMultisig(2, [][]byte{k.PubKey, other.PubKey})
	c := testenv.Coin{TxID: fundID, Vout: 0, Value: 10_000_000, Script: k.WPKH.Script}
	tx := testenv.TxHex(t, testenv.UnsignedSpend(t, []testenv.Coin{c}, wire.NewTxOut(9_000_000, k.PKH.Script)))
	good := []any{prevtx(c, nil)}
	noAmount := prevtx(c, nil)
	delete(noAmount, "amount")
	badVout := prevtx(c, nil)
	badVout["vout"] = -1
	p2shCoin := c
	p2shCoin.Script = p2sh(multi)
	mainnetWIF := "KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn"

	type want struct {
		code  rpc.Code
		msg   string
		input string // per-input error instead of a whole-call error
	}
	cases := []struct {
		name   string
		params []any
		want   want
	}{
		{"missing key", []any{tx, []string{}, good}, want{input: "Witness program hash mismatch"}},
		{"wrong key", []any{tx, []string{other.WIF}, good}, want{input: "Witness program hash mismatch"}},
		{"missing redeemScript", []any{tx, []string{k.WIF}, []any{prevtx(p2shCoin, nil)}},
			want{code: rpc.CodeInvalidParameter, msg: "Missing redeemScript/witnessScript"}},
		{"missing witnessScript", []any{tx, []string{k.WIF}, []any{prevtx(testenv.Coin{TxID: fundID, Script: sign.P2WSH(multi)}, nil)}},
			want{code: rpc.CodeInvalidParameter, msg: "Missing redeemScript/witnessScript"}},
		{"missing amount", []any{tx, []string{k.WIF}, []any{noAmount}},
			want{code: rpc.CodeTypeError, msg: "Missing amount for CTxOut(nValue=21000000.00000000, scriptPubKey=" +
				hex.EncodeToString(k.WPKH.Script)[:30] + ")"}},
		{"bad vout", []any{tx, []string{k.WIF}, []any{badVout}},
			want{code: rpc.CodeDeserialization, msg: "vout cannot be negative"}},
		{"bad hex", []any{"00zz", []string{k.WIF}, good},
			want{code: rpc.CodeDeserialization, msg: "TX decode failed. Make sure the tx has at least one input."}},
		{"bad WIF", []any{tx, []string{"notakey"}, good},
			want{code: rpc.CodeInvalidAddressOrKey, msg: "Invalid private key"}},
		{"mainnet WIF", []any{tx, []string{mainnetWIF}, good},
			want{code: rpc.CodeInvalidAddressOrKey, msg: "Invalid private key"}},
		{"unknown sighash", []any{tx, []string{k.WIF}, good, "all"},
			want{code: rpc.CodeInvalidParameter, msg: "'all' is not a valid sighash parameter."}},
	}
	for _, tc := range cases {
		r, rerr := chainCall(t, m, tc.params...)
		if tc.want.input != "" {
			if rerr != nil || r.Complete || len(r.Errors) != 1 || r.Errors[0].Error != tc.want.input {
				t.Errorf("%s: got %v %+v, want input error %q", tc.name, rerr, r, tc.want.input)
			}
			continue
		}
		if rerr == nil || rerr.Code != tc.want.code || rerr.Message != tc.want.msg {
			t.Errorf("%s: got %v, want %d %q", tc.name, rerr, tc.want.code, tc.want.msg)
		}
	}
	if !strings.HasPrefix(tx, "02") {
		t.Fatal("unexpected transaction version")
	}
}
