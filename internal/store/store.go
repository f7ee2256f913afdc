package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/descwallet/descwallet/internal/atomicfile"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// busyTimeoutMS bounds how long a statement waits for a lock held by another
// connection (a backup reader, another process) before failing.
const busyTimeoutMS = 10000

// cacheKiB is the page cache of a wallet database's connection, in KiB.
const cacheKiB = 65536

// Store is one open wallet database.
type Store struct {
	path string // the database file (absolute)
	// temp is the file being built by CreatePending until Publish moves
	// it to path; empty once published (and for Create and Open).
	temp string
	// lock holds the exclusive lock on path's lock file while the Store
	// is open.
	lock *os.File

	mu sync.Mutex // serialises Update, Backup, Rewrite, Publish and Close
	db *sql.DB
	// stmts are statements prepared once when db opens (the writes every
	// wallet update makes), by their text.
	stmts map[string]*sql.Stmt
	// recent are the rows of chain_blocks when recentKnown: what the
	// last committed SetRecentBlocks wrote on this connection.
	recent      []BlockRef
	recentKnown bool
	// nextEvent is the cursor the next appended event gets, as the last
	// commit on this connection left it; 0 when not known (then read).
	nextEvent int64
}

// preparedQueries are the statements connect prepares: the driver compiles
// a statement at every plain Exec.
var preparedQueries = []string{querySetEventDepth, queryPutRecentBlock, queryTrimRecentBlocks, queryAppendPack}

// LockSuffix is appended to a database's path to name its lock file, which
// an open Store holds an exclusive advisory lock on. The file stays after
// Close.
const LockSuffix = ".lock"

// PendingSuffix is appended to a database's path to name the file that
// CreatePending builds before Publish renames it into place. A file of that
// name is the remnant of a creation that never finished.
const PendingSuffix = ".creating"

// migration is one numbered schema step.
type migration struct {
	version int
	sql     string
}

// migrations returns the embedded schema steps in order. Files are named
// NNNN_title.sql and numbered from 1 without gaps.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		if !ok {
			return nil, fmt.Errorf("migration %q: no number", name)
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %q: %v", name, err)
		}
		body, err := fs.ReadFile(migrationFS, "migrations/"+name)
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

// dsn builds the driver's connection string: a file URI (so that any byte of
// the path is allowed) with the pragmas every connection needs.
func dsn(path string) string {
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch c {
		case '%', '?', '#':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString("?_txlock=immediate")
	b.WriteString("&_pragma=busy_timeout(" + strconv.Itoa(busyTimeoutMS) + ")")
	b.WriteString("&_pragma=journal_mode(WAL)")
	b.WriteString("&_pragma=synchronous(FULL)")
	b.WriteString("&_pragma=foreign_keys(1)")
	// Deleted and overwritten content is zeroed in the page, so that an
	// old private key does not stay in the unused space of a page.
	b.WriteString("&_pragma=secure_delete(1)")
	// A page cache of up to cacheKiB: every block looks the wallet's
	// transactions and scripts up at random places of the file while the
	// event log adds pages at every commit; once the wallet about fills
	// the cache, those push its own pages out (with SQLite's 2 MiB at
	// some 10 000 transactions, with 16 MiB at some 50 000 payments to
	// fresh addresses). The memory is taken only as pages are read.
	b.WriteString("&_pragma=cache_size(-" + strconv.Itoa(cacheKiB) + ")")
	return b.String()
}

// Create makes a new wallet database at path, which must not exist. Its
// folder must exist.
func Create(ctx context.Context, path string) (*Store, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, storeErr(ErrExists, "database already exists", nil)
	}
	abs, lock, err := lockPath(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(abs); err == nil {
		lock.Close()
		return nil, storeErr(ErrExists, "database already exists", nil)
	}
	s, err := createAt(ctx, abs, abs, lock)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// CreatePending makes a new wallet database that appears at path only when
// Publish succeeds: until then it is built in path+PendingSuffix, and
// Close (or a crash) leaves nothing at path. The caller fills it with
// Update, then calls Publish. path must not exist; its folder must.
func CreatePending(ctx context.Context, path string) (*Store, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, storeErr(ErrExists, "database already exists", nil)
	}
	abs, lock, err := lockPath(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(abs); err == nil {
		lock.Close()
		return nil, storeErr(ErrExists, "database already exists", nil)
	}
	// Holding the lock, any pending file is a remnant of a creation that
	// crashed.
	temp := abs + PendingSuffix
	removeDBFiles(temp)
	return createAt(ctx, abs, temp, lock)
}

// createAt creates the database file file (path itself or its pending
// name) for the Store of path, whose lock the caller holds and hands over.
func createAt(ctx context.Context, path, file string, lock *os.File) (*Store, error) {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		lock.Close()
		if errors.Is(err, fs.ErrExist) {
			return nil, storeErr(ErrExists, "database already exists", err)
		}
		return nil, storeErr(ErrDatabase, "create database", err)
	}
	if err := f.Close(); err != nil {
		lock.Close()
		removeDBFiles(file)
		return nil, storeErr(ErrDatabase, "create database", err)
	}
	s := &Store{path: path, lock: lock}
	if file != path {
		s.temp = file
	}
	if err := s.connect(ctx, file); err != nil {
		lock.Close()
		removeDBFiles(file)
		return nil, err
	}
	return s, nil
}

// removeDBFiles removes a database file with its log and index.
func removeDBFiles(file string) {
	os.Remove(file)
	os.Remove(file + "-wal")
	os.Remove(file + "-shm")
	os.Remove(file + "-journal")
}

// lockPath returns the absolute form of path and the held lock of its lock
// file.
func lockPath(path string) (string, *os.File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, storeErr(ErrDatabase, "open database", err)
	}
	lock, err := lockFile(abs + LockSuffix)
	if err != nil {
		if errors.Is(err, errLockHeld) {
			return "", nil, storeErr(ErrLocked, "database is in use", nil)
		}
		return "", nil, storeErr(ErrDatabase, "lock database", err)
	}
	return abs, lock, nil
}

// errLockHeld is lockFile's answer when another holder has the lock.
var errLockHeld = errors.New("lock held elsewhere")

// Publish makes the database of a CreatePending visible at its path: it
// folds the log into the file, syncs it, renames it into place and syncs
// the folder, then reopens it there. After a crash the path either holds
// the whole database or nothing. On a Store that is not pending it does
// nothing.
func (s *Store) Publish(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	if s.temp == "" {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return storeErr(ErrDatabase, "checkpoint", err)
	}
	err := s.db.Close()
	s.db = nil
	if err != nil {
		return storeErr(ErrDatabase, "close database", err)
	}
	if err := syncFile(s.temp); err != nil {
		return storeErr(ErrDatabase, "sync database", err)
	}
	os.Remove(s.temp + "-wal")
	os.Remove(s.temp + "-shm")
	if _, err := os.Lstat(s.path); err == nil {
		return storeErr(ErrExists, "database already exists", nil)
	}
	if err := os.Rename(s.temp, s.path); err != nil {
		return storeErr(ErrDatabase, "publish database", err)
	}
	s.temp = ""
	if err := atomicfile.SyncDir(filepath.Dir(s.path)); err != nil {
		return storeErr(ErrDatabase, "sync folder", err)
	}
	return s.connect(ctx, s.path)
}

// syncFile flushes the file at path to stable storage.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	serr := f.Sync()
	cerr := f.Close()
	if serr != nil {
		return serr
	}
	return cerr
}

// RemoveLeftovers removes what a crashed CreatePending left beside path
// (the pending file, its log and index, and the lock file when no database
// is at path) unless a Store of path is open (ErrLocked). It reports
// whether a pending file was removed.
func RemoveLeftovers(path string) (bool, error) {
	abs, lock, err := lockPath(path)
	if err != nil {
		return false, err
	}
	defer lock.Close()
	temp := abs + PendingSuffix
	found := false
	for _, f := range []string{temp, temp + "-wal", temp + "-shm", temp + "-journal"} {
		if _, err := os.Lstat(f); err == nil {
			found = true
		}
	}
	if found {
		removeDBFiles(temp)
	}
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		// No database: the lock file is a remnant too.
		os.Remove(abs + LockSuffix)
	}
	return found, nil
}

// Open opens the wallet database at path and brings its schema up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, storeErr(ErrNotFound, "no database at "+path, nil)
		}
		return nil, storeErr(ErrDatabase, "open database", err)
	}
	if st.IsDir() {
		return nil, storeErr(ErrNotFound, "no database at "+path, nil)
	}
	return open(ctx, path)
}

func open(ctx context.Context, path string) (*Store, error) {
	abs, lock, err := lockPath(path)
	if err != nil {
		return nil, err
	}
	s := &Store{path: abs, lock: lock}
	if err := s.connect(ctx, abs); err != nil {
		lock.Close()
		return nil, err
	}
	// A rebuild that a crash interrupted is finished before anything
	// else reads the file.
	pending, err := s.rewritePending(ctx)
	if err == nil && pending {
		err = s.rewrite(ctx)
	}
	if err != nil {
		s.db.Close()
		lock.Close()
		return nil, err
	}
	return s, nil
}

// connect opens the SQLite connection of s on file and brings its schema
// up to date.
func (s *Store) connect(ctx context.Context, file string) error {
	db, err := sql.Open("sqlite", dsn(file))
	if err != nil {
		return storeErr(ErrDatabase, "open database", err)
	}
	// One connection: writes are serialised anyway, and every pragma then
	// applies to the one connection there is.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	s.db = db
	s.recent, s.recentKnown, s.nextEvent = nil, false, 0
	if err := s.migrate(ctx); err != nil {
		db.Close()
		s.db = nil
		return err
	}
	// Prepared while the one connection is free; a transaction runs them
	// on that same connection.
	s.stmts = map[string]*sql.Stmt{}
	for _, q := range preparedQueries {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			db.Close()
			s.db = nil
			return storeErr(ErrDatabase, "prepare statement", err)
		}
		s.stmts[q] = st
	}
	return nil
}

// migrate applies the migrations the file lacks, each in its own
// transaction together with its user_version bump.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return storeErr(ErrSchema, "embedded migrations", err)
	}
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return storeErr(ErrDatabase, "read journal mode", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return storeErr(ErrDatabase, "database refuses WAL mode (journal_mode "+mode+")", nil)
	}
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return storeErr(ErrDatabase, "read schema version", err)
	}
	if version > len(ms) {
		return storeErr(ErrSchema, fmt.Sprintf("database schema version %d is newer than this program's %d", version, len(ms)), nil)
	}
	for _, m := range ms[version:] {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return storeErr(ErrDatabase, "begin migration", err)
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			tx.Rollback()
			return storeErr(ErrSchema, fmt.Sprintf("migration %d", m.version), err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
			tx.Rollback()
			return storeErr(ErrDatabase, "set schema version", err)
		}
		if err := tx.Commit(); err != nil {
			return storeErr(ErrDatabase, fmt.Sprintf("commit migration %d", m.version), err)
		}
	}
	return nil
}

// Path returns the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database and releases its lock. Later calls fail. A
// pending database (CreatePending without Publish) is removed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return nil
	}
	var err error
	if s.db != nil {
		// Fold the WAL back into the main file so that the folder holds
		// one self-contained file after a clean close.
		s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		err = s.db.Close()
		s.db = nil
	}
	if s.temp != "" {
		removeDBFiles(s.temp)
		s.temp = ""
	}
	s.lock.Close()
	s.lock = nil
	if err != nil {
		return storeErr(ErrDatabase, "close database", err)
	}
	return nil
}

// Update runs fn in one immediate transaction and commits it. When Update
// returns nil everything fn wrote is on disk; when fn fails nothing of it is.
func (s *Store) Update(ctx context.Context, fn func(*Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	sqlTx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return storeErr(ErrDatabase, "begin transaction", err)
	}
	tx := &Tx{ctx: ctx, tx: sqlTx, s: s}
	err = fn(tx)
	if err == nil {
		err = tx.flushEvents()
	}
	if err != nil {
		sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		// Whether the blocks and events were written is not known.
		s.recentKnown = s.recentKnown && !tx.recentSet
		s.nextEvent = 0
		return storeErr(ErrDatabase, "commit", err)
	}
	if tx.recentSet {
		s.recent, s.recentKnown = tx.recent, true
	}
	if tx.nextEvent > 0 {
		s.nextEvent = tx.nextEvent
	}
	return nil
}

// Backup writes a consistent copy of the database to dest, which must not
// exist, while the database stays open. The copy is a complete wallet file
// with mode 0600: it is written to a temporary file in dest's folder,
// synced, and only then given its name (and the folder synced), so dest
// never holds a partial copy.
func (s *Store) Backup(ctx context.Context, dest string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	if _, err := os.Lstat(dest); err == nil {
		return storeErr(ErrExists, "backup destination exists", nil)
	}
	dir := filepath.Dir(dest)
	f, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".tmp*")
	if err != nil {
		return storeErr(ErrDatabase, "backup", err)
	}
	temp := f.Name()
	// CreateTemp makes the file 0600; say so in case that ever changes.
	cerr := f.Chmod(0o600)
	if err := errors.Join(cerr, f.Close()); err != nil {
		os.Remove(temp)
		return storeErr(ErrDatabase, "backup", err)
	}
	// VACUUM INTO accepts an empty file and keeps its mode.
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", temp); err != nil {
		removeDBFiles(temp)
		return storeErr(ErrDatabase, "backup", err)
	}
	if err := syncFile(temp); err != nil {
		os.Remove(temp)
		return storeErr(ErrDatabase, "backup", err)
	}
	// A hard link gives the copy its name only if dest is still free;
	// where links are not available, rename.
	if err := os.Link(temp, dest); err != nil {
		if errors.Is(err, fs.ErrExist) {
			os.Remove(temp)
			return storeErr(ErrExists, "backup destination exists", nil)
		}
		if err := os.Rename(temp, dest); err != nil {
			os.Remove(temp)
			return storeErr(ErrDatabase, "backup", err)
		}
	} else {
		os.Remove(temp)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return storeErr(ErrDatabase, "backup", err)
	}
	return nil
}
