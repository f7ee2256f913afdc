package scan

import (
	"context"
	"sort"
	"time"

	"github.com/descwallet/descwallet/internal/chain"
)

// medianSpan is the number of blocks whose times give a block's median
// time past.
const medianSpan = 11

// Sync brings the wallet from its last processed block to the backend's
// tip: it rolls back to the fork point when the recent blocks it processed
// left the best chain, scans the new blocks, and records the new chain
// state. A wallet that processed nothing yet starts at the tip without
// scanning (imports scan their own history). It returns the number of blocks
// scanned.
func (s *Scanner) Sync(ctx context.Context) (int, error) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	b := s.cfg.Backend
	tip, err := b.Tip(ctx)
	if err != nil {
		return 0, err
	}
	last, ok := s.state.Tip()
	if !ok {
		st := ChainState{Recent: []chain.BlockID{tip}}
		if err := s.cfg.Sink.Checkpoint(ctx, st); err != nil {
			return 0, err
		}
		s.state = st
		return 0, nil
	}
	if last == tip {
		return 0, nil
	}
	fork, err := s.forkPoint(ctx, tip.Height)
	if err != nil {
		return 0, err
	}
	if fork < 0 {
		// Only the genesis block is known to be common (a backend
		// that restarted its chain, or a reorg deeper than the recent
		// blocks kept).
		h, err := b.BlockHashes(ctx, []int32{0})
		if err != nil {
			return 0, err
		}
		s.state.Recent = []chain.BlockID{{Height: 0, Hash: h[0]}}
		fork = 0
	}
	if fork < last.Height {
		s.cfg.Log.Info("reorg: rolling back", "from", last.Height,
			"to", fork)
		if err := s.cfg.Sink.Rollback(ctx, fork); err != nil {
			return 0, err
		}
		kept := s.state.Recent[:0:0]
		for _, id := range s.state.Recent {
			if id.Height <= fork {
				kept = append(kept, id)
			}
		}
		s.state = ChainState{Recent: kept}
		if err := s.cfg.Sink.Checkpoint(ctx, s.state); err != nil {
			return 0, err
		}
	}
	res, recent, err := s.scanRange(ctx, fork+1, tip.Height, false)
	if err != nil {
		return res.Blocks, err
	}
	all := append(append([]chain.BlockID(nil), s.state.Recent...), recent...)
	if len(all) > s.cfg.Recent {
		all = all[len(all)-s.cfg.Recent:]
	}
	st := ChainState{Recent: all}
	if err := s.cfg.Sink.Checkpoint(ctx, st); err != nil {
		return res.Blocks, err
	}
	s.state = st
	s.cfg.Log.Debug("synced to the tip", "from", fork+1, "tip", tip.Height,
		"blocks", res.Blocks, "fetched", res.Fetched, "found", res.Found)
	return res.Blocks, nil
}

// forkPoint returns the height of the highest recent block still on the
// backend's best chain (whose height is tipHeight), or -1 when none is.
func (s *Scanner) forkPoint(ctx context.Context, tipHeight int32) (int32, error) {
	var heights []int32
	var ids []chain.BlockID
	for _, id := range s.state.Recent {
		if id.Height <= tipHeight {
			heights = append(heights, id.Height)
			ids = append(ids, id)
		}
	}
	if len(heights) == 0 {
		return -1, nil
	}
	hashes, err := s.cfg.Backend.BlockHashes(ctx, heights)
	if err != nil {
		return 0, err
	}
	for i := len(ids) - 1; i >= 0; i-- {
		if hashes[i] == ids[i].Hash {
			return ids[i].Height, nil
		}
	}
	return -1, nil
}

// Follow runs Sync, then PollMempool, every interval until ctx ends,
// logging failures (an unreachable backend is retried at the next tick).
func (s *Scanner) Follow(ctx context.Context, interval time.Duration) error {
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := s.Sync(ctx); err != nil {
			if ctx.Err() == nil {
				s.cfg.Log.Warn("chain sync failed", "err", err)
			}
		} else if _, err := s.PollMempool(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Log.Warn("mempool poll failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

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
