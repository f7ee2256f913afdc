package scan

import (
	"bytes"
	"context"
	"encoding/binary"
	"syscall"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/v2/gcs/builder"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/chain"
)

// loopChain is an endless chain for the follower benchmarks: height h
// holds block h mod len(pool), each a regtest-like block of benchTxs
// payments (one input, two P2WPKH outputs, a P2WPKH witness) to scripts no
// wallet watches, served serialized and decoded as the RPC clients decode
// them.
type loopChain struct {
	chain.Backend
	pool   []*memBlock
	byHash map[chainhash.Hash]*memBlock
	tip    int32
}

// benchTxs payments per block: 2 000 outputs and 1 000 inputs.
const benchTxs = 1000

// mix is splitmix64: deterministic filler for scripts and hashes.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// benchScript writes the P2WPKH script number n into p (22 bytes).
func benchScript(p []byte, n uint64) []byte {
	p = append(p[:0], 0x00, 0x14)
	p = binary.LittleEndian.AppendUint64(p, mix(n))
	p = binary.LittleEndian.AppendUint64(p, mix(n+1<<62))
	return binary.LittleEndian.AppendUint32(p, uint32(mix(n+2<<62)))
}

// benchScripts returns count scripts numbered from first, in one buffer.
func benchScripts(first, count uint64) [][]byte {
	buf := make([]byte, 0, 22*count)
	out := make([][]byte, count)
	for i := uint64(0); i < count; i++ {
		start := len(buf)
		benchScript(buf[start:start], first+i)
		buf = buf[:start+22]
		out[i] = buf[start : start+22 : start+22]
	}
	return out
}

func newLoopChain(b *testing.B, blocks int) *loopChain {
	c := &loopChain{byHash: map[chainhash.Hash]*memBlock{}}
	sig := bytes.Repeat([]byte{0x30}, 72)
	pub := bytes.Repeat([]byte{0x02}, 33)
	n := uint64(1) << 50 // numbers no wallet's scripts use
	for k := 0; k < blocks; k++ {
		msg := wire.NewMsgBlock(&wire.BlockHeader{Version: 4, Bits: 0x207fffff,
			Timestamp: time.Unix(1296688602+int64(k)*600, 0), Nonce: uint32(k)})
		cb := wire.NewMsgTx(1)
		cb.AddTxIn(&wire.TxIn{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex},
			SignatureScript: binary.LittleEndian.AppendUint32([]byte{4}, uint32(k)), Sequence: wire.MaxTxInSequenceNum})
		cb.AddTxOut(wire.NewTxOut(50e8, benchScript(nil, n)))
		n++
		msg.AddTransaction(cb)
		var spent [][]byte
		for i := 0; i < benchTxs; i++ {
			tx := wire.NewMsgTx(2)
			var prev chainhash.Hash
			binary.LittleEndian.PutUint64(prev[:], mix(n))
			tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: prev, Index: 1}, nil, [][]byte{sig, pub}))
			spent = append(spent, benchScript(nil, n))
			tx.AddTxOut(wire.NewTxOut(10000, benchScript(nil, n+1)))
			tx.AddTxOut(wire.NewTxOut(20000, benchScript(nil, n+2)))
			n += 3
			msg.AddTransaction(tx)
		}
		ids := make([]chainhash.Hash, len(msg.Transactions))
		for i, tx := range msg.Transactions {
			ids[i] = tx.TxHash()
		}
		msg.Header.MerkleRoot = testMerkleRoot(ids)
		var buf bytes.Buffer
		if err := msg.Serialize(&buf); err != nil {
			b.Fatal(err)
		}
		f, err := builder.BuildBasicFilter(msg, spent)
		if err != nil {
			b.Fatal(err)
		}
		fb, err := f.NBytes()
		if err != nil {
			b.Fatal(err)
		}
		blk := &memBlock{hash: msg.BlockHash(), raw: buf.Bytes(), filter: fb, msg: msg}
		c.pool = append(c.pool, blk)
		c.byHash[blk.hash] = blk
	}
	return c
}

func (c *loopChain) at(h int32) *memBlock { return c.pool[int(h)%len(c.pool)] }

func (c *loopChain) Kind() chain.Kind { return chain.KindBtcd }

func (c *loopChain) Tip(ctx context.Context) (chain.BlockID, error) {
	return chain.BlockID{Height: c.tip, Hash: c.at(c.tip).hash}, nil
}

func (c *loopChain) BlockHashes(ctx context.Context, heights []int32) ([]chainhash.Hash, error) {
	out := make([]chainhash.Hash, len(heights))
	for i, h := range heights {
		out[i] = c.at(h).hash
	}
	return out, nil
}

func (c *loopChain) Blocks(ctx context.Context, hashes []chainhash.Hash) ([]*chain.Block, error) {
	out := make([]*chain.Block, len(hashes))
	for i, h := range hashes {
		blk, err := chain.DecodeBlock(c.byHash[h].raw, h)
		if err != nil {
			return nil, err
		}
		out[i] = blk
	}
	return out, nil
}

func (c *loopChain) RawBlocks(ctx context.Context, hashes []chainhash.Hash) ([][]byte, error) {
	out := make([][]byte, len(hashes))
	for i, h := range hashes {
		raw := c.byHash[h].raw
		if err := chain.CheckRawHeader(raw, h); err != nil {
			return nil, err
		}
		// The client decodes a fresh copy from the reply.
		out[i] = append([]byte(nil), raw...)
	}
	return out, nil
}

func (c *loopChain) Filters(ctx context.Context, hashes []chainhash.Hash) ([]*chain.Filter, error) {
	out := make([]*chain.Filter, len(hashes))
	for i, h := range hashes {
		f, err := chain.DecodeFilter(c.byHash[h].filter, h)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

func (c *loopChain) MempoolTxIDs(ctx context.Context) ([]chainhash.Hash, error) {
	return nil, nil
}

// benchSink is a Source and Sink of a fixed script list that counts what
// it is handed.
type benchSink struct {
	scripts [][]byte
	found   int
}

func (s *benchSink) WatchList(context.Context) (*WatchList, error) {
	return &WatchList{Scripts: s.scripts}, nil
}
func (s *benchSink) Generation() uint64 { return 0 }
func (s *benchSink) BlockConnected(_ context.Context, _ BlockInfo, txs []*wire.MsgTx) error {
	s.found += len(txs)
	return nil
}
func (s *benchSink) Checkpoint(context.Context, ChainState) error { return nil }
func (s *benchSink) Rollback(context.Context, int32) error        { return nil }

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// hashOnce returns the CPU time of hashing every one of n scripts once
// for a block's filter (the filter does not match, so every script is
// hashed): the cost the follower may not exceed by more than a constant.
// Scripts are hashed in watch lists of at most a million, the same list
// again as needed.
func hashOnce(b *testing.B, c *loopChain, n int) time.Duration {
	per := min(n, 1_000_000)
	w := chain.NewWatch(benchScripts(0, uint64(per)))
	f, err := chain.DecodeFilter(c.pool[0].filter, c.pool[0].hash)
	if err != nil {
		b.Fatal(err)
	}
	f.MatchWatch(w) // builds the filter's presence bitmap once
	// Repeat until 50 ms of CPU time for a stable figure.
	t0 := cpuTime()
	reps := 0
	for cpuTime()-t0 < 50*time.Millisecond {
		for done := 0; done < n; done += per {
			if f.MatchWatch(w) {
				b.Fatal("the filter matches a wallet script")
			}
		}
		reps++
	}
	return (cpuTime() - t0) / time.Duration(reps)
}

// BenchmarkFollowerBlock measures the follower's CPU time per new block of
// 2 000 outputs and 1 000 inputs paying no wallet (the common case of each
// block for each wallet), for one wallet of 1 000, 100 000 and 10 000 000
// scripts, for 1 000 wallets of 1 000 scripts and one wallet of 1 000 000,
// and, at 100 000 scripts, with the filter path and the raw-block path
// forced. It reports CPU ns per block and its ratio to hashing each
// watched script once (hashOnce). The wallets are static script lists, not
// wallet.Wallets: the 10 000 000-script one goes straight into the index.
func BenchmarkFollowerBlock(b *testing.B) {
	c := newLoopChain(b, 16)
	cases := []struct {
		name    string
		wallets int
		scripts int
		path    int
	}{
		{"scripts=1000", 1, 1000, pathAuto},
		{"scripts=100000", 1, 100_000, pathAuto},
		{"scripts=100000/filter", 1, 100_000, pathFilter},
		{"scripts=100000/raw", 1, 100_000, pathRaw},
		{"scripts=10000000", 1, 10_000_000, pathAuto},
		{"wallets=1000x1000", 1000, 1000, pathAuto},
		{"wallets=1x1000000", 1, 1_000_000, pathAuto},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			f := NewFollower(Config{Backend: c, MempoolPerPoll: -1})
			f.e.path = tc.path
			all := benchScripts(0, uint64(tc.wallets*tc.scripts))
			for i := 0; i < tc.wallets; i++ {
				s := &benchSink{scripts: all[i*tc.scripts : (i+1)*tc.scripts]}
				f.Add(s, s, ChainState{})
			}
			c.tip = 0
			if _, err := f.Sync(ctx); err != nil {
				b.Fatal(err)
			}
			// Warm up (the filter-matching segments are built at the
			// first filter match).
			for i := 0; i < 3; i++ {
				c.tip++
				if _, err := f.Sync(ctx); err != nil {
					b.Fatal(err)
				}
			}
			ref := hashOnce(b, c, tc.wallets*tc.scripts)
			b.ReportAllocs()
			b.ResetTimer()
			t0 := cpuTime()
			for i := 0; i < b.N; i++ {
				c.tip++
				if n, err := f.Sync(ctx); err != nil || n != 1 {
					b.Fatalf("Sync: %d blocks, %v", n, err)
				}
			}
			cpu := cpuTime() - t0
			b.StopTimer()
			per := float64(cpu.Nanoseconds()) / float64(b.N)
			b.ReportMetric(per, "cpu-ns/block")
			b.ReportMetric(float64(ref.Nanoseconds()), "hashonce-ns")
			b.ReportMetric(per/float64(ref.Nanoseconds()), "x-hashonce")
			b.Logf("%s: %.0f µs CPU a block, hashing each script once %.0f µs",
				tc.name, per/1e3, float64(ref.Nanoseconds())/1e3)
		})
	}
}
