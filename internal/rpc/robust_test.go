package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestSlotReleasedAfterPanicOutsideHandler: a panic after the handler
// returned (here in the error mapper) drops the connection but gives the
// worker slot back, so that the server keeps answering once more such
// panics have happened than it has slots.
func TestSlotReleasedAfterPanicOutsideHandler(t *testing.T) {
	t.Parallel()
	s, logs := newTestServer(t, Config{Threads: 2,
		MapError: func(err error) error { panic("mapper bug") }})
	addr := listen(t, s)
	for i := range 5 {
		c := dial(t, addr)
		c.send(post("/", `{"method":"fail","id":1}`, ""))
		if !c.closed() {
			t.Fatalf("call %d: connection not dropped after the panic", i)
		}
		// Checked after each call: with leaked slots the next call
		// would wait for a slot for good.
		if n := len(s.slots); n != 0 {
			t.Fatalf("call %d: %d worker slots leaked", i, n)
		}
	}
	c := dial(t, addr)
	c.c.SetDeadline(time.Now().Add(2 * time.Second))
	c.send(post("/", echoBodyID("7"), ""))
	if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != echoReply("7") {
		t.Errorf("after the panics: %d %q", resp.StatusCode, got)
	}
	if !strings.Contains(logs.String(), "panic") {
		t.Errorf("panic not logged:\n%s", logs)
	}
}

// allocDuring returns the bytes allocated while f runs.
func allocDuring(f func()) uint64 {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// tinyValues returns "1,1,...,1" with n values.
func tinyValues(n int) []byte {
	b := bytes.Repeat([]byte("1,"), n)
	return b[:len(b)-1]
}

// TestHugeBodyOfTinyValuesStaysSmall: a 32 MiB body of 16 million
// integers, as a batch, as params, nested in a param or in a named param,
// is answered without allocating more than a fraction of its size (it
// used to take gigabytes: one reply per batch element, one slice entry
// per argument, one decoded value per element in the handler).
func TestHugeBodyOfTinyValuesStaysSmall(t *testing.T) {
	s, _ := newTestServer(t, Config{Methods: append(testMethods(nil), &Method{
		Name: "decode", Category: "test", Description: "Decodes an array.",
		Params: []Param{{Name: "list", Type: TypeArray}},
		Handler: func(_ context.Context, r *Request) (any, error) {
			var list []json.RawMessage
			if err := json.Unmarshal(r.Arg(0), &list); err != nil {
				return nil, err
			}
			return len(list), nil
		}})})
	vals := tinyValues((MaxBodySize - 64) / 2) // 16 million
	wrap := func(pre, post string) []byte {
		return append(append([]byte(pre), vals...), post...)
	}
	cases := []struct {
		name, want string
		body       []byte
	}{
		{"batch", `{"result":null,"error":{"code":-32600,"message":"Batch too large: more than 65536 requests"},"id":null}`,
			wrap("[", "]")},
		{"params", `{"result":null,"error":{"code":-32600,"message":"Params too large: more than 262144 values"},"id":1}`,
			wrap(`{"id":1,"method":"echo","params":[`, "]}")},
		{"nested", `{"result":null,"error":{"code":-32600,"message":"Params too large: more than 262144 values"},"id":1}`,
			wrap(`{"id":1,"method":"decode","params":[[`, "]]}")},
		{"named", `{"result":null,"error":{"code":-32600,"message":"Params too large: more than 262144 values"},"id":1}`,
			wrap(`{"id":1,"method":"decode","params":{"list":[`, "]}}")},
	}
	for _, tc := range cases {
		if len(tc.body) < MaxBodySize-80 || len(tc.body) > MaxBodySize {
			t.Fatalf("%s: body of %d bytes", tc.name, len(tc.body))
		}
		var out []byte
		var status int
		alloc := allocDuring(func() { out, status = s.process(s.ctx, tc.body, target{}, nil) })
		if string(out) != tc.want || status != 400 {
			t.Errorf("%s: %d %s", tc.name, status, out)
		}
		if alloc > uint64(len(tc.body))/4 {
			t.Errorf("%s: %d MiB allocated for a %d MiB body", tc.name, alloc>>20, len(tc.body)>>20)
		}
	}

	// Just under the bounds the calls run, in bounded memory: Core's
	// reply to a batch of non-objects (one error object per element), a
	// handler decoding the largest array with encoding/json.
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"batch", append(append([]byte("["), tinyValues(MaxBatch)...), ']')},
		{"decode", append(append([]byte(`{"id":1,"method":"decode","params":[[`), tinyValues(MaxParamValues-1)...), "]]}"...)},
		{"positional", append(append([]byte(`{"id":1,"method":"echo","params":[`), tinyValues(MaxParamValues)...), "]}"...)},
	} {
		var out []byte
		alloc := allocDuring(func() { out, _ = s.process(s.ctx, tc.body, target{}, nil) })
		if bytes.Contains(out, []byte("too large")) {
			t.Errorf("%s: refused: %.200s", tc.name, out)
		}
		if alloc > 64<<20 {
			t.Errorf("%s: %d MiB allocated for a %d KiB body", tc.name, alloc>>20, len(tc.body)>>10)
		}
	}
}
