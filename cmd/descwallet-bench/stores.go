package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/descwallet/descwallet/internal/pgtest"
)

// Wallet stores a measurement can run on.
const (
	storeSQLite   = "sqlite"
	storePostgres = "postgres"
)

// parseStores reads a -store value: sqlite, postgres, or both (SQLite
// first, so that a ratio reads PostgreSQL over SQLite).
func parseStores(v string) ([]string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case storeSQLite:
		return []string{storeSQLite}, nil
	case storePostgres, "postgresql", "pg":
		return []string{storePostgres}, nil
	case "both":
		return []string{storeSQLite, storePostgres}, nil
	}
	return nil, fmt.Errorf("invalid -store %q: want sqlite, postgres or both", v)
}

// stores hands out the -walletdb argument of each measured node: none for
// SQLite (the default), a fresh database for PostgreSQL, on the server
// -pgdsn names or else on a throwaway server started at the first need.
type stores struct {
	// dsn is -pgdsn: an existing database to use as is.
	dsn string

	// shared is -pgshared: the PostgreSQL node runs with -walletdbshared
	// (each wallet call first reads the wallet's change counters).
	shared bool

	srv *pgtest.Server
}

// args returns the daemon arguments for kind.
func (s *stores) args(kind string) ([]string, error) {
	if kind != storePostgres {
		return nil, nil
	}
	var extra []string
	if s.shared {
		extra = []string{"-walletdbshared=1"}
	}
	if s.dsn != "" {
		return append([]string{"-walletdb=" + s.dsn}, extra...), nil
	}
	if s.srv == nil {
		fmt.Println("starting a throwaway PostgreSQL server (fsync off, as the tests run it)")
		srv, err := pgtest.Start()
		if err != nil {
			return nil, err
		}
		s.srv = srv
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, err := s.srv.NewDatabase(ctx)
	if err != nil {
		return nil, err
	}
	return append([]string{"-walletdb=" + dsn}, extra...), nil
}

// close stops the server started here, if any.
func (s *stores) close() {
	if s.srv != nil {
		s.srv.Stop()
		s.srv = nil
	}
}
