//go:build unix

package wallet_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

const msgLocked = "Wallet file verification failed. SQLiteDatabase: Unable to obtain an exclusive lock on the database, is it being used by another instance of Bitcoin Core?\n"

// TestSameWalletTwice loads one wallet folder under a second name (its
// absolute path, a symbolic link to it) and from a second manager (as a
// second process would): each is refused with Core's lock error, and the
// first copy keeps working. Once it is unloaded, the other name loads.
func TestSameWalletTwice(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(dir)
	defer m.Close()
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(m.WalletsDir(), "w")
	if err := os.Symlink(abs, filepath.Join(m.WalletsDir(), "link")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{abs, abs + "/", "link"} {
		_, _, err := m.Load(ctx, name, nil)
		wantKind(t, err, wallet.ErrWallet, msgLocked)
	}
	other := newManager(dir)
	defer other.Close()
	_, _, err = other.Load(ctx, "w", nil)
	wantKind(t, err, wallet.ErrWallet, msgLocked)
	_, _, err = other.Create(ctx, abs, wallet.CreateOptions{})
	if err == nil {
		t.Fatal("create over a loaded wallet succeeded")
	}
	if got := m.List(); len(got) != 1 || got[0] != "w" {
		t.Fatalf("loaded wallets %v, want [w]", got)
	}
	if _, err := w.NewAddress(ctx, false, "", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Unload(ctx, "w", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Load(ctx, abs, nil); err != nil {
		t.Fatalf("load by path after unloading: %v", err)
	}
	_, _, err = other.Load(ctx, "w", nil)
	wantKind(t, err, wallet.ErrWallet, msgLocked)
}

// errorText is every message in an error chain.
func errorText(err error) string {
	var b strings.Builder
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		b.WriteString(e.Error())
		b.WriteString("\n")
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return b.String()
}

func mainnetManager(dir string) *wallet.Manager {
	return wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(dir, "regtest"),
		Net: &chaincfg.MainNetParams, Opener: walletdb.Opener{}, Keypool: 10})
}

// dropNetwork removes the network record, as in a file written before it
// existed.
func dropNetwork(t *testing.T, dbPath string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("DELETE FROM meta WHERE key = 'network'"); err != nil {
		t.Fatal(err)
	}
}

// TestWalletNetworkChecked loads a mainnet wallet (with xprv descriptors)
// on regtest: the load fails with Core's cross-chain message, which (with
// every error it wraps) quotes no key. A file without the network record
// is refused when its keys are mainnet's, and records the network on its
// first load otherwise.
func TestWalletNetworkChecked(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mm := mainnetManager(dir)
	if _, _, err := mm.Create(ctx, "main", wallet.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mm.Create(ctx, "old", wallet.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := mm.Close(); err != nil {
		t.Fatal(err)
	}
	m := newManager(dir)
	defer m.Close()
	check := func(name string) {
		t.Helper()
		_, _, err := m.Load(ctx, name, nil)
		if !errors.Is(err, wallet.ErrWallet) || !strings.Contains(err.Error(), "Wallet files should not be reused across chains.") {
			t.Fatalf("load of a mainnet wallet on regtest: %v", err)
		}
		if text := errorText(err); strings.Contains(text, "xprv") || strings.Contains(text, "tprv") {
			t.Fatalf("the error quotes a private key: %q", text)
		}
	}
	check("main")
	dropNetwork(t, filepath.Join(m.WalletsDir(), "old", wallet.DatabaseFile))
	check("old")

	// A regtest wallet of before the record loads, and then carries
	// the record: mainnet refuses it.
	if _, _, err := m.Create(ctx, "reg", wallet.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Unload(ctx, "reg", nil); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(m.WalletsDir(), "reg", wallet.DatabaseFile)
	dropNetwork(t, dbPath)
	if _, _, err := m.Load(ctx, "reg", nil); err != nil {
		t.Fatalf("load of a regtest wallet without a network record: %v", err)
	}
	if _, err := m.Unload(ctx, "reg", nil); err != nil {
		t.Fatal(err)
	}
	mm = mainnetManager(dir)
	defer mm.Close()
	_, _, err := mm.Load(ctx, "reg", nil)
	if err == nil || !strings.Contains(err.Error(), "This wallet is for regtest, the node runs on mainnet.") {
		t.Fatalf("load of a regtest wallet on mainnet: %v", err)
	}
}

// TestRecoverRemovesRemnants leaves what a crash in the middle of
// createwallet and restorewallet leaves, and checks that Recover removes
// it, folder and all, that listing shows nothing, and that the names can
// be created again.
func TestRecoverRemovesRemnants(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(dir)
	defer m.Close()
	for name, files := range map[string][]string{
		"created":  {wallet.DatabaseFile + ".creating", wallet.DatabaseFile + ".creating-wal", wallet.DatabaseFile + ".lock"},
		"restored": {wallet.DatabaseFile + ".restoring"},
	} {
		d := filepath.Join(m.WalletsDir(), name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f), []byte("half a wallet"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A wallet that is fine stays as it is.
	if _, _, err := m.Create(ctx, "fine", wallet.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Unload(ctx, "fine", nil); err != nil {
		t.Fatal(err)
	}
	if names, err := m.ListDir(); err != nil || fmt.Sprint(names) != "[fine]" {
		t.Fatalf("listed %v %v, want [fine]", names, err)
	}
	if f := m.Recover(ctx); len(f) != 0 {
		t.Fatalf("Recover: %v", f)
	}
	for _, name := range []string{"created", "restored"} {
		if _, err := os.Stat(filepath.Join(m.WalletsDir(), name)); !os.IsNotExist(err) {
			t.Fatalf("folder %s after Recover: %v", name, err)
		}
	}
	if _, _, err := m.Load(ctx, "fine", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Create(ctx, "created", wallet.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestCreateOverRemnant creates a wallet whose folder holds the remnant of
// a crashed creation: the name is not blocked and the wallet is whole.
func TestCreateOverRemnant(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(dir)
	defer m.Close()
	d := filepath.Join(m.WalletsDir(), "w")
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, wallet.DatabaseFile+".creating"), []byte("half a wallet"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := m.Load(ctx, "w", nil)
	wantKind(t, err, wallet.ErrNotFound, "Wallet file verification failed. Failed to load database path '"+d+"'. Data is not in recognized format.")
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := privateList(t, w); len(got) != 8 {
		t.Fatalf("%d descriptors, want 8", len(got))
	}
}

// TestRestoreFailureRemovesFolder restores a file that is not a wallet
// and a wallet of another network: both fail and leave no folder, as in
// Core.
func TestRestoreFailureRemovesFolder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.bak")
	if err := os.WriteFile(bad, []byte("invalid_wallet_content"), 0o600); err != nil {
		t.Fatal(err)
	}
	mm := mainnetManager(dir + "/main")
	w, _, err := mm.Create(ctx, "main", wallet.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mainBak := filepath.Join(dir, "main.bak")
	if err := w.Backup(ctx, mainBak); err != nil {
		t.Fatal(err)
	}
	mm.Close()

	m := newManager(dir)
	defer m.Close()
	for _, bak := range []string{bad, mainBak} {
		if _, _, err := m.Restore(ctx, "res", bak, nil); err == nil {
			t.Fatalf("restore of %s succeeded", filepath.Base(bak))
		}
		if _, err := os.Stat(filepath.Join(m.WalletsDir(), "res")); !os.IsNotExist(err) {
			t.Fatalf("restore of %s left the wallet folder: %v", filepath.Base(bak), err)
		}
	}
}
