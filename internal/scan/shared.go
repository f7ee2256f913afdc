package scan

import (
	"context"
	"sync"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/descwallet/descwallet/internal/chain"
)

// SharedFetches wraps a backend so that scans running at the same time
// share what they fetch: a filter or block asked for while another scan's
// request for it is in flight waits for that request, and the most recent
// ones are kept for a while. Rescans of different wallets over the same
// heights (wallets loaded together, imports of several wallets) then
// fetch each filter and block about once. Other calls pass through.
type SharedFetches struct {
	chain.Backend

	filters sharedSet[*chain.Filter]
	blocks  sharedSet[*chain.Block]
	raws    sharedSet[[]byte]
}

// Capacities of a SharedFetches: how many of the most recent items are
// kept.
const (
	sharedFilters = 4096
	sharedBlocks  = 16
)

// NewSharedFetches wraps b.
func NewSharedFetches(b chain.Backend) *SharedFetches {
	return &SharedFetches{Backend: b,
		filters: newSharedSet[*chain.Filter](sharedFilters),
		blocks:  newSharedSet[*chain.Block](sharedBlocks),
		raws:    newSharedSet[[]byte](sharedBlocks)}
}

// Filters returns the filters of hashes, fetching only those neither kept
// nor in flight.
func (s *SharedFetches) Filters(ctx context.Context, hashes []chainhash.Hash) ([]*chain.Filter, error) {
	return s.filters.get(ctx, hashes, s.Backend.Filters)
}

// Blocks returns the decoded blocks of hashes, sharing as Filters does.
func (s *SharedFetches) Blocks(ctx context.Context, hashes []chainhash.Hash) ([]*chain.Block, error) {
	return s.blocks.get(ctx, hashes, s.Backend.Blocks)
}

// RawBlocks returns the raw blocks of hashes (see chain.RawBlockFetcher),
// sharing as Filters does; it fails when the backend has none.
func (s *SharedFetches) RawBlocks(ctx context.Context, hashes []chainhash.Hash) ([][]byte, error) {
	rf, ok := s.Backend.(chain.RawBlockFetcher)
	if !ok {
		return nil, &chain.Error{Kind: chain.ErrNotFound, Description: "the backend serves no raw blocks"}
	}
	return s.raws.get(ctx, hashes, rf.RawBlocks)
}

// Unwrap returns the wrapped backend.
func (s *SharedFetches) Unwrap() chain.Backend { return s.Backend }

// sharedSet is the kept and in-flight items of one kind, by block hash.
type sharedSet[T any] struct {
	mu       sync.Mutex
	kept     map[chainhash.Hash]T
	order    []chainhash.Hash // kept, oldest first
	max      int
	inFlight map[chainhash.Hash]*sharedCall[T]
}

// sharedCall is one item being fetched; done is closed when it is.
type sharedCall[T any] struct {
	done chan struct{}
	val  T
	err  error
}

func newSharedSet[T any](max int) sharedSet[T] {
	return sharedSet[T]{kept: map[chainhash.Hash]T{}, max: max,
		inFlight: map[chainhash.Hash]*sharedCall[T]{}}
}

// get returns the items of hashes: kept ones at once, in-flight ones when
// their fetch ends, the others fetched with fetch in one call.
func (s *sharedSet[T]) get(ctx context.Context, hashes []chainhash.Hash,
	fetch func(context.Context, []chainhash.Hash) ([]T, error)) ([]T, error) {
	out := make([]T, len(hashes))
	waits := map[int]*sharedCall[T]{}
	var mine []chainhash.Hash
	var mineIdx []int
	var calls []*sharedCall[T]
	s.mu.Lock()
	for i, h := range hashes {
		if v, ok := s.kept[h]; ok {
			out[i] = v
			continue
		}
		if c, ok := s.inFlight[h]; ok {
			waits[i] = c
			continue
		}
		c := &sharedCall[T]{done: make(chan struct{})}
		s.inFlight[h] = c
		mine = append(mine, h)
		mineIdx = append(mineIdx, i)
		calls = append(calls, c)
	}
	s.mu.Unlock()

	if len(mine) > 0 {
		vals, err := fetch(ctx, mine)
		s.mu.Lock()
		for j, h := range mine {
			c := calls[j]
			if err != nil {
				c.err = err
			} else {
				c.val = vals[j]
				out[mineIdx[j]] = vals[j]
				s.keep(h, vals[j])
			}
			delete(s.inFlight, h)
			close(c.done)
		}
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	for i, c := range waits {
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if c.err != nil {
			// The other scan's fetch failed (its context may have
			// ended): fetch it here.
			v, err := fetch(ctx, hashes[i:i+1])
			if err != nil {
				return nil, err
			}
			out[i] = v[0]
			continue
		}
		out[i] = c.val
	}
	return out, nil
}

// keep adds an item, dropping the oldest past max. The caller holds mu.
func (s *sharedSet[T]) keep(h chainhash.Hash, v T) {
	if _, ok := s.kept[h]; ok {
		return
	}
	s.kept[h] = v
	s.order = append(s.order, h)
	for len(s.order) > s.max {
		delete(s.kept, s.order[0])
		s.order = s.order[1:]
	}
}
