package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/descwallet/descwallet/internal/safego"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// lockClass is the high half of the advisory lock keys this package takes
// ("dw"), so that they do not collide with other users of the database.
const lockClass = int64(0x6477) << 48

// migrationLock is the advisory lock key that serialises migrations of
// nodes starting together.
const migrationLock = lockClass | (int64(0xffff) << 32)

// DB is a PostgreSQL database holding many wallets. It is safe for
// concurrent use.
type DB struct {
	pool *pgxpool.Pool
	dsn  string
	// connCfg is the connection part of the address (without the pool's
	// own parameters), for the sessions kept apart from the pool.
	connCfg *pgx.ConnConfig
	// sessionName, when set, is the lock session's application_name,
	// made of the node's owner name: the same for every run of one node,
	// so that a node started again after a crash knows the locks its dead
	// predecessor's session still holds (see lock).
	sessionName string

	// holdMu guards holdPool, the connections that hold wallets'
	// exclusive-operation locks (Hold), made at the first Hold.
	holdMu   sync.Mutex
	holdPool *pgxpool.Pool

	// lockMu guards lockConn and open.
	lockMu sync.Mutex
	// lockConn is the session that holds the advisory lock of every
	// wallet open through this DB.
	lockConn *pgx.Conn
	// open holds the ids of the wallets open through this DB: the
	// server's advisory locks are reentrant within a session, so a second
	// open from this process is refused here.
	open map[int64]bool
	// lost holds the open wallets whose lock another session took while
	// this DB's lock session was gone: their Stores refuse to write.
	lost map[int64]bool

	stopWatch chan struct{}
	watchDone chan struct{}
}

// lockCheckInterval is how often the lock session is checked while
// wallets are open.
const lockCheckInterval = 2 * time.Second

// predecessorWait bounds how long opening a wallet waits for the lock a
// dead run of the same node still holds: the server ends a session whose
// client died as soon as it sees the connection closed, which is at once
// on a healthy network.
const predecessorWait = 10 * time.Second

// Connect opens a pool of connections to the database named by dsn (a
// postgres:// URL or key=value string) and brings its schema up to date.
func Connect(ctx context.Context, dsn string) (*DB, error) {
	return ConnectAs(ctx, dsn, "")
}

// ConnectAs is Connect for a node that names itself: owner is the same at
// every run of the node and differs between nodes. A wallet whose lock is
// held by a session of the same owner, left by a run of this node that
// died (killed, or its host lost power), is waited for, up to
// predecessorWait, rather than refused as in use by another node.
func ConnectAs(ctx context.Context, dsn, owner string) (*DB, error) {
	if len(owner) > maxOwner {
		return nil, storeErr(ErrDatabase, "connect to database", errors.New("node name too long"))
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, storeErr(ErrDatabase, "parse database address", errors.New("invalid connection string"))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, storeErr(ErrDatabase, "connect to database", err)
	}
	db := &DB{pool: pool, dsn: dsn, connCfg: cfg.ConnConfig, open: map[int64]bool{}, lost: map[int64]bool{},
		stopWatch: make(chan struct{}), watchDone: make(chan struct{})}
	if owner != "" {
		db.sessionName = ownerPrefix + owner
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, storeErr(ErrDatabase, "connect to database", err)
	}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	safego.Go("pgstore lock watch", func() error {
		db.watchLocks(lockCheckInterval)
		return nil
	})
	return db, nil
}

// watchLocks runs checkLocks every interval until Close.
func (db *DB) watchLocks(every time.Duration) {
	defer close(db.watchDone)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-db.stopWatch:
			return
		case <-tick.C:
			db.checkLocks(context.Background())
		}
	}
}

// checkLocks makes sure that, while wallets are open, the lock session is
// alive and holds their locks: after it was lost (the server restarted, the
// connection broke) a new session takes the locks again, and a wallet whose
// lock another session took meanwhile is marked lost, so that its Store
// refuses to write.
func (db *DB) checkLocks(ctx context.Context) {
	db.lockMu.Lock()
	defer db.lockMu.Unlock()
	if len(db.open) == 0 {
		return
	}
	if db.lockConn != nil && !db.lockConn.IsClosed() {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := db.lockConn.Ping(pctx)
		cancel()
		if err == nil {
			return
		}
		db.lockConn.Close(ctx)
	}
	db.lockConn = nil
	db.relock(ctx)
}

// relock opens a new lock session and takes the open wallets' locks
// again; lockMu is held.
func (db *DB) relock(ctx context.Context) error {
	cfg := db.connCfg.Copy()
	if db.sessionName != "" {
		cfg.RuntimeParams["application_name"] = db.sessionName
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return storeErr(ErrDatabase, "connect lock session", err)
	}
	for id := range db.open {
		if db.lost[id] {
			continue
		}
		var ok bool
		if err := c.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", lockClass|id).Scan(&ok); err != nil {
			c.Close(ctx)
			return storeErr(ErrDatabase, "lock wallet", err)
		}
		if !ok {
			db.lost[id] = true
		}
	}
	db.lockConn = c
	return nil
}

// isLost reports whether the lock of the open wallet id was taken by
// another session.
func (db *DB) isLost(id int64) bool {
	db.lockMu.Lock()
	defer db.lockMu.Unlock()
	return db.lost[id]
}

// Close closes the pool and releases the locks of the wallets still open.
func (db *DB) Close() {
	db.lockMu.Lock()
	select {
	case <-db.stopWatch:
	default:
		close(db.stopWatch)
	}
	db.lockMu.Unlock()
	<-db.watchDone
	db.lockMu.Lock()
	if db.lockConn != nil {
		db.lockConn.Close(context.Background())
		db.lockConn = nil
	}
	db.open = map[int64]bool{}
	db.lost = map[int64]bool{}
	db.lockMu.Unlock()
	db.holdMu.Lock()
	if db.holdPool != nil {
		db.holdPool.Close()
		db.holdPool = nil
	}
	db.holdMu.Unlock()
	db.pool.Close()
}

// migration is one numbered schema step.
type migration struct {
	version int
	sql     string
}

// migrations returns the embedded schema steps, numbered 1..n.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if !ok {
			return nil, fmt.Errorf("migration %q: no number", e.Name())
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %q: %v", e.Name(), err)
		}
		body, err := fs.ReadFile(migrationFS, "migrations/"+e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migrations not numbered 1..n: found %d at %d", m.version, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the schema version this code writes.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// migrate applies the migrations the database lacks, each in its own
// transaction with the row of schema_version that records it. A
// transaction-scoped advisory lock makes nodes that start together apply
// each step once.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return storeErr(ErrSchema, "embedded migrations", err)
	}
	if _, err := db.pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS descwallet_schema_version (
		version INTEGER PRIMARY KEY, applied TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		var pe *pgconn.PgError
		// Two nodes creating the table at once: one loses the race on
		// the catalog, and the table is there.
		if !errors.As(err, &pe) || pe.Code != "23505" {
			return storeErr(ErrDatabase, "create schema version table", err)
		}
	}
	for {
		done, err := db.migrateOne(ctx, ms)
		if err != nil || done {
			return err
		}
	}
}

// migrateOne applies the next missing migration; done when none is
// missing.
func (db *DB) migrateOne(ctx context.Context, ms []migration) (done bool, err error) {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return false, storeErr(ErrDatabase, "begin migration", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
		return false, storeErr(ErrDatabase, "lock schema", err)
	}
	var version int
	if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM descwallet_schema_version").Scan(&version); err != nil {
		return false, storeErr(ErrDatabase, "read schema version", err)
	}
	if version > len(ms) {
		return false, storeErr(ErrSchema, fmt.Sprintf("database schema version %d is newer than this program's %d", version, len(ms)), nil)
	}
	if version == len(ms) {
		return true, nil
	}
	m := ms[version]
	if _, err := tx.Exec(ctx, m.sql); err != nil {
		return false, storeErr(ErrSchema, fmt.Sprintf("migration %d", m.version), err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO descwallet_schema_version (version) VALUES ($1)", m.version); err != nil {
		return false, storeErr(ErrDatabase, "record schema version", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, storeErr(ErrDatabase, fmt.Sprintf("commit migration %d", m.version), err)
	}
	return false, nil
}

// Version returns the schema version the database is at.
func (db *DB) Version(ctx context.Context) (int, error) {
	var v int
	err := db.pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM descwallet_schema_version").Scan(&v)
	if err != nil {
		return 0, storeErr(ErrDatabase, "read schema version", err)
	}
	return v, nil
}

// ownerPrefix starts the application_name of a named node's lock session;
// maxOwner keeps the name within the server's 63 bytes.
const (
	ownerPrefix = "descwallet "
	maxOwner    = 63 - len(ownerPrefix)
)

// lock takes the advisory lock of wallet id for this DB; false when it
// is held elsewhere (by this process or another session). A lock held by
// a session of this node's owner is a dead run's: the server has not yet
// seen its connection close. lock waits for it to go, up to
// predecessorWait, without holding lockMu.
func (db *DB) lock(ctx context.Context, id int64) (bool, error) {
	deadline := time.Now().Add(predecessorWait)
	for {
		ok, mine, err := db.tryLock(ctx, id)
		if ok || !mine || err != nil || time.Now().After(deadline) {
			return ok, err
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// tryLock is one attempt of lock; predecessor tells, when the lock is
// held by another session, that the session is named after this node's
// owner.
func (db *DB) tryLock(ctx context.Context, id int64) (ok, predecessor bool, err error) {
	db.lockMu.Lock()
	defer db.lockMu.Unlock()
	if db.open[id] {
		return false, false, nil
	}
	if db.lockConn == nil || db.lockConn.IsClosed() {
		// A new session, which takes the locks of the wallets already
		// open again (none at the first open).
		if err := db.relock(ctx); err != nil {
			return false, false, err
		}
	}
	if err := db.lockConn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", lockClass|id).Scan(&ok); err != nil {
		return false, false, storeErr(ErrDatabase, "lock wallet", err)
	}
	if ok {
		db.open[id] = true
		return true, false, nil
	}
	if db.sessionName == "" {
		return false, false, nil
	}
	// A bigint advisory key shows in pg_locks as its high and low halves
	// with objsubid 1.
	key := lockClass | id
	err = db.lockConn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.database = a.datid
		AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid
		AND a.pid <> pg_backend_pid() AND a.application_name = $3)`,
		int64(uint64(key)>>32), int64(uint32(key)), db.sessionName).Scan(&predecessor)
	if err != nil {
		return false, false, storeErr(ErrDatabase, "lock wallet", err)
	}
	return false, predecessor, nil
}

// unlock releases the advisory lock of wallet id.
func (db *DB) unlock(id int64) {
	db.lockMu.Lock()
	defer db.lockMu.Unlock()
	if !db.open[id] {
		return
	}
	delete(db.open, id)
	delete(db.lost, id)
	if db.lockConn != nil && !db.lockConn.IsClosed() {
		db.lockConn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", lockClass|id)
	}
}

// walletID returns the id and state of a wallet; found false when there
// is none.
func (db *DB) walletID(ctx context.Context, ns, name string) (id int64, state string, found bool, err error) {
	err = db.pool.QueryRow(ctx, "SELECT id, state FROM wallets WHERE namespace = $1 AND name = $2", ns, name).
		Scan(&id, &state)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", false, nil
	}
	if err != nil {
		return 0, "", false, storeErr(ErrDatabase, "read wallet", err)
	}
	return id, state, true, nil
}

// Exists reports whether a published wallet has that name.
func (db *DB) Exists(ctx context.Context, ns, name string) (bool, error) {
	_, state, found, err := db.walletID(ctx, ns, name)
	return found && state == "ready", err
}

// List returns the names of the published wallets of a namespace, sorted
// by byte value.
func (db *DB) List(ctx context.Context, ns string) ([]string, error) {
	rows, err := db.pool.Query(ctx, "SELECT name FROM wallets WHERE namespace = $1 AND state = 'ready'", ns)
	if err != nil {
		return nil, storeErr(ErrDatabase, "list wallets", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, storeErr(ErrDatabase, "list wallets", err)
	}
	sort.Strings(names)
	return names, nil
}

// Create makes a new wallet called name, locked for the returned Store.
// Until Publish it is not listed and Open does not find it; Close before
// Publish (or a crash, followed by Recover) removes it.
func (db *DB) Create(ctx context.Context, ns, name string) (*Store, error) {
	id, state, found, err := db.walletID(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if found {
		if state == "ready" {
			return nil, storeErr(ErrExists, "wallet already exists", nil)
		}
		// A creation in progress, or the remnant of one that crashed.
		ok, err := db.lock(ctx, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, storeErr(ErrLocked, "wallet is in use", nil)
		}
		_, err = db.pool.Exec(ctx, "DELETE FROM wallets WHERE id = $1 AND state = 'creating'", id)
		db.unlock(id)
		if err != nil {
			return nil, storeErr(ErrDatabase, "remove unfinished wallet", err)
		}
	}
	// The lock is taken before the row exists, so no other node can take
	// the new row for a remnant.
	if err := db.pool.QueryRow(ctx, "SELECT nextval(pg_get_serial_sequence('wallets', 'id'))").Scan(&id); err != nil {
		return nil, storeErr(ErrDatabase, "create wallet", err)
	}
	if ok, err := db.lock(ctx, id); err != nil || !ok {
		if err == nil {
			err = storeErr(ErrLocked, "wallet is in use", nil)
		}
		return nil, err
	}
	_, err = db.pool.Exec(ctx, "INSERT INTO wallets (id, namespace, name, state) VALUES ($1, $2, $3, 'creating')",
		id, ns, name)
	if err != nil {
		db.unlock(id)
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" {
			// Another node created it meanwhile.
			return nil, storeErr(ErrLocked, "wallet is in use", nil)
		}
		return nil, storeErr(ErrDatabase, "create wallet", err)
	}
	return &Store{db: db, id: id, ns: ns, name: name, pending: true}, nil
}

// Open opens the published wallet called name and locks it.
func (db *DB) Open(ctx context.Context, ns, name string) (*Store, error) {
	id, state, found, err := db.walletID(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if !found || state != "ready" {
		return nil, storeErr(ErrNotFound, "no wallet called "+strconv.Quote(name), nil)
	}
	ok, err := db.lock(ctx, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, storeErr(ErrLocked, "wallet is in use", nil)
	}
	s := &Store{db: db, id: id, ns: ns, name: name}
	// A rewrite a crash interrupted is finished before anything reads
	// the wallet.
	pending, err := s.rewritePending(ctx)
	if err == nil && pending {
		err = s.rewrite(ctx)
	}
	if err != nil {
		db.unlock(id)
		return nil, err
	}
	return s, nil
}

// Recover cleans up after a crash: it removes the unfinished creations of
// the namespace that nobody holds (reporting their names) and finishes the
// pending rewrites of wallets nobody holds.
func (db *DB) Recover(ctx context.Context, ns string) (removed []string, err error) {
	type row struct {
		id    int64
		name  string
		state string
	}
	rows, err := db.pool.Query(ctx, `SELECT id, name, state FROM wallets w WHERE namespace = $1
		AND (state = 'creating' OR EXISTS (SELECT 1 FROM rewrite_pending r WHERE r.wallet_id = w.id))`, ns)
	if err != nil {
		return nil, storeErr(ErrDatabase, "read wallets", err)
	}
	rs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.id, &x.name, &x.state)
		return x, err
	})
	if err != nil {
		return nil, storeErr(ErrDatabase, "read wallets", err)
	}
	var errs []error
	for _, r := range rs {
		ok, err := db.lock(ctx, r.id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !ok {
			continue
		}
		if r.state == "creating" {
			if _, err := db.pool.Exec(ctx, "DELETE FROM wallets WHERE id = $1", r.id); err != nil {
				errs = append(errs, storeErr(ErrDatabase, "remove unfinished wallet", err))
			} else {
				removed = append(removed, r.name)
			}
		} else {
			s := &Store{db: db, id: r.id, ns: ns, name: r.name}
			if err := s.rewrite(ctx); err != nil {
				errs = append(errs, err)
			}
		}
		db.unlock(r.id)
	}
	return removed, errors.Join(errs...)
}

// Store is one open wallet of a DB. It is safe for concurrent use; writes
// are serialised.
type Store struct {
	db       *DB
	id       int64
	ns, name string

	mu      sync.Mutex // serialises Update, Publish, Rewrite and Close
	pending bool       // made by Create and not yet published
	closed  bool
	shared  bool // opened by OpenShared: holds no open lock

	// seenMu guards seen, the change counters this node's state of the
	// wallet reflects (multinode.go).
	seenMu sync.Mutex
	seen   Changes
}

// Name returns the wallet's name.
func (s *Store) Name() string { return s.name }

// Publish makes a wallet made by Create visible to Open and List. It does
// nothing for an opened wallet.
func (s *Store) Publish(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	if !s.pending {
		return nil
	}
	if _, err := s.db.pool.Exec(ctx, "UPDATE wallets SET state = 'ready' WHERE id = $1", s.id); err != nil {
		return storeErr(ErrDatabase, "publish wallet", err)
	}
	s.pending = false
	return nil
}

// Close releases the wallet's lock. A wallet made by Create and never
// published is removed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.pending {
		if _, e := s.db.pool.Exec(context.Background(), "DELETE FROM wallets WHERE id = $1", s.id); e != nil {
			err = storeErr(ErrDatabase, "remove unfinished wallet", e)
		}
	}
	if !s.shared {
		s.db.unlock(s.id)
	}
	return err
}

// Update runs fn in one transaction and commits it: when Update returns
// nil the server has the change durably (synchronous commit), when fn
// fails nothing of it is kept.
func (s *Store) Update(ctx context.Context, fn func(*Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	if !s.shared && s.db.isLost(s.id) {
		return storeErr(ErrLocked, "the wallet's lock was taken by another session while this node's lock session was down", nil)
	}
	tx, err := s.db.pool.Begin(ctx)
	if err != nil {
		return storeErr(ErrDatabase, "begin transaction", err)
	}
	t := &Tx{ctx: ctx, tx: tx, wid: s.id, shared: s.shared}
	if err := fn(t); err != nil {
		tx.Rollback(ctx)
		return err
	}
	if err := t.checkFence(); err != nil {
		tx.Rollback(ctx)
		return err
	}
	var bumped Changes
	moved := s.shared && (t.wrote || t.handout || t.chain)
	if moved {
		if bumped, err = t.bump(); err != nil {
			tx.Rollback(ctx)
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return storeErr(ErrDatabase, "commit", err)
	}
	if moved {
		s.advance(bumped, t)
	}
	return nil
}

// view runs fn in one read-only repeatable-read transaction, which sees
// one consistent state.
func (s *Store) view(ctx context.Context, fn func(tx pgx.Tx) error) error {
	if s.isClosed() {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	tx, err := s.db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return storeErr(ErrDatabase, "begin read", err)
	}
	defer tx.Rollback(ctx)
	return fn(tx)
}

func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Checkpoint does nothing: the server writes its own log back.
func (s *Store) Checkpoint(ctx context.Context) error {
	if s.isClosed() {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	return nil
}

// Rewrite rebuilds the tables that hold secrets (VACUUM FULL), so that no
// dead row version of an overwritten secret (a private key before
// encryption, a master key wrapped under an old passphrase) stays in
// them, then clears the wallet's MarkRewrite marker.
func (s *Store) Rewrite(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	return s.rewrite(ctx)
}

func (s *Store) rewrite(ctx context.Context) error {
	if _, err := s.db.pool.Exec(ctx, "VACUUM FULL descriptor_secrets, master_key"); err != nil {
		return storeErr(ErrDatabase, "rewrite secret tables", err)
	}
	if _, err := s.db.pool.Exec(ctx, "DELETE FROM rewrite_pending WHERE wallet_id = $1", s.id); err != nil {
		return storeErr(ErrDatabase, "clear rewrite marker", err)
	}
	return nil
}

// rewritePending reports whether a rewrite was marked and not finished.
func (s *Store) rewritePending(ctx context.Context) (bool, error) {
	var n int
	if err := s.db.pool.QueryRow(ctx, "SELECT count(*) FROM rewrite_pending WHERE wallet_id = $1", s.id).Scan(&n); err != nil {
		return false, storeErr(ErrDatabase, "read rewrite marker", err)
	}
	return n > 0, nil
}

// Tx is a write transaction, valid only inside the function given to
// Update.
type Tx struct {
	ctx context.Context
	tx  pgx.Tx
	wid int64
	// wrote is set by every write of keys, descriptors, the address
	// book or settings; handout by ReserveNext; chain by every write of
	// transactions, chain position, rescan record or events. A shared
	// Store moves the wallet's change counters by them (multinode.go).
	wrote, handout, chain bool
	// shared: the wallet is served by several nodes (OpenShared).
	shared bool
	// seqs remembers descriptors' seqs for PutChunk.
	seqs map[[32]byte]int64
}

func (t *Tx) exec(what, query string, args ...any) error {
	t.wrote = true
	return t.run(what, query, args...)
}

// chainExec is exec for a write of the chain side (transactions, chain
// position, rescan record, events).
func (t *Tx) chainExec(what, query string, args ...any) error {
	t.chain = true
	return t.run(what, query, args...)
}

// run runs a write statement whose first argument is the wallet's id.
func (t *Tx) run(what, query string, args ...any) error {
	if _, err := t.tx.Exec(t.ctx, query, append([]any{t.wid}, args...)...); err != nil {
		return storeErr(ErrDatabase, what, err)
	}
	return nil
}

// Remove deletes the open wallet with everything it holds and closes the
// Store.
func (s *Store) Remove(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	_, err := s.db.pool.Exec(ctx, "DELETE FROM wallets WHERE id = $1", s.id)
	s.closed = true
	if !s.shared {
		s.db.unlock(s.id)
	}
	if err != nil {
		return storeErr(ErrDatabase, "remove wallet", err)
	}
	return nil
}
