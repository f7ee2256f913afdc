package methods

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/descwallet/descwallet/internal/pgstore"
	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// corpusStores are the wallet stores the recorded corpora replay on.
var corpusStores = []string{"sqlite", "postgres"}

var (
	pgOnce sync.Once
	pgDB   *pgstore.DB
	pgErr  error
	pgDSN  string
	// pgSpace numbers the namespaces of the nodes on the shared
	// database, so that each node sees only its own wallets.
	pgSpace atomic.Int64
)

// storeOpener returns the opener of a fresh node over dir on the named
// store: SQLite files in dir, or a namespace of its own in the test
// binary's PostgreSQL database.
func storeOpener(t testing.TB, dir, kind string) wallet.Opener {
	t.Helper()
	switch kind {
	case "sqlite":
		return walletdb.Opener{}
	case "postgres":
	default:
		t.Fatalf("unknown store %q", kind)
	}
	pgOnce.Do(func() {
		dsn := pgtest.DSN(t)
		pgDSN = dsn
		pgDB, pgErr = pgstore.Connect(context.Background(), dsn)
		if pgErr == nil {
			db := pgDB
			pgtest.AtStop(db.Close)
		}
	})
	if pgDB == nil && pgErr == nil {
		// DSN skipped the test (-short) inside the Once.
		pgtest.DSN(t)
	}
	if pgErr != nil {
		t.Fatal(pgErr)
	}
	return walletdb.PGOpener{DB: pgDB, Root: filepath.Join(dir, "regtest", "wallets"),
		Namespace: fmt.Sprintf("test%d", pgSpace.Add(1))}
}
