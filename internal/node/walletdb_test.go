package node

import (
	"strings"
	"testing"
)

// TestWalletDBOption checks -walletdb: SQLite by default and by name, a
// postgres:// or postgresql:// URL kept as given, anything else refused
// without echoing the value (it may hold a password).
func TestWalletDBOption(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ arg, want string }{
		{"", ""},
		{"-walletdb=sqlite", ""},
		{"-walletdb=postgres://u:pw@127.0.0.1:5432/w", "postgres://u:pw@127.0.0.1:5432/w"},
		{"-walletdb=postgresql://127.0.0.1/w?sslmode=disable", "postgresql://127.0.0.1/w?sslmode=disable"},
	} {
		argv := []string{"-datadir=" + dir, "-regtest"}
		if tc.arg != "" {
			argv = append(argv, tc.arg)
		}
		cfg, err := LoadConfig(argv)
		if err != nil {
			t.Fatalf("%s: %v", tc.arg, err)
		}
		if cfg.Wallet.DB != tc.want {
			t.Errorf("%s: DB %q, want %q", tc.arg, cfg.Wallet.DB, tc.want)
		}
	}
	for _, bad := range []string{"mysql://u:hunter2@h/w", "hunter2", "SQLITE3"} {
		_, err := LoadConfig([]string{"-datadir=" + dir, "-regtest", "-walletdb=" + bad})
		if err == nil || !strings.Contains(err.Error(), "invalid -walletdb") || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("-walletdb=%s: %v", bad, err)
		}
	}
}
