package scan

import (
	"context"
	"sort"

	"github.com/descwallet/descwallet/internal/chain"
)

// medianSpan is the number of blocks whose times give a block's median
// time past.
const medianSpan = 11

// StartHeight returns the first height a rescan from timestamp (Unix
// seconds, already lowered by the 7200 s window) must scan: the first block
// whose time is at least timestamp. It binary-searches the median time past,
// which never decreases along a chain, for the first block whose median
// reaches the timestamp, then takes the first block at or before it (within
// its median span) whose own time does. It returns the tip's height plus one
// when no block is that recent.
func StartHeight(ctx context.Context, b chain.Backend, timestamp int64) (int32, error) {
	tip, err := b.Tip(ctx)
	if err != nil {
		return 0, err
	}
	times := map[int32]int64{}
	// load reads the times of the given heights not known yet.
	load := func(heights []int32) error {
		var need []int32
		for _, h := range heights {
			if _, ok := times[h]; !ok && h >= 0 {
				need = append(need, h)
			}
		}
		if len(need) == 0 {
			return nil
		}
		hashes, err := b.BlockHashes(ctx, need)
		if err != nil {
			return err
		}
		hdrs, err := b.Headers(ctx, hashes)
		if err != nil {
			return err
		}
		for i, h := range need {
			times[h] = hdrs[i].Timestamp.Unix()
		}
		return nil
	}
	span := func(h int32) []int32 {
		var hs []int32
		for i := max(0, h-medianSpan+1); i <= h; i++ {
			hs = append(hs, i)
		}
		return hs
	}
	mtp := func(h int32) (int64, error) {
		hs := span(h)
		if err := load(hs); err != nil {
			return 0, err
		}
		ts := make([]int64, len(hs))
		for i, x := range hs {
			ts[i] = times[x]
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
		return ts[len(ts)/2], nil
	}
	// First height whose median time past reaches timestamp, or
	// tip+1.
	lo, hi := int32(0), tip.Height+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		m, err := mtp(mid)
		if err != nil {
			return 0, err
		}
		if m >= timestamp {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	end := min(lo, tip.Height)
	cand := span(end)
	if err := load(cand); err != nil {
		return 0, err
	}
	for _, h := range cand {
		if times[h] >= timestamp {
			return h, nil
		}
	}
	return tip.Height + 1, nil
}
