package scan

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/safego"
)

// The per-block choice between the filter and the block. Matching a filter
// hashes every watched script (about 5 ns each with the lane hasher);
// looking through the raw block instead costs a walk over its bytes and one
// hash and lookup per output and input, about filterElementCost per filter
// element (the filter holds one element per distinct output script and
// spent script), plus the block's transfer. Blocks are fetched raw when the
// watched scripts cost more to hash than the block costs to look through.
const (
	// scriptHashCost and filterElementCost are relative costs (ns) of
	// hashing one watched script and of looking one filter element up in
	// the raw block.
	scriptHashCost    = 5
	filterElementCost = 60

	// rawBlockFixed is the fixed cost (ns) of fetching a block rather
	// than matching its filter.
	rawBlockFixed = 20000

	// filterScriptsCeiling is the number of watched scripts past which
	// filters are never matched (and scripts not prepared for it): at
	// that size the block is cheaper than any filter.
	filterScriptsCeiling = 2_000_000
)

// engine scans height ranges for a set of members over one index. Both the
// Scanner (one wallet) and the Follower (every wallet) scan through it.
type engine struct {
	cfg Config
	x   *index

	// members by id; in tells which of them the running scan serves.
	members []*member
	in      []bool

	mu       sync.Mutex
	noFilter bool

	// path forces the per-block choice (tests and benchmarks).
	path int
}

// Per-block choices of engine.path.
const (
	pathAuto   = iota // the cheaper, by the cost model
	pathFilter        // the filter whenever there is one
	pathRaw           // the raw block always
)

// raw tells whether the backend hands out raw blocks.
func (e *engine) raw() (chain.RawBlockFetcher, bool) {
	r, ok := e.cfg.Backend.(chain.RawBlockFetcher)
	if s, shared := e.cfg.Backend.(*SharedFetches); shared {
		_, ok = s.Backend.(chain.RawBlockFetcher)
	}
	return r, ok
}

// probe is the scan's view of the watched scripts for filter matching, an
// immutable snapshot the fetching goroutines share.
type probe struct {
	gen     uint64
	scripts int
	watches []*chain.Watch
	// all: a member is asked (ScriptMatcher), so every block is
	// fetched.
	all bool
}

// matchFilter reports whether f may hold one of p's scripts.
func (p *probe) matchFilter(f *chain.Filter) bool {
	for _, w := range p.watches {
		if f.MatchWatch(w) {
			return true
		}
	}
	return false
}

// wantRaw tells whether the block of filter f (nil: none) is to be looked
// through raw rather than its filter matched.
func (p *probe) wantRaw(f *chain.Filter, raw bool, path int) bool {
	if !raw {
		return false
	}
	if f == nil || p.all || p.scripts > filterScriptsCeiling || path == pathRaw {
		return true
	}
	if path == pathFilter {
		return false
	}
	return p.scripts*scriptHashCost > int(f.N())*filterElementCost+rawBlockFixed
}

// scanSet is the members one scan serves.
type scanSet struct {
	members []*member

	// lone makes a sink's failure the scan's; otherwise the member
	// leaves the scan (failed) and the others go on.
	lone bool

	// rescan marks deliveries as a rescan's.
	rescan bool

	// follow is set by a Follower's sync: base is its members' chain
	// state before the scan, stop the scan's last height. The block at
	// stop is delivered with the state it leaves them at (BlockInfo.State).
	follow *followScan

	// gen counts the watch list reloads of the scan's members.
	gen uint64

	// onWindow, when set, is called after each window with the next
	// height to scan and the blocks scanned so far.
	onWindow func(next int32, blocks int) error

	// failed collects the members that left the scan on a failure.
	failed []*member
}

// followScan is what a Follower's sync tells its scan of the chain state.
type followScan struct {
	base []chain.BlockID
	stop int32
	// last is the state after stop, worked out as the scan reaches it.
	last *ChainState
}

// begin marks the set's members as served.
func (e *engine) begin(set *scanSet) {
	for _, m := range set.members {
		for int(m.id) >= len(e.in) {
			e.in = append(e.in, false)
		}
		e.in[m.id] = true
	}
}

// serves tells whether the running scan serves member id.
func (e *engine) serves(id uint32) bool {
	return int(id) < len(e.in) && e.in[id]
}

// end clears the marks of begin.
func (e *engine) end(set *scanSet) {
	for _, m := range set.members {
		if int(m.id) < len(e.in) {
			e.in[m.id] = false
		}
	}
}

// fail takes m out of the scan after its sink failed.
func (e *engine) fail(set *scanSet, m *member, err error) error {
	if set.lone {
		return err
	}
	m.err = err
	m.joined = false
	e.in[m.id] = false
	set.failed = append(set.failed, m)
	kept := set.members[:0]
	for _, o := range set.members {
		if o != m {
			kept = append(kept, o)
		}
	}
	set.members = kept
	e.cfg.Log.Warn("wallet left the chain follower after a failure; it catches up at the next sync", "err", err)
	return nil
}

// probeOf builds the filter-matching view of the set's scripts.
func (e *engine) probeOf(set *scanSet) *probe {
	p := &probe{gen: set.gen}
	for _, m := range set.members {
		p.scripts += len(m.scripts)
		p.all = p.all || m.matcher != nil
	}
	_, raw := e.raw()
	if raw && (p.all || p.scripts > filterScriptsCeiling || e.path == pathRaw) {
		return p
	}
	for _, m := range set.members {
		m.prepare()
		p.watches = append(p.watches, m.watches...)
	}
	return p
}

// window is a run of heights with their hashes, and, per height, the block
// when it was fetched (decoded or raw) and the filter when filters are used.
type window struct {
	start   int32
	hashes  []chainhash.Hash
	filters []*chain.Filter
	blocks  []*chain.Block
	raws    [][]byte
	gen     uint64 // probe generation the filters were matched with
	err     error
}

// fetched tells whether height i of the window was fetched.
func (w *window) fetched(i int) bool { return w.blocks[i] != nil || w.raws[i] != nil }

// useFilters tells whether filters are to be fetched: unless the backend
// was found to keep none (fetchWindow finds out) or they are turned off.
func (e *engine) useFilters() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return !e.noFilter
}

// scanRange scans [start, stop] for the set's members and returns the
// result.
func (e *engine) scanRange(ctx context.Context, set *scanSet, start, stop int32) (Result, error) {
	t0 := time.Now()
	res := Result{Start: start, Stop: stop}
	if stop < start || len(set.members) == 0 {
		return res, nil
	}
	e.begin(set)
	defer e.end(set)
	useFilters := e.useFilters()

	// The current probe, for the producer's filter matching.
	var probeMu sync.Mutex
	cur := e.probeOf(set)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	size := e.cfg.FullWindow
	if useFilters {
		size = e.cfg.Window
	}
	// Windows are fetched ahead, several at once, and delivered in
	// order: each queued channel yields one window.
	queue := make(chan chan *window, e.cfg.Ahead)
	produced := safego.Go("rescan window producer", func() error {
		defer close(queue)
		for lo := int64(start); lo <= int64(stop); lo += int64(size) {
			hi := min(lo+int64(size)-1, int64(stop))
			ch := make(chan *window, 1)
			select {
			case queue <- ch:
			case <-ctx.Done():
				return nil
			}
			safego.Go("rescan window fetch", func() error {
				var win *window
				err := safego.Run("rescan window fetch", func() error {
					probeMu.Lock()
					p := cur
					probeMu.Unlock()
					win = e.fetchWindow(ctx, int32(lo), int32(hi), useFilters, p)
					return nil
				})
				if err != nil {
					win = &window{err: err}
				}
				ch <- win
				return nil
			})
		}
		return nil
	})

	// recent are the last blocks scanned (Config.Recent of them), for the
	// chain state a Follower's last block is delivered with.
	var recent []chain.BlockID
	for ch := range queue {
		var win *window
		select {
		case win = <-ch:
		case <-ctx.Done():
			return res, ctx.Err()
		}
		if win.err != nil {
			return res, win.err
		}
		if useFilters && win.gen != cur.gen {
			if err := e.fetchMatching(ctx, win, 0, cur); err != nil {
				return res, err
			}
		}
		for i := range win.hashes {
			height := win.start + int32(i)
			id := chain.BlockID{Height: height, Hash: win.hashes[i]}
			if fs := set.follow; fs != nil && height == fs.stop {
				fs.last = &ChainState{Recent: e.lastRecent(fs.base, recent, id)}
			}
			if win.fetched(i) {
				res.Fetched++
				found, reloaded, err := e.block(ctx, set, win, i, height)
				if err != nil {
					return res, err
				}
				res.Found += found
				if reloaded {
					set.gen++
					p := e.probeOf(set)
					probeMu.Lock()
					cur = p
					probeMu.Unlock()
					if useFilters {
						if err := e.fetchMatching(ctx, win, i+1, p); err != nil {
							return res, err
						}
					}
				}
			}
			res.Blocks++
			if set.follow != nil {
				recent = append(recent, id)
			}
		}
		if len(recent) > e.cfg.Recent {
			recent = append(recent[:0], recent[len(recent)-e.cfg.Recent:]...)
		}
		if set.onWindow != nil {
			next := win.start + int32(len(win.hashes))
			if err := set.onWindow(next, res.Blocks); err != nil {
				return res, err
			}
		}
	}
	if err := <-produced; err != nil {
		// The producer failed: the windows after its last one are missing.
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	res.Filters = e.useFilters()
	res.Duration = time.Since(t0)
	return res, nil
}

// lastRecent is the chain state after block id: base, then the blocks
// scanned before it, then id, the last Config.Recent of them (as a
// Follower's sync keeps them).
func (e *engine) lastRecent(base, scanned []chain.BlockID, id chain.BlockID) []chain.BlockID {
	all := make([]chain.BlockID, 0, len(base)+len(scanned)+1)
	all = append(append(append(all, base...), scanned...), id)
	if len(all) > e.cfg.Recent {
		all = all[len(all)-e.cfg.Recent:]
	}
	return all
}

// block processes the fetched block at index i of win: a raw block is
// looked through first and decoded only when it holds something watched.
// It delivers each member's transactions and reloads the watch lists that
// grew; it reports the transactions delivered and whether a watch list
// was reloaded.
func (e *engine) block(ctx context.Context, set *scanSet, win *window, i int, height int32) (int, bool, error) {
	blk := win.blocks[i]
	if blk == nil && asking(set) {
		// A member's scripts are asked about: the block's outputs are
		// all looked at.
		var err error
		if blk, err = chain.DecodeBlock(win.raws[i], win.hashes[i]); err != nil {
			return 0, false, err
		}
	}
	if blk == nil {
		raw := win.raws[i]
		hit, err := chain.ScanBlock(raw, func(op *wire.OutPoint) bool {
			return e.x.outpoints.anyIn(*op, e.in)
		}, func(script []byte) bool {
			return e.x.watched(e.x.key(script), e.in)
		})
		if err != nil {
			return 0, false, err
		}
		if !hit {
			return 0, false, nil
		}
		if blk, err = chain.DecodeBlock(raw, win.hashes[i]); err != nil {
			return 0, false, err
		}
	}
	return e.deliver(ctx, set, blk, height)
}

// asking tells whether a member of set is a ScriptMatcher.
func asking(set *scanSet) bool {
	for _, m := range set.members {
		if m.matcher != nil {
			return true
		}
	}
	return false
}

// outKey names output j of transaction i of a block or batch.
func outKey(i, j int) uint64 { return uint64(i)<<32 | uint64(j) }

// ask asks each member of members that is a ScriptMatcher which outputs
// of txs pay it, in one call per member, and returns the ids of the
// members owning each output (by outKey). A member whose call fails is
// handed to failed and left out.
func ask(ctx context.Context, members []*member, txs []*wire.MsgTx, failed func(*member, error) error) (map[uint64][]uint32, error) {
	var scripts [][]byte
	var keys []uint64
	var owned map[uint64][]uint32
	for _, m := range members {
		if m.matcher == nil {
			continue
		}
		if scripts == nil {
			for i, tx := range txs {
				if tx == nil {
					continue
				}
				for j, out := range tx.TxOut {
					scripts = append(scripts, out.PkScript)
					keys = append(keys, outKey(i, j))
				}
			}
			if len(scripts) == 0 {
				return nil, nil
			}
		}
		mine, err := m.matcher.MatchScripts(ctx, scripts)
		if err == nil && len(mine) != len(scripts) {
			err = fmt.Errorf("script matcher answered %d of %d scripts", len(mine), len(scripts))
		}
		if err != nil {
			if err := failed(m, err); err != nil {
				return nil, err
			}
			continue
		}
		for k, ok := range mine {
			if ok {
				if owned == nil {
					owned = map[uint64][]uint32{}
				}
				owned[keys[k]] = append(owned[keys[k]], m.id)
			}
		}
	}
	return owned, nil
}

// delivery is one member's share of a block.
type delivery struct {
	txs []*wire.MsgTx
	idx []int
}

// deliver hands each member of the scan its transactions of blk: those
// paying a script it watches or spending an outpoint it watches. Outputs
// to watched scripts become watched outpoints; outpoints the block spends
// stop being watched (a rollback reads them again).
func (e *engine) deliver(ctx context.Context, set *scanSet, blk *chain.Block, height int32) (int, bool, error) {
	x := e.x
	// fail rewrites set.members: ask goes through a copy.
	asked, err := ask(ctx, slices.Clone(set.members), blk.Transactions, func(m *member, err error) error {
		return e.fail(set, m, err)
	})
	if err != nil {
		return 0, false, err
	}
	var per map[uint32]*delivery
	var order []uint32
	var owners []uint32
	var spent []wire.OutPoint
	var spentBy []uint32
	for i, tx := range blk.Transactions {
		owners = owners[:0]
		if i > 0 {
			for _, in := range tx.TxIn {
				n := len(owners)
				owners = x.outpoints.owners(in.PreviousOutPoint, owners)
				for _, id := range owners[n:] {
					if e.serves(id) {
						spent = append(spent, in.PreviousOutPoint)
						spentBy = append(spentBy, id)
					}
				}
			}
		}
		for j, out := range tx.TxOut {
			n := len(owners)
			if k := x.key(out.PkScript); x.seen.may(k) {
				owners = x.scripts.owners(k, owners)
			}
			if asked != nil {
				owners = append(owners, asked[outKey(i, j)]...)
			}
			for _, id := range owners[n:] {
				if e.serves(id) {
					x.outpoints.add(wire.OutPoint{Hash: blk.TxIDs[i], Index: uint32(j)}, id)
				}
			}
		}
		for k, id := range owners {
			if !e.serves(id) || containsID(owners[:k], id) {
				continue
			}
			if per == nil {
				per = map[uint32]*delivery{}
			}
			d := per[id]
			if d == nil {
				d = &delivery{}
				per[id] = d
				order = append(order, id)
			}
			d.txs = append(d.txs, tx)
			d.idx = append(d.idx, i)
		}
	}
	for k, op := range spent {
		x.outpoints.remove(op, spentBy[k])
	}
	found, reloaded := 0, false
	for _, id := range order {
		m := e.members[id]
		if m == nil || !e.serves(id) {
			continue
		}
		d := per[id]
		info := BlockInfo{Height: height, Hash: blk.Hash,
			Time: blk.Header.Timestamp, TxIndex: d.idx, Rescan: set.rescan}
		if fs := set.follow; fs != nil && height == fs.stop {
			info.State = fs.last
		}
		if err := m.sink.BlockConnected(ctx, info, d.txs); err != nil {
			if err := e.fail(set, m, err); err != nil {
				return found, reloaded, err
			}
			continue
		}
		found += len(d.txs)
		m.touched = true
		if m.src.Generation() != m.gen {
			if err := x.load(ctx, m); err != nil {
				if err := e.fail(set, m, err); err != nil {
					return found, reloaded, err
				}
				continue
			}
			reloaded = true
		}
	}
	return found, reloaded, nil
}

func containsID(ids []uint32, id uint32) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}

// fetchWindow fetches the hashes of [lo, hi] and either every block or the
// filters and the blocks p's scripts need: raw when looking through the
// block costs less than matching its filter, else when the filter matches.
func (e *engine) fetchWindow(ctx context.Context, lo, hi int32, filters bool, p *probe) *window {
	b := e.cfg.Backend
	win := &window{start: lo, gen: p.gen}
	heights := make([]int32, hi-lo+1)
	for i := range heights {
		heights[i] = lo + int32(i)
	}
	win.hashes, win.err = b.BlockHashes(ctx, heights)
	if win.err != nil {
		return win
	}
	win.blocks = make([]*chain.Block, len(heights))
	win.raws = make([][]byte, len(heights))
	if !filters {
		win.filters = make([]*chain.Filter, len(heights))
		win.err = e.fetchMatching(ctx, win, 0, p)
		return win
	}
	win.filters, win.err = b.Filters(ctx, win.hashes)
	if errors.Is(win.err, chain.ErrNoFilters) {
		e.mu.Lock()
		if !e.noFilter {
			e.cfg.Log.Info("backend has no block filters; scanning full blocks")
		}
		e.noFilter = true
		e.mu.Unlock()
	}
	if errors.Is(win.err, chain.ErrNotFound) || errors.Is(win.err, chain.ErrNoFilters) {
		// The backend's filter index lags behind its chain: this
		// window is scanned block by block.
		win.filters = make([]*chain.Filter, len(heights))
		win.err = nil
	}
	if win.err != nil {
		return win
	}
	win.err = e.fetchMatching(ctx, win, 0, p)
	return win
}

// fetchMatching fetches the blocks of win from index from on that p needs
// and that are not fetched yet: raw where looking through the block is the
// cheaper test, decoded where the filter matches or is missing.
func (e *engine) fetchMatching(ctx context.Context, win *window, from int, p *probe) error {
	rf, raw := e.raw()
	var want, wantRaw []chainhash.Hash
	var idx, idxRaw []int
	for i := from; i < len(win.hashes); i++ {
		if win.fetched(i) {
			continue
		}
		f := win.filters[i]
		if p.wantRaw(f, raw, e.path) {
			wantRaw = append(wantRaw, win.hashes[i])
			idxRaw = append(idxRaw, i)
			continue
		}
		if f == nil || p.all || p.matchFilter(f) {
			want = append(want, win.hashes[i])
			idx = append(idx, i)
		}
	}
	win.gen = p.gen
	if len(wantRaw) > 0 {
		raws, err := rf.RawBlocks(ctx, wantRaw)
		if err != nil {
			return err
		}
		for j, i := range idxRaw {
			win.raws[i] = raws[j]
		}
	}
	if len(want) == 0 {
		return nil
	}
	blocks, err := e.cfg.Backend.Blocks(ctx, want)
	if err != nil {
		return err
	}
	for j, i := range idx {
		win.blocks[i] = blocks[j]
	}
	return nil
}
