package wallet_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// TestEventDepthsAcrossRestarts runs a wallet through tip following,
// rescans, rollbacks, clean restarts, crashes (the database files copied
// while the wallet is open, as a kill leaves them) and changes of the
// configured depths, and checks the confirmed events each step writes:
// every configured depth is reported once per block the transaction
// enters, none twice, none lost, whatever happened in between.
//
// Steps: "bc H TX" connects block H holding payment TX (a letter), "rescan
// H TX" the same as a rescan delivers it, "fb H TX" as the chain follower
// delivers the last block of a sync, carrying its checkpoint with tip H
// (BlockInfo.Recent), "adv H" advances the tip to H in memory only
// (AdvanceTip, which must accept), "cp H" checkpoints with tip H, "cp0 H" too and
// checks that it wrote nothing, "tip H" checks the last processed block,
// "rb H" rolls back to H, "close" closes the node and opens it again,
// "crash" opens a copy of the files as they are, "depths D,D" does either
// with other configured depths ("close depths ..." or "crash depths ..."),
// and "= ..." lists the events written since the previous "=", as
// "kind TX [depth] @height".
func TestEventDepthsAcrossRestarts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps string
	}{
		{"tip following, crash after depth 6", `cp 100; bc 101 a; = received a @101, confirmed a 1 @101;
			cp 101; cp 104; crash; cp 105; =; cp 106; = confirmed a 6 @101; crash; cp 107; cp 110; close; cp 111; =`},
		{"crash between block and checkpoint", `cp 100; bc 101 a; crash; = received a @101, confirmed a 1 @101;
			bc 101 a; cp 101; =; cp 105; crash; cp 106; = confirmed a 6 @101; crash; cp 107; =`},
		{"close between block and checkpoint", `cp 100; bc 101 a; cp 101; cp 105; bc 106 b; close;
			= received a @101, confirmed a 1 @101, received b @106, confirmed b 1 @106;
			cp 107; = confirmed a 6 @101; cp 111; = confirmed b 6 @106; close; cp 112; =`},
		{"crash between block and checkpoint at depth 6", `cp 100; bc 101 a; cp 105; bc 106 b; crash;
			= received a @101, confirmed a 1 @101, received b @106, confirmed b 1 @106;
			cp 106; = confirmed a 6 @101; crash; cp 111; = confirmed b 6 @106`},
		{"rollback below depth 6", `cp 100; bc 101 a; cp 101; cp 106; = received a @101, confirmed a 1 @101, confirmed a 6 @101;
			rb 103; cp 103; =; crash; cp 104; cp 110; =; close; cp 111; =`},
		{"rollback of the block", `cp 100; bc 101 a; cp 101; cp 103; rb 100; cp 100;
			= received a @101, confirmed a 1 @101, reorged a @101; crash; bc 102 a; cp 102;
			= confirmed a 1 @102; crash; cp 106; =; cp 107; = confirmed a 6 @102; close; cp 120; =`},
		{"rollback with a crash before the checkpoint", `cp 100; bc 101 a; cp 101; cp 108; rb 102; crash;
			= received a @101, confirmed a 1 @101, confirmed a 6 @101; cp 102; cp 110; =`},
		{"rescan of an old block", `cp 200; rescan 150 c; = received c @150, confirmed c 1 @150; crash; cp 200;
			= confirmed c 6 @150; crash; cp 201; =`},
		{"rescan then a new block", `cp 200; rescan 150 c; bc 201 d; cp 201;
			= received c @150, confirmed c 1 @150, received d @201, confirmed d 1 @201, confirmed c 6 @150;
			close; cp 205; =; crash; cp 206; = confirmed d 6 @201`},
		{"a depth added", `cp 100; bc 101 a; cp 101; cp 104; = received a @101, confirmed a 1 @101;
			crash depths 1,3,6; cp 104; = confirmed a 3 @101; cp 106; = confirmed a 6 @101; close; cp 107; =`},
		{"a deeper depth added", `cp 100; bc 101 a; cp 101; cp 110; close depths 1,6,20;
			= received a @101, confirmed a 1 @101, confirmed a 6 @101; cp 110; =; crash; cp 120; = confirmed a 20 @101;
			crash; cp 121; =`},
		{"depths changed twice", `cp 100; bc 101 a; cp 101; cp 103; close depths 2,6; cp 103;
			= received a @101, confirmed a 1 @101, confirmed a 2 @101; bc 104 b; cp 104;
			= received b @104; crash depths 1,6; cp 106; = confirmed a 6 @101, confirmed b 1 @104; cp 109; = confirmed b 6 @104`},
		{"follower block with its checkpoint", `cp 100; fb 101 a; crash; tip 101;
			= received a @101, confirmed a 1 @101; cp0 101; cp 104; fb 106 b; cp0 106;
			= received b @106, confirmed b 1 @106, confirmed a 6 @101; crash; tip 106; cp0 106; =;
			cp 110; =; cp 111; = confirmed b 6 @106; close; tip 111; cp0 111`},
		{"follower block after a rollback", `cp 100; fb 101 a; cp 103; rb 100; cp 100; cp0 100;
			= received a @101, confirmed a 1 @101, reorged a @101; fb 102 a; crash; tip 102;
			= confirmed a 1 @102; cp 106; =; cp 107; = confirmed a 6 @102`},
		{"follower block delivered again", `cp 100; fb 101 a; cp 103; crash; fb 101 a; tip 103; cp0 103;
			= received a @101, confirmed a 1 @101; cp 106; = confirmed a 6 @101`},
		{"follower block moving a transaction", `cp 100; fb 101 a; fb 102 a; crash; tip 101;
			= received a @101, confirmed a 1 @101, confirmed a 1 @102; cp 102; cp 106; =; cp 107;
			= confirmed a 6 @102`},
		{"follower block after a block without checkpoint", `cp 100; bc 101 a; fb 102 b; crash; tip 102;
			= received a @101, confirmed a 1 @101, received b @102, confirmed b 1 @102; cp 106;
			= confirmed a 6 @101; cp 107; = confirmed b 6 @102`},
		{"rescan after a follower block", `cp 200; fb 201 d; cp0 201; rescan 150 c; cp 201;
			= received d @201, confirmed d 1 @201, received c @150, confirmed c 1 @150, confirmed c 6 @150;
			cp0 201; crash; cp 201; =; cp 206; = confirmed d 6 @201`},
		{"old block recorded after a follower block", `cp 200; fb 201 d; cp0 201; bc 150 c; cp 201;
			= received d @201, confirmed d 1 @201, received c @150, confirmed c 1 @150, confirmed c 6 @150;
			cp0 201; crash; cp0 201; cp 206; = confirmed d 6 @201`},
		{"depths changed after a follower block", `cp 100; fb 101 a; cp0 101; crash depths 1,3,6; cp 102; =
			received a @101, confirmed a 1 @101; cp 103; = confirmed a 3 @101; close depths 1,4,6; cp 103; =;
			cp0 103; fb 104 b; = received b @104, confirmed b 1 @104, confirmed a 4 @101; cp0 104; cp 106;
			= confirmed a 6 @101`},
		{"follower blocks with depths due", `cp 100; fb 101 a; fb 106 b; = received a @101, confirmed a 1 @101,
			received b @106, confirmed b 1 @106, confirmed a 6 @101; cp0 106; crash; cp0 106; fb 111 c; crash;
			= received c @111, confirmed c 1 @111, confirmed b 6 @106; cp0 111; cp 116; = confirmed c 6 @111`},
		{"follower block then a rollback below it", `cp 100; fb 101 a; fb 103 b; cp0 103; rb 102; cp 102;
			= received a @101, confirmed a 1 @101, received b @103, confirmed b 1 @103, reorged b @103;
			crash; fb 103 b; crash; = confirmed b 1 @103; cp 106; = confirmed a 6 @101; cp 108; = confirmed b 6 @103`},
		{"follower block after tips advanced in memory", `cp 100; fb 101 a; adv 102; adv 103; crash; tip 101;
			= received a @101, confirmed a 1 @101; adv 103; fb 104 b; crash; tip 104;
			= received b @104, confirmed b 1 @104; cp0 104; cp 106; = confirmed a 6 @101; adv 107; adv 108;
			close; tip 108; cp 109; = confirmed b 6 @104`},
		{"a depth removed", `cp 100; bc 101 a; cp 101; cp 103; close depths 1; cp 110;
			= received a @101, confirmed a 1 @101; close depths 1,6; cp 111; = confirmed a 6 @101`},
	} {
		t.Run(tc.name, func(t *testing.T) { runDepthSteps(t, tc.steps) })
	}
}

func runDepthSteps(t *testing.T, steps string) {
	ctx := context.Background()
	dir := t.TempDir()
	depths := []int32{1, 6}
	open := func(dir string) (*wallet.Manager, *wallet.Wallet) {
		m := wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(dir, "regtest"),
			Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}, Keypool: 10, EventDepths: depths})
		w, _, err := m.Load(ctx, "w", nil)
		if err != nil {
			t.Fatal(err)
		}
		return m, w
	}
	m := wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(dir, "regtest"),
		Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}, Keypool: 10, EventDepths: depths})
	w, spk := lockWallet(t, m)
	defer func() { m.Close() }()
	pays := map[string]*wire.MsgTx{}
	names := map[[32]byte]string{}
	pay := func(name string) *wire.MsgTx {
		if tx := pays[name]; tx != nil {
			return tx
		}
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{name[0]}}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(1000, spk))
		pays[name], names[tx.TxHash()] = tx, name
		return tx
	}
	hash := func(h int32) chainhash.Hash { return chainhash.Hash{byte(h), byte(h >> 8), 0xbb} }
	var cursor int64
	for _, step := range strings.Split(steps, ";") {
		f := strings.Fields(step)
		if len(f) == 0 {
			continue
		}
		num := func(s string) int32 {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("step %q: %v", step, err)
			}
			return int32(n)
		}
		var err error
		switch f[0] {
		case "bc", "rescan":
			h := num(f[1])
			err = w.BlockConnected(ctx, wallet.BlockInfo{Height: h, Hash: hash(h), Time: 1700000000 + int64(h),
				Rescan: f[0] == "rescan"}, []*wire.MsgTx{pay(f[2])}, nil)
		case "fb":
			h := num(f[1])
			err = w.FollowerBlock(ctx, wallet.BlockInfo{Height: h, Hash: hash(h), Time: 1700000000 + int64(h),
				Recent: []wallet.BlockRef{{Height: h, Hash: hash(h)}}}, []*wire.MsgTx{pay(f[2])}, nil)
		case "cp", "cp0":
			h := num(f[1])
			before := wallet.ChainWrites(w)
			err = w.Checkpoint(ctx, []wallet.BlockRef{{Height: h, Hash: hash(h)}})
			if n := wallet.ChainWrites(w) - before; err == nil && f[0] == "cp0" && n != 0 {
				t.Errorf("at %q: %d store transactions, want none", strings.TrimSpace(step), n)
			}
		case "adv":
			h := num(f[1])
			var done bool
			done, err = w.AdvanceTip(ctx, []wallet.BlockRef{{Height: h, Hash: hash(h)}})
			if err == nil && !done {
				t.Errorf("at %q: AdvanceTip declined", strings.TrimSpace(step))
			}
		case "tip":
			b, ok := w.LastProcessedBlock()
			if h := num(f[1]); !ok || b.Height != h || b.Hash != hash(h) {
				t.Errorf("at %q: last processed block %d %x (%v)", strings.TrimSpace(step), b.Height, b.Hash[:3], ok)
			}
		case "rb":
			err = w.Rollback(ctx, num(f[1]))
		case "close", "crash":
			if len(f) == 3 && f[1] == "depths" {
				depths = nil
				for _, d := range strings.Split(f[2], ",") {
					depths = append(depths, num(d))
				}
			}
			if f[0] == "close" {
				if err := m.Close(); err != nil {
					t.Fatal(err)
				}
				m, w = open(dir)
				break
			}
			// The files as a kill leaves them: what was committed.
			next := crashCopy(t, dir)
			m.Close()
			dir = next
			m, w = open(dir)
		case "=":
			evs, err := w.Events(ctx, cursor, 1000)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range evs {
				cursor = e.Cursor
				s := e.Kind + " " + names[e.TxID]
				if e.Kind == wallet.EventConfirmed {
					s += fmt.Sprintf(" %d", e.Depth)
				}
				if e.Height >= 0 {
					s += fmt.Sprintf(" @%d", e.Height)
				}
				got = append(got, s)
			}
			want := strings.TrimSpace(strings.Join(strings.Fields(strings.TrimPrefix(strings.TrimSpace(step), "=")), " "))
			if g := strings.Join(got, ", "); g != want {
				t.Errorf("at %q: events %q, want %q", strings.TrimSpace(step), g, want)
			}
		default:
			t.Fatalf("unknown step %q", step)
		}
		if err != nil {
			t.Fatalf("step %q: %v", strings.TrimSpace(step), err)
		}
	}
}
