package rpc

import (
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
