package walletscan_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestAddressGroupingsAndSends spends two of the wallet's coins (of keys
// A and B) together to a stranger with change to the wallet's internal
// key C: listaddressgroupings puts A, B and C in one group (A and B empty
// and labelled, C holding the change, unlabelled), and listsinceblock
// shows the spend in Core's send layout, the change only with
// include_change.
func TestAddressGroupingsAndSends(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	t.Parallel()
	ka, kb, kc := testenv.NewKey("groupings a"), testenv.NewKey("groupings b"), testenv.NewKey("groupings c")
	stranger := testenv.NewKey("groupings stranger")
	lone := testenv.NewKey("groupings lone")
	n := testenv.StartBtcd(t, nil)
	txa := n.Fund(wire.NewTxOut(100_000_000, ka.WPKH.Script), wire.NewTxOut(30_000_000, lone.WPKH.Script))
	txb := n.Fund(wire.NewTxOut(200_000_000, kb.WPKH.Script))
	n.Generate(1)

	d := startNode(t, t.TempDir(), n)
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "w", true, true)
	c := d.client("w")
	for _, e := range []struct {
		k     *testenv.Key
		extra map[string]any
	}{
		{ka, map[string]any{"label": "a"}}, {kb, map[string]any{"label": "b"}},
		{lone, map[string]any{"label": "lone"}}, {kc, map[string]any{"internal": true}},
	} {
		desc := descriptor.AddChecksum("wpkh(" + e.k.PubKeyHex + ")")
		if res, err := importDesc(c, desc, 0, e.extra); err != nil || !strings.Contains(string(res), `"success":true`) {
			t.Fatalf("import %s: %s %v", desc, res, err)
		}
	}
	waitSynced(t, c, n)

	coins := []testenv.Coin{
		{TxID: txa, Vout: 0, Value: 100_000_000, Script: ka.WPKH.Script},
		{TxID: txb, Vout: 0, Value: 200_000_000, Script: kb.WPKH.Script},
	}
	spend := testenv.UnsignedSpend(t, coins, wire.NewTxOut(250_000_000, stranger.WPKH.Script),
		wire.NewTxOut(49_990_000, kc.WPKH.Script))
	fetcher := txscript.NewMultiPrevOutFetcher(nil)
	for i, coin := range coins {
		fetcher.AddPrevOut(spend.TxIn[i].PreviousOutPoint, wire.NewTxOut(coin.Value, coin.Script))
	}
	hashes := txscript.NewTxSigHashes(spend, fetcher)
	for i, k := range []*testenv.Key{ka, kb} {
		wit, err := txscript.WitnessSignature(spend, hashes, i, coins[i].Value, coins[i].Script, txscript.SigHashAll, k.Priv, true)
		if err != nil {
			t.Fatal(err)
		}
		spend.TxIn[i].Witness = wit
	}
	spendID, err := n.SendRawTransaction(testenv.TxHex(t, spend))
	if err != nil {
		t.Fatal(err)
	}
	n.Generate(1)
	waitSynced(t, c, n)

	var groups [][][]any
	call(t, c, &groups, "listaddressgroupings")
	var lines []string
	for _, g := range groups {
		var parts []string
		for _, a := range g {
			b, _ := json.Marshal(a)
			parts = append(parts, string(b))
		}
		sort.Strings(parts)
		lines = append(lines, strings.Join(parts, " "))
	}
	sort.Strings(lines)
	group := []string{`["` + ka.WPKH.Address + `",0,"a"]`, `["` + kb.WPKH.Address + `",0,"b"]`, `["` + kc.WPKH.Address + `",0.4999]`}
	sort.Strings(group)
	want := []string{strings.Join(group, " "), `["` + lone.WPKH.Address + `",0.3,"lone"]`}
	sort.Strings(want)
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("listaddressgroupings:\n got %s\nwant %s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	var since struct {
		Transactions []json.RawMessage `json:"transactions"`
	}
	call(t, c, &since, "listsinceblock")
	var sends []json.RawMessage
	for _, e := range since.Transactions {
		if strings.Contains(string(e), `"txid":"`+spendID+`"`) {
			sends = append(sends, e)
		}
	}
	if len(sends) != 1 {
		t.Fatalf("entries of the spend: %s", sends)
	}
	wantKeys := "address,category,amount,vout,fee,confirmations,blockhash,blockheight,blockindex,blocktime,txid,wtxid,walletconflicts,mempoolconflicts,time,timereceived,bip125-replaceable,abandoned"
	if got := strings.Join(jsonKeys(t, sends[0]), ","); got != wantKeys {
		t.Errorf("send entry fields:\n got %s\nwant %s", got, wantKeys)
	}
	var se struct {
		Address  string      `json:"address"`
		Category string      `json:"category"`
		Amount   json.Number `json:"amount"`
		Fee      json.Number `json:"fee"`
	}
	if json.Unmarshal(sends[0], &se) != nil || se.Address != stranger.WPKH.Address || se.Category != "send" ||
		se.Amount != "-2.50000000" || se.Fee != "-0.00010000" {
		t.Errorf("send entry %s", sends[0])
	}
	call(t, c, &since, "listsinceblock", nil, 1, false, true, true)
	var cats []string
	for _, e := range since.Transactions {
		if strings.Contains(string(e), `"txid":"`+spendID+`"`) && strings.Contains(string(e), kc.WPKH.Address) {
			var x struct {
				Category string `json:"category"`
			}
			_ = json.Unmarshal(e, &x)
			cats = append(cats, x.Category)
		}
	}
	if strings.Join(cats, ",") != "send,receive" {
		t.Errorf("include_change: change entries %v, want send then receive", cats)
	}

	// importprunedfunds into a watch-only wallet of the lone key imported
	// without a rescan, then removeprunedfunds.
	call(t, d.client(""), &cw, "createwallet", "pruned", true, true)
	pc := d.client("pruned")
	if res, err := importDesc(pc, descriptor.AddChecksum("wpkh("+lone.PubKeyHex+")"), "now", nil); err != nil ||
		!strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import: %s %v", res, err)
	}
	waitSynced(t, pc, n)
	var rawA, rawB, proofA, proofB string
	if err := json.Unmarshal(n.MustCall("getrawtransaction", txa), &rawA); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(n.MustCall("getrawtransaction", txb), &rawB); err != nil {
		t.Fatal(err)
	}
	call(t, d.client(""), &proofA, "gettxoutproof", []string{txa})
	call(t, d.client(""), &proofB, "gettxoutproof", []string{txb})
	for _, bad := range []struct {
		params []any
		code   int
		msg    string
	}{
		{[]any{rawA, proofB}, -5, "Transaction given doesn't exist in proof"},
		{[]any{rawB, proofB}, -5, "No addresses in wallet correspond to included transaction"},
		{[]any{"00", proofA}, -22, "TX decode failed. Make sure the tx has at least one input."},
	} {
		_, err := pc.Call("importprunedfunds", bad.params...)
		var re *testenv.RPCError
		if !asRPCError(err, &re) || re.Code != bad.code || re.Message != bad.msg {
			t.Errorf("importprunedfunds %.20v: %v, want %d %q", bad.params, err, bad.code, bad.msg)
		}
	}
	var got json.Number
	call(t, pc, &got, "getreceivedbyaddress", lone.WPKH.Address)
	if got != "0.00000000" {
		t.Fatalf("before importprunedfunds: %s", got)
	}
	var null json.RawMessage
	call(t, pc, &null, "importprunedfunds", rawA, proofA)
	if string(null) != "null" {
		t.Errorf("importprunedfunds result %s", null)
	}
	call(t, pc, &got, "getreceivedbyaddress", lone.WPKH.Address)
	if got != "0.30000000" {
		t.Errorf("after importprunedfunds: %s", got)
	}
	var gt struct {
		Confirmations int64  `json:"confirmations"`
		BlockIndex    *int64 `json:"blockindex"`
	}
	var ref struct {
		BlockIndex *int64 `json:"blockindex"`
	}
	call(t, c, &ref, "gettransaction", txa)
	call(t, pc, &gt, "gettransaction", txa)
	if gt.Confirmations != 2 || gt.BlockIndex == nil || ref.BlockIndex == nil || *gt.BlockIndex != *ref.BlockIndex {
		t.Errorf("imported transaction: confirmations %d, blockindex %v (found by the scan: %v)", gt.Confirmations, gt.BlockIndex, ref.BlockIndex)
	}
	call(t, pc, &null, "removeprunedfunds", txa)
	call(t, pc, &got, "getreceivedbyaddress", lone.WPKH.Address)
	if got != "0.00000000" {
		t.Errorf("after removeprunedfunds: %s", got)
	}
	_, err = pc.Call("removeprunedfunds", txa)
	var re *testenv.RPCError
	if !asRPCError(err, &re) || re.Code != -4 || re.Message != "Transaction "+txa+" does not belong to this wallet" {
		t.Errorf("removeprunedfunds again: %v", err)
	}
}
