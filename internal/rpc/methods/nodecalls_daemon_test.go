package methods

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/testenv"
)

// TestNodeCallsDaemon sends the node calls a wallet client makes at start
// (Specter's first batch: JSON-RPC 2.0, on a wallet path whose name holds a
// slash) to the daemon binary following a real btcd, and an offline
// daemon's answer to one of them.
func TestNodeCallsDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the node binary")
	}
	t.Parallel()
	b := testenv.StartBtcd(t, nil)
	b.Generate(3)
	d := startOnBtcd(t, b)

	tip := b.BestBlockHash()
	batch := `[{"jsonrpc":"2.0","id":0,"method":"getblockchaininfo","params":[]},
{"jsonrpc":"2.0","id":1,"method":"getnetworkinfo","params":[]},
{"jsonrpc":"2.0","id":2,"method":"getblockhash","params":[0]},
{"jsonrpc":"2.0","id":3,"method":"getblockheader","params":{"blockhash":"` + tip + `","verbose":true}},
{"jsonrpc":"2.0","id":4,"method":"getmempoolinfo","params":[]},
{"jsonrpc":"2.0","id":5,"method":"estimatesmartfee","params":[6]},
{"jsonrpc":"2.0","id":6,"method":"getbestblockhash"}]`
	req, _ := http.NewRequest("POST", d.URL+"wallet/specteradmin/hot1", strings.NewReader(batch))
	req.SetBasicAuth("u", "p")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var replies []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &replies); err != nil || resp.StatusCode != 200 || len(replies) != 7 {
		t.Fatalf("batch: HTTP %d %s (%v)", resp.StatusCode, body, err)
	}
	checks := []func(json.RawMessage) bool{
		func(r json.RawMessage) bool { return bytes.Contains(r, []byte(`"blocks":3,`)) },
		func(r json.RawMessage) bool {
			return bytes.HasPrefix(r, []byte(`{"version":300000,"subversion":"/Satoshi:30.0.0/descwallet:`+Version+`/"`))
		},
		func(r json.RawMessage) bool {
			return string(r) == `"`+chaincfg.RegressionNetParams.GenesisHash.String()+`"`
		},
		func(r json.RawMessage) bool {
			return bytes.HasPrefix(r, []byte(`{"hash":"`+tip+`","confirmations":1,"height":3,`)) &&
				bytes.Contains(r, []byte(`"chainwork":"0000000000000000000000000000000000000000000000000000000000000008"`))
		},
		func(r json.RawMessage) bool { return bytes.HasPrefix(r, []byte(`{"loaded":true,"size":0,`)) },
		func(r json.RawMessage) bool {
			return string(r) == `{"errors":["Insufficient data or no feerate found"],"blocks":0}`
		},
		func(r json.RawMessage) bool { return string(r) == `"`+tip+`"` },
	}
	for i, r := range replies {
		if r.ID != i || r.Error != nil || !checks[i](r.Result) {
			t.Errorf("reply %d: %s %s", i, r.Result, r.Error)
		}
	}

	// An offline daemon: -9.
	off := testenv.StartDaemon(t, nil)
	_, err = off.Call("getblockheader", tip)
	var re *testenv.RPCError
	if !errors.As(err, &re) || re.Code != -9 || !strings.Contains(re.Message, "not connected to a chain backend") {
		t.Errorf("offline getblockheader: %v", err)
	}
}
