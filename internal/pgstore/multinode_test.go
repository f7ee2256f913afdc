package pgstore

import (
	"context"
	"errors"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestReserveIndexesTwoNodes reserves addresses of one descriptor from
// two nodes (two DBs on one database) with 64 concurrent callers: every
// index is handed out exactly once, and the range end follows.
func TestReserveIndexesTwoNodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, dsn := connect(t)
	b, err := Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err := a.Create(ctx, "n", "shop")
	if err != nil {
		t.Fatal(err)
	}
	id := [32]byte{1}
	err = s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.PutDescriptor(Descriptor{ID: id, Public: "wpkh(xpub/0/*)#x", Ranged: true, RangeEnd: 10}); err != nil {
			return err
		}
		_, err := tx.PutDescriptor(Descriptor{ID: [32]byte{2}, Public: "pkh(02aa)#x"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := b.OpenShared(ctx, "n", "shop")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ReserveIndexes(ctx, [32]byte{2}, 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("reserve on a descriptor without a range: %v", err)
	}
	const callers, each = 64, 40
	var mu sync.Mutex
	var got []int64
	var wg sync.WaitGroup
	for c := range callers {
		st := s
		if c%2 == 1 {
			st = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				i, err := st.ReserveIndexes(ctx, id, 1)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got = append(got, i)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	if len(got) != callers*each {
		t.Fatalf("%d indexes", len(got))
	}
	for i, v := range got {
		if v != int64(i) {
			t.Fatalf("index %d handed out as %d: duplicates or gaps", i, v)
		}
	}
	snap, err := other.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := snap.Descriptors[0]; d.NextIndex != callers*each || d.RangeEnd != callers*each {
		t.Fatalf("descriptor after the reservations: next %d, range end %d", d.NextIndex, d.RangeEnd)
	}
}

// TestExclusiveTwoNodes runs the same wallet's exclusive operations from
// two nodes at once: they never overlap.
func TestExclusiveTwoNodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, dsn := connect(t)
	b, err := Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err := a.Create(ctx, "n", "w")
	if err != nil {
		t.Fatal(err)
	}
	s.Publish(ctx)
	defer s.Close()
	other, err := b.OpenShared(ctx, "n", "w")
	if err != nil {
		t.Fatal(err)
	}
	var inside, most, runs atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		st := s
		if i%2 == 1 {
			st = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := st.Exclusive(ctx, func(tx *Tx) error {
				n := inside.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
				time.Sleep(20 * time.Millisecond)
				inside.Add(-1)
				runs.Add(1)
				return tx.PutMeta("last", []byte{byte(i)})
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if runs.Load() != 8 || most.Load() != 1 {
		t.Fatalf("%d runs, at most %d at once", runs.Load(), most.Load())
	}
}

// TestLeaderTakeover: one leader per name; when the leader's session dies
// its holder sees Lost and a waiting node takes over within seconds;
// Release hands leadership on at once.
func TestLeaderTakeover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, dsn := connect(t)
	b, err := Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	la, err := a.TryLeader(ctx, "follower regtest", 200*time.Millisecond)
	if err != nil || la == nil {
		t.Fatalf("first leader: %v %v", la, err)
	}
	if lb, err := b.TryLeader(ctx, "follower regtest", 0); err != nil || lb != nil {
		t.Fatalf("second leader while the first holds: %v %v", lb, err)
	}
	if lo, err := b.TryLeader(ctx, "follower testnet", 0); err != nil || lo == nil {
		t.Fatalf("leader of another name: %v %v", lo, err)
	} else {
		lo.Release()
	}
	waited := make(chan *Leader, 1)
	go func() {
		l, err := b.WaitLeader(ctx, "follower regtest", 100*time.Millisecond)
		if err != nil {
			t.Error(err)
		}
		waited <- l
	}()
	// The leader's session dies (as when its node is killed).
	var pid uint32
	pid = la.conn.PgConn().PID()
	t0 := time.Now()
	if _, err := a.pool.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	select {
	case <-la.Lost():
	case <-time.After(10 * time.Second):
		t.Fatal("the old leader did not see its loss")
	}
	var lb *Leader
	select {
	case lb = <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("no takeover within 10 s")
	}
	if lb == nil {
		t.Fatal("no leader")
	}
	t.Logf("takeover after %v", time.Since(t0).Round(time.Millisecond))
	la.Release()
	lb.Release()
	lc, err := a.TryLeader(ctx, "follower regtest", 0)
	if err != nil || lc == nil {
		t.Fatalf("leader after Release: %v %v", lc, err)
	}
	lc.Release()
}
