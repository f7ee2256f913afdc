package pgstore

import (
	"context"
	"errors"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

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
	name string
	// epoch is this leadership's number in chain_leaders: writes fenced
	// by it (Fence) fail once a later leader moved it.
	epoch int64
	lost  chan struct{}
	stop  chan struct{}
	once  sync.Once
	done  chan struct{}
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
	conn, err := pgx.ConnectConfig(ctx, db.connCfg.Copy())
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
	// A new epoch: it waits for the writes of a former leader still in
	// flight (they hold the row), which fail afterwards.
	var epoch int64
	if err := conn.QueryRow(ctx, `INSERT INTO chain_leaders (name, epoch) VALUES ($1, 1)
		ON CONFLICT (name) DO UPDATE SET epoch = chain_leaders.epoch + 1 RETURNING epoch`, name).Scan(&epoch); err != nil {
		conn.Close(context.Background())
		return nil, storeErr(ErrDatabase, "start leader epoch", err)
	}
	l := &Leader{conn: conn, key: key, name: name, epoch: epoch, lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
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
			// A ping cut short by its deadline closes the connection
			// and so gives the lock up: the deadline is generous (a
			// busy server is not a lost session).
			ctx, cancel := context.WithTimeout(context.Background(), max(every, leaderPingTimeout))
			err := l.conn.Ping(ctx)
			cancel()
			if err != nil {
				close(l.lost)
				return
			}
		}
	}
}

// leaderPingTimeout bounds a check of the leader's session.
const leaderPingTimeout = 15 * time.Second

// Lost is closed when the leadership was lost (its connection failed).
func (l *Leader) Lost() <-chan struct{} { return l.lost }

// Epoch returns the leadership's epoch (1 for the first leader of a name
// on a database, then one more at each change of leader).
func (l *Leader) Epoch() int64 { return l.epoch }

// fenceKey is the context key of Fence.
type fenceKey struct{}

// Fence returns a context whose write transactions (Store.Update) commit
// only while l leads: each checks, under a share lock of the leadership's
// row, that no later leader started, and fails with an error of kind
// ErrLocked otherwise. A node that lost the lock without noticing yet
// (its session died a moment ago) thus writes nothing once another node
// leads.
func (l *Leader) Fence(ctx context.Context) context.Context {
	return context.WithValue(ctx, fenceKey{}, l)
}

// checkFence fails when the transaction's context is fenced by a
// leadership that ended.
func (t *Tx) checkFence() error {
	l, _ := t.ctx.Value(fenceKey{}).(*Leader)
	if l == nil {
		return nil
	}
	select {
	case <-l.lost:
		return storeErr(ErrLocked, "this node no longer leads "+strconv.Quote(l.name), nil)
	default:
	}
	var epoch int64
	err := t.tx.QueryRow(t.ctx, "SELECT epoch FROM chain_leaders WHERE name = $1 FOR SHARE", l.name).Scan(&epoch)
	if err != nil {
		return storeErr(ErrDatabase, "check leadership", err)
	}
	if epoch != l.epoch {
		return storeErr(ErrLocked, "this node no longer leads "+strconv.Quote(l.name), nil)
	}
	return nil
}

// Release gives the leadership up.
func (l *Leader) Release() {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		select {
		case <-l.lost:
		default:
			close(l.lost)
		}
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
// of keys, descriptors, the address book or settings by a node that
// opened the wallet shared except address handouts, Handout with every
// handout (ReserveNext), Chain with every write of the chain side
// (transactions, chain position, rescan record, events).
type Changes struct {
	Change, Handout, Chain int64
}

// bump moves the counters of this transaction's kinds of write and
// returns the three counters after it.
func (t *Tx) bump() (Changes, error) {
	var c Changes
	err := t.tx.QueryRow(t.ctx, `UPDATE wallets SET change_seq = change_seq + $2::int,
		handout_seq = handout_seq + $3::int, chain_seq = chain_seq + $4::int WHERE id = $1
		RETURNING change_seq, handout_seq, chain_seq`, t.wid, one(t.wrote && !t.handout), one(t.handout), one(t.chain)).
		Scan(&c.Change, &c.Handout, &c.Chain)
	if err != nil {
		return Changes{}, storeErr(ErrDatabase, "move change counter", err)
	}
	return c, nil
}

func one(b bool) int {
	if b {
		return 1
	}
	return 0
}

// advance records a committed write of this node: a counter it moved
// advances the seen one only when no other node wrote in between (the
// row lock of the counters orders the writers), so that a write of
// another node is never taken for one's own. The chain counter is
// followed apart: the chain side is reloaded apart from the keys.
func (s *Store) advance(c Changes, t *Tx) {
	s.seenMu.Lock()
	defer s.seenMu.Unlock()
	if t.chain && c.Chain == s.seen.Chain+1 {
		s.seen.Chain = c.Chain
	}
	switch {
	case t.handout:
		if c.Handout == s.seen.Handout+1 && c.Change == s.seen.Change {
			s.seen.Handout = c.Handout
		}
	case t.wrote:
		if c.Change == s.seen.Change+1 && c.Handout == s.seen.Handout {
			s.seen.Change = c.Change
		}
	}
}

// Changes reads the wallet's change counters (one indexed read).
func (s *Store) Changes(ctx context.Context) (Changes, error) {
	var c Changes
	err := s.db.pool.QueryRow(ctx, "SELECT change_seq, handout_seq, chain_seq FROM wallets WHERE id = $1", s.id).
		Scan(&c.Change, &c.Handout, &c.Chain)
	if err != nil {
		return Changes{}, storeErr(ErrDatabase, "read change counters", err)
	}
	return c, nil
}

// Stale reports whether c, counters read with Changes, show writes of
// keys, descriptors, address book or settings this node's state of the
// wallet does not reflect; handouts says whether address handouts count.
func (s *Store) Stale(c Changes, handouts bool) bool {
	s.seenMu.Lock()
	defer s.seenMu.Unlock()
	if c.Change != s.seen.Change {
		return true
	}
	return handouts && c.Handout != s.seen.Handout
}

// ChainStale reports whether c shows writes of the chain side this
// node's state of the wallet does not reflect.
func (s *Store) ChainStale(c Changes) bool {
	s.seenMu.Lock()
	defer s.seenMu.Unlock()
	return c.Chain != s.seen.Chain
}

// Seen records that this node's state of the wallet's keys, descriptors,
// address book and settings reflects c: the node read c with Changes,
// then loaded the wallet. The chain counter is left (SeenChain).
func (s *Store) Seen(c Changes) {
	s.seenMu.Lock()
	s.seen.Change, s.seen.Handout = c.Change, c.Handout
	s.seenMu.Unlock()
}

// SeenChain records that this node's state of the wallet's chain side
// reflects the chain counter n (read before the chain was loaded).
func (s *Store) SeenChain(n int64) {
	s.seenMu.Lock()
	s.seen.Chain = n
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

// holdConns bounds the sessions that hold or wait for wallets'
// exclusive-operation locks at once.
const holdConns = 32

// holdSessions returns the pool of sessions Hold takes its locks on, apart
// from the pool the writes use: a holder's writes never wait for a
// connection that a waiter for another lock holds.
func (db *DB) holdSessions(ctx context.Context) (*pgxpool.Pool, error) {
	db.holdMu.Lock()
	defer db.holdMu.Unlock()
	if db.holdPool != nil {
		return db.holdPool, nil
	}
	cfg, err := pgxpool.ParseConfig(db.dsn)
	if err != nil {
		return nil, storeErr(ErrDatabase, "parse database address", errors.New("invalid connection string"))
	}
	cfg.MaxConns = holdConns
	cfg.MinConns = 0
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, storeErr(ErrDatabase, "connect lock sessions", err)
	}
	db.holdPool = p
	return p, nil
}

// Hold takes the wallet's exclusive-operation lock (the key Exclusive
// takes) on a session of its own and keeps it until release is called,
// for an operation that writes in several transactions of its own. When
// the node dies the session ends and the lock with it.
func (s *Store) Hold(ctx context.Context) (release func(), err error) {
	sessions, err := s.db.holdSessions(ctx)
	if err != nil {
		return nil, err
	}
	conn, err := sessions.Acquire(ctx)
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
