package walletscan_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
)

// sinceEntry is the part of a listsinceblock entry the test reads.
type sinceEntry struct {
	Address       string      `json:"address"`
	ParentDescs   []string    `json:"parent_descs"`
	Category      string      `json:"category"`
	Amount        json.Number `json:"amount"`
	Label         *string     `json:"label"`
	Confirmations int64       `json:"confirmations"`
	Trusted       *bool       `json:"trusted"`
	BlockHash     string      `json:"blockhash"`
	TxID          string      `json:"txid"`
}

type sinceResult struct {
	Transactions []sinceEntry  `json:"transactions"`
	Removed      *[]sinceEntry `json:"removed"`
	LastBlock    string        `json:"lastblock"`
}

func entryFor(list []sinceEntry, txid string) *sinceEntry {
	for i := range list {
		if list[i].TxID == txid {
			return &list[i]
		}
	}
	return nil
}

// TestPaymentDetection follows payments to a labelled address through
// listsinceblock (every argument), getreceivedbyaddress/bylabel,
// listreceivedbyaddress/bylabel and gettransaction verbose, then builds a
// reorg from two btcd nodes: listsinceblock from the block that left the
// chain lists its payment under "removed" and lastblock moves to the new
// tip.
func TestPaymentDetection(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts two btcd")
	}
	t.Parallel()
	key := testenv.NewKey("paydetect key")
	stranger := testenv.NewKey("paydetect stranger")
	n1 := testenv.StartBtcd(t, nil)
	n2 := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: stranger.WPKH.Address})
	n1.Connect(n2)
	tx1 := n1.Fund(wire.NewTxOut(100_000_000, key.WPKH.Script))
	base := n1.Generate(1)[0]
	testenv.WaitSynced(t, n1, n2)
	n1.Disconnect(n2)

	d := startNode(t, t.TempDir(), n1)
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "w", true, true)
	c := d.client("w")
	desc := descriptor.AddChecksum("wpkh(" + key.PubKeyHex + ")")
	if res, err := importDesc(c, desc, 0, nil); err != nil || !strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import: %s %v", res, err)
	}
	call(t, c, &cw, "setlabel", key.WPKH.Address, "pay")
	tx2 := n1.Fund(wire.NewTxOut(200_000_000, key.WPKH.Script))
	stale := n1.Generate(1)[0]
	tx3 := n1.Fund(wire.NewTxOut(50_000_000, key.WPKH.Script))
	waitSynced(t, c, n1)
	testenv.Eventually(t, 30e9, func() error {
		_, err := c.Call("gettransaction", tx3)
		return err
	})

	// Every transaction, each a receive of the labelled address.
	var all sinceResult
	call(t, c, &all, "listsinceblock")
	if all.LastBlock != stale || all.Removed == nil || len(*all.Removed) != 0 || len(all.Transactions) != 3 {
		t.Fatalf("listsinceblock: %+v", all)
	}
	for _, want := range []struct {
		txid, amount string
		conf         int64
	}{{tx1, "1.00000000", 2}, {tx2, "2.00000000", 1}, {tx3, "0.50000000", 0}} {
		e := entryFor(all.Transactions, want.txid)
		if e == nil || e.Category != "receive" || string(e.Amount) != want.amount || e.Confirmations != want.conf ||
			e.Address != key.WPKH.Address || e.Label == nil || *e.Label != "pay" ||
			!reflect.DeepEqual(e.ParentDescs, []string{desc}) {
			t.Errorf("entry of %s: %+v", want.txid, e)
			continue
		}
		if (want.conf == 0) != (e.Trusted != nil) || (want.conf == 0) == (e.BlockHash != "") {
			t.Errorf("entry of %s: trusted %v blockhash %q", want.txid, e.Trusted, e.BlockHash)
		}
	}
	// Core's field order of a receive entry, confirmed and not.
	var raw struct {
		Transactions []json.RawMessage `json:"transactions"`
	}
	call(t, c, &raw, "listsinceblock", base)
	wantConfirmed := "address,parent_descs,category,amount,label,vout,abandoned,confirmations,blockhash,blockheight,blockindex,blocktime,txid,wtxid,walletconflicts,mempoolconflicts,time,timereceived,bip125-replaceable"
	wantPending := "address,parent_descs,category,amount,label,vout,abandoned,confirmations,trusted,txid,wtxid,walletconflicts,mempoolconflicts,time,timereceived,bip125-replaceable"
	if len(raw.Transactions) != 2 {
		t.Fatalf("listsinceblock %s: %d entries", base, len(raw.Transactions))
	}
	for _, r := range raw.Transactions {
		got := strings.Join(jsonKeys(t, r), ",")
		if got != wantConfirmed && got != wantPending {
			t.Errorf("entry fields %s", got)
		}
	}

	// Since base: the two later payments; target_confirmations moves
	// lastblock only; include_removed false leaves "removed" out; a label
	// keeps only its receives.
	var since sinceResult
	call(t, c, &since, "listsinceblock", base, 2)
	if since.LastBlock != base || len(since.Transactions) != 2 || entryFor(since.Transactions, tx1) != nil {
		t.Errorf("listsinceblock base 2: %+v", since)
	}
	var top json.RawMessage
	call(t, c, &top, "listsinceblock", base, 1, false, false)
	if keys := strings.Join(jsonKeys(t, top), ","); keys != "transactions,lastblock" {
		t.Errorf("include_removed false: %s", keys)
	}
	call(t, c, &top, "listsinceblock")
	if keys := strings.Join(jsonKeys(t, top), ","); keys != "transactions,removed,lastblock" {
		t.Errorf("listsinceblock fields: %s", keys)
	}
	since = sinceResult{}
	call(t, c, &since, "listsinceblock", nil, nil, nil, nil, nil, "other")
	if len(since.Transactions) != 0 {
		t.Errorf("label other: %+v", since.Transactions)
	}
	call(t, c, &since, "listsinceblock", base, 1, true, true, true, "pay")
	if len(since.Transactions) != 2 {
		t.Errorf("label pay: %+v", since.Transactions)
	}
	for _, bad := range []struct {
		params []any
		code   int
		msg    string
	}{
		{[]any{base, 0}, -8, "Invalid parameter"},
		{[]any{strings.Repeat("0", 64)}, -5, "Block not found"},
		{[]any{"xyz"}, -8, "blockhash must be of length 64 (not 3, for 'xyz')"},
		{[]any{nil, nil, nil, nil, nil, "*"}, -11, "Invalid label name"},
	} {
		_, err := c.Call("listsinceblock", bad.params...)
		var re *testenv.RPCError
		if !asRPCError(err, &re) || re.Code != bad.code || re.Message != bad.msg {
			t.Errorf("listsinceblock %v: %v, want %d %q", bad.params, err, bad.code, bad.msg)
		}
	}

	// Received amounts.
	for _, tc := range []struct {
		method string
		params []any
		want   string
	}{
		{"getreceivedbyaddress", []any{key.WPKH.Address}, "3.00000000"},
		{"getreceivedbyaddress", []any{key.WPKH.Address, 0}, "3.50000000"},
		{"getreceivedbyaddress", []any{key.WPKH.Address, 2}, "1.00000000"},
		{"getreceivedbyaddress", []any{key.WPKH.Address, 1, true}, "3.00000000"},
		{"getreceivedbylabel", []any{"pay"}, "3.00000000"},
		{"getreceivedbylabel", []any{"pay", 0}, "3.50000000"},
	} {
		var got json.Number
		call(t, c, &got, tc.method, tc.params...)
		if string(got) != tc.want {
			t.Errorf("%s %v = %s, want %s", tc.method, tc.params, got, tc.want)
		}
	}
	var byAddr []struct {
		Address       string      `json:"address"`
		Amount        json.Number `json:"amount"`
		Confirmations int64       `json:"confirmations"`
		Label         string      `json:"label"`
		TxIDs         []string    `json:"txids"`
	}
	call(t, c, &byAddr, "listreceivedbyaddress")
	if len(byAddr) != 1 || byAddr[0].Address != key.WPKH.Address || string(byAddr[0].Amount) != "3.00000000" ||
		byAddr[0].Confirmations != 1 || byAddr[0].Label != "pay" || len(byAddr[0].TxIDs) != 2 {
		t.Errorf("listreceivedbyaddress: %+v", byAddr)
	}
	call(t, c, &byAddr, "listreceivedbyaddress", 0, false, false, key.WPKH.Address)
	if len(byAddr) != 1 || string(byAddr[0].Amount) != "3.50000000" || byAddr[0].Confirmations != 0 || len(byAddr[0].TxIDs) != 3 {
		t.Errorf("listreceivedbyaddress 0: %+v", byAddr)
	}
	var byLabel json.RawMessage
	call(t, c, &byLabel, "listreceivedbylabel")
	if string(byLabel) != `[{"amount":3.00000000,"confirmations":1,"label":"pay"}]` {
		t.Errorf("listreceivedbylabel: %s", byLabel)
	}

	// gettransaction verbose adds the decoded transaction before
	// lastprocessedblock.
	var gt json.RawMessage
	call(t, c, &gt, "gettransaction", tx2, true, true)
	keys := jsonKeys(t, gt)
	if n := len(keys); n < 3 || keys[n-3] != "hex" || keys[n-2] != "decoded" || keys[n-1] != "lastprocessedblock" {
		t.Errorf("gettransaction verbose fields %v", keys)
	}
	var dec struct {
		Decoded struct {
			TxID string `json:"txid"`
			Vout []struct {
				ScriptPubKey struct {
					Address string `json:"address"`
				} `json:"scriptPubKey"`
			} `json:"vout"`
		} `json:"decoded"`
	}
	if err := json.Unmarshal(gt, &dec); err != nil || dec.Decoded.TxID != tx2 || len(dec.Decoded.Vout) != 2 ||
		dec.Decoded.Vout[0].ScriptPubKey.Address != key.WPKH.Address {
		t.Errorf("decoded %s: %v", gt, err)
	}
	call(t, c, &gt, "gettransaction", tx2)
	if strings.Contains(string(gt), `"decoded"`) {
		t.Errorf("gettransaction without verbose: %s", gt)
	}

	// The reorg: the stranger's longer branch replaces the block of tx2.
	n2.Generate(3)
	n1.Connect(n2)
	testenv.WaitSynced(t, n1, n2)
	waitSynced(t, c, n1)
	tip := n1.BestBlockHash()
	since = sinceResult{}
	call(t, c, &since, "listsinceblock", stale)
	if since.LastBlock != tip || since.Removed == nil {
		t.Fatalf("listsinceblock after the reorg: %+v", since)
	}
	rm := entryFor(*since.Removed, tx2)
	if len(*since.Removed) != 1 || rm == nil || rm.Category != "receive" || string(rm.Amount) != "2.00000000" ||
		rm.Confirmations != 0 || rm.BlockHash != "" {
		t.Errorf("removed: %+v", *since.Removed)
	}
	if entryFor(since.Transactions, tx3) == nil || entryFor(since.Transactions, tx1) != nil {
		t.Errorf("transactions after the reorg: %+v", since.Transactions)
	}
	var got json.Number
	call(t, c, &got, "getreceivedbyaddress", key.WPKH.Address)
	if string(got) != "1.00000000" {
		t.Errorf("getreceivedbyaddress after the reorg = %s", got)
	}
}

func asRPCError(err error, out **testenv.RPCError) bool {
	re, ok := err.(*testenv.RPCError)
	if ok {
		*out = re
	}
	return ok
}
