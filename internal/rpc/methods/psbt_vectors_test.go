package methods

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testvec"
)

// rpcPSBTRoles is the role part of Core's rpc_psbt.json.
type rpcPSBTRoles struct {
	Creator []struct {
		Inputs  json.RawMessage `json:"inputs"`
		Outputs json.RawMessage `json:"outputs"`
		Result  string          `json:"result"`
	} `json:"creator"`
	Signer []struct {
		PrivKeys []string `json:"privkeys"`
		PSBT     string   `json:"psbt"`
		Result   string   `json:"result"`
	} `json:"signer"`
	Combiner []struct {
		Combine []string `json:"combine"`
		Result  string   `json:"result"`
	} `json:"combiner"`
	Finalizer []struct {
		Finalize string `json:"finalize"`
		Result   string `json:"result"`
	} `json:"finalizer"`
	Extractor []struct {
		Extract string `json:"extract"`
		Result  string `json:"result"`
	} `json:"extractor"`
}

// callResult makes one call and decodes its result into v, failing on an
// error reply.
func callResult(t *testing.T, method string, params any, v any) {
	t.Helper()
	raw, _ := json.Marshal(params)
	body := rawCall(t, statelessServer(t), method, raw)
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &reply); err != nil {
		t.Fatalf("%s: %s: %v", method, body, err)
	}
	if reply.Error != nil {
		t.Fatalf("%s: error %d %s", method, reply.Error.Code, reply.Error.Message)
	}
	if err := json.Unmarshal(reply.Result, v); err != nil {
		t.Fatalf("%s: result %s: %v", method, reply.Result, err)
	}
}

// TestRPCPSBTRoles runs the creator, signer, combiner, finalizer and
// extractor vectors of Core's rpc_psbt.json through the RPCs, as Core's
// rpc_psbt.py does (its signer uses a wallet holding the keys; here each
// key is a combo() descriptor given to descriptorprocesspsbt).
func TestRPCPSBTRoles(t *testing.T) {
	var v rpcPSBTRoles
	testvec.Load(t, "rpc_psbt.json", &v)
	for i, c := range v.Creator {
		t.Run(fmt.Sprint("creator", i), func(t *testing.T) {
			var got string
			callResult(t, "createpsbt", []json.RawMessage{c.Inputs, c.Outputs, json.RawMessage("0"), json.RawMessage("false")}, &got)
			if got != c.Result {
				t.Fatalf("got %s\nwant %s", got, c.Result)
			}
		})
	}
	for i, c := range v.Signer {
		t.Run(fmt.Sprint("signer", i), func(t *testing.T) {
			var descs []string
			for _, k := range c.PrivKeys {
				d := "combo(" + k + ")"
				sum, err := descriptor.Checksum(d)
				if err != nil {
					t.Fatal(err)
				}
				descs = append(descs, d+"#"+sum)
			}
			var got struct {
				PSBT     string `json:"psbt"`
				Complete bool   `json:"complete"`
			}
			callResult(t, "descriptorprocesspsbt", []any{c.PSBT, descs, "ALL", true, false}, &got)
			if got.PSBT != c.Result {
				t.Fatalf("got %s\nwant %s", got.PSBT, c.Result)
			}
		})
	}
	for i, c := range v.Combiner {
		t.Run(fmt.Sprint("combiner", i), func(t *testing.T) {
			var got string
			callResult(t, "combinepsbt", []any{c.Combine}, &got)
			if got != c.Result {
				t.Fatalf("got %s\nwant %s", got, c.Result)
			}
		})
	}
	for i, c := range v.Finalizer {
		t.Run(fmt.Sprint("finalizer", i), func(t *testing.T) {
			var got struct {
				PSBT     string `json:"psbt"`
				Complete bool   `json:"complete"`
			}
			callResult(t, "finalizepsbt", []any{c.Finalize, false}, &got)
			if got.PSBT != c.Result || !got.Complete {
				t.Fatalf("got %s %v\nwant %s", got.PSBT, got.Complete, c.Result)
			}
		})
	}
	for i, c := range v.Extractor {
		t.Run(fmt.Sprint("extractor", i), func(t *testing.T) {
			var got struct {
				Hex      string `json:"hex"`
				Complete bool   `json:"complete"`
			}
			callResult(t, "finalizepsbt", []any{c.Extract}, &got)
			if got.Hex != c.Result || !got.Complete {
				t.Fatalf("got %s %v\nwant %s", got.Hex, got.Complete, c.Result)
			}
		})
	}
}
