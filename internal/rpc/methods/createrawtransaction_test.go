package methods

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
)

const crtTxid = "ec9a249af8e033bd31deefa1d210df4d41e69e0804a7bee703d669f32603e9a6"
const crtAddr = "bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd"

// TestCreateRawTransactionRules covers Core's construction rules that the
// recorded corpus does not reach: sequence defaults, the replaceable
// contradiction, duplicate data and addresses in either case, and the
// shape errors of outputs.
func TestCreateRawTransactionRules(t *testing.T) {
	s := statelessServer(t)
	in := `[{"txid":"` + crtTxid + `","vout":0}]`
	out := `[{"` + crtAddr + `":0.5}]`
	for _, c := range []struct {
		name, params string
		err          string // "code message", or "" for success
		seq          uint32
		locktime     uint32
	}{
		{"rbf default", `[` + in + `,` + out + `]`, "", 0xfffffffd, 0},
		{"not replaceable", `[` + in + `,` + out + `,0,false]`, "", 0xffffffff, 0},
		{"not replaceable, locktime", `[` + in + `,` + out + `,100,false]`, "", 0xfffffffe, 100},
		{"explicit sequence", `[[{"txid":"` + crtTxid + `","vout":0,"sequence":7}],` + out + `,0,false]`, "", 7, 0},
		{"sequence contradicts replaceable", `[[{"txid":"` + crtTxid + `","vout":0,"sequence":4294967295}],` + out + `,0,true]`,
			"-8 Invalid parameter combination: Sequence number(s) contradict replaceable option", 0, 0},
		{"sequence too large", `[[{"txid":"` + crtTxid + `","vout":0,"sequence":4294967296}],` + out + `]`,
			"-8 Invalid parameter, sequence number is out of range", 0, 0},
		{"sequence negative", `[[{"txid":"` + crtTxid + `","vout":0,"sequence":-1}],` + out + `]`,
			"-8 Invalid parameter, sequence number is out of range", 0, 0},
		{"vout too large", `[[{"txid":"` + crtTxid + `","vout":4294967295}],` + out + `]`, "-1 JSON integer out of range", 0, 0},
		{"input not object", `[[1],` + out + `]`, "-3 JSON value of type number is not of expected type object", 0, 0},
		{"txid missing", `[[{"vout":0}],` + out + `]`, "-3 JSON value of type null is not of expected type string", 0, 0},
		{"locktime too large", `[` + in + `,` + out + `,4294967296]`, "-8 Invalid parameter, locktime out of range", 0, 0},
		{"locktime negative", `[` + in + `,` + out + `,-1]`, "-8 Invalid parameter, locktime out of range", 0, 0},
		{"version 0", `[` + in + `,` + out + `,0,true,0]`, "-8 Invalid parameter, version out of range(1~3)", 0, 0},
		{"data twice", `[` + in + `,[{"data":"00"},{"data":"01"}]]`, "-8 Invalid parameter, duplicate key: data", 0, 0},
		{"data not hex", `[` + in + `,[{"data":"zz"}]]`, "-8 Data must be hexadecimal string (not 'zz')", 0, 0},
		{"data number", `[` + in + `,[{"data":12}]]`, "", 0xfffffffd, 0},
		{"address in two cases", `[` + in + `,[{"` + crtAddr + `":1},{"` + strings.ToUpper(crtAddr) + `":1}]]`,
			"-8 Invalid parameter, duplicated address: " + strings.ToUpper(crtAddr), 0, 0},
		{"duplicate key in one object", `[` + in + `,{"` + crtAddr + `":1,"` + crtAddr + `":2}]`,
			"-8 Invalid parameter, duplicated address: " + crtAddr, 0, 0},
		{"two keys in a pair", `[` + in + `,[{"` + crtAddr + `":1,"data":"00"}]]`,
			"-8 Invalid parameter, key-value pair must contain exactly one key", 0, 0},
		{"empty pair", `[` + in + `,[{}]]`, "-8 Invalid parameter, key-value pair must contain exactly one key", 0, 0},
		{"outputs a string", `[` + in + `,"x"]`, "-3 JSON value of type string is not of expected type array", 0, 0},
		{"amount before address", `[` + in + `,[{"nope":"x"}]]`, "-3 Invalid amount", 0, 0},
	} {
		var r struct {
			Result string
			Error  *struct {
				Code    int
				Message string
			}
		}
		body := rawCall(t, s, "createrawtransaction", json.RawMessage(c.params))
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("%s: %s", c.name, body)
		}
		if c.err != "" {
			if r.Error == nil {
				t.Errorf("%s: got %s, want error %s", c.name, r.Result, c.err)
			} else if got := strings.TrimSpace(fmt.Sprintf("%d %s", r.Error.Code, r.Error.Message)); got != c.err {
				t.Errorf("%s: got error %q, want %q", c.name, got, c.err)
			}
			continue
		}
		if r.Error != nil {
			t.Errorf("%s: error %d %s", c.name, r.Error.Code, r.Error.Message)
			continue
		}
		tx, ok := sign.DecodeHexTx(r.Result, true, true)
		if !ok {
			t.Fatalf("%s: result %s does not decode", c.name, r.Result)
		}
		if tx.TxIn[0].Sequence != c.seq || tx.LockTime != c.locktime {
			t.Errorf("%s: sequence %x locktime %d, want %x %d", c.name, tx.TxIn[0].Sequence, tx.LockTime, c.seq, c.locktime)
		}
	}
}

// FuzzConstructTransaction feeds arbitrary JSON as createrawtransaction's
// inputs and outputs: the builder never panics, fails only with an RPC
// error, and what it builds serializes to a transaction that decodes back.
func FuzzConstructTransaction(f *testing.F) {
	in := `[{"txid":"` + crtTxid + `","vout":0}]`
	f.Add(in, `[{"`+crtAddr+`":0.5}]`)
	f.Add(in, `{"data":"00","`+crtAddr+`":"1"}`)
	f.Add(`[{"txid":"`+crtTxid+`","vout":1,"sequence":5}]`, `[{"data":"ab"},{"data":"cd"}]`)
	f.Add(`null`, `[]`)
	f.Add(`[1]`, `[[]]`)
	f.Fuzz(func(t *testing.T, inputs, outputs string) {
		if !json.Valid([]byte(inputs)) || !json.Valid([]byte(outputs)) {
			return
		}
		tx, err := constructTransaction(&chaincfg.RegressionNetParams, json.RawMessage(inputs), json.RawMessage(outputs), nil, nil, 2)
		if err != nil {
			var re *rpc.Error
			if !errors.As(err, &re) {
				t.Fatalf("%s %s: non-RPC error %v", inputs, outputs, err)
			}
			return
		}
		if _, ok := sign.DecodeHexTx(encodeTxHex(tx), true, false); !ok {
			t.Fatalf("%s %s: built transaction does not decode", inputs, outputs)
		}
	})
}
