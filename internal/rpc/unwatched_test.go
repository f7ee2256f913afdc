package rpc

import (
	"context"
	"testing"
	"time"
)

// unwatchedMethods adds a method whose work runs under Unwatched for up to
// run, reporting how its context ended (nil: it ran to the end).
func unwatchedMethods(ended chan error, run time.Duration) []*Method {
	return append(testMethods(nil),
		&Method{Name: "unwatched", Category: "test", Description: "Works past its client.",
			Handler: func(ctx context.Context, _ *Request) (any, error) {
				work, done := Unwatched(ctx)
				defer done()
				select {
				case <-work.Done():
					ended <- work.Err()
					return nil, work.Err()
				case <-time.After(run):
					ended <- nil
					return true, nil
				}
			}})
}

// TestUnwatchedOutlivesHangUp: work under Unwatched goes on when the
// client hangs up (the call's own context is cancelled then, as
// TestHangUpCancelsCall shows), as Core runs a call to its end.
func TestUnwatchedOutlivesHangUp(t *testing.T) {
	t.Parallel()
	ended := make(chan error, 1)
	s, _ := newTestServer(t, Config{Methods: unwatchedMethods(ended, time.Second), Threads: 1})
	addr := listen(t, s)
	c := dial(t, addr)
	c.send(post("/", `{"method":"unwatched","id":1}`, ""))
	waitFor(t, func() bool { return len(s.slots) == 1 })
	time.Sleep(2 * watchDelay)
	c.c.Close()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("work ended with %v after its client hung up, want it to run to the end", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("work never ended")
	}
}

// TestUnwatchedEndsAtShutdown: Shutdown still ends work under Unwatched.
func TestUnwatchedEndsAtShutdown(t *testing.T) {
	t.Parallel()
	ended := make(chan error, 1)
	shutdownDuringCall(t, unwatchedMethods(ended, 10*time.Second), "unwatched", ended)
}

// TestQueuedCallOutlivesHangUp: a call waiting for a worker when its
// client hangs up still runs once a worker is free, as Core runs every
// queued request, so that work under Unwatched (Specter's rescan, sent
// while other calls keep the workers busy) is not lost.
func TestQueuedCallOutlivesHangUp(t *testing.T) {
	t.Parallel()
	ended := make(chan error, 2)
	s, _ := newTestServer(t, Config{Methods: unwatchedMethods(ended, 300*time.Millisecond), Threads: 1})
	addr := listen(t, s)
	busy := dial(t, addr)
	busy.send(post("/", `{"method":"unwatched","id":1}`, ""))
	waitFor(t, func() bool { return len(s.slots) == 1 })
	queued := dial(t, addr)
	queued.send(post("/", `{"method":"unwatched","id":2}`, ""))
	waitFor(t, func() bool { return s.waiting.Load() == 1 })
	time.Sleep(2 * watchDelay)
	queued.c.Close()
	for i := range 2 {
		select {
		case err := <-ended:
			if err != nil {
				t.Fatalf("work %d ended with %v, want it to run to the end", i, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("work %d never ran: the queued call was dropped when its client hung up", i)
		}
	}
}
