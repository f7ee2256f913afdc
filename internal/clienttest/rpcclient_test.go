package clienttest

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/btcsuite/btcd/btcjson"
	"github.com/btcsuite/btcd/rpcclient"
)

// rawParams encodes each value as one JSON-RPC parameter.
func rawParams(t *testing.T, vals ...any) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, len(vals))
	for i, v := range vals {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// TestBtcdRPCClient drives the daemon with btcd's rpcclient in HTTP POST
// mode, both one call at a time and as a JSON-RPC batch.
func TestBtcdRPCClient(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd")
	}
	t.Parallel()
	d := startDaemon(t, "rpcuser", "rpcpass")
	cfg := &rpcclient.ConnConfig{
		Host:         "127.0.0.1:" + strconv.Itoa(d.Port),
		User:         "rpcuser",
		Pass:         "rpcpass",
		HTTPPostMode: true,
		DisableTLS:   true,
	}
	c, err := rpcclient.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()

	res, err := c.RawRequest("echo", rawParams(t, "a", 1, []any{true, nil}))
	if err != nil {
		t.Fatal(err)
	}
	if string(res) != `["a",1,[true,null]]` {
		t.Fatalf("echo: %s", res)
	}
	res, err = c.RawRequest("echojson", rawParams(t, map[string]any{"x": 1.5}))
	if err != nil {
		t.Fatal(err)
	}
	if string(res) != `[{"x":1.5}]` {
		t.Fatalf("echojson: %s", res)
	}
	res, err = c.RawRequest("uptime", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := strconv.Atoi(string(res)); err != nil || n < 0 {
		t.Fatalf("uptime: %s", res)
	}

	// A JSON-RPC error arrives as btcjson.RPCError with Core's code.
	_, err = c.RawRequest("nosuchmethod", nil)
	var rerr *btcjson.RPCError
	if !errors.As(err, &rerr) || rerr.Code != -32601 || rerr.Message != "Method not found" {
		t.Fatalf("unknown method: %#v", err)
	}
	_, err = c.RawRequest("echo", rawParams(t, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
	if !errors.As(err, &rerr) || rerr.Code != -1 {
		t.Fatalf("too many parameters: %#v", err)
	}

	// Wrong credentials fail the call.
	bad := *cfg
	bad.Pass = "wrong"
	bc, err := rpcclient.New(&bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Shutdown()
	if _, err := bc.RawRequest("echo", nil); err == nil {
		t.Fatal("wrong password accepted")
	}

	// Batch mode: the requests go out together as one JSON array and each
	// future gets its own reply.
	batch, err := rpcclient.NewBatch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer batch.Shutdown()
	f1 := batch.RawRequestAsync("echo", rawParams(t, "one"))
	f2 := batch.RawRequestAsync("nosuchmethod", nil)
	f3 := batch.RawRequestAsync("echojson", rawParams(t, []int{3}))
	if err := batch.Send(); err != nil {
		t.Fatal(err)
	}
	if r, err := f1.Receive(); err != nil || string(r) != `["one"]` {
		t.Fatalf("batch echo: %s %v", r, err)
	}
	if _, err := f2.Receive(); !errors.As(err, &rerr) || rerr.Code != -32601 {
		t.Fatalf("batch unknown method: %#v", err)
	}
	if r, err := f3.Receive(); err != nil || string(r) != `[[3]]` {
		t.Fatalf("batch echojson: %s %v", r, err)
	}
}
