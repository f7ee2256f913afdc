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
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// busyTimeoutMS bounds how long a statement waits for a lock held by another
// connection (a backup reader, another process) before failing.
const busyTimeoutMS = 10000

// Store is one open wallet database.
type Store struct {
	path string

	mu sync.Mutex // serialises Update, Backup and Close
	db *sql.DB
}

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
	return b.String()
}

// Create makes a new wallet database at path, which must not exist. Its
// folder must exist.
func Create(ctx context.Context, path string) (*Store, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, storeErr(ErrExists, "database already exists", err)
		}
		return nil, storeErr(ErrDatabase, "create database", err)
	}
	if err := f.Close(); err != nil {
		return nil, storeErr(ErrDatabase, "create database", err)
	}
	s, err := open(ctx, path)
	if err != nil {
		os.Remove(path)
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
		return nil, err
	}
	return s, nil
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
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, storeErr(ErrDatabase, "open database", err)
	}
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, storeErr(ErrDatabase, "open database", err)
	}
	// One connection: writes are serialised anyway, and every pragma then
	// applies to the one connection there is.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	s := &Store{path: abs, db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
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

// Close closes the database. Later calls fail.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	// Fold the WAL back into the main file so that the folder holds one
	// self-contained file after a clean close.
	s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	err := s.db.Close()
	s.db = nil
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
	tx := &Tx{ctx: ctx, tx: sqlTx}
	if err := fn(tx); err != nil {
		sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return storeErr(ErrDatabase, "commit", err)
	}
	return nil
}

// Backup writes a consistent copy of the database to dest, which must not
// exist, while the database stays open. The copy is a complete wallet file.
func (s *Store) Backup(ctx context.Context, dest string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	if _, err := os.Stat(dest); err == nil {
		return storeErr(ErrExists, "backup destination exists", nil)
	}
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		os.Remove(dest)
		return storeErr(ErrDatabase, "backup", err)
	}
	// VACUUM INTO leaves the copy's pages in the OS cache; make them
	// durable before reporting success.
	f, err := os.OpenFile(dest, os.O_RDWR, 0)
	if err != nil {
		return storeErr(ErrDatabase, "backup", err)
	}
	serr := f.Sync()
	cerr := f.Close()
	if serr != nil || cerr != nil {
		return storeErr(ErrDatabase, "backup", errors.Join(serr, cerr))
	}
	return nil
}
