package pgstore

import (
	"context"
	"errors"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/descwallet/descwallet/internal/safego"
)

// ReserveIndexes hands out n consecutive derivation indexes of a ranged
// descriptor from the database: it moves the descriptor's next index by n
// in one statement and returns the first index reserved. Nodes sharing the
// database that reserve at the same time are serialised by the row, so no
// two of them ever get the same index. The range end is pushed along when
// the reservation passes it (the caller derives the new scripts).
func (t *Tx) ReserveIndexes(id [32]byte, n int64) (first int64, err error) {
	if n <= 0 {
		return 0, storeErr(ErrDatabase, "reserve indexes: count must be positive", nil)
	}
	t.wrote = true
	err = t.tx.QueryRow(t.ctx, `UPDATE descriptors SET next_index = next_index + $3,
		range_end = greatest(range_end, next_index + $3)
		WHERE wallet_id = $1 AND id = $2 AND ranged RETURNING next_index - $3`, t.wid, id[:], n).Scan(&first)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, storeErr(ErrNotFound, "no ranged descriptor with that id", nil)
	}
	if err != nil {
		return 0, storeErr(ErrDatabase, "reserve indexes", err)
	}
	return first, nil
}

// ReserveIndexes is Tx.ReserveIndexes in a transaction of its own, for a
// caller that reserves without writing anything else.
func (s *Store) ReserveIndexes(ctx context.Context, id [32]byte, n int64) (int64, error) {
	var first int64
	err := s.Update(ctx, func(tx *Tx) error {
		var err error
		first, err = tx.ReserveIndexes(id, n)
		return err
	})
	return first, err
}

// Exclusive runs fn while holding the wallet's exclusive-operation lock,
// a transaction-scoped advisory lock taken in fn's transaction: on every
// node sharing the database, operations of the same wallet that must not
// overlap (imports, rescans, encryption, spending) run one at a time, and
// the lock goes with the transaction, whether it commits or the node
// dies. It waits for the lock as long as ctx allows.
func (s *Store) Exclusive(ctx context.Context, fn func(*Tx) error) error {
	return s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", exclusiveClass|s.id); err != nil {
			return storeErr(ErrDatabase, "lock wallet operation", err)
		}
		return fn(tx)
	})
}

// OpenShared opens the published wallet called name without taking its
// open lock, for nodes that serve one wallet together: each such node
// reserves addresses with ReserveIndexes and runs the operations that
// must not overlap under Exclusive. A wallet open with Open elsewhere
// stays open there.
func (db *DB) OpenShared(ctx context.Context, ns, name string) (*Store, error) {
	id, state, found, err := db.walletID(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if !found || state != "ready" {
		return nil, storeErr(ErrNotFound, "no wallet called "+strconv.Quote(name), nil)
	}
	return &Store{db: db, id: id, ns: ns, name: name, shared: true}, nil
}

// exclusiveClass is the high half of the exclusive-operation lock keys,
// apart from the open locks of lockClass.
const exclusiveClass = int64(0x6478) << 48

// leaderClass is the high half of leader lock keys.
const leaderClass = int64(0x6479) << 48

// Leader is a held leadership (a session advisory lock on a connection of
// its own): exactly one holder per name among all nodes on the database.
// When the connection fails the lock is gone; Lost is closed then, within
// the check interval, so that the holder stops acting as leader.
type Leader struct {
	conn *pgx.Conn
	key  int64
	lost chan struct{}
	stop chan struct{}
	once sync.Once
	done chan struct{}
}

// leaderKey maps a leadership name ("chain follower of regtest") to a lock
// key.
func leaderKey(name string) int64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return leaderClass | int64(h.Sum32())
}

// TryLeader tries once to become the leader called name; nil and no
// error when another session leads. check is how often the held lock's
// connection is checked (zero: every second).
func (db *DB) TryLeader(ctx context.Context, name string, check time.Duration) (*Leader, error) {
	if check <= 0 {
		check = time.Second
	}
	conn, err := pgx.Connect(ctx, db.dsn)
	if err != nil {
		return nil, storeErr(ErrDatabase, "connect leader session", err)
	}
	key := leaderKey(name)
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&ok); err != nil {
		conn.Close(context.Background())
		return nil, storeErr(ErrDatabase, "take leader lock", err)
	}
	if !ok {
		conn.Close(context.Background())
		return nil, nil
	}
	l := &Leader{conn: conn, key: key, lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	safego.Go("pgstore leader watch", func() error { l.watch(check); return nil })
	return l, nil
}

// watch pings the leader's connection until Release or a failure.
func (l *Leader) watch(every time.Duration) {
	defer close(l.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), every)
			err := l.conn.Ping(ctx)
			cancel()
			if err != nil {
				close(l.lost)
				return
			}
		}
	}
}

// Lost is closed when the leadership was lost (its connection failed).
func (l *Leader) Lost() <-chan struct{} { return l.lost }

// Release gives the leadership up.
func (l *Leader) Release() {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		l.conn.Close(context.Background())
	})
}

// WaitLeader waits until this node leads name, trying every interval;
// it returns ctx's error if ctx ends first.
func (db *DB) WaitLeader(ctx context.Context, name string, interval time.Duration) (*Leader, error) {
	for {
		l, err := db.TryLeader(ctx, name, interval)
		if l != nil || err != nil {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(interval):
		}
	}
}

// Changes are a wallet's change counters: Change moves with every write
// of a node that opened the wallet shared except address handouts,
// Handout with every handout (ReserveNext).
type Changes struct {
	Change, Handout int64
}

// bump moves the counter of this transaction's kind of write and returns
// both counters after it.
func (t *Tx) bump() (Changes, error) {
	col := "change_seq"
	if t.handout {
		col = "handout_seq"
	}
	var c Changes
	err := t.tx.QueryRow(t.ctx, "UPDATE wallets SET "+col+" = "+col+" + 1 WHERE id = $1 RETURNING change_seq, handout_seq",
		t.wid).Scan(&c.Change, &c.Handout)
	if err != nil {
		return Changes{}, storeErr(ErrDatabase, "move change counter", err)
	}
	return c, nil
}

// advance records a committed write of this node: the counter it moved
// advances the seen one only when no other node wrote in between (the
// row lock of the counter orders the writers), so that a write of
// another node is never taken for one's own.
func (s *Store) advance(c Changes, handout bool) {
	s.seenMu.Lock()
	defer s.seenMu.Unlock()
	if handout {
		if c.Handout == s.seen.Handout+1 && c.Change == s.seen.Change {
			s.seen.Handout = c.Handout
		}
		return
	}
	if c.Change == s.seen.Change+1 && c.Handout == s.seen.Handout {
		s.seen.Change = c.Change
	}
}

// Changes reads the wallet's change counters (one indexed read).
func (s *Store) Changes(ctx context.Context) (Changes, error) {
	var c Changes
	err := s.db.pool.QueryRow(ctx, "SELECT change_seq, handout_seq FROM wallets WHERE id = $1", s.id).Scan(&c.Change, &c.Handout)
	if err != nil {
		return Changes{}, storeErr(ErrDatabase, "read change counters", err)
	}
	return c, nil
}

// Stale reports whether c, counters read with Changes, show writes this
// node's state of the wallet does not reflect; handouts says whether
// address handouts count.
func (s *Store) Stale(c Changes, handouts bool) bool {
	s.seenMu.Lock()
	defer s.seenMu.Unlock()
	if c.Change != s.seen.Change {
		return true
	}
	return handouts && c.Handout != s.seen.Handout
}

// Seen records that this node's state of the wallet reflects c: the node
// read c with Changes, then loaded the wallet.
func (s *Store) Seen(c Changes) {
	s.seenMu.Lock()
	s.seen = c
	s.seenMu.Unlock()
}

// ReserveNext hands out the next derivation index of a ranged descriptor
// and tops its range up to that index plus keypool (at most limit): it
// returns the index and the range end before and after. The descriptor's
// row stays locked until the transaction ends, so the scripts of
// [oldEnd, newEnd) are derived and stored by this transaction alone, and
// the write counts as a handout (Changes.Handout).
func (t *Tx) ReserveNext(id [32]byte, keypool, limit int64) (n, oldEnd, newEnd int64, err error) {
	t.handout = true
	err = t.tx.QueryRow(t.ctx, `WITH old AS (SELECT next_index, range_end FROM descriptors
			WHERE wallet_id = $1 AND id = $2 AND ranged FOR UPDATE)
		UPDATE descriptors d SET next_index = old.next_index + 1,
			range_end = greatest(old.range_end, least(old.next_index + $3, $4))
		FROM old WHERE d.wallet_id = $1 AND d.id = $2
		RETURNING old.next_index, old.range_end, d.range_end`, t.wid, id[:], keypool, limit).Scan(&n, &oldEnd, &newEnd)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, 0, storeErr(ErrNotFound, "no ranged descriptor with that id", nil)
	}
	if err != nil {
		return 0, 0, 0, storeErr(ErrDatabase, "reserve index", err)
	}
	return n, oldEnd, newEnd, nil
}

// Hold takes the wallet's exclusive-operation lock (the key Exclusive
// takes) on a session of the pool and keeps it until release is called,
// for an operation that writes in several transactions of its own. When
// the node dies the session ends and the lock with it.
func (s *Store) Hold(ctx context.Context) (release func(), err error) {
	conn, err := s.db.pool.Acquire(ctx)
	if err != nil {
		return nil, storeErr(ErrDatabase, "acquire lock session", err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", exclusiveClass|s.id); err != nil {
		conn.Release()
		return nil, storeErr(ErrDatabase, "lock wallet operation", err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			if _, err := conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", exclusiveClass|s.id); err != nil {
				// The session may still hold the lock: close it.
				conn.Conn().Close(context.Background())
			}
			conn.Release()
		})
	}, nil
}

// Share turns a wallet this node opened (or created and published) with
// its open lock into one opened shared: the lock is given up and from now
// on the writes move the change counters, as in a Store of OpenShared.
func (s *Store) Share() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shared || s.closed || s.pending {
		return
	}
	s.shared = true
	s.db.unlock(s.id)
}
