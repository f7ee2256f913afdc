package wallettest

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/testenv"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// TestMainnetWalletOnRegtest puts two mainnet wallets (one with the network
// record, one of a file written before it) in a regtest node's wallets
// folder and loads them, at start-up and with loadwallet: both are
// refused with Core's cross-chain message, and neither the replies nor
// debug.log quote their xprv.
func TestMainnetWalletOnRegtest(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd")
	}
	t.Parallel()
	ctx := context.Background()
	dataDir := t.TempDir()
	m := wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(dataDir, "regtest"),
		Net: &chaincfg.MainNetParams, Opener: walletdb.Opener{}, Keypool: 5})
	var xprvs []string
	for _, name := range []string{"main", "old"} {
		w, _, err := m.Create(ctx, name, wallet.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		list, err := w.ListDescriptors(true)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range list {
			xprvs = append(xprvs, regexp.MustCompile(`xprv[1-9A-HJ-NP-Za-km-z]+`).FindAllString(d.Desc, -1)...)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if len(xprvs) == 0 {
		t.Fatal("no xprv in the mainnet wallets")
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "regtest", "wallets", "old", wallet.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("DELETE FROM meta WHERE key = 'network'"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	d := testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: dataDir, Args: []string{"-wallet=main", "-wallet=old", "-debug"}})
	var replies []string
	for _, name := range []string{"main", "old"} {
		_, err := d.Call("loadwallet", name)
		var re *testenv.RPCError
		if !errors.As(err, &re) || re.Code != -4 || !strings.HasPrefix(re.Message, "Wallet loading failed. Wallet files should not be reused across chains.") {
			t.Fatalf("loadwallet %s: %v", name, err)
		}
		replies = append(replies, re.Message)
	}
	logData, err := os.ReadFile(filepath.Join(d.NetDir, "debug.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logData), "wallet not loaded") {
		t.Fatalf("debug.log does not record the failed start-up loads:\n%s", logData)
	}
	for _, x := range xprvs {
		for _, r := range replies {
			if strings.Contains(r, x) {
				t.Fatalf("a reply quotes an xprv: %q", r)
			}
		}
		if strings.Contains(string(logData), x) || strings.Contains(d.Output(), x) {
			t.Fatal("debug.log or the console quotes an xprv")
		}
	}
}
