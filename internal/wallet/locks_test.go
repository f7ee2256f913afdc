package wallet_test

import (
	"context"
	"errors"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/wallet"
)

// lockWallet creates a watch-only wallet owning one P2WPKH script and
// returns it with that script.
func lockWallet(t *testing.T, m *wallet.Manager) (*wallet.Wallet, []byte) {
	t.Helper()
	ctx := context.Background()
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{DisablePrivateKeys: true, Blank: true})
	if err != nil {
		t.Fatal(err)
	}
	spk := append([]byte{0x00, 0x14}, make([]byte, 20)...)
	for i := 2; i < len(spk); i++ {
		spk[i] = 0x11
	}
	res, err := w.ImportDescriptors(ctx, []wallet.ImportElement{{HasDesc: true,
		Desc: descriptor.AddChecksum("raw(0014" + "1111111111111111111111111111111111111111" + ")"), Timestamp: 1700000000}}, nil)
	if err != nil || !res[0].Success {
		t.Fatalf("import: %v %+v", err, res)
	}
	return w, spk
}

func wantLockErr(t *testing.T, err error, kind wallet.ErrorKind, msg string) {
	t.Helper()
	var we *wallet.Error
	if !errors.As(err, &we) || we.Kind != kind || we.Description != msg {
		t.Errorf("got %v, want %s %q", err, kind, msg)
	}
}

// TestLockCoins checks lockunspent's rules (Core's checks and messages),
// that persistent locks survive a reload and others do not, and that a
// spend unlocks its input, in memory and in the file.
func TestLockCoins(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(dir)
	w, spk := lockWallet(t, m)

	fund := fundInBlock(t, w, 9, wallet.BlockInfo{Height: 100, Hash: chainhash.Hash{0xb0}, Time: 1700000100}, spk, 1000, 2000)
	op0 := wire.OutPoint{Hash: fund.TxHash(), Index: 0}
	op1 := wire.OutPoint{Hash: fund.TxHash(), Index: 1}

	wantLockErr(t, w.LockCoins(ctx, false, false, []wire.OutPoint{{Hash: chainhash.Hash{1}}}), wallet.ErrInvalidParameter, "Invalid parameter, unknown transaction")
	wantLockErr(t, w.LockCoins(ctx, false, false, []wire.OutPoint{{Hash: fund.TxHash(), Index: 2}}), wallet.ErrInvalidParameter, "Invalid parameter, vout index out of bounds")
	wantLockErr(t, w.LockCoins(ctx, true, false, []wire.OutPoint{op0}), wallet.ErrInvalidParameter, "Invalid parameter, expected locked output")
	if err := w.LockCoins(ctx, false, true, []wire.OutPoint{op0}); err != nil {
		t.Fatal(err)
	}
	if err := w.LockCoins(ctx, false, false, []wire.OutPoint{op1}); err != nil {
		t.Fatal(err)
	}
	wantLockErr(t, w.LockCoins(ctx, false, false, []wire.OutPoint{op1}), wallet.ErrInvalidParameter, "Invalid parameter, output already locked")
	// A failing element leaves the others of the call untouched.
	wantLockErr(t, w.LockCoins(ctx, true, false, []wire.OutPoint{op1, {Hash: chainhash.Hash{1}}}), wallet.ErrInvalidParameter, "Invalid parameter, unknown transaction")
	if got := w.LockedCoins(); len(got) != 2 {
		t.Fatalf("locked %v, want both outputs", got)
	}

	// Only the persistent lock survives a reload.
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = newManager(dir)
	defer m.Close()
	w, _, err := m.Load(ctx, "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.LockedCoins(); len(got) != 1 || got[0] != op0 {
		t.Fatalf("after reload locked %v, want [%v]", got, op0)
	}
	// Locking again persistently is allowed; an in-memory lock is not.
	if err := w.LockCoins(ctx, false, true, []wire.OutPoint{op0}); err != nil {
		t.Fatal(err)
	}

	// Spending the locked output unlocks it, in the file too; the used
	// mark needs the avoid_reuse flag.
	if err := w.SetFlag(ctx, wallet.FlagAvoidReuse, true); err != nil {
		t.Fatal(err)
	}
	spend := wire.NewMsgTx(2)
	spend.AddTxIn(wire.NewTxIn(&op0, nil, nil))
	spend.AddTxOut(wire.NewTxOut(500, spk))
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 101, Hash: chainhash.Hash{0xb1}, Time: 1700000200}, []*wire.MsgTx{spend}, nil); err != nil {
		t.Fatal(err)
	}
	if got := w.LockedCoins(); len(got) != 0 {
		t.Fatalf("locked %v after the spend, want none", got)
	}
	wantLockErr(t, w.LockCoins(ctx, false, false, []wire.OutPoint{op0}), wallet.ErrInvalidParameter, "Invalid parameter, expected unspent output")
	if !w.IsSpentKey(spk) {
		t.Fatal("script not marked used after a spend from it with avoid_reuse set")
	}
	check := func(w *wallet.Wallet, when string) {
		t.Helper()
		clean, err := w.Balance(ctx, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		full, err := w.Balance(ctx, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if clean.Trusted != 0 || full.Trusted != 2500 {
			t.Errorf("%s: balance avoiding reuse %d, full %d; want 0 and 2500", when, clean.Trusted, full.Trusted)
		}
		if b, _ := w.Balance(ctx, 2, false); b.Trusted != 2000 {
			t.Errorf("%s: balance of 2 confirmations %d, want 2000", when, b.Trusted)
		}
		u, err := w.ListUnspent(ctx, 0, 9999999, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range u {
			if x.Reused == nil || !*x.Reused {
				t.Errorf("%s: unspent %s:%d not reported reused", when, x.TxID, x.Vout)
			}
		}
	}
	check(w, "before reload")
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = newManager(dir)
	defer m.Close()
	if w, _, err = m.Load(ctx, "w", nil); err != nil {
		t.Fatal(err)
	}
	if got := w.LockedCoins(); len(got) != 0 {
		t.Fatalf("after reload locked %v, want none (the spend removed the row)", got)
	}
	check(w, "after reload")

	// Selection leaves out locked and, with avoid_reuse, used outputs.
	if err := w.LockCoins(ctx, false, false, []wire.OutPoint{op1}); err != nil {
		t.Fatal(err)
	}
	sel := func(f wallet.CoinFilter) int {
		f.MinConf, f.MaxConf = 0, 9999999
		f.IncludeUnsafe = true
		cs, err := w.SelectableCoins(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return len(cs)
	}
	if n := sel(wallet.CoinFilter{}); n != 1 {
		t.Errorf("selectable without the locked output: %d, want 1", n)
	}
	if n := sel(wallet.CoinFilter{IncludeLocked: true}); n != 2 {
		t.Errorf("selectable with locked outputs: %d, want 2", n)
	}
	if n := sel(wallet.CoinFilter{IncludeLocked: true, AvoidReuse: true}); n != 0 {
		t.Errorf("selectable avoiding reuse: %d, want 0", n)
	}
	if err := w.UnlockAllCoins(ctx); err != nil {
		t.Fatal(err)
	}
	if n := sel(wallet.CoinFilter{}); n != 2 {
		t.Errorf("selectable after unlocking all: %d, want 2", n)
	}
}

// TestUsedNeedsFlag: without the avoid_reuse flag a spend marks nothing,
// as in Core (the mark is made when a transaction is added with the flag
// set).
func TestUsedNeedsFlag(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	defer m.Close()
	w, spk := lockWallet(t, m)
	fund := wire.NewMsgTx(2)
	fund.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{9}, Index: 0}, nil, nil))
	fund.AddTxOut(wire.NewTxOut(1000, spk))
	spend := wire.NewMsgTx(2)
	spend.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: fund.TxHash(), Index: 0}, nil, nil))
	spend.AddTxOut(wire.NewTxOut(500, spk))
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 100, Hash: chainhash.Hash{0xb0}, Time: 1700000100}, []*wire.MsgTx{fund, spend}, nil); err != nil {
		t.Fatal(err)
	}
	if w.IsSpentKey(spk) {
		t.Fatal("script marked used without the avoid_reuse flag")
	}
	u, _ := w.ListUnspent(ctx, 0, 9999999, nil)
	if len(u) != 1 || u[0].Reused != nil {
		t.Fatalf("unspent %+v, want one entry without reused", u)
	}
}

// TestParseMoney checks Core's ParseMoney rules on option values.
func TestParseMoney(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0.0001", 10000, true}, {" 1 ", 100000000, true}, {"1.", 100000000, true}, {".5", 50000000, true},
		{"0.00000001", 1, true}, {"21000000", 2100000000000000, true},
		{"0.000000001", 0, false}, {"21000000.00000001", 0, false}, {"-1", 0, false}, {"1e-4", 0, false},
		{"", 0, false}, {"12345678901", 0, false}, {"1 0", 0, false}, {"abc", 0, false},
	} {
		got, ok := wallet.ParseMoney(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestParseOptions checks Core's defaults, messages and warnings of the
// wallet options.
func TestParseOptions(t *testing.T) {
	parse := func(kv map[string]string) (wallet.Options, []string, error) {
		return wallet.ParseOptions(func(n string) (string, bool) { v, ok := kv[n]; return v, ok }, nil)
	}
	o, warn, err := parse(nil)
	if err != nil || len(warn) != 0 {
		t.Fatal(err, warn)
	}
	if o.FallbackFee != 0 || o.DiscardFee != 10000 || o.MinTxFee != 1000 || o.MaxTxFee != 10000000 ||
		o.ConsolidateFeeRate != 10000 || o.TxConfirmTarget != 6 || !o.WalletRBF || !o.SpendZeroConfChange ||
		!o.WalletBroadcast || o.AvoidPartialSpends || o.MaxAPSFee != 0 || o.PayTxFee != 0 || o.AllowFallbackFee() {
		t.Fatalf("defaults %+v", o)
	}
	for _, c := range []struct {
		kv   map[string]string
		err  string
		warn string
	}{
		{kv: map[string]string{"mintxfee": "x"}, err: "Invalid amount for -mintxfee=<amount>: 'x'"},
		{kv: map[string]string{"fallbackfee": "-1"}, err: "Invalid amount for -fallbackfee=<amount>: '-1'"},
		{kv: map[string]string{"maxtxfee": "0.000001"}, err: "Invalid amount for -maxtxfee=<amount>: '0.000001' (must be at least the minrelay fee of 0.00001000 BTC/kvB to prevent stuck transactions)"},
		{kv: map[string]string{"paytxfee": "0.000001"}, err: "Invalid amount for -paytxfee=<amount>: '0.000001' (must be at least 0.00001000 BTC/kvB)"},
		{kv: map[string]string{"maxtxfee": "2"}, warn: "-maxtxfee is set very high! Fees this large could be paid on a single transaction."},
		{kv: map[string]string{"fallbackfee": "0.02"}, warn: "-fallbackfee is set very high! This is the transaction fee you may pay when fee estimates are not available."},
		{kv: map[string]string{"paytxfee": "0.0001"}, warn: "-paytxfee is deprecated and will be fully removed in v31.0."},
		{kv: map[string]string{"maxapsfee": "-1"}},
		{kv: map[string]string{"consolidatefeerate": "1x"}, err: "Invalid amount for -consolidatefeerate=<amount>: '1x'"},
	} {
		_, warn, err := parse(c.kv)
		switch {
		case c.err != "":
			if err == nil || err.Error() != c.err {
				t.Errorf("%v: error %v, want %q", c.kv, err, c.err)
			}
		case err != nil:
			t.Errorf("%v: %v", c.kv, err)
		case c.warn != "" && (len(warn) == 0 || warn[0] != c.warn):
			t.Errorf("%v: warnings %q, want %q", c.kv, warn, c.warn)
		}
	}
	o, _, _ = parse(map[string]string{"walletrbf": "0", "spendzeroconfchange": "", "txconfirmtarget": "12", "fallbackfee": "0.0001"})
	if o.WalletRBF || !o.SpendZeroConfChange || o.TxConfirmTarget != 12 || o.FallbackFee != 10000 || !o.AllowFallbackFee() {
		t.Fatalf("parsed %+v", o)
	}
}

// TestAbandonTransaction checks Core's eligibility rules and that an
// abandoned transaction and its wallet descendants stay listed as
// abandoned, the outputs they spent unspent again.
func TestAbandonTransaction(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	defer m.Close()
	w, spk := lockWallet(t, m)
	fund := fundInBlock(t, w, 9, wallet.BlockInfo{Height: 100, Hash: chainhash.Hash{0xb0}, Time: 1700000100}, spk, 1000)
	spend := wire.NewMsgTx(2)
	spend.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: fund.TxHash(), Index: 0}, nil, nil))
	spend.AddTxOut(wire.NewTxOut(900, spk))
	child := wire.NewMsgTx(2)
	child.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: spend.TxHash(), Index: 0}, nil, nil))
	child.AddTxOut(wire.NewTxOut(800, spk))
	if err := w.MempoolTxs(ctx, []*wire.MsgTx{spend, child}); err != nil {
		t.Fatal(err)
	}
	none := func(chainhash.Hash) bool { return false }
	all := func(chainhash.Hash) bool { return true }
	wantLockErr(t, w.AbandonTransaction(ctx, chainhash.Hash{1}, none), wallet.ErrInvalidAddressOrKey, "Invalid or non-wallet transaction id")
	wantLockErr(t, w.AbandonTransaction(ctx, fund.TxHash(), none), wallet.ErrInvalidAddressOrKey, "Transaction not eligible for abandonment")
	wantLockErr(t, w.AbandonTransaction(ctx, spend.TxHash(), all), wallet.ErrInvalidAddressOrKey, "Transaction not eligible for abandonment")
	if u, _ := w.ListUnspent(ctx, 0, 9999999, nil); len(u) != 1 || u[0].TxID != child.TxHash() {
		t.Fatalf("before: unspent %+v, want the child's output", u)
	}
	if err := w.AbandonTransaction(ctx, spend.TxHash(), none); err != nil {
		t.Fatal(err)
	}
	u, _ := w.ListUnspent(ctx, 0, 9999999, nil)
	if len(u) != 1 || u[0].TxID != fund.TxHash() {
		t.Fatalf("after: unspent %+v, want the funding output again", u)
	}
	for _, id := range []chainhash.Hash{spend.TxHash(), child.TxHash()} {
		det, err := w.Transaction(ctx, id)
		if err != nil || !det.Info.Abandoned || det.Info.Confirmations != 0 || *det.Info.Trusted {
			t.Fatalf("abandoned %s: %+v %v", id, det, err)
		}
	}
	b, _ := w.Balances(ctx)
	if b.Trusted != 1000 || b.UntrustedPending != 0 {
		t.Fatalf("balances after abandoning: %+v", b)
	}
	// Abandoning again does nothing and succeeds, as in Core.
	if err := w.AbandonTransaction(ctx, child.TxHash(), none); err != nil {
		t.Fatal(err)
	}
}

// fundInBlock records a block blk holding one transaction paying values to
// spk, spending output 0 of the made-up transaction {prev}, and returns it.
func fundInBlock(t *testing.T, w *wallet.Wallet, prev byte, blk wallet.BlockInfo, spk []byte, values ...int64) *wire.MsgTx {
	t.Helper()
	fund := wire.NewMsgTx(2)
	fund.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{prev}, Index: 0}, nil, nil))
	for _, v := range values {
		fund.AddTxOut(wire.NewTxOut(v, spk))
	}
	if err := w.BlockConnected(context.Background(), blk, []*wire.MsgTx{fund}, nil); err != nil {
		t.Fatal(err)
	}
	return fund
}
