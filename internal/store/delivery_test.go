package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestDeliveryCursor: a target without a row stands at 0; a stored cursor
// survives a reopen, moves only forward, and targets are independent.
func TestDeliveryCursor(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.sqlite")
	s, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	get := func(target string) int64 {
		t.Helper()
		c, err := s.DeliveryCursor(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := get("http://127.0.0.1:1/a"); c != 0 {
		t.Fatalf("new target at %d", c)
	}
	for _, c := range []int64{5, 9, 7} {
		if err := s.SetDeliveryCursor(ctx, "http://127.0.0.1:1/a", c, 1700000000); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetDeliveryCursor(ctx, "http://127.0.0.1:1/b", 2, 1700000000); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if a, b := get("http://127.0.0.1:1/a"), get("http://127.0.0.1:1/b"); a != 9 || b != 2 {
		t.Fatalf("after reopen: a at %d (want 9), b at %d (want 2)", a, b)
	}
}
