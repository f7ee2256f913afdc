package walletscan

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// submitBackend answers SendRawTransaction with err (nil: accepted) and
// counts the calls.
type submitBackend struct {
	chain.Backend
	mu    sync.Mutex
	err   error
	calls int
}

func (b *submitBackend) SendRawTransaction(_ context.Context, tx *wire.MsgTx) (chainhash.Hash, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls++
	return tx.TxHash(), b.err
}

func (b *submitBackend) set(err error) (calls int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	calls, b.calls, b.err = b.calls, 0, err
	return calls
}

// TestResubmitSchedule: a wallet transaction outside the mempool is
// submitted at attachment, again at each round while the backend is
// unreachable, then only when the backend comes back or the periodic
// time comes (then only if older than 5 minutes, unless the test-only
// interval is set); once accepted the wallet holds it in the mempool and
// submits nothing more. A node that does not follow the chain submits
// nothing.
func TestResubmitSchedule(t *testing.T) {
	ctx := context.Background()
	mgr := wallet.NewManager(wallet.ManagerConfig{NetDir: t.TempDir(), Net: &chaincfg.RegressionNetParams,
		Opener: walletdb.Opener{}})
	defer mgr.Close()
	w, _, err := mgr.Create(ctx, "w", wallet.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := w.NewAddress(ctx, false, "bech32", nil)
	if err != nil {
		t.Fatal(err)
	}
	spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	fund := wire.NewMsgTx(2)
	fund.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&chainhash.Hash{1}, 0), nil, nil))
	fund.AddTxOut(wire.NewTxOut(100_000, spk))
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 1, Hash: chainhash.Hash{2}, Time: 1700000000},
		[]*wire.MsgTx{fund}, []int{1}); err != nil {
		t.Fatal(err)
	}
	fh := fund.TxHash()
	spend := wire.NewMsgTx(2)
	spend.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&fh, 0), nil, nil))
	spend.AddTxOut(wire.NewTxOut(90_000, spk))
	if err := w.CommitTx(ctx, spend, wallet.TxComments{}); err != nil {
		t.Fatal(err)
	}
	w.RelayFailed(ctx, spend.TxHash())

	b := &submitBackend{err: fmt.Errorf("down: %w", chain.ErrUnreachable)}
	s := New(Config{Backend: b, Net: &chaincfg.RegressionNetParams, Poll: time.Hour})
	term, end := context.WithCancel(ctx)
	defer end()
	s.term = term
	s.scans[w] = &walletScan{w: w, ctx: term}
	states := map[*walletScan]*resendState{}
	round := func(step string, want int, next error) {
		t.Helper()
		s.resubmitRound(states)
		if got := b.set(next); got != want {
			t.Fatalf("%s: %d submissions, want %d", step, got, want)
		}
	}
	round("attached, backend unreachable", 1, errors.New("refused"))
	round("next round, refused", 1, errors.New("refused"))
	round("periodic time not come", 0, errors.New("refused"))
	s.reconnects.Add(1)
	round("backend back", 1, nil)
	for _, st := range states {
		st.next = time.Now().Add(-time.Second)
	}
	// Core's periodic resubmission takes only those older than 5 minutes.
	round("periodic, too recent", 0, nil)
	s.cfg.ResendInterval = time.Millisecond
	for _, st := range states {
		st.next = time.Now().Add(-time.Second)
	}
	round("periodic, accepted", 1, nil)
	td, err := w.Transaction(ctx, spend.TxHash())
	if err != nil || td.Info.Trusted == nil || !*td.Info.Trusted {
		t.Fatalf("accepted transaction not held in the mempool: %+v %v", td, err)
	}
	s.reconnects.Add(1)
	round("nothing left to submit", 0, nil)

	// A relay that failed since the last round (a backend down for less
	// than a poll) is tried again at the next round, not hours later.
	w.RelayFailed(ctx, spend.TxHash())
	round("relay failed since", 1, nil)
	round("accepted, nothing left", 0, nil)

	// Another node leads: nothing is submitted.
	w.RelayFailed(ctx, spend.TxHash())
	s.term = nil
	s.reconnects.Add(1)
	round("not leading", 0, nil)
}
