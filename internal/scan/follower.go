package scan

import (
	"context"
	"sync"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/descwallet/descwallet/internal/chain"
)

// Follower follows the backend's tip for any number of members (wallets)
// at once: one index of every member's scripts and outpoints, each new
// block's filter fetched and matched once (or the block looked through,
// when that is cheaper), each needed block fetched once and its
// transactions handed to the members they concern, and one mempool poll
// for all. Members that are behind (just added, or after a failure) catch
// up in the same Sync, those at the same block together, and then join
// the others.
type Follower struct {
	e engine

	syncMu sync.Mutex
	// state is the chain state of the joined members.
	state ChainState

	mu      sync.Mutex // guards added, the members' removed flags
	added   []*member
	nextID  uint32
	changed chan struct{}

	// Mempool polling state, guarded by syncMu.
	mempoolSeen map[chainhash.Hash]struct{}
	mempoolGen  uint64
	indexGen    uint64 // bumped whenever a member's watch list is read
}

// Member is a Source and Sink added to a Follower.
type Member struct {
	f *Follower
	m *member
}

// NewFollower returns a follower; cfg's Source, Sink and State are not
// used (members bring their own).
func NewFollower(cfg Config) *Follower {
	cfg = withDefaults(cfg)
	return &Follower{e: engine{cfg: cfg, x: newIndex(), noFilter: cfg.NoFilters},
		changed: make(chan struct{}, 1)}
}

// Add adds a member whose recorded chain state is st. It is indexed and
// caught up at the next Sync.
func (f *Follower) Add(src Source, sink Sink, st ChainState) *Member {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := &member{id: f.nextID, src: src, sink: sink,
		state: ChainState{Recent: append([]chain.BlockID(nil), st.Recent...)}}
	if last, ok := st.Tip(); ok {
		m.written = last.Height
	}
	f.nextID++
	f.added = append(f.added, m)
	return &Member{f: f, m: m}
}

// Remove takes the member out; the next Sync forgets it. Nothing is
// delivered to it once the Sync running when Remove returns has ended.
func (mb *Member) Remove() {
	mb.f.mu.Lock()
	mb.m.removed = true
	mb.f.mu.Unlock()
}

// Stale asks for the member's watch list to be read again at the next
// Sync: its outputs changed in a way the follower did not see (a rescan
// delivered blocks to it).
func (mb *Member) Stale() {
	mb.f.mu.Lock()
	mb.m.stale = true
	mb.f.mu.Unlock()
}

// Sync runs a Sync and reports whether the member is then at the
// follower's tip, with its failure when it is not.
func (mb *Member) Sync(ctx context.Context) error {
	if _, err := mb.f.Sync(ctx); err != nil {
		return err
	}
	mb.f.syncMu.Lock()
	defer mb.f.syncMu.Unlock()
	if mb.m.joined {
		return nil
	}
	if mb.m.err != nil {
		return mb.m.err
	}
	return scanErr(ErrBusy, "the wallet has not caught up with the chain yet", nil)
}

// State returns the joined members' chain state.
func (f *Follower) State() ChainState {
	f.syncMu.Lock()
	defer f.syncMu.Unlock()
	return ChainState{Recent: append([]chain.BlockID(nil), f.state.Recent...)}
}

// admit indexes the members added since the last Sync, forgets the
// removed ones and reads again the watch lists that changed. The caller
// holds syncMu.
func (f *Follower) admit(ctx context.Context) {
	f.mu.Lock()
	added := f.added
	f.added = nil
	var gone []*member
	for _, m := range added {
		for int(m.id) >= len(f.e.members) {
			f.e.members = append(f.e.members, nil)
		}
		f.e.members[m.id] = m
	}
	// The flags Remove and Stale set, read once.
	stale := make([]bool, len(f.e.members))
	for i, m := range f.e.members {
		switch {
		case m == nil:
		case m.removed:
			gone = append(gone, m)
		default:
			stale[i] = m.stale
			m.stale = false
		}
	}
	f.mu.Unlock()
	for _, m := range gone {
		f.e.x.drop(m)
		f.e.members[m.id] = nil
		f.indexGen++
	}
	if len(gone) > 0 {
		f.e.x.seen.rebuild(f.e.x.scripts.one)
	}
	for i, m := range f.e.members {
		if m == nil {
			continue
		}
		if m.loaded && !stale[i] && m.src.Generation() == m.gen && m.sourceChanges() == m.changes {
			continue
		}
		if err := f.e.x.load(ctx, m); err != nil {
			m.err, m.joined = err, false
			continue
		}
		f.indexGen++
	}
}

// live returns the members not removed, joined or not.
func (f *Follower) live(joined bool) []*member {
	var out []*member
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.e.members {
		if m != nil && !m.removed && m.loaded && m.joined == joined {
			out = append(out, m)
		}
	}
	return out
}

// Sync brings every member to the backend's tip: the joined members
// together (rolling them back to the fork point when the blocks they
// processed left the best chain), then the others, grouped by the block
// they last processed, each group scanned once and joined. A member that
// processed nothing yet starts at the tip without scanning (imports and
// catch-up rescans scan its history). It returns the number of blocks the
// joined members' scan covered. A member's own failure takes it out of
// the joined set (it catches up at a later Sync); backend failures end the
// Sync.
func (f *Follower) Sync(ctx context.Context) (int, error) {
	f.syncMu.Lock()
	defer f.syncMu.Unlock()
	f.admit(ctx)
	tip, err := f.e.cfg.Backend.Tip(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	if joined := f.live(true); len(joined) > 0 {
		st := f.state
		if n, err = f.syncGroup(ctx, &st, joined, tip, false); err != nil {
			return n, err
		}
		f.state = st
	}

	// The others, by the block they last processed.
	type group struct {
		st      ChainState
		members []*member
	}
	var groups []*group
	byTip := map[chain.BlockID]*group{}
	for _, m := range f.live(false) {
		last, ok := m.state.Tip()
		if !ok {
			// Nothing processed: it starts at the tip.
			st := ChainState{Recent: []chain.BlockID{tip}}
			if err := m.sink.Checkpoint(ctx, st); err != nil {
				m.err = err
				continue
			}
			m.state, m.written = st, tip.Height
			last = tip
		}
		g := byTip[last]
		if g == nil {
			g = &group{st: m.state}
			byTip[last] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, m)
	}
	for _, g := range groups {
		st := g.st
		k, err := f.syncGroup(ctx, &st, g.members, tip, true)
		if err != nil {
			return n, err
		}
		if len(f.live(true)) == 0 {
			// No joined member: the first group to catch up sets the
			// follower's state.
			f.state = ChainState{Recent: append([]chain.BlockID(nil), st.Recent...)}
			n = k
		}
		ftip, _ := f.state.Tip()
		stTip, _ := st.Tip()
		for _, m := range g.members {
			if m.err != nil {
				continue
			}
			m.state = st
			if stTip == ftip {
				m.joined = true
			}
		}
	}
	return n, nil
}

// syncGroup brings members, whose common chain state is st, to tip: a
// rollback to the fork point when st's recent blocks left the best chain,
// then a scan of the new blocks and a checkpoint of each member. Members
// whose sink fails are left out (m.err set) unless lone... it returns the
// number of blocks scanned. catchUp tells that the members are behind the
// follower (their failures are logged as such).
func (f *Follower) syncGroup(ctx context.Context, st *ChainState, members []*member, tip chain.BlockID, catchUp bool) (int, error) {
	for _, m := range members {
		m.err, m.touched = nil, false
	}
	last, _ := st.Tip()
	if last == tip {
		return 0, nil
	}
	b := f.e.cfg.Backend
	fork, err := forkPoint(ctx, b, st.Recent, tip.Height)
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
		st.Recent = []chain.BlockID{{Height: 0, Hash: h[0]}}
		fork = 0
	}
	set := &scanSet{members: members}
	if fork < last.Height {
		f.e.cfg.Log.Info("reorg: rolling back", "from", last.Height,
			"to", fork, "wallets", len(members))
		kept := st.Recent[:0:0]
		for _, id := range st.Recent {
			if id.Height <= fork {
				kept = append(kept, id)
			}
		}
		*st = ChainState{Recent: kept}
		for _, m := range set.members {
			if err := m.sink.Rollback(ctx, fork); err != nil {
				m.err = err
				continue
			}
			if err := m.sink.Checkpoint(ctx, *st); err != nil {
				m.err = err
				continue
			}
			m.state, m.written = *st, fork
			// Outputs the dropped blocks spent are the member's
			// again.
			if err := f.e.x.load(ctx, m); err != nil {
				m.err = err
			}
			f.indexGen++
		}
		set.members = withoutFailed(set.members)
	}
	set.follow = &followScan{base: st.Recent, stop: tip.Height}
	res, err := f.e.scanRange(ctx, set, fork+1, tip.Height)
	if err != nil {
		return res.Blocks, err
	}
	if len(set.failed) > 0 {
		f.indexGen++
	}
	if last := set.follow.last; last != nil {
		// The state the scan handed the last block with.
		*st = *last
	}
	for _, m := range set.members {
		if err := f.checkpoint(ctx, m, *st, tip.Height); err != nil {
			m.err = err
			m.joined = false
			continue
		}
		m.state = *st
	}
	f.e.cfg.Log.Debug("synced to the tip", "from", fork+1, "tip", tip.Height,
		"blocks", res.Blocks, "fetched", res.Fetched, "found", res.Found,
		"wallets", len(set.members), "catch_up", catchUp)
	return res.Blocks, nil
}

// checkpoint records st, whose tip is at height, as m's chain state: in
// memory only when the member's sink can (TipAdvancer) and nothing calls
// for a write (see TipAdvancer), else with Checkpoint.
func (f *Follower) checkpoint(ctx context.Context, m *member, st ChainState, height int32) error {
	if ta, ok := m.sink.(TipAdvancer); ok && !m.touched &&
		height/CheckpointEvery == m.written/CheckpointEvery && height >= m.written {
		done, err := ta.AdvanceTip(ctx, st)
		if err != nil || done {
			return err
		}
	}
	if err := m.sink.Checkpoint(ctx, st); err != nil {
		return err
	}
	m.written = height
	return nil
}

func withoutFailed(ms []*member) []*member {
	kept := ms[:0:0]
	for _, m := range ms {
		if m.err == nil {
			kept = append(kept, m)
		}
	}
	return kept
}

// forkPoint returns the height of the highest of the recent blocks still
// on the backend's best chain (whose height is tipHeight), or -1 when none
// is.
func forkPoint(ctx context.Context, b chain.Backend, recent []chain.BlockID, tipHeight int32) (int32, error) {
	var heights []int32
	var ids []chain.BlockID
	for _, id := range recent {
		if id.Height <= tipHeight {
			heights = append(heights, id.Height)
			ids = append(ids, id)
		}
	}
	if len(heights) == 0 {
		return -1, nil
	}
	hashes, err := b.BlockHashes(ctx, heights)
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
// Kick makes it run at once.
func (f *Follower) Follow(ctx context.Context, interval time.Duration) error {
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := f.Sync(ctx); err != nil {
			if ctx.Err() == nil {
				f.e.cfg.Log.Warn("chain sync failed", "err", err)
			}
		} else if _, err := f.PollMempool(ctx); err != nil && ctx.Err() == nil {
			f.e.cfg.Log.Warn("mempool poll failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		case <-f.changed:
		}
	}
}

// Kick makes Follow run a round now rather than at the next tick.
func (f *Follower) Kick() {
	select {
	case f.changed <- struct{}{}:
	default:
	}
}
