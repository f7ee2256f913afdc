package walletscan

import (
	"context"
	"errors"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/scan"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// TestRescans checks the reservation registry: one holder a wallet, the
// passphrase flag, release, wallets apart, and a background rescan
// counting as a holder.
func TestRescans(t *testing.T) {
	ctx := context.Background()
	mgr := wallet.NewManager(wallet.ManagerConfig{NetDir: t.TempDir(), Net: &chaincfg.RegressionNetParams,
		Opener: walletdb.Opener{}})
	defer mgr.Close()
	a, _, err := mgr.Create(ctx, "a", wallet.CreateOptions{Blank: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := mgr.Create(ctx, "b", wallet.CreateOptions{Blank: true})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRescans()
	release, err := r.Reserve(a, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reserve(a, false); !errors.Is(err, scan.ErrBusy) {
		t.Fatalf("second reservation: %v", err)
	}
	if !r.ScanningWithPassphrase(a) || r.ScanningWithPassphrase(b) {
		t.Fatal("passphrase flags wrong")
	}
	relB, err := r.Reserve(b, false)
	if err != nil || r.ScanningWithPassphrase(b) {
		t.Fatalf("b: %v", err)
	}
	relB()
	release()
	release() // twice is harmless
	if r.ScanningWithPassphrase(a) {
		t.Fatal("released slot still held")
	}
	again, err := r.Reserve(a, false)
	if err != nil {
		t.Fatal(err)
	}
	again()

	r.busy = func(w *wallet.Wallet) bool { return w == b }
	if _, err := r.Reserve(b, true); !errors.Is(err, scan.ErrBusy) {
		t.Fatalf("reservation during a background rescan: %v", err)
	}

	// An import rescans nothing when no element was imported or every
	// one said "now" (the service has no backend: a rescan would fail).
	s := New(Config{Net: &chaincfg.RegressionNetParams})
	for _, times := range [][]ImportTime{
		nil,
		{{Time: 5, Imported: false}},
		{{Time: 5, Now: true, Imported: true}, {Time: 9, Now: true, Imported: false}},
	} {
		if err := s.ImportRescan(ctx, a, times); err != nil {
			t.Errorf("%+v: %v", times, err)
		}
	}
	if !RecordsRescan(ImportTime{Time: 5}, true, a) || RecordsRescan(ImportTime{Time: 5, Now: true}, true, a) ||
		RecordsRescan(ImportTime{Time: 5}, false, a) {
		t.Error("RecordsRescan of a wallet that processed no block")
	}
}
