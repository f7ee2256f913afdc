package wallet_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/wallet"
)

// TestImportRecordsPendingRescan checks that an element asking for a
// rescan records it, by its creation time, with the descriptor (the
// earliest time of several imports kept), that the record survives a
// reload, and that a rescan run resolving it to heights replaces it.
func TestImportRecordsPendingRescan(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	defer m.Close()
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{DisablePrivateKeys: true, Blank: true})
	if err != nil {
		t.Fatal(err)
	}
	importAt := func(w *wallet.Wallet, from int64) {
		t.Helper()
		priv, err := btcec.NewPrivateKey()
		if err != nil {
			t.Fatal(err)
		}
		desc := descriptor.AddChecksum(fmt.Sprintf("wpkh(%x)", priv.PubKey().SerializeCompressed()))
		e := wallet.ImportElement{HasDesc: true, Desc: desc, Timestamp: max(from, 1), RescanFrom: from,
			FieldErr: map[string]error{}}
		res, err := w.ImportDescriptors(ctx, []wallet.ImportElement{e}, nil)
		if err != nil || len(res) != 1 || !res[0].Success {
			t.Fatalf("import: %+v %v", res, err)
		}
	}
	pending := func(w *wallet.Wallet) string {
		t.Helper()
		p, err := w.PendingRescan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			return "none"
		}
		if p.HasHeights() {
			return fmt.Sprintf("[%d,%d] from %d", p.Next, p.Stop, p.From)
		}
		return fmt.Sprintf("from %d", p.From)
	}
	check := func(w *wallet.Wallet, want string) {
		t.Helper()
		if got := pending(w); got != want {
			t.Fatalf("pending rescan %s, want %s", got, want)
		}
	}
	reload := func() *wallet.Wallet {
		t.Helper()
		if _, err := m.Unload(ctx, "w", nil); err != nil {
			t.Fatal(err)
		}
		w, _, err := m.Load(ctx, "w", nil)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}

	importAt(w, 0) // "now": no rescan asked
	check(w, "none")
	importAt(w, 5000)
	check(w, "from 5000")
	importAt(w, 9000)
	check(w, "from 5000")
	importAt(w, 3000)
	check(w, "from 3000")
	w = reload()
	check(w, "from 3000")

	// Progress of a rescan that did not resolve it keeps it.
	if err := w.SetRescanProgress(ctx, &wallet.RescanState{Next: 7, Stop: 20}); err != nil {
		t.Fatal(err)
	}
	check(w, "[7,20] from 3000")
	// A run that resolved it replaces it with its heights.
	if err := w.SetRescanProgress(ctx, &wallet.RescanState{Next: 2, Stop: 20, From: 3000}); err != nil {
		t.Fatal(err)
	}
	check(w, "[2,20] from 0")
	w = reload()
	check(w, "[2,20] from 0")
	if err := w.SetRescanProgress(ctx, &wallet.RescanState{Next: 21, Stop: 20}); err != nil {
		t.Fatal(err)
	}
	check(w, "none")
	importAt(w, 4000)
	if err := w.SetRescanProgress(ctx, nil); err != nil {
		t.Fatal(err)
	}
	w = reload()
	check(w, "none")
}
