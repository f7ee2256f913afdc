package pgstore

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/descwallet/descwallet/internal/pgtest"
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

// sharedPair makes a published wallet and opens it shared from two nodes
// (two DBs on one database).
func sharedPair(t *testing.T) (a, b *DB, sa, sb *Store) {
	t.Helper()
	ctx := context.Background()
	a, dsn := connect(t)
	b, err := Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	s, err := a.Create(ctx, "n", "shop")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if sa, err = a.OpenShared(ctx, "n", "shop"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sa.Close() })
	if sb, err = b.OpenShared(ctx, "n", "shop"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return a, b, sa, sb
}

// TestChainCounter: a chain write moves only the chain counter, so that
// the other node reloads the chain side and not the keys; the writer's
// own write does not make it stale; a settings write moves the change
// counter only; a delivery cursor moves none.
func TestChainCounter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, _, sa, sb := sharedPair(t)
	c0, err := sa.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sa.Seen(c0)
	sa.SeenChain(c0.Chain)
	sb.Seen(c0)
	sb.SeenChain(c0.Chain)
	err = sa.Update(ctx, func(tx *Tx) error {
		if _, err := tx.PutWalletTx(WalletTx{TxID: [32]byte{7}, Raw: []byte{1}, Height: -1}); err != nil {
			return err
		}
		return tx.SetRecentBlocks([]BlockRef{{Height: 5, Hash: [32]byte{5}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	c1, err := sb.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c1.Chain != c0.Chain+1 || c1.Change != c0.Change || c1.Handout != c0.Handout {
		t.Fatalf("counters after a chain write: %+v, before %+v", c1, c0)
	}
	if sb.Stale(c1, true) || !sb.ChainStale(c1) {
		t.Fatalf("other node: keys stale %v, chain stale %v", sb.Stale(c1, true), sb.ChainStale(c1))
	}
	if sa.Stale(c1, true) || sa.ChainStale(c1) {
		t.Fatal("the writer takes its own chain write for another node's")
	}
	if err := sb.Update(ctx, func(tx *Tx) error { return tx.PutMeta("k", []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	c2, _ := sa.Changes(ctx)
	if c2.Change != c1.Change+1 || c2.Chain != c1.Chain {
		t.Fatalf("counters after a settings write: %+v, before %+v", c2, c1)
	}
	if !sa.Stale(c2, false) || sa.ChainStale(c2) {
		t.Fatal("settings write: the keys are stale, the chain is not")
	}
	if err := sb.SetDeliveryCursor(ctx, "hook", 3, 100); err != nil {
		t.Fatal(err)
	}
	if c3, _ := sa.Changes(ctx); c3 != c2 {
		t.Fatalf("a delivery cursor moved the counters: %+v, before %+v", c3, c2)
	}
}

// TestLeaderFence: the writes of a context fenced by a leadership commit
// while it leads and fail once another node took over, even before the
// former leader noticed its loss; unfenced writes go on.
func TestLeaderFence(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, sa, sb := sharedPair(t)
	// A check interval long enough that the loss is not noticed here.
	la, err := a.TryLeader(ctx, "fence", time.Hour)
	if err != nil || la == nil {
		t.Fatalf("leader: %v %v", la, err)
	}
	defer la.Release()
	write := func(s *Store, ctx context.Context, h int32) error {
		return s.Update(ctx, func(tx *Tx) error {
			return tx.SetRecentBlocks([]BlockRef{{Height: h, Hash: [32]byte{byte(h)}}})
		})
	}
	fa := la.Fence(ctx)
	if err := write(sa, fa, 1); err != nil {
		t.Fatalf("leader's write: %v", err)
	}
	if _, err := a.pool.Exec(ctx, "SELECT pg_terminate_backend($1)", la.conn.PgConn().PID()); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	lb, err := b.WaitLeader(wctx, "fence", 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Release()
	if lb.Epoch() != la.Epoch()+1 {
		t.Fatalf("epochs %d then %d", la.Epoch(), lb.Epoch())
	}
	if err := write(sa, fa, 2); !errors.Is(err, ErrLocked) {
		t.Fatalf("former leader's write: %v, want ErrLocked", err)
	}
	if err := write(sb, lb.Fence(ctx), 3); err != nil {
		t.Fatalf("new leader's write: %v", err)
	}
	if err := write(sa, ctx, 4); err != nil {
		t.Fatalf("unfenced write: %v", err)
	}
	lb.Release()
	if err := write(sb, lb.Fence(ctx), 5); !errors.Is(err, ErrLocked) {
		t.Fatalf("write after Release: %v, want ErrLocked", err)
	}
}

// TestHoldManyWallets: operations of more wallets than the pool has
// connections hold their exclusive-operation locks and write at once
// without starving each other of connections.
func TestHoldManyWallets(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn := pgtest.DSN(t)
	db, err := Connect(ctx, dsn+"&pool_max_conns=2")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const wallets = 6
	var stores []*Store
	for i := range wallets {
		name := "w" + strconv.Itoa(i)
		s, err := db.Create(ctx, "n", name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Publish(ctx); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if s, err = db.OpenShared(ctx, "n", name); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	var wg sync.WaitGroup
	for _, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				release, err := s.Hold(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				err = s.Update(ctx, func(tx *Tx) error { return tx.PutMeta("k", []byte("v")) })
				release()
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
