package methods

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/testvec"
)

// descriptorServer serves getdescriptorinfo and deriveaddresses in process
// through the rpc package's full request path (envelope, argument checks,
// error mapping).
func descriptorServer(t *testing.T) *rpc.Server {
	t.Helper()
	d := &Deps{Net: &chaincfg.RegressionNetParams}
	auth := rpc.NewAuthenticator()
	auth.AddPassword("u", "p")
	s, err := rpc.NewServer(rpc.Config{
		Methods:  []*rpc.Method{newGetDescriptorInfo(d), newDeriveAddresses(d)},
		Auth:     auth,
		MapError: MapError,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type corpusReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// descCall sends one legacy JSON-RPC request and decodes the reply.
func descCall(t *testing.T, s http.Handler, method string, params json.RawMessage) corpusReply {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "1.0", "id": 1, "method": method, "params": params})
	req := httptest.NewRequest("POST", "/", bytes.NewReader(body))
	req.SetBasicAuth("u", "p")
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "127.0.0.1:5000"
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	var r corpusReply
	if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil {
		t.Fatalf("reply %q: %v", w.Body.String(), err)
	}
	return r
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestDescriptorCorpus replays the recorded getdescriptorinfo and
// deriveaddresses calls of core_rpc/stateless.json.
func TestDescriptorCorpus(t *testing.T) {
	var v struct {
		Cases []struct {
			ID     string          `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Expect struct {
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			} `json:"expect"`
		} `json:"cases"`
	}
	testvec.Load(t, "core_rpc/stateless.json", &v)
	s := descriptorServer(t)
	n := 0
	for _, c := range v.Cases {
		if c.Method != "getdescriptorinfo" && c.Method != "deriveaddresses" {
			continue
		}
		if f, ok := testvec.Pending(c.ID); ok {
			t.Logf("%s: pending on %s", c.ID, f)
			continue
		}
		n++
		got := descCall(t, s, c.Method, c.Params)
		if c.Expect.Error != nil {
			if got.Error == nil || got.Error.Code != c.Expect.Error.Code || got.Error.Message != c.Expect.Error.Message {
				t.Errorf("%s: got %+v / %s, want error %d %q", c.ID, got.Error, got.Result, c.Expect.Error.Code, c.Expect.Error.Message)
			}
			continue
		}
		if got.Error != nil || !sameJSON(got.Result, c.Expect.Result) {
			t.Errorf("%s: got %+v %s\n want %s", c.ID, got.Error, got.Result, c.Expect.Result)
		}
	}
	if n == 0 {
		t.Fatal("no descriptor case ran")
	}
}

// TestDescriptorVectorsRPC runs the rpc_getdescriptorinfo and
// rpc_deriveaddresses cases of descriptors_valid.json and
// descriptors_invalid.json.
func TestDescriptorVectorsRPC(t *testing.T) {
	type vcase struct {
		ID       string          `json:"id"`
		Kind     string          `json:"kind"`
		Params   json.RawMessage `json:"params"`
		Expected json.RawMessage `json:"expected_result"`
		RPCError *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"rpc_error"`
	}
	s := descriptorServer(t)
	for _, file := range []string{"descriptors_valid.json", "descriptors_invalid.json"} {
		var v struct {
			Cases []vcase `json:"cases"`
		}
		testvec.Load(t, file, &v)
		for _, c := range v.Cases {
			var method string
			switch c.Kind {
			case "rpc_getdescriptorinfo":
				method = "getdescriptorinfo"
			case "rpc_deriveaddresses":
				method = "deriveaddresses"
			default:
				continue
			}
			got := descCall(t, s, method, c.Params)
			if c.RPCError != nil {
				if got.Error == nil || got.Error.Code != c.RPCError.Code || got.Error.Message != c.RPCError.Message {
					t.Errorf("%s: got %+v, want %+v", c.ID, got.Error, *c.RPCError)
				}
				continue
			}
			if got.Error != nil {
				t.Errorf("%s: error %+v", c.ID, *got.Error)
				continue
			}
			if method == "getdescriptorinfo" {
				// The vector leaves out the checksum field.
				var m map[string]any
				json.Unmarshal(got.Result, &m)
				delete(m, "checksum")
				got.Result, _ = json.Marshal(m)
			}
			if !sameJSON(got.Result, c.Expected) {
				t.Errorf("%s: got %s\n want %s", c.ID, got.Result, c.Expected)
			}
		}
	}
}
