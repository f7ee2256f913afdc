package scan

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/v2/gcs/builder"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/chain"
)

// memChain is an in-memory backend: blocks built by the test, served
// serialized and decoded the way the RPC clients decode what the node
// sends (the hex and JSON layers aside), with BIP 158 filters built by
// btcutil's builder.
type memChain struct {
	chain.Backend // the calls a scan does not make

	mu      sync.Mutex
	blocks  []*memBlock // the best chain, by height
	shown   int         // how many blocks are visible (the tip is shown-1)
	utxos   map[wire.OutPoint][]byte
	mempool []*wire.MsgTx
	nonce   uint32
	calls   map[string]int
}

type memBlock struct {
	hash   chainhash.Hash
	raw    []byte
	filter []byte
	msg    *wire.MsgBlock
}

func newMemChain(t testing.TB) *memChain {
	c := &memChain{utxos: map[wire.OutPoint][]byte{}, calls: map[string]int{}}
	c.mine(t, []byte{0x51})
	return c
}

// mine adds a block whose coinbase pays coinbase and that holds txs, and
// shows it.
func (c *memChain) mine(t testing.TB, coinbase []byte, txs ...*wire.MsgTx) *memBlock {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.build(t, coinbase, txs)
	c.blocks = append(c.blocks[:c.shown], b)
	c.shown = len(c.blocks)
	return b
}

// build makes the next block on the shown chain. The caller holds mu.
func (c *memChain) build(t testing.TB, coinbase []byte, txs []*wire.MsgTx) *memBlock {
	var prev chainhash.Hash
	if c.shown > 0 {
		prev = c.blocks[c.shown-1].hash
	}
	c.nonce++
	cb := wire.NewMsgTx(1)
	var extra [8]byte
	binary.LittleEndian.PutUint32(extra[:], c.nonce)
	binary.LittleEndian.PutUint32(extra[4:], uint32(c.shown))
	cb.AddTxIn(&wire.TxIn{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex},
		SignatureScript: extra[:], Sequence: wire.MaxTxInSequenceNum})
	cb.AddTxOut(wire.NewTxOut(50e8, coinbase))
	msg := wire.NewMsgBlock(&wire.BlockHeader{Version: 4, PrevBlock: prev,
		Timestamp: time.Unix(1296688602+int64(c.shown)*600, 0), Bits: 0x207fffff, Nonce: c.nonce})
	msg.AddTransaction(cb)
	var spent [][]byte
	for _, tx := range txs {
		msg.AddTransaction(tx)
		for _, in := range tx.TxIn {
			if s, ok := c.utxos[in.PreviousOutPoint]; ok {
				spent = append(spent, s)
			}
		}
	}
	ids := make([]chainhash.Hash, len(msg.Transactions))
	for i, tx := range msg.Transactions {
		ids[i] = tx.TxHash()
		for j, out := range tx.TxOut {
			c.utxos[wire.OutPoint{Hash: ids[i], Index: uint32(j)}] = out.PkScript
		}
	}
	msg.Header.MerkleRoot = testMerkleRoot(ids)
	var buf bytes.Buffer
	if err := msg.Serialize(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := builder.BuildBasicFilter(msg, spent)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := f.NBytes()
	if err != nil {
		t.Fatal(err)
	}
	return &memBlock{hash: msg.BlockHash(), raw: buf.Bytes(), filter: fb, msg: msg}
}

// reorg hides the last depth blocks; the next mine replaces them.
func (c *memChain) reorg(depth int) {
	c.mu.Lock()
	c.shown -= depth
	c.mu.Unlock()
}

func testMerkleRoot(ids []chainhash.Hash) chainhash.Hash {
	level := append([]chainhash.Hash(nil), ids...)
	for len(level) > 1 {
		if len(level)%2 == 1 {
			level = append(level, level[len(level)-1])
		}
		next := level[:0]
		for i := 0; i < len(level); i += 2 {
			var buf [64]byte
			copy(buf[:32], level[i][:])
			copy(buf[32:], level[i+1][:])
			next = append(next, chainhash.DoubleHashH(buf[:]))
		}
		level = next
	}
	return level[0]
}

func (c *memChain) count(name string) {
	c.calls[name]++
}

func (c *memChain) Kind() chain.Kind { return chain.KindBtcd }

func (c *memChain) Tip(ctx context.Context) (chain.BlockID, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count("tip")
	return chain.BlockID{Height: int32(c.shown - 1), Hash: c.blocks[c.shown-1].hash}, nil
}

func (c *memChain) BlockHashes(ctx context.Context, heights []int32) ([]chainhash.Hash, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]chainhash.Hash, len(heights))
	for i, h := range heights {
		if h < 0 || int(h) >= c.shown {
			return nil, &chain.Error{Kind: chain.ErrNotFound, Description: "no such height"}
		}
		out[i] = c.blocks[h].hash
	}
	return out, nil
}

func (c *memChain) byHash(h chainhash.Hash) (*memBlock, error) {
	for _, b := range c.blocks {
		if b.hash == h {
			return b, nil
		}
	}
	return nil, &chain.Error{Kind: chain.ErrNotFound, Description: "no such block"}
}

func (c *memChain) Headers(ctx context.Context, hashes []chainhash.Hash) ([]wire.BlockHeader, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]wire.BlockHeader, len(hashes))
	for i, h := range hashes {
		b, err := c.byHash(h)
		if err != nil {
			return nil, err
		}
		out[i] = b.msg.Header
	}
	return out, nil
}

func (c *memChain) Blocks(ctx context.Context, hashes []chainhash.Hash) ([]*chain.Block, error) {
	c.mu.Lock()
	var raws [][]byte
	for _, h := range hashes {
		b, err := c.byHash(h)
		if err != nil {
			c.mu.Unlock()
			return nil, err
		}
		c.count("block")
		raws = append(raws, b.raw)
	}
	c.mu.Unlock()
	out := make([]*chain.Block, len(hashes))
	for i, raw := range raws {
		blk, err := chain.DecodeBlock(raw, hashes[i])
		if err != nil {
			return nil, err
		}
		out[i] = blk
	}
	return out, nil
}

func (c *memChain) RawBlocks(ctx context.Context, hashes []chainhash.Hash) ([][]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([][]byte, len(hashes))
	for i, h := range hashes {
		b, err := c.byHash(h)
		if err != nil {
			return nil, err
		}
		c.count("raw")
		out[i] = b.raw
	}
	return out, nil
}

func (c *memChain) Filters(ctx context.Context, hashes []chainhash.Hash) ([]*chain.Filter, error) {
	c.mu.Lock()
	var raws [][]byte
	for _, h := range hashes {
		b, err := c.byHash(h)
		if err != nil {
			c.mu.Unlock()
			return nil, err
		}
		c.count("filter")
		raws = append(raws, b.filter)
	}
	c.mu.Unlock()
	out := make([]*chain.Filter, len(hashes))
	for i, raw := range raws {
		f, err := chain.DecodeFilter(raw, hashes[i])
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

func (c *memChain) MempoolTxIDs(ctx context.Context) ([]chainhash.Hash, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count("mempool")
	var ids []chainhash.Hash
	for _, tx := range c.mempool {
		ids = append(ids, tx.TxHash())
	}
	return ids, nil
}

func (c *memChain) MempoolTxs(ctx context.Context, ids []chainhash.Hash) ([]*wire.MsgTx, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*wire.MsgTx, len(ids))
	for i, id := range ids {
		for _, tx := range c.mempool {
			if tx.TxHash() == id {
				out[i] = tx
			}
		}
	}
	return out, nil
}

// payTx returns a transaction spending op and paying each script 1000 sat.
func payTx(op wire.OutPoint, scripts ...[]byte) *wire.MsgTx {
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(&op, nil, [][]byte{{1}}))
	for _, s := range scripts {
		tx.AddTxOut(wire.NewTxOut(1000, s))
	}
	return tx
}

// memWallet is a Source, Sink and MempoolSink recording what it is given.
type memWallet struct {
	mu        sync.Mutex
	gen       uint64
	scripts   [][]byte
	outpoints []wire.OutPoint
	found     []string // "height txid", height -1 for the mempool
	state     ChainState
	rollbacks []int32
	left      int
	failNext  error
	failTwice bool // failNext fails two deliveries
	changes   uint64
	// during, when set, runs once inside the next block delivery, as
	// another path of the wallet recording meanwhile.
	during func()
	// states are the chain states blocks were delivered with
	// (BlockInfo.State), by height.
	states map[int32]ChainState
}

// Changes counts the transactions recorded other than by the follower's
// deliveries (a rescan's, importOutput's), as a wallet does.
func (w *memWallet) Changes() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changes
}

// importOutput records an output the wallet learnt by another path than
// the follower (a proof-carrying import).
func (w *memWallet) importOutput(op wire.OutPoint) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.outpoints = append(w.outpoints, op)
	w.changes++
}

func (w *memWallet) WatchList(ctx context.Context) (*WatchList, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return &WatchList{Generation: w.gen, Scripts: w.scripts,
		Outpoints: append([]wire.OutPoint(nil), w.outpoints...)}, nil
}

func (w *memWallet) Generation() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen
}

func (w *memWallet) BlockConnected(ctx context.Context, blk BlockInfo, txs []*wire.MsgTx) error {
	w.mu.Lock()
	if f := w.during; f != nil {
		w.during = nil
		w.mu.Unlock()
		f()
		w.mu.Lock()
	}
	defer w.mu.Unlock()
	if err := w.failNext; err != nil {
		if w.failTwice {
			w.failTwice = false
		} else {
			w.failNext = nil
		}
		return err
	}
	for _, tx := range txs {
		w.found = append(w.found, blkTx(blk.Height, tx))
		if blk.Rescan {
			w.changes++
		}
	}
	if blk.State != nil {
		if w.states == nil {
			w.states = map[int32]ChainState{}
		}
		w.states[blk.Height] = ChainState{Recent: slices.Clone(blk.State.Recent)}
	}
	return nil
}

func blkTx(height int32, tx *wire.MsgTx) string {
	return fmt.Sprintf("%s@%d", tx.TxHash(), height)
}

func (w *memWallet) Checkpoint(ctx context.Context, st ChainState) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.state = st
	return nil
}

func (w *memWallet) Rollback(ctx context.Context, height int32) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rollbacks = append(w.rollbacks, height)
	return nil
}

func (w *memWallet) MempoolTxs(ctx context.Context, txs []*wire.MsgTx) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, tx := range txs {
		w.found = append(w.found, blkTx(-1, tx))
	}
	return nil
}

func (w *memWallet) MempoolLeft(ctx context.Context, inMempool func(chainhash.Hash) bool) error {
	w.mu.Lock()
	w.left++
	w.mu.Unlock()
	return nil
}

func (w *memWallet) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	f := w.found
	w.found = nil
	return f
}
