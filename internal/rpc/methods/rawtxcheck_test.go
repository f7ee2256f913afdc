package methods

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
)

// TestRawTxConsensusChecksBtcd: over btcd, sendrawtransaction and
// testmempoolaccept refuse what Core's CheckTransaction refuses with
// Core's reject reasons (btcd cannot even decode a transaction without
// inputs, and words the rest its own way), without asking btcd; the
// refusal in testmempoolaccept carries Core's reject-details.
func TestRawTxConsensusChecksBtcd(t *testing.T) {
	double, _ := newRecordedBitcoind(t, nil)
	s := nodeServer(t, backendClient(t, chain.KindBtcd, double))
	spk, _ := hex.DecodeString("0014fe4d9d5a7a5969f9f9caddff6870231ac79213d2")
	in := func(h byte, n uint32, sig []byte) *wire.TxIn {
		return wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{h}, Index: n}, sig, nil)
	}
	null := func(sig []byte) *wire.TxIn {
		return wire.NewTxIn(&wire.OutPoint{Index: wire.MaxPrevOutIndex}, sig, nil)
	}
	mk := func(ins []*wire.TxIn, values ...int64) string {
		tx := wire.NewMsgTx(2)
		for _, i := range ins {
			tx.AddTxIn(i)
		}
		for _, v := range values {
			tx.AddTxOut(wire.NewTxOut(v, spk))
		}
		var b bytes.Buffer
		if err := tx.SerializeNoWitness(&b); err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(b.Bytes())
	}
	for _, c := range []struct {
		name, hex, reason string
	}{
		{"no inputs", mk(nil, 100000000), "bad-txns-vin-empty"},
		{"no outputs", mk([]*wire.TxIn{in(1, 0, nil)}), "bad-txns-vout-empty"},
		{"no inputs or outputs", "02000000000000000000", "bad-txns-vin-empty"},
		{"negative output", mk([]*wire.TxIn{in(1, 0, nil)}, -1), "bad-txns-vout-negative"},
		{"output over 21M", mk([]*wire.TxIn{in(1, 0, nil)}, int64(rpc.MaxMoney)+1), "bad-txns-vout-toolarge"},
		{"outputs over 21M", mk([]*wire.TxIn{in(1, 0, nil)}, int64(rpc.MaxMoney), 1), "bad-txns-txouttotal-toolarge"},
		{"duplicate inputs", mk([]*wire.TxIn{in(1, 0, nil), in(2, 0, nil), in(1, 0, nil)}, 1000), "bad-txns-inputs-duplicate"},
		{"coinbase", mk([]*wire.TxIn{null([]byte{1, 2})}, 1000), "coinbase"},
		{"coinbase script too short", mk([]*wire.TxIn{null([]byte{1})}, 1000), "bad-cb-length"},
		{"null prevout", mk([]*wire.TxIn{in(1, 0, nil), null(nil)}, 1000), "bad-txns-prevout-null"},
	} {
		r := nodeCall(t, s, "/", "sendrawtransaction", json.RawMessage(`["`+c.hex+`"]`))
		if r.Error == nil || r.Error.Code != rpc.CodeVerifyRejected || r.Error.Message != c.reason {
			t.Errorf("%s: sendrawtransaction %s", c.name, r.Body)
		}
		r = nodeCall(t, s, "/", "testmempoolaccept", json.RawMessage(`[["`+c.hex+`"]]`))
		var res []map[string]any
		if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || len(res) != 1 {
			t.Errorf("%s: testmempoolaccept %s", c.name, r.Body)
			continue
		}
		if keys := objectKeys(t, mustArrayElem(t, r.Result)); !equalStrings(keys, []string{"txid", "wtxid", "allowed", "reject-reason", "reject-details"}) ||
			res[0]["allowed"] != false || res[0]["reject-reason"] != c.reason || res[0]["reject-details"] != c.reason {
			t.Errorf("%s: testmempoolaccept %s", c.name, r.Result)
		}
	}
	if got := double.taken(); len(got) != 0 {
		t.Errorf("btcd was asked: %q", got)
	}
}

// mustArrayElem returns the first element of a JSON array.
func mustArrayElem(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil || len(a) == 0 {
		t.Fatalf("not a non-empty array: %s", raw)
	}
	return a[0]
}
