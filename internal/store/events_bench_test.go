package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/descwallet/descwallet/internal/benchcpu"
)

// BenchmarkAppendEvents measures what a block's events cost the store: a
// write transaction holding one small update (a recent block, as a
// checkpoint writes) with and without the three events of a payment first
// seen in a block (received, confirmed 1, and an older payment's confirmed
// 6), each with a detail the size the wallet writes. Both sides alternate
// in one loop and each side's process CPU is summed on its own; it
// reports each side's CPU per transaction and what the events add.
func BenchmarkAppendEvents(b *testing.B) {
	ctx := context.Background()
	open := func() *Store {
		s, err := Create(ctx, filepath.Join(b.TempDir(), "wallet.sqlite"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	on, off := open(), open()
	detail := []byte(`{"amount":0.00001000,"outputs":[{"vout":1,"address":"bcrt1qzyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3ht3rpm","amount":0.00001000,"label":"shop","parent_descs":["raw(00141111111111111111111111111111111111111111)#xxxxxxxx"]}]}`)
	var spent [2]time.Duration
	for i := range b.N {
		for k := range 2 {
			side := (i + k) % 2
			s := on
			if side == 1 {
				s = off
			}
			h := int32(100 + i)
			start := benchcpu.Used()
			err := s.Update(ctx, func(tx *Tx) error {
				if err := tx.SetRecentBlocks([]BlockRef{{Height: h, Hash: [32]byte{byte(h), byte(h >> 8)}}}); err != nil {
					return err
				}
				if side == 1 {
					return nil
				}
				id := [32]byte{byte(i), byte(i >> 8), byte(i >> 16), 0xee}
				old := [32]byte{byte(i - 5), byte((i - 5) >> 8), byte((i - 5) >> 16), 0xee}
				hash := [32]byte{byte(h), byte(h >> 8)}
				return tx.AppendEvents([]Event{
					{Kind: "received", TxID: id, Height: h, BlockHash: hash, Time: 1700000000, Detail: detail},
					{Kind: "confirmed", TxID: id, Depth: 1, Height: h, BlockHash: hash, Time: 1700000000, Detail: detail},
					{Kind: "confirmed", TxID: old, Depth: 6, Height: h - 5, BlockHash: [32]byte{byte(h - 5), byte((h - 5) >> 8)}, Time: 1700000000, Detail: detail},
				})
			})
			spent[side] += benchcpu.Used() - start
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	if b.N > 0 && spent[1] > 0 {
		b.ReportMetric(float64(spent[0])/float64(b.N), "events-cpu-ns/op")
		b.ReportMetric(float64(spent[1])/float64(b.N), "noevents-cpu-ns/op")
		b.ReportMetric(float64(spent[0]-spent[1])/float64(b.N), "added-cpu-ns/op")
	}
}
