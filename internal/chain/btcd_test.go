package chain

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcutil/v2/gcs/builder"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestBtcdBackend runs the btcd client against a real btcd on regtest: it
// mines blocks, then reads the tip, hashes, headers, blocks and filters, and
// checks each filter against the one built from the block, and that it
// matches the coinbase's script.
func TestBtcdBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	node := testenv.StartBtcd(t, nil)
	mined := node.Generate(12)

	c, err := New(Config{Kind: KindBtcd, Net: &chaincfg.RegressionNetParams,
		Host: node.RPCAddr, User: node.User, Password: node.Pass})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}
	tip, err := c.Tip(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tip.Height != 12 || tip.Hash.String() != mined[11] {
		t.Fatalf("tip %d %s, want 12 %s", tip.Height, tip.Hash, mined[11])
	}

	heights := make([]int32, 13)
	for i := range heights {
		heights[i] = int32(i)
	}
	hashes, err := c.BlockHashes(ctx, heights)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range mined {
		if hashes[i+1].String() != h {
			t.Errorf("height %d: %s, want %s", i+1, hashes[i+1], h)
		}
	}
	if _, err := c.BlockHash(ctx, 13); !errors.Is(err, ErrNotFound) {
		t.Errorf("height above the tip: %v", err)
	}
	headers, err := c.Headers(ctx, hashes)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(headers); i++ {
		if headers[i].PrevBlock != hashes[i-1] {
			t.Errorf("header %d does not follow %d", i, i-1)
		}
	}
	blocks, err := c.Blocks(ctx, hashes)
	if err != nil {
		t.Fatal(err)
	}
	filters, err := c.Filters(ctx, hashes)
	if err != nil {
		t.Fatal(err)
	}
	miner := testenv.MinerKey().WPKH.Script
	for i := range hashes {
		built, err := builder.BuildBasicFilter(blocks[i].MsgBlock, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := built.NBytes()
		if !bytes.Equal(filters[i].Bytes(), want) {
			t.Errorf("height %d: filter %x, built %x", i,
				filters[i].Bytes(), want)
		}
		if i == 0 {
			continue
		}
		if !bytes.Equal(blocks[i].Transactions[0].TxOut[0].PkScript, miner) {
			t.Errorf("height %d: coinbase does not pay the miner", i)
		}
		if ok, err := filters[i].Match(miner); err != nil || !ok {
			t.Errorf("height %d: filter misses the coinbase script (%v)",
				i, err)
		}
	}
	var unknown chainhash.Hash
	unknown[0] = 1
	if _, err := c.Block(ctx, unknown); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown block: %v", err)
	}
	if _, err := c.Filters(ctx, []chainhash.Hash{unknown}); !errors.Is(err, ErrNotFound) {
		t.Errorf("filter of an unknown block: %v", err)
	}

	// gettxout of the first coinbase, then of an output that does not
	// exist.
	cb := blocks[1].TxIDs[0]
	out, err := c.TxOut(ctx, wire.OutPoint{Hash: cb, Index: 0}, true)
	if err != nil {
		t.Fatal(err)
	}
	if out == nil || !out.Coinbase || out.Value != 50e8 ||
		!bytes.Equal(out.PkScript, miner) || out.Confirmations != 12 {
		t.Errorf("gettxout: %+v", out)
	}
	out, err = c.TxOut(ctx, wire.OutPoint{Hash: cb, Index: 7}, false)
	if err != nil || out != nil {
		t.Errorf("missing output: %+v %v", out, err)
	}

	// A transaction btcd refuses.
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: unknown}, nil, nil))
	tx.AddTxOut(wire.NewTxOut(1000, miner))
	if _, err := c.SendRawTransaction(ctx, tx); !errors.Is(err, ErrRPC) {
		t.Errorf("invalid transaction: %v", err)
	}

	// A wrong network.
	wrong, _ := New(Config{Kind: KindBtcd, Net: &chaincfg.TestNet3Params,
		Host: node.RPCAddr, User: node.User, Password: node.Pass})
	if err := wrong.Check(ctx); !errors.Is(err, ErrWrongNetwork) {
		t.Errorf("wrong network: %v", err)
	}

	// Without a filter index.
	if err := node.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tip(ctx); !errors.Is(err, ErrUnreachable) ||
		!strings.Contains(err.Error(), node.RPCAddr) {
		t.Errorf("stopped btcd: %v", err)
	}
}

// TestBtcdNoFilters checks that btcd started with --nocfilters is reported
// as ErrNoFilters.
func TestBtcdNoFilters(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	node := testenv.StartBtcd(t, &testenv.BtcdOptions{Args: []string{"--nocfilters"}})
	c, err := New(Config{Kind: KindBtcd, Net: &chaincfg.RegressionNetParams,
		Host: node.RPCAddr, User: node.User, Password: node.Pass})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Filters(context.Background(),
		[]chainhash.Hash{*chaincfg.RegressionNetParams.GenesisHash})
	if !errors.Is(err, ErrNoFilters) {
		t.Fatalf("got %v, want ErrNoFilters", err)
	}
}
