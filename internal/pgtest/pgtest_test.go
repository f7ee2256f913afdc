package pgtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestFindBinDir: the binaries are found in PATH or in a versioned folder
// (the newest), and their absence says how to install them.
func TestFindBinDir(t *testing.T) {
	root := t.TempDir()
	mk := func(dir string, names ...string) {
		os.MkdirAll(dir, 0o755)
		for _, n := range names {
			os.WriteFile(filepath.Join(dir, n), nil, 0o755)
		}
	}
	onlyInitdb := filepath.Join(root, "half")
	mk(onlyInitdb, "initdb")
	mk(filepath.Join(root, "lib", "13", "bin"), "initdb", "postgres")
	mk(filepath.Join(root, "lib", "16", "bin"), "initdb", "postgres")
	mk(filepath.Join(root, "lib", "9", "bin"), "initdb", "postgres")
	pattern := filepath.Join(root, "lib", "*", "bin")
	if d, err := findBinDir(onlyInitdb, pattern); err != nil || d != filepath.Join(root, "lib", "16", "bin") {
		t.Errorf("versioned folder: %q %v", d, err)
	}
	inPath := filepath.Join(root, "path")
	mk(inPath, "initdb", "postgres")
	if d, err := findBinDir(onlyInitdb+string(os.PathListSeparator)+inPath, pattern); err != nil || d != inPath {
		t.Errorf("PATH: %q %v", d, err)
	}
	_, err := findBinDir(onlyInitdb, filepath.Join(root, "none", "*", "bin"))
	if err == nil || !strings.Contains(err.Error(), "apt-get install postgresql") {
		t.Errorf("absent: %v", err)
	}
}

// TestServer starts a server, makes two databases on it, checks that it
// does not run as root, and that Stop removes its folder.
func TestServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a PostgreSQL server")
	}
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var dsns []string
	for range 2 {
		dsn, err := s.NewDatabase(ctx)
		if err != nil {
			t.Fatal(err)
		}
		dsns = append(dsns, dsn)
	}
	if dsns[0] == dsns[1] {
		t.Fatalf("one database twice: %s", dsns[0])
	}
	c, err := pgx.Connect(ctx, dsns[1])
	if err != nil {
		t.Fatal(err)
	}
	var dataDir string
	if err := c.QueryRow(ctx, "SELECT current_setting('data_directory')").Scan(&dataDir); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	st, err := os.Stat(filepath.Join(dataDir, "PG_VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	if uid := st.Sys().(*syscall.Stat_t).Uid; uid == 0 {
		t.Errorf("the cluster belongs to root")
	}
	s.Stop()
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("folder left after Stop: %v", err)
	}
}
