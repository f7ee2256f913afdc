package methods

import (
	"encoding/json"
	"testing"
)

// TestSimulateRawTransactionOffline follows the first part of Core's
// wallet_simulaterawtx.py with transactions without inputs: outputs to the
// wallet count (a watch-only wallet's too), other wallets see nothing; then
// the errors, including an input an offline node cannot find and one spent
// twice in the array.
func TestSimulateRawTransactionOffline(t *testing.T) {
	a := newAuditNode(t)
	w0, w1, w2 := wname("w0"), wname("w1"), wname("w2")
	a.ok(nil, "createwallet", `["w0"]`, "")
	a.ok(nil, "createwallet", `["w1"]`, "")
	a.ok(nil, "createwallet", `["w2", true]`, "")
	var addr1, addr2 string
	mustResult(t, a.do(w1, "getnewaddress", `[]`), "getnewaddress", &addr1)
	mustResult(t, a.do(w1, "getnewaddress", `[]`), "getnewaddress", &addr2)
	var info struct {
		Desc string `json:"desc"`
	}
	mustResult(t, a.do(w1, "getaddressinfo", `["`+addr1+`"]`), "getaddressinfo", &info)
	a.ok(w2, "importdescriptors", imp(el(info.Desc)), "")

	var tx1, tx2 string
	mustResult(t, a.do(nil, "createrawtransaction", `[[], [{"`+addr1+`": 5}]]`), "createrawtransaction", &tx1)
	mustResult(t, a.do(nil, "createrawtransaction", `[[], [{"`+addr2+`": 10}]]`), "createrawtransaction", &tx2)
	q := func(txs ...string) string {
		b, _ := json.Marshal([]any{txs})
		return string(b)
	}
	a.ok(w0, "simulaterawtransaction", q(tx1), `{"balance_change":0}`)
	a.ok(w2, "simulaterawtransaction", q(tx1), `{"balance_change":5}`)
	a.ok(w1, "simulaterawtransaction", q(tx1), `{"balance_change":5}`)
	a.ok(w0, "simulaterawtransaction", q(tx1, tx2), `{"balance_change":0}`)
	a.ok(w2, "simulaterawtransaction", q(tx1, tx2), `{"balance_change":5}`)
	a.ok(w1, "simulaterawtransaction", q(tx1, tx2), `{"balance_change":15}`)
	a.ok(w1, "simulaterawtransaction", `{"rawtxs":[],"include_watchonly":true}`, `{"balance_change":0}`)
	if r := a.do(w1, "simulaterawtransaction", q(tx1)); string(r.Result) != `{"balance_change":5.00000000}` {
		t.Errorf("reply %s", r.Result)
	}

	// A chain inside the array: tx3 spends tx1's output to w0, tx4 to w1.
	var dec struct {
		TxID string `json:"txid"`
	}
	mustResult(t, a.do(nil, "decoderawtransaction", `["`+tx1+`"]`), "decoderawtransaction", &dec)
	var to0, to1, tx3, tx4 string
	mustResult(t, a.do(w0, "getnewaddress", `[]`), "getnewaddress", &to0)
	mustResult(t, a.do(w1, "getnewaddress", `[]`), "getnewaddress", &to1)
	in := `[{"txid":"` + dec.TxID + `","vout":0}]`
	mustResult(t, a.do(nil, "createrawtransaction", `[`+in+`, [{"`+to0+`": 4.9999}]]`), "createrawtransaction", &tx3)
	mustResult(t, a.do(nil, "createrawtransaction", `[`+in+`, [{"`+to1+`": 4.9999}]]`), "createrawtransaction", &tx4)
	const missing = "One or more transaction inputs are missing or have been spent already"
	const twice = "Transaction(s) are spending the same output more than once"
	for _, w := range []*string{w0, w1} {
		a.fails(w, "simulaterawtransaction", q(tx3), -8, missing)
		a.fails(w, "simulaterawtransaction", q(tx4), -8, missing)
		a.fails(w, "simulaterawtransaction", q(tx1, tx3, tx4), -8, twice)
	}
	a.ok(w0, "simulaterawtransaction", q(tx1, tx3), `{"balance_change":4.9999}`)
	a.ok(w1, "simulaterawtransaction", q(tx1, tx3), `{"balance_change":0}`)
	a.ok(w0, "simulaterawtransaction", q(tx1, tx4), `{"balance_change":0}`)
	a.ok(w1, "simulaterawtransaction", q(tx1, tx4), `{"balance_change":4.9999}`)
	a.ok(w2, "simulaterawtransaction", q(tx1, tx4), `{"balance_change":0}`)

	// Argument errors.
	a.fails(w1, "simulaterawtransaction", `[]`, -3, "JSON value of type null is not of expected type array")
	a.fails(w1, "simulaterawtransaction", `[null]`, -3, "JSON value of type null is not of expected type array")
	a.code(w1, "simulaterawtransaction", `["00"]`, -3)
	a.fails(w1, "simulaterawtransaction", `[[5]]`, -3, "JSON value of type number is not of expected type string")
	a.fails(w1, "simulaterawtransaction", `[["zz"]]`, -22, "Transaction hex string decoding failure.")
	a.fails(w1, "simulaterawtransaction", `[["`+tx1+`", 7]]`, -3, "JSON value of type number is not of expected type string")
	a.code(w1, "simulaterawtransaction", `[[], 5]`, -3)
	a.fails(nil, "simulaterawtransaction", `[[]]`, -19, "")
}
