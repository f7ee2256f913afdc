package scan

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/testenv"
)

// testWallet is a Source and Sink: it watches a set of scripts and tops up
// (adds more scripts, bumping its generation) once it has seen topUpAfter
// transactions, the way a key pool grows as addresses get used.
type testWallet struct {
	mu         sync.Mutex
	gen        uint64
	scripts    [][]byte
	pending    [][]byte // added at the top-up
	topUpAfter int
	found      []string // "height txid", in delivery order
	seen       int
	state      ChainState
	rollbacks  []int32
	progress   []int32
}

func (w *testWallet) WatchList(ctx context.Context) (*WatchList, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return &WatchList{Generation: w.gen,
		Scripts: append([][]byte(nil), w.scripts...)}, nil
}

func (w *testWallet) Generation() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen
}

func (w *testWallet) BlockConnected(ctx context.Context, blk BlockInfo, txs []*wire.MsgTx) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, tx := range txs {
		w.found = append(w.found, fmt.Sprintf("%d %s", blk.Height, tx.TxHash()))
		w.seen++
		if w.seen == w.topUpAfter && w.pending != nil {
			w.scripts = append(w.scripts, w.pending...)
			w.pending = nil
			w.gen++
		}
	}
	return nil
}

func (w *testWallet) Checkpoint(ctx context.Context, st ChainState) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.state = st
	return nil
}

func (w *testWallet) Rollback(ctx context.Context, height int32) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rollbacks = append(w.rollbacks, height)
	return nil
}

func (w *testWallet) RescanProgress(ctx context.Context, next, stop int32) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.progress = append(w.progress, next)
	return nil
}

// decoys returns n scripts no block pays.
func decoys(n int) [][]byte {
	var out [][]byte
	for i := 0; i < n; i++ {
		h := sha256.Sum256([]byte(fmt.Sprint("decoy", i)))
		out = append(out, append([]byte{0x00, 0x20}, h[:]...))
	}
	return out
}

// TestFilterScanEqualsFullScan mines coinbases to wallet keys, a key the
// wallet learns only at a top-up, and a stranger, spends a wallet coin to the
// stranger, then rescans the chain with filters and with full blocks: both
// find the same transactions, which are exactly those the chain holds for
// the wallet.
func TestFilterScanEqualsFullScan(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	a := testenv.NewKey("scan wallet a")
	late := testenv.NewKey("scan wallet late")
	stranger := testenv.NewKey("scan stranger")
	node := testenv.StartBtcd(t, &testenv.BtcdOptions{
		MiningAddr: a.WPKH.Address,
		Args: []string{"--miningaddr=" + late.TR.Address,
			"--miningaddr=" + stranger.WPKH.Address},
	})
	node.Generate(130)

	// Spend a mature coinbase of a's to the stranger: the wallet finds
	// it only as a spend of its own output.
	var coin testenv.Coin
	for h := int64(1); h <= 30; h++ {
		if c := node.Coinbase(h); bytes.Equal(c.Script, a.WPKH.Script) {
			coin = c
			break
		}
	}
	if coin.TxID == "" {
		t.Fatal("no coinbase paid the wallet in 30 blocks")
	}
	tx := testenv.UnsignedSpend(t, []testenv.Coin{coin},
		wire.NewTxOut(coin.Value-10000, stranger.WPKH.Script))
	fetcher := txscript.NewCannedPrevOutputFetcher(coin.Script, coin.Value)
	wit, err := txscript.WitnessSignature(tx, txscript.NewTxSigHashes(tx, fetcher),
		0, coin.Value, coin.Script, txscript.SigHashAll, a.Priv, true)
	if err != nil {
		t.Fatal(err)
	}
	tx.TxIn[0].Witness = wit
	if _, err := node.SendRawTransaction(testenv.TxHex(t, tx)); err != nil {
		t.Fatal(err)
	}
	node.Generate(10)

	backend, err := chain.New(chain.Config{Kind: chain.KindBtcd,
		Net: &chaincfg.RegressionNetParams, Host: node.RPCAddr,
		User: node.User, Password: node.Pass})
	if err != nil {
		t.Fatal(err)
	}

	// What the chain holds for the wallet, read block by block: every
	// coinbase paying a, every coinbase paying late after the top-up, and
	// the spend.
	const topUpAfter = 5
	var want []string
	seen := 0
	learned := false
	tip := int32(node.GetBlockCount())
	for h := int32(1); h <= tip; h++ {
		blk := node.Block(node.BlockHash(int64(h)))
		for _, btx := range blk.Transactions {
			mine := btx.TxHash() == tx.TxHash()
			for _, out := range btx.TxOut {
				if bytes.Equal(out.PkScript, a.WPKH.Script) ||
					(learned && bytes.Equal(out.PkScript, late.TR.Script)) {
					mine = true
				}
			}
			if mine {
				want = append(want, fmt.Sprintf("%d %s", h, btx.TxHash()))
				seen++
				if seen == topUpAfter {
					learned = true
				}
			}
		}
	}

	run := func(noFilters bool) (*testWallet, Result) {
		w := &testWallet{scripts: append([][]byte{a.WPKH.Script}, decoys(200)...),
			pending: [][]byte{late.TR.Script}, topUpAfter: topUpAfter}
		s := New(Config{Backend: backend, Source: w, Sink: w,
			NoFilters: noFilters, Window: 40, FullWindow: 16})
		res, err := s.Rescan(context.Background(), 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		return w, res
	}
	withF, resF := run(false)
	full, resB := run(true)
	if !resF.Filters || resB.Filters {
		t.Fatalf("modes: %+v %+v", resF, resB)
	}
	if strings.Join(withF.found, "\n") != strings.Join(full.found, "\n") {
		t.Errorf("filter scan found\n%s\nfull scan found\n%s",
			strings.Join(withF.found, "\n"), strings.Join(full.found, "\n"))
	}
	if strings.Join(full.found, "\n") != strings.Join(want, "\n") {
		t.Errorf("full scan found\n%s\nthe chain holds\n%s",
			strings.Join(full.found, "\n"), strings.Join(want, "\n"))
	}
	if !learned || len(want) < topUpAfter+2 {
		t.Fatalf("chain too poor for the test: %d wallet transactions", len(want))
	}
	if resB.Blocks != int(tip)+1 || resF.Blocks != int(tip)+1 ||
		resB.Fetched != int(tip)+1 {
		t.Errorf("blocks: filter %+v full %+v, tip %d", resF, resB, tip)
	}
	if resF.Fetched >= resB.Fetched {
		t.Errorf("filter scan fetched %d blocks of %d", resF.Fetched,
			resB.Fetched)
	}
	if p := withF.progress; len(p) == 0 || p[len(p)-1] != tip+1 {
		t.Errorf("rescan progress %v, want to end at %d", p, tip+1)
	}
	t.Logf("%d wallet transactions; filter scan fetched %d of %d blocks",
		len(want), resF.Fetched, resB.Fetched)
}

// TestSyncFollowsReorgs syncs a wallet to the tip, then restarts btcd (its
// regtest chain goes back to genesis) and mines a new chain: Sync rolls back
// to the genesis block and scans the new chain.
func TestSyncFollowsReorgs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	node := testenv.StartBtcd(t, nil)
	miner := testenv.MinerKey().WPKH.Script
	backend, err := chain.New(chain.Config{Kind: chain.KindBtcd,
		Net: &chaincfg.RegressionNetParams, Host: node.RPCAddr,
		User: node.User, Password: node.Pass})
	if err != nil {
		t.Fatal(err)
	}
	w := &testWallet{scripts: [][]byte{miner}}
	s := New(Config{Backend: backend, Source: w, Sink: w, Recent: 10})
	ctx := context.Background()

	// A wallet with no state starts at the tip.
	if n, err := s.Sync(ctx); err != nil || n != 0 {
		t.Fatalf("first sync: %d %v", n, err)
	}
	node.Generate(15)
	if n, err := s.Sync(ctx); err != nil || n != 15 {
		t.Fatalf("sync: %d blocks, %v", n, err)
	}
	if len(w.found) != 15 {
		t.Fatalf("found %d coinbases, want 15", len(w.found))
	}
	st := s.State()
	if tipID, _ := st.Tip(); tipID.Height != 15 ||
		tipID.Hash.String() != node.BestBlockHash() || len(st.Recent) != 10 {
		t.Fatalf("state %+v", st)
	}
	if n, err := s.Sync(ctx); err != nil || n != 0 {
		t.Fatalf("sync at the tip: %d %v", n, err)
	}

	node.Restart()
	node.Generate(3)
	w.found = nil
	if n, err := s.Sync(ctx); err != nil || n != 3 {
		t.Fatalf("sync after the restart: %d blocks, %v", n, err)
	}
	if len(w.rollbacks) != 1 || w.rollbacks[0] != 0 {
		t.Errorf("rollbacks %v, want [0]", w.rollbacks)
	}
	if len(w.found) != 3 {
		t.Errorf("found %v on the new chain", w.found)
	}
	if tipID, _ := s.State().Tip(); tipID.Hash.String() != node.BestBlockHash() {
		t.Errorf("state tip %v", tipID)
	}
}

// TestStartHeightAndAbort checks StartHeight against the headers read one
// by one, and that an aborted rescan reports ErrAborted.
func TestStartHeightAndAbort(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	node := testenv.StartBtcd(t, nil)
	node.Generate(40)
	backend, err := chain.New(chain.Config{Kind: chain.KindBtcd,
		Net: &chaincfg.RegressionNetParams, Host: node.RPCAddr,
		User: node.User, Password: node.Pass})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var times []int64
	for h := int64(0); h <= 40; h++ {
		hdr := node.Block(node.BlockHash(h)).Header
		times = append(times, hdr.Timestamp.Unix())
	}
	first := func(ts int64) int32 {
		for h, x := range times {
			if x >= ts {
				return int32(h)
			}
		}
		return 41
	}
	probes := []int64{0, times[0], times[0] + 1, times[20], times[40],
		times[40] + 1, times[40] + 7200}
	sort.Slice(probes, func(i, j int) bool { return probes[i] < probes[j] })
	for _, ts := range probes {
		got, err := StartHeight(ctx, backend, ts)
		if err != nil {
			t.Fatal(err)
		}
		if want := first(ts); got != want {
			t.Errorf("StartHeight(%d) = %d, want %d", ts, got, want)
		}
	}

	w := &testWallet{scripts: decoys(10)}
	s := New(Config{Backend: backend, Source: w, Sink: w})
	actx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Rescan(actx, 0, -1); !errors.Is(err, ErrAborted) {
		t.Errorf("aborted rescan: %v", err)
	}
	if s.Abort() {
		t.Error("Abort with no rescan running reported true")
	}
	if _, ok := s.Progress(); ok {
		t.Error("progress after the rescan ended")
	}
}

// TestSyncRollsBackToForkPoint builds a reorg from two btcd nodes: the
// wallet's node mines two blocks paying the wallet while the other mines a
// longer branch; once connected, Sync rolls back to the fork point and scans
// the winning branch.
func TestSyncRollsBackToForkPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts two btcd")
	}
	stranger := testenv.NewKey("scan reorg stranger")
	n1 := testenv.StartBtcd(t, nil)
	n2 := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: stranger.WPKH.Address})
	n1.Connect(n2)
	n1.Generate(10)
	testenv.WaitSynced(t, n1, n2)
	n1.Disconnect(n2)

	backend, err := chain.New(chain.Config{Kind: chain.KindBtcd,
		Net: &chaincfg.RegressionNetParams, Host: n1.RPCAddr,
		User: n1.User, Password: n1.Pass})
	if err != nil {
		t.Fatal(err)
	}
	w := &testWallet{scripts: [][]byte{testenv.MinerKey().WPKH.Script}}
	s := New(Config{Backend: backend, Source: w, Sink: w,
		State: ChainState{Recent: []chain.BlockID{{Height: 0,
			Hash: *chaincfg.RegressionNetParams.GenesisHash}}}})
	ctx := context.Background()
	n1.Generate(2)
	if n, err := s.Sync(ctx); err != nil || n != 12 || len(w.found) != 12 {
		t.Fatalf("sync: %d blocks, %d found, %v", n, len(w.found), err)
	}
	n2.Generate(4)
	n1.Connect(n2)
	testenv.WaitSynced(t, n1, n2)
	w.found = nil
	if n, err := s.Sync(ctx); err != nil || n != 4 {
		t.Fatalf("sync after the reorg: %d blocks, %v", n, err)
	}
	if len(w.rollbacks) != 1 || w.rollbacks[0] != 10 {
		t.Errorf("rollbacks %v, want [10]", w.rollbacks)
	}
	if len(w.found) != 0 {
		t.Errorf("found %v on the stranger's branch", w.found)
	}
	if tipID, _ := s.State().Tip(); tipID.Height != 14 ||
		tipID.Hash.String() != n1.BestBlockHash() {
		t.Errorf("state tip %+v", tipID)
	}
}

// TestProgressFraction checks the progress arithmetic.
func TestProgressFraction(t *testing.T) {
	tests := []struct {
		start, stop, height int32
		want                float64
	}{
		{0, 99, 0, 0},
		{0, 99, 50, 0.5},
		{0, 99, 100, 1},
		{10, 9, 10, 1},
		{100, 199, 90, 0},
	}
	for _, tc := range tests {
		p := Progress{Start: tc.start, Stop: tc.stop, Height: tc.height}
		if got := p.Fraction(); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc, got, tc.want)
		}
	}
}
