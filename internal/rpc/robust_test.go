package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/descwallet/descwallet/internal/safego"
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

	// A small body of many tiny values is refused too: past 4096, each
	// value needs 16 bytes of params text.
	small := append(append([]byte(`{"id":1,"method":"decode","params":[[`), tinyValues(20000)...), "]]}"...)
	out, status := s.process(s.ctx, small, target{}, nil)
	if want := `{"result":null,"error":{"code":-32600,"message":"Params too large: more than 6596 values"},"id":1}`; string(out) != want || status != 400 {
		t.Errorf("small body: %d %s", status, out)
	}

	// Just under the bounds the calls run, allocating a few times their
	// size: Core's reply to a batch of non-objects (one error object per
	// element), a handler decoding the largest array with encoding/json.
	values := func(n int, v string) []byte {
		b := bytes.Repeat([]byte(v+","), n)
		return b[:len(b)-1]
	}
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"batch", append(append([]byte("["), values(MaxBatch, `"abcdefghijklmn"`)...), ']')},
		{"decode", append(append([]byte(`{"id":1,"method":"decode","params":[[`), values(MaxParamValues-1, "123456789012345")...), "]]}"...)},
		{"positional", append(append([]byte(`{"id":1,"method":"echo","params":[`), values(MaxParamValues, "123456789012345")...), "]}"...)},
		{"few tiny", append(append([]byte(`{"id":1,"method":"decode","params":[[`), tinyValues(4000)...), "]]}"...)},
	} {
		var out []byte
		alloc := allocDuring(func() { out, _ = s.process(s.ctx, tc.body, target{}, nil) })
		if bytes.Contains(out, []byte("too large")) {
			t.Errorf("%s: refused: %.200s", tc.name, out)
		}
		t.Logf("%s: %d KiB body, %d KiB reply, %d KiB allocated", tc.name, len(tc.body)>>10, len(out)>>10, alloc>>10)
		// The reply to a batch of non-objects is Core's, about 80 bytes
		// an element; the server allocates little beyond it. A handler
		// decoding with encoding/json spends about 130 bytes a value.
		limit := 10*uint64(len(tc.body)) + 1<<20
		if tc.name == "batch" {
			limit = 4*uint64(len(out)) + 1<<20
		}
		if alloc > limit {
			t.Errorf("%s: %d KiB allocated for a %d KiB body", tc.name, alloc>>10, len(tc.body)>>10)
		}
	}
}

// ctxMethods are methods that report what happened to their context.
func ctxMethods(ended chan error) []*Method {
	return append(testMethods(nil),
		&Method{Name: "waitctx", Category: "test", Description: "Waits for its context.",
			Handler: func(ctx context.Context, _ *Request) (any, error) {
				select {
				case <-ctx.Done():
					ended <- ctx.Err()
					return nil, ctx.Err()
				case <-time.After(10 * time.Second):
					ended <- nil
					return true, nil
				}
			}},
		&Method{Name: "slow", Category: "test", Description: "Runs 200 ms.",
			Handler: func(ctx context.Context, _ *Request) (any, error) {
				time.Sleep(200 * time.Millisecond)
				ended <- ctx.Err()
				return true, nil
			}},
		&Method{Name: "big", Category: "test", Description: "A 32 MiB reply.",
			Handler: func(context.Context, *Request) (any, error) {
				return strings.Repeat("x", 32<<20), nil
			}})
}

// TestHangUpCancelsCall: a client closing its connection while its call
// runs cancels the call's context, and the slot comes back at once.
func TestHangUpCancelsCall(t *testing.T) {
	t.Parallel()
	ended := make(chan error, 1)
	s, _ := newTestServer(t, Config{Methods: ctxMethods(ended), Threads: 1})
	addr := listen(t, s)
	c := dial(t, addr)
	c.send(post("/", `{"method":"waitctx","id":1}`, ""))
	waitFor(t, func() bool { return len(s.slots) == 1 })
	time.Sleep(2 * watchDelay)
	c.c.Close()
	// The call would run 10 s: ending well before shows the cancellation.
	select {
	case err := <-ended:
		if err != context.Canceled {
			t.Fatalf("call ended with %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("call still running after its client hung up")
	}
	d := dial(t, addr)
	d.c.SetDeadline(time.Now().Add(10 * time.Second))
	d.send(post("/", echoBodyID("2"), ""))
	if resp, got := d.reply("POST"); resp.StatusCode != 200 || got != echoReply("2") {
		t.Errorf("next call: %d %q", resp.StatusCode, got)
	}
}

// TestPipelinedRequestDoesNotCancel: a request sent while the previous
// one runs is not a hang-up; both are answered in order.
func TestPipelinedRequestDoesNotCancel(t *testing.T) {
	t.Parallel()
	ended := make(chan error, 1)
	s, _ := newTestServer(t, Config{Methods: ctxMethods(ended)})
	c := dial(t, listen(t, s))
	c.send(post("/", `{"method":"slow","id":1}`, ""))
	time.Sleep(3 * watchDelay)
	c.send(post("/", echoBodyID("2"), ""))
	if err := <-ended; err != nil {
		t.Errorf("slow call's context ended: %v", err)
	}
	if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != "{\"result\":true,\"error\":null,\"id\":1}\n" {
		t.Errorf("slow call: %d %q", resp.StatusCode, got)
	}
	if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != echoReply("2") {
		t.Errorf("pipelined call: %d %q", resp.StatusCode, got)
	}
	// The connection's read deadline works again after the watch.
	c.send(post("/", echoBodyID("3"), ""))
	if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != echoReply("3") {
		t.Errorf("third call: %d %q", resp.StatusCode, got)
	}
}

// TestShutdownCancelsCalls: Shutdown cancels running calls' context at
// once and still writes their replies.
func TestShutdownCancelsCalls(t *testing.T) {
	t.Parallel()
	ended := make(chan error, 1)
	// The call would run 10 s: Shutdown returning well before cancelled it.
	c := shutdownDuringCall(t, ctxMethods(ended), "waitctx", ended)
	if resp, _ := c.reply("POST"); resp.StatusCode != 500 {
		t.Errorf("cancelled call: %d", resp.StatusCode)
	}
}

// TestWriteDeadline: a client that stops reading a large reply is dropped
// after -rpcservertimeout instead of holding its connection for good.
func TestWriteDeadline(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, Config{Methods: ctxMethods(make(chan error, 1)), ReadTimeout: 300 * time.Millisecond})
	c := dial(t, listen(t, s))
	c.send(post("/", `{"method":"big","id":1}`, ""))
	conns := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.conns)
	}
	waitFor(t, func() bool { return conns() == 1 })
	// Never read: the server's write blocks once the socket buffers
	// fill, until the deadline drops the connection.
	waitFor(t, func() bool { return conns() == 0 })
}

// shutdownDuringCall starts a server of methods, sends one call of method
// and shuts the server down while it runs; the call's work reports on
// ended how its context ended, which must be by cancellation, and
// Shutdown must return well before the work would have ended by itself.
// It returns the call's connection, for its reply.
func shutdownDuringCall(t *testing.T, methods []*Method, method string, ended chan error) *rawConn {
	t.Helper()
	s, _ := newTestServer(t, Config{Methods: methods})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	safego.Go("test server", func() error { return s.Serve(l) })
	c := dial(t, l.Addr().String())
	c.send(post("/", `{"method":"`+method+`","id":1}`, ""))
	waitFor(t, func() bool { return len(s.slots) == 1 })
	start := time.Now()
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	if err := <-ended; err != context.Canceled {
		t.Errorf("work ended with %v, want context.Canceled", err)
	}
	return c
}
