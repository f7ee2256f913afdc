package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
)

func TestParseBigWalletArgs(t *testing.T) {
	a, err := parseBigWalletArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.scripts != 1_000_000 || a.blocks != 5000 || a.store != storeSQLite || a.fetchConns != 4 {
		t.Errorf("defaults: %+v", a)
	}
	if _, err := parseBigWalletArgs([]string{"-scripts", "1", "-blocks", "0"}); err != nil {
		t.Errorf("a one-script wallet without a chain: %v", err)
	}
	a, err = parseBigWalletArgs([]string{"-scripts", "10000000", "-blocks", "0", "-store", "pg"})
	if err != nil {
		t.Fatal(err)
	}
	if a.scripts != 10_000_000 || a.blocks != 0 || a.store != storePostgres {
		t.Errorf("parsed: %+v", a)
	}
	for _, bad := range [][]string{
		{"-scripts", "0"},
		{"-scripts", "999"}, // fewer than the indices the chain pays
		{"-scripts", "999", "-blocks", "0", "-store", "nosuch"},
		{"-scripts", "2147483648"},
		{"-blocks", "-1"},
		{"-store", "both"},
		{"-store", "mysql"},
		{"-txs", "0"},
		{"-walletevery", "0"},
		{"-conns", "0"},
		{"-blocks", "1000000", "-txs", "1"}, // needs more coins than the setup coinbases hold
		{"extra"},
	} {
		if _, err := parseBigWalletArgs(bad); err == nil {
			t.Errorf("parseBigWalletArgs(%q) succeeded", bad)
		}
	}
}

func TestFundingPlan(t *testing.T) {
	for _, s := range []chainSpec{
		{Blocks: 5000, TxsPerBlock: 20, WalletEvery: 10},
		{Blocks: 100, TxsPerBlock: 2000, WalletEvery: 10},
		{Blocks: 1, TxsPerBlock: 1, WalletEvery: 1},
	} {
		n, per, err := s.fundingPlan()
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		if n*per < s.poolSize() {
			t.Errorf("%+v: %d coinbases of %d coins do not fill a pool of %d", s, n, per, s.poolSize())
		}
		if int64(per)*s.coinValue() > coinbase-1e6 {
			t.Errorf("%+v: %d coins of %d exceed a coinbase", s, per, s.coinValue())
		}
		// Each coin pays at most its share of the payments and fees
		// and keeps more than dust.
		spends := int64(s.Blocks*s.TxsPerBlock/s.poolSize() + 1)
		if left := s.coinValue() - spends*(maxPayment+txFee); left < 1000 {
			t.Errorf("%+v: a coin ends with %d sat", s, left)
		}
	}
}

func TestChainSpecKey(t *testing.T) {
	a := chainSpec{Version: chainVersion, Blocks: 5000, TxsPerBlock: 20, WalletEvery: 10}
	b := a
	b.WalletEvery = 11
	if a.key() == b.key() {
		t.Error("different chains share a cache key")
	}
	if a.key() != a.key() || !strings.HasPrefix(a.key(), "bigchain-5000-20-") {
		t.Errorf("key %q", a.key())
	}
}

// testBlocks returns n empty blocks chained from regtest's genesis block.
func testBlocks(t *testing.T, n int) ([][]byte, string) {
	prev := *chaincfg.RegressionNetParams.GenesisHash
	var out [][]byte
	for i := range n {
		blk := wire.MsgBlock{Header: wire.BlockHeader{Version: 4, PrevBlock: prev, Nonce: uint32(i)}}
		var buf bytes.Buffer
		if err := blk.Serialize(&buf); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
		prev = blk.Header.BlockHash()
	}
	return out, prev.String()
}

func TestChainCacheRoundTrip(t *testing.T) {
	blocks, tip := testBlocks(t, 5)
	info := chainInfo{Spec: chainSpec{Version: chainVersion, Blocks: 3, TxsPerBlock: 1, WalletEvery: 1},
		First: 3, Tip: 5, TipHash: tip, WalletTxs: 3}
	base := filepath.Join(t.TempDir(), "c")
	if err := writeChain(base, blocks, info); err != nil {
		t.Fatal(err)
	}
	got, gotInfo, err := readChain(base)
	if err != nil {
		t.Fatal(err)
	}
	if gotInfo != info || len(got) != len(blocks) {
		t.Fatalf("read %+v and %d blocks, wrote %+v and %d", gotInfo, len(got), info, len(blocks))
	}
	for i := range got {
		if !bytes.Equal(got[i], blocks[i]) {
			t.Errorf("block %d differs", i+1)
		}
	}
	if st, err := os.Stat(base + ".blocks"); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode: %v %v", st, err)
	}

	// A chain that does not link up, or ends elsewhere, is not reused.
	bad := info
	bad.TipHash = strings.Repeat("0", 64)
	if err := writeChain(base, blocks, bad); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readChain(base); err == nil {
		t.Error("a chain ending at another tip was read")
	}
	swapped := [][]byte{blocks[1], blocks[0], blocks[2], blocks[3], blocks[4]}
	if err := writeChain(base, swapped, info); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readChain(base); err == nil {
		t.Error("blocks out of order were read")
	}
}

func TestDecodeBlocksBounds(t *testing.T) {
	blocks, _ := testBlocks(t, 2)
	var buf bytes.Buffer
	for _, b := range blocks {
		buf.Write([]byte{byte(len(b)), 0, 0, 0})
		buf.Write(b)
	}
	if got, err := decodeBlocks(bytes.NewReader(buf.Bytes()), 2); err != nil || len(got) != 2 {
		t.Fatalf("decodeBlocks = %d blocks, %v", len(got), err)
	}
	if _, err := decodeBlocks(bytes.NewReader(buf.Bytes()), 1); err == nil {
		t.Error("more blocks than recorded were read")
	}
	if _, err := decodeBlocks(bytes.NewReader(buf.Bytes()[:buf.Len()-1]), 2); err == nil {
		t.Error("a truncated block was read")
	}
	for _, size := range [][]byte{{0, 0, 0, 0}, {79, 0, 0, 0}, {0, 0, 0, 1}} {
		if _, err := decodeBlocks(bytes.NewReader(size), 2); err == nil {
			t.Errorf("length %v accepted", size)
		}
	}
}

func TestParseBatchReply(t *testing.T) {
	got, err := parseBatchReply([]byte(`[{"result":"b","error":null,"id":1},{"result":"a","error":null,"id":0}]`), 2)
	if err != nil {
		t.Fatal(err)
	}
	if string(got[0]) != `"a"` || string(got[1]) != `"b"` {
		t.Errorf("results %s %s", got[0], got[1])
	}
	for _, bad := range []string{
		`[{"result":"a","error":null,"id":0}]`,
		`[{"result":"a","error":null,"id":0},{"result":"a","error":null,"id":0}]`,
		`[{"result":"a","error":null,"id":0},{"result":"a","error":null,"id":2}]`,
		`[{"result":"a","error":null,"id":0},{"result":null,"error":{"code":-5,"message":"Block not found"},"id":1}]`,
		`{"result":null}`,
	} {
		if _, err := parseBatchReply([]byte(bad), 2); err == nil {
			t.Errorf("parseBatchReply(%s) succeeded", bad)
		}
	}
}

func TestRescanReport(t *testing.T) {
	out := rescanReport(5000, 10*time.Second, 3*time.Second, 5*time.Second, 4*time.Second, 500)
	for _, want := range []string{
		"rescanblockchain       10.00 s   500 blocks/s (500 wallet transactions found)\n",
		"first progress after 3.00 s",
		"raw fetch          5.00 s / 4.00 s   1250 blocks/s",
		"rescan / raw fetch 2.50x (over the faster fetch)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if out := rescanReport(5000, time.Second, 0, time.Second, time.Second, 1); !strings.Contains(out,
		"no progress seen") {
		t.Errorf("report without a progress time:\n%s", out)
	}
}

func TestScanProgress(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want float64
		ok   bool
	}{
		{`false`, 0, false},
		{``, 0, false},
		{`{"duration":3,"progress":0.25}`, 0.25, true},
		{`{"duration":3}`, 0, false},
		{`{"progress":"x"}`, 0, false},
	} {
		got, ok := scanProgress([]byte(tc.raw))
		if got != tc.want || ok != tc.ok {
			t.Errorf("scanProgress(%s) = %v, %v; want %v, %v", tc.raw, got, ok, tc.want, tc.ok)
		}
	}
}

// TestWalletOutput checks the tool's derivation of the wallet's scripts
// against the descriptor package's expansion of wpkh(<key>/0/*), the
// descriptor the wallet imports, and the address against the script.
func TestWalletOutput(t *testing.T) {
	parent, err := bigWalletKey()
	if err != nil {
		t.Fatal(err)
	}
	branch, err := parent.Derive(0)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := descriptor.Parse("wpkh("+parent.String()+"/0/*)", &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []uint32{0, 1, 999_999, 9_999_999} {
		script, addr, err := walletOutput(branch, i)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := desc.Expand(i, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != 1 || !bytes.Equal(outs[0].ScriptPubKey, script) {
			t.Errorf("index %d: script %x, the descriptor gives %x", i, script, outs[0].ScriptPubKey)
		}
		a, err := address.DecodeAddress(addr, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := txscript.PayToAddrScript(a); !bytes.Equal(got, script) {
			t.Errorf("index %d: address %s pays %x, not %x", i, addr, got, script)
		}
	}
}

func TestRangeParts(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []rangePart
	}{
		{1, []rangePart{{0, 1}}},
		{1000, []rangePart{{0, 1000}}},
		{1_000_000, []rangePart{{0, 1_000_000}}},
		{1_000_001, []rangePart{{0, 1_000_000}, {1, 1}}},
		{3_000_000, []rangePart{{0, 1_000_000}, {1, 1_000_000}, {2, 1_000_000}}},
	} {
		got := rangeParts(tc.n)
		if len(got) != len(tc.want) {
			t.Errorf("rangeParts(%d) = %v, want %v", tc.n, got, tc.want)
			continue
		}
		total := 0
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("rangeParts(%d) = %v, want %v", tc.n, got, tc.want)
			}
			total += got[i].size
		}
		if total != tc.n {
			t.Errorf("rangeParts(%d) holds %d scripts", tc.n, total)
		}
	}
	if got := len(rangeParts(10_000_000)); got != 10 {
		t.Errorf("10 000 000 scripts in %d descriptors, want 10", got)
	}
	for _, tc := range []struct {
		i             int
		branch, index uint32
	}{{0, 0, 0}, {999_999, 0, 999_999}, {1_000_000, 1, 0}, {9_999_999, 9, 999_999}} {
		if b, idx := scriptAt(tc.i); b != tc.branch || idx != tc.index {
			t.Errorf("scriptAt(%d) = %d, %d; want %d, %d", tc.i, b, idx, tc.branch, tc.index)
		}
	}
}
