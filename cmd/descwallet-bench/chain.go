package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/testenv"
)

// chainVersion changes whenever the way a chain is built changes, so that
// cached chains of an older build are not reused.
const chainVersion = 2

// chainPayRange is the number of the wallet's first indices the chain's
// wallet payments go to, so that one chain serves every wallet size from
// chainPayRange scripts up.
const chainPayRange = 1000

// chainSpec describes the benchmark chain: after a few setup blocks
// (coinbases to mature and a fan-out into a pool of coins), Blocks blocks
// of TxsPerBlock transactions each, every one spending a coin of the pool
// to one payment and change; one payment in WalletEvery pays the wallet's
// descriptor at an index drawn uniformly from [0, chainPayRange), the
// others pay random P2WPKH and P2TR scripts of no one.
type chainSpec struct {
	Version     int `json:"version"`
	Blocks      int `json:"blocks"`
	TxsPerBlock int `json:"txs_per_block"`
	WalletEvery int `json:"wallet_every"`
}

// check reports a spec the builder cannot build.
func (s chainSpec) check() error {
	switch {
	case s.Blocks < 1:
		return errors.New("-blocks must be at least 1 for a chain")
	case s.TxsPerBlock < 1 || s.TxsPerBlock > 2000:
		return errors.New("-txs must be in [1, 2000]")
	case s.WalletEvery < 1:
		return errors.New("-walletevery must be at least 1")
	}
	return nil
}

// key names the spec's cache files.
func (s chainSpec) key() string {
	data, _ := json.Marshal(s)
	sum := sha256.Sum256(data)
	return fmt.Sprintf("bigchain-%d-%d-%x", s.Blocks, s.TxsPerBlock, sum[:6])
}

// chainInfo is what the tool knows of a built chain beside its blocks.
type chainInfo struct {
	Spec chainSpec `json:"spec"`
	// First is the height of the first benchmark block; Tip the last's
	// height and TipHash its hash.
	First   int64  `json:"first"`
	Tip     int64  `json:"tip"`
	TipHash string `json:"tip_hash"`
	// WalletTxs is the number of transactions paying the wallet.
	WalletTxs int `json:"wallet_txs"`
}

// Amounts of the benchmark transactions, in satoshis.
const (
	txFee      = 1000
	minPayment = 1000
	maxPayment = 50000
	coinbase   = 50 * 1e8
)

// poolSize is the number of coins the benchmark blocks spend from: each is
// spent again (its change) a few blocks after it was last spent.
func (s chainSpec) poolSize() int { return 3 * s.TxsPerBlock }

// coinValue is the value each pool coin starts with: enough for every
// payment and fee of the coin's share of the transactions.
func (s chainSpec) coinValue() int64 {
	spends := int64(s.Blocks)*int64(s.TxsPerBlock)/int64(s.poolSize()) + 2
	return spends*(maxPayment+txFee) + 10*txFee
}

// fundingPlan returns how many setup coinbases the pool needs and how many
// pool coins each of their fan-out transactions makes.
func (s chainSpec) fundingPlan() (coinbases, perCoinbase int, err error) {
	per := (coinbase - 1e6) / s.coinValue()
	if per < 1 {
		return 0, 0, errors.New("the chain is too long for its coins: fewer -blocks or more -txs")
	}
	perCoinbase = int(min(per, 1000))
	coinbases = (s.poolSize() + perCoinbase - 1) / perCoinbase
	if coinbases > 140 { // coinbases of regtest's first 150 blocks are worth 50 BTC
		return 0, 0, errors.New("the chain needs too many funding coinbases")
	}
	return coinbases, perCoinbase, nil
}

// benchMiner is the key the benchmark chain's coinbases and change pay.
func benchMiner() *testenv.Key { return testenv.NewKey("descwallet-bench miner") }

// loadChain returns the blocks and description of the chain spec describes,
// from the cache folder when an earlier run built it, else built now on a
// btcd of its own and stored in the cache.
func loadChain(cache, btcdBin string, spec chainSpec, walletScript func(uint32) ([]byte, error)) ([][]byte, chainInfo, error) {
	base := filepath.Join(cache, spec.key())
	if blocks, info, err := readChain(base); err == nil && info.Spec == spec {
		fmt.Printf("chain: %d blocks from the cache (%s)\n", len(blocks), base+".blocks")
		return blocks, info, nil
	}
	fmt.Printf("chain: building %d blocks of %d transactions (once; cached in %s)\n", spec.Blocks,
		spec.TxsPerBlock, cache)
	t0 := time.Now()
	blocks, info, err := buildChain(btcdBin, spec, walletScript)
	if err != nil {
		return nil, info, err
	}
	fmt.Printf("chain: built in %v\n", time.Since(t0).Round(time.Second))
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, info, err
	}
	if err := writeChain(base, blocks, info); err != nil {
		return nil, info, err
	}
	return blocks, info, nil
}

// buildChain mines the chain spec describes on a fresh btcd and returns
// every block from height 1 with the chain's description.
func buildChain(btcdBin string, spec chainSpec, walletScript func(uint32) ([]byte, error)) ([][]byte, chainInfo, error) {
	info := chainInfo{Spec: spec}
	if err := spec.check(); err != nil {
		return nil, info, err
	}
	nCoinbases, perCoinbase, err := spec.fundingPlan()
	if err != nil {
		return nil, info, err
	}
	miner := benchMiner()
	key, err := sign.DecodeWIF(miner.WIF, &chaincfg.RegressionNetParams)
	if err != nil {
		return nil, info, err
	}
	signer := sign.NewProvider(key)
	defer signer.Zero()

	b, err := startBtcd(btcdBin, miner.WPKH.Address)
	if err != nil {
		return nil, info, err
	}
	defer b.stop()
	client := &http.Client{}

	// Mature the funding coinbases.
	var hashes []string
	if err := b.call("generate", []any{testenv.CoinbaseMaturity + nCoinbases}, &hashes); err != nil {
		return nil, info, err
	}
	var pool []coin
	var fanout []string
	for i := range nCoinbases {
		blk, err := fetchBlock(b, hashes[i])
		if err != nil {
			return nil, info, err
		}
		cb := blk.Transactions[0]
		in := coin{op: wire.OutPoint{Hash: cb.TxHash(), Index: 0}, value: cb.TxOut[0].Value}
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&in.op, nil, nil))
		value := spec.coinValue()
		for range perCoinbase {
			tx.AddTxOut(wire.NewTxOut(value, miner.WPKH.Script))
		}
		// 10 sat a byte of a generous size estimate: btcd refuses a
		// large transaction paying less than its relay fee.
		fee := int64(10 * (200 + 43*(perCoinbase+1)))
		if rest := in.value - int64(perCoinbase)*value - fee; rest > 1000 {
			tx.AddTxOut(wire.NewTxOut(rest, miner.WPKH.Script))
		}
		if err := signSpend(tx, []coin{in}, miner.WPKH.Script, signer); err != nil {
			return nil, info, err
		}
		h := tx.TxHash()
		for j := range perCoinbase {
			pool = append(pool, coin{op: wire.OutPoint{Hash: h, Index: uint32(j)}, value: value})
		}
		fanout = append(fanout, txHex(tx))
	}
	if err := sendAndMine(b, client, fanout); err != nil {
		return nil, info, fmt.Errorf("fan-out: %w", err)
	}
	var tip int64
	if err := b.call("getblockcount", nil, &tip); err != nil {
		return nil, info, err
	}
	info.First = tip + 1

	rng := rand.New(rand.NewPCG(uint64(spec.TxsPerBlock), uint64(spec.Blocks)))
	payments := 0
	for h := range spec.Blocks {
		txs := make([]string, 0, spec.TxsPerBlock)
		spent := pool[:spec.TxsPerBlock]
		var change []coin
		for _, in := range spent {
			pay := minPayment + rng.Int64N(maxPayment-minPayment+1)
			var dest []byte
			if payments++; payments%spec.WalletEvery == 0 {
				if dest, err = walletScript(uint32(rng.IntN(chainPayRange))); err != nil {
					return nil, info, err
				}
				info.WalletTxs++
			} else {
				dest = foreignScript(rng)
			}
			tx := wire.NewMsgTx(2)
			tx.AddTxIn(wire.NewTxIn(&in.op, nil, nil))
			outs := []*wire.TxOut{wire.NewTxOut(pay, dest),
				wire.NewTxOut(in.value-pay-txFee, miner.WPKH.Script)}
			changeAt := rng.IntN(2)
			if changeAt == 0 {
				outs[0], outs[1] = outs[1], outs[0]
			}
			tx.TxOut = outs
			if err := signSpend(tx, []coin{in}, miner.WPKH.Script, signer); err != nil {
				return nil, info, err
			}
			change = append(change, coin{op: wire.OutPoint{Hash: tx.TxHash(), Index: uint32(changeAt)},
				value: in.value - pay - txFee})
			txs = append(txs, txHex(tx))
		}
		pool = append(pool[spec.TxsPerBlock:], change...)
		if err := sendAndMine(b, client, txs); err != nil {
			return nil, info, fmt.Errorf("block %d: %w", h+1, err)
		}
		if (h+1)%500 == 0 {
			fmt.Printf("chain: %d of %d blocks\n", h+1, spec.Blocks)
		}
	}
	if err := b.call("getblockcount", nil, &info.Tip); err != nil {
		return nil, info, err
	}
	if err := b.call("getbestblockhash", nil, &info.TipHash); err != nil {
		return nil, info, err
	}
	blocks, err := fetchRawBlocks(b, client, 1, info.Tip)
	if err != nil {
		return nil, info, err
	}
	return blocks, info, nil
}

// coin is a spendable output of the miner key.
type coin struct {
	op    wire.OutPoint
	value int64
}

// signSpend signs tx, whose inputs spend coins paying script, and fails
// unless every input is signed (the signer verifies each signature).
func signSpend(tx *wire.MsgTx, coins []coin, script []byte, p *sign.Provider) error {
	prev := make(map[wire.OutPoint]*sign.Coin, len(coins))
	for _, c := range coins {
		prev[c.op] = &sign.Coin{PkScript: script, Amount: c.value}
	}
	errs, err := sign.SignTransaction(tx, prev, p, sign.SigHashDefault)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return fmt.Errorf("input %d not signed: %s", errs[0].Index, errs[0].Message)
	}
	return nil
}

// foreignScript returns a random P2WPKH or P2TR script, of no one's key.
func foreignScript(rng *rand.Rand) []byte {
	if rng.IntN(2) == 0 {
		s := make([]byte, 22)
		s[0], s[1] = 0x00, 0x14
		fill(rng, s[2:])
		return s
	}
	s := make([]byte, 34)
	s[0], s[1] = 0x51, 0x20
	fill(rng, s[2:])
	return s
}

// fill fills b with bytes of rng.
func fill(rng *rand.Rand, b []byte) {
	for i := 0; i < len(b); i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], rng.Uint64())
		copy(b[i:], w[:])
	}
}

// txHex serialises tx with its witnesses in hex.
func txHex(tx *wire.MsgTx) string {
	var buf bytes.Buffer
	tx.Serialize(&buf)
	return hex.EncodeToString(buf.Bytes())
}

// sendAndMine submits txs to btcd's mempool in one batch, mines one block
// and checks the block took every one of them.
func sendAndMine(b *btcdNode, client *http.Client, txs []string) error {
	calls := make([]batchCall, len(txs))
	for i, t := range txs {
		calls[i] = batchCall{Method: "sendrawtransaction", Params: []any{t}}
	}
	if len(calls) > 0 {
		if _, err := batch(client, b.addr, b.auth, calls); err != nil {
			return err
		}
	}
	var hashes []string
	if err := b.call("generate", []any{1}, &hashes); err != nil {
		return err
	}
	var mempool []string
	if err := b.call("getrawmempool", nil, &mempool); err != nil {
		return err
	}
	if len(mempool) != 0 {
		return fmt.Errorf("the block left %d transactions in the mempool", len(mempool))
	}
	return nil
}

// fetchBlock returns the block with hash from btcd.
func fetchBlock(b *btcdNode, hash string) (*wire.MsgBlock, error) {
	var rawHex string
	if err := b.call("getblock", []any{hash, 0}, &rawHex); err != nil {
		return nil, err
	}
	raw, err := hex.DecodeString(rawHex)
	if err != nil {
		return nil, err
	}
	var blk wire.MsgBlock
	if err := blk.Deserialize(bytes.NewReader(raw)); err != nil {
		return nil, err
	}
	return &blk, nil
}

// fetchRawBlocks returns the raw blocks of heights [from, to] of btcd's
// best chain.
func fetchRawBlocks(b *btcdNode, client *http.Client, from, to int64) ([][]byte, error) {
	var out [][]byte
	for lo := from; lo <= to; lo += 500 {
		hi := min(to, lo+499)
		calls := make([]batchCall, 0, hi-lo+1)
		for h := lo; h <= hi; h++ {
			calls = append(calls, batchCall{Method: "getblockhash", Params: []any{h}})
		}
		hashes, err := batch(client, b.addr, b.auth, calls)
		if err != nil {
			return nil, err
		}
		calls = calls[:0]
		for _, h := range hashes {
			var hash string
			if err := json.Unmarshal(h, &hash); err != nil {
				return nil, err
			}
			calls = append(calls, batchCall{Method: "getblock", Params: []any{hash, 0}})
		}
		raws, err := batch(client, b.addr, b.auth, calls)
		if err != nil {
			return nil, err
		}
		for _, r := range raws {
			var rawHex string
			if err := json.Unmarshal(r, &rawHex); err != nil {
				return nil, err
			}
			raw, err := hex.DecodeString(rawHex)
			if err != nil {
				return nil, err
			}
			out = append(out, raw)
		}
	}
	return out, nil
}

// replayChain submits blocks, in order, to a btcd at the genesis block and
// checks that it ends at the chain's tip.
func replayChain(b *btcdNode, blocks [][]byte, info chainInfo) error {
	for i, raw := range blocks {
		var res any
		if err := b.call("submitblock", []any{hex.EncodeToString(raw)}, &res); err != nil {
			return fmt.Errorf("submitblock at height %d: %w", i+1, err)
		}
		if res != nil {
			return fmt.Errorf("submitblock at height %d: %v", i+1, res)
		}
	}
	var tip string
	if err := b.call("getbestblockhash", nil, &tip); err != nil {
		return err
	}
	if tip != info.TipHash {
		return fmt.Errorf("btcd's tip is %s after the replay, want %s", tip, info.TipHash)
	}
	return nil
}

// Cache files: <base>.json holds the chainInfo, <base>.blocks the blocks,
// each as a 4-byte little-endian length and the raw block.

// writeChain stores blocks and info under base, each file written to a
// temporary name, synced and renamed.
func writeChain(base string, blocks [][]byte, info chainInfo) error {
	var buf bytes.Buffer
	for _, b := range blocks {
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(len(b)))
		buf.Write(n[:])
		buf.Write(b)
	}
	if err := writeFileAtomic(base+".blocks", buf.Bytes()); err != nil {
		return err
	}
	meta, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(base+".json", meta)
}

// readChain reads what writeChain stored under base and checks the blocks
// link up to the recorded tip.
func readChain(base string) ([][]byte, chainInfo, error) {
	var info chainInfo
	meta, err := os.ReadFile(base + ".json")
	if err != nil {
		return nil, info, err
	}
	if err := json.Unmarshal(meta, &info); err != nil {
		return nil, info, err
	}
	f, err := os.Open(base + ".blocks")
	if err != nil {
		return nil, info, err
	}
	defer f.Close()
	blocks, err := decodeBlocks(bufio.NewReaderSize(f, 1<<20), info.Tip)
	if err != nil {
		return nil, info, fmt.Errorf("%s.blocks: %w", base, err)
	}
	if len(blocks) == 0 {
		return nil, info, errors.New("no blocks")
	}
	var prev *chainhash.Hash = chaincfg.RegressionNetParams.GenesisHash
	for i, raw := range blocks {
		var hdr wire.BlockHeader
		if err := hdr.Deserialize(bytes.NewReader(raw)); err != nil {
			return nil, info, fmt.Errorf("block %d: %w", i+1, err)
		}
		if hdr.PrevBlock != *prev {
			return nil, info, fmt.Errorf("block %d does not follow block %d", i+1, i)
		}
		h := hdr.BlockHash()
		prev = &h
	}
	if prev.String() != info.TipHash {
		return nil, info, errors.New("the blocks do not end at the recorded tip")
	}
	return blocks, info, nil
}

// maxCachedBlock bounds one block of the cache file.
const maxCachedBlock = 4 << 20

// decodeBlocks reads length-prefixed blocks until the end of r, at most
// limit of them.
func decodeBlocks(r io.Reader, limit int64) ([][]byte, error) {
	var blocks [][]byte
	for {
		var n [4]byte
		if _, err := io.ReadFull(r, n[:]); err == io.EOF {
			return blocks, nil
		} else if err != nil {
			return nil, err
		}
		size := binary.LittleEndian.Uint32(n[:])
		if size < 80 || size > maxCachedBlock {
			return nil, fmt.Errorf("block %d: bad length %d", len(blocks)+1, size)
		}
		if int64(len(blocks)) >= limit {
			return nil, fmt.Errorf("more than the %d blocks recorded", limit)
		}
		b := make([]byte, size)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		blocks = append(blocks, b)
	}
}

// writeFileAtomic writes data to path through a synced temporary file
// renamed into place.
func writeFileAtomic(path string, data []byte) error {
	tmp := fmt.Sprintf("%s.tmp%d", path, os.Getpid())
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
