package scan

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/safego"
)

// WatchList is what a wallet watches for.
type WatchList struct {
	// Generation changes whenever Scripts gain entries.
	Generation uint64

	// Scripts are the wallet's scriptPubKeys.
	Scripts [][]byte

	// Outpoints are the outputs the wallet owns that no transaction of a
	// block spends (a spend still in the mempool leaves its outputs
	// watched, so that the block confirming it matches).
	Outpoints []wire.OutPoint
}

// Source is the wallet side the scanner reads its watch list from.
type Source interface {
	// WatchList returns the current watch list.
	WatchList(ctx context.Context) (*WatchList, error)

	// Generation returns the current watch list's generation, cheaply:
	// the scanner asks after each block it delivers.
	Generation() uint64
}

// BlockInfo describes a block of the best chain.
type BlockInfo struct {
	Height int32
	Hash   chainhash.Hash
	Time   time.Time

	// TxIndex holds, for each delivered transaction, its position in
	// the block.
	TxIndex []int

	// Rescan tells that a rescan delivers the block (an old block), not
	// the following of the tip.
	Rescan bool
}

// ChainState is what a wallet records of the chain it processed: its last
// blocks, oldest first, the last one being the last processed block. Empty
// means nothing was processed yet.
type ChainState struct {
	Recent []chain.BlockID
}

// Tip returns the last processed block, or false when there is none.
func (s ChainState) Tip() (chain.BlockID, bool) {
	if len(s.Recent) == 0 {
		return chain.BlockID{}, false
	}
	return s.Recent[len(s.Recent)-1], true
}

// Sink is the wallet side the scanner reports to.
type Sink interface {
	// BlockConnected delivers, in height order, a block holding wallet
	// transactions and those transactions in block order. The same block
	// may be delivered again (a rescan over processed heights): the sink
	// makes that idempotent.
	BlockConnected(ctx context.Context, blk BlockInfo, txs []*wire.MsgTx) error

	// Checkpoint records the chain state after Sync processed blocks up to
	// its tip.
	Checkpoint(ctx context.Context, st ChainState) error

	// Rollback drops every block above height (the fork point): their
	// transactions become unconfirmed.
	Rollback(ctx context.Context, height int32) error
}

// RescanRecorder is an optional Sink interface: a sink that implements it
// learns how far a rescan got, so that it can resume one after a restart.
type RescanRecorder interface {
	// RescanProgress records that heights below next have been scanned
	// in the rescan up to stop.
	RescanProgress(ctx context.Context, next, stop int32) error
}

// Defaults of a Config.
const (
	DefaultWindow       = 250
	DefaultFullWindow   = 64
	DefaultAhead        = 4
	DefaultRecent       = 100
	DefaultLogInterval  = 10 * time.Second
	DefaultPollInterval = 2 * time.Second

	// DefaultMempoolPerPoll is how many mempool transactions one poll
	// fetches at most; the rest wait for the next polls.
	DefaultMempoolPerPoll = 2000
)

// Config sets up a Scanner.
type Config struct {
	Backend chain.Backend
	Source  Source
	Sink    Sink

	// State is the wallet's recorded chain state.
	State ChainState

	// Log receives progress lines; nil discards them.
	Log *slog.Logger

	// NoFilters makes scans fetch every block even when the backend
	// has filters.
	NoFilters bool

	// Window is the number of heights per filter window; FullWindow per
	// window of full blocks. Zero means the defaults.
	Window, FullWindow int

	// Ahead is how many windows are fetched ahead of the one being
	// processed; zero means DefaultAhead.
	Ahead int

	// Recent is how many recent blocks the chain state keeps.
	Recent int

	// LogInterval is the least time between two progress lines.
	LogInterval time.Duration

	// MempoolPerPoll bounds how many mempool transactions one poll
	// fetches; zero means DefaultMempoolPerPoll, a negative value turns
	// mempool polling off.
	MempoolPerPoll int
}

// Progress describes a running rescan.
type Progress struct {
	// Start and Stop are the rescan's heights, Height the next to scan.
	Start, Stop, Height int32

	// Started is when the rescan began.
	Started time.Time

	// Blocks is the number of blocks scanned so far.
	Blocks int
}

// Fraction returns the share of the range scanned, 0 to 1.
func (p Progress) Fraction() float64 {
	n := p.Stop - p.Start + 1
	if n <= 0 {
		return 1
	}
	f := float64(p.Height-p.Start) / float64(n)
	return min(max(f, 0), 1)
}

// Rate returns blocks per second so far.
func (p Progress) Rate() float64 {
	d := time.Since(p.Started).Seconds()
	if d <= 0 {
		return 0
	}
	return float64(p.Blocks) / d
}

// Result sums up a scan.
type Result struct {
	Start, Stop int32

	// Blocks is the number of heights scanned, Fetched the number of full
	// blocks fetched, Found the number of wallet transactions delivered.
	Blocks, Fetched, Found int

	// Filters tells whether filters were used.
	Filters bool

	Duration time.Duration
}

// Scanner scans one wallet. Sync and Follow are serialized; one rescan runs
// at a time, alongside them.
type Scanner struct {
	cfg Config

	syncMu sync.Mutex
	state  ChainState

	mu       sync.Mutex
	progress *Progress
	cancel   context.CancelFunc
	lastLog  time.Time
	noFilter bool

	// Mempool polling state, guarded by syncMu.
	mempoolSeen map[chainhash.Hash]struct{}
	mempoolGen  uint64
}

// New returns a scanner.
func New(cfg Config) *Scanner {
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.FullWindow <= 0 {
		cfg.FullWindow = DefaultFullWindow
	}
	if cfg.Ahead <= 0 {
		cfg.Ahead = DefaultAhead
	}
	if cfg.Recent <= 0 {
		cfg.Recent = DefaultRecent
	}
	if cfg.LogInterval <= 0 {
		cfg.LogInterval = DefaultLogInterval
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.MempoolPerPoll == 0 {
		cfg.MempoolPerPoll = DefaultMempoolPerPoll
	}
	return &Scanner{cfg: cfg, state: cfg.State, noFilter: cfg.NoFilters}
}

// State returns the chain state Sync last recorded.
func (s *Scanner) State() ChainState {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	return ChainState{Recent: append([]chain.BlockID(nil), s.state.Recent...)}
}

// Progress returns the running rescan's progress, false when none runs.
func (s *Scanner) Progress() (Progress, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.progress == nil {
		return Progress{}, false
	}
	return *s.progress, true
}

// Abort stops the running rescan and reports whether one was running.
func (s *Scanner) Abort() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel == nil {
		return false
	}
	s.cancel()
	return true
}

// Rescan scans heights start to stop (stop < 0: the tip when it starts)
// and delivers what it finds to the sink. It fails with ErrBusy when a
// rescan runs already and with ErrAborted when aborted.
func (s *Scanner) Rescan(ctx context.Context, start, stop int32) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	if s.progress != nil {
		s.mu.Unlock()
		return Result{}, scanErr(ErrBusy, "a rescan is running", nil)
	}
	s.progress = &Progress{Start: start, Stop: stop, Height: start,
		Started: time.Now()}
	s.cancel = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.progress, s.cancel = nil, nil
		s.mu.Unlock()
	}()

	if stop < 0 {
		tip, err := s.cfg.Backend.Tip(ctx)
		if err != nil {
			return Result{}, s.wrapCtx(ctx, err)
		}
		stop = tip.Height
		s.mu.Lock()
		s.progress.Stop = stop
		s.mu.Unlock()
	}
	if start < 0 {
		start = 0
	}
	s.cfg.Log.Info("rescan started", "start", start, "stop", stop)
	res, _, err := s.scanRange(ctx, start, stop, true)
	if err != nil {
		return res, s.wrapCtx(ctx, err)
	}
	s.cfg.Log.Info("rescan done", "start", start, "stop", stop,
		"blocks", res.Blocks, "fetched", res.Fetched, "found", res.Found,
		"filters", res.Filters, "seconds", res.Duration.Seconds())
	return res, nil
}

// wrapCtx turns a failure caused by the context's end into ErrAborted.
func (s *Scanner) wrapCtx(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return scanErr(ErrAborted, "rescan aborted", ctx.Err())
	}
	return err
}

// watch is the scanner's working copy of the watch list.
type watch struct {
	gen       uint64
	scripts   [][]byte
	prepared  *chain.Watch // scripts, for filter matching
	scriptSet map[string]struct{}
	outpoints map[wire.OutPoint]struct{}
}

func (s *Scanner) loadWatch(ctx context.Context, old *watch) (*watch, error) {
	wl, err := s.cfg.Source.WatchList(ctx)
	if err != nil {
		return nil, err
	}
	w := &watch{gen: wl.Generation, scripts: wl.Scripts,
		prepared:  chain.NewWatch(wl.Scripts),
		scriptSet: make(map[string]struct{}, len(wl.Scripts)),
		outpoints: make(map[wire.OutPoint]struct{}, len(wl.Outpoints))}
	for _, sc := range wl.Scripts {
		w.scriptSet[string(sc)] = struct{}{}
	}
	for _, op := range wl.Outpoints {
		w.outpoints[op] = struct{}{}
	}
	if old != nil {
		for op := range old.outpoints {
			w.outpoints[op] = struct{}{}
		}
	}
	return w, nil
}

// match returns the wallet's transactions in blk with their positions in
// it, and watches their outputs to the wallet.
func (w *watch) match(blk *chain.Block) ([]*wire.MsgTx, []int) {
	var found []*wire.MsgTx
	var idx []int
	for i, tx := range blk.Transactions {
		mine := false
		if i > 0 {
			for _, in := range tx.TxIn {
				if _, ok := w.outpoints[in.PreviousOutPoint]; ok {
					mine = true
					break
				}
			}
		}
		for j, out := range tx.TxOut {
			if _, ok := w.scriptSet[string(out.PkScript)]; ok {
				mine = true
				w.outpoints[wire.OutPoint{Hash: blk.TxIDs[i],
					Index: uint32(j)}] = struct{}{}
			}
		}
		if mine {
			found = append(found, tx)
			idx = append(idx, i)
		}
	}
	return found, idx
}

// window is a run of heights with their hashes, and, per height, the block
// when it was fetched and the filter when filters are used.
type window struct {
	start   int32
	hashes  []chainhash.Hash
	filters []*chain.Filter
	blocks  []*chain.Block
	gen     uint64 // watch generation the filters were matched with
	err     error
}

// scanRange scans [start, stop] and returns the result and the hashes of
// the last Recent heights scanned. rescan tells whether progress is
// published.
func (s *Scanner) scanRange(ctx context.Context, start, stop int32, rescan bool) (Result, []chain.BlockID, error) {
	t0 := time.Now()
	res := Result{Start: start, Stop: stop}
	if stop < start {
		return res, nil, nil
	}
	w, err := s.loadWatch(ctx, nil)
	if err != nil {
		return res, nil, err
	}
	s.mu.Lock()
	useFilters := !s.noFilter
	s.mu.Unlock()
	if useFilters {
		// Ask once whether the backend has filters.
		h, err := s.cfg.Backend.BlockHashes(ctx, []int32{start})
		if err != nil {
			return res, nil, err
		}
		if _, err := s.cfg.Backend.Filters(ctx, h); errors.Is(err, chain.ErrNoFilters) {
			s.cfg.Log.Info("backend has no block filters; scanning full blocks")
			s.mu.Lock()
			s.noFilter = true
			s.mu.Unlock()
			useFilters = false
		} else if err != nil {
			return res, nil, err
		}
	}
	res.Filters = useFilters

	// The current scripts, for the producer's filter matching.
	var scriptsMu sync.Mutex
	curScripts, curGen := w.prepared, w.gen

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	size := s.cfg.FullWindow
	if useFilters {
		size = s.cfg.Window
	}
	// Windows are fetched ahead, several at once, and delivered in
	// order: each queued channel yields one window.
	queue := make(chan chan *window, s.cfg.Ahead)
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
					scriptsMu.Lock()
					scripts, gen := curScripts, curGen
					scriptsMu.Unlock()
					win = s.fetchWindow(ctx, int32(lo), int32(hi), useFilters,
						scripts, gen)
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

	var recent []chain.BlockID
	for ch := range queue {
		var win *window
		select {
		case win = <-ch:
		case <-ctx.Done():
			return res, nil, ctx.Err()
		}
		if win.err != nil {
			return res, nil, win.err
		}
		if useFilters && win.gen != w.gen {
			if err := s.rematch(ctx, win, 0, w.prepared); err != nil {
				return res, nil, err
			}
		}
		for i := range win.hashes {
			height := win.start + int32(i)
			blk := win.blocks[i]
			if blk != nil {
				res.Fetched++
				if txs, idx := w.match(blk); len(txs) > 0 {
					info := BlockInfo{Height: height, Hash: blk.Hash,
						Time: blk.Header.Timestamp, TxIndex: idx, Rescan: rescan}
					if err := s.cfg.Sink.BlockConnected(ctx, info, txs); err != nil {
						return res, nil, err
					}
					res.Found += len(txs)
					if s.cfg.Source.Generation() != w.gen {
						if w, err = s.loadWatch(ctx, w); err != nil {
							return res, nil, err
						}
						scriptsMu.Lock()
						curScripts, curGen = w.prepared, w.gen
						scriptsMu.Unlock()
						if useFilters {
							if err := s.rematch(ctx, win, i+1, w.prepared); err != nil {
								return res, nil, err
							}
						}
					}
				}
			}
			res.Blocks++
			recent = append(recent, chain.BlockID{Height: height,
				Hash: win.hashes[i]})
		}
		if len(recent) > s.cfg.Recent {
			recent = append(recent[:0], recent[len(recent)-s.cfg.Recent:]...)
		}
		next := win.start + int32(len(win.hashes))
		if rescan {
			s.advance(next, res.Blocks)
			if rr, ok := s.cfg.Sink.(RescanRecorder); ok {
				if err := rr.RescanProgress(ctx, next, stop); err != nil {
					return res, nil, err
				}
			}
		}
	}
	if err := <-produced; err != nil {
		// The producer failed: the windows after its last one are missing.
		return res, nil, err
	}
	if err := ctx.Err(); err != nil {
		return res, nil, err
	}
	res.Duration = time.Since(t0)
	return res, recent, nil
}

// advance publishes a rescan's progress and logs it at a bounded rate.
func (s *Scanner) advance(next int32, blocks int) {
	s.mu.Lock()
	p := s.progress
	if p == nil {
		s.mu.Unlock()
		return
	}
	p.Height, p.Blocks = next, blocks
	snap := *p
	logNow := time.Since(s.lastLog) >= s.cfg.LogInterval
	if logNow {
		s.lastLog = time.Now()
	}
	s.mu.Unlock()
	if logNow {
		s.cfg.Log.Info("rescan progress", "height", next-1,
			"stop", snap.Stop,
			"percent", fmt.Sprintf("%.1f", 100*snap.Fraction()),
			"blocks_per_second", fmt.Sprintf("%.0f", snap.Rate()))
	}
}

// fetchWindow fetches the hashes of [lo, hi] and either every block or the
// filters and the blocks whose filter matches scripts.
func (s *Scanner) fetchWindow(ctx context.Context, lo, hi int32, filters bool, scripts *chain.Watch, gen uint64) *window {
	b := s.cfg.Backend
	win := &window{start: lo, gen: gen}
	heights := make([]int32, hi-lo+1)
	for i := range heights {
		heights[i] = lo + int32(i)
	}
	win.hashes, win.err = b.BlockHashes(ctx, heights)
	if win.err != nil {
		return win
	}
	win.blocks = make([]*chain.Block, len(heights))
	if !filters {
		blocks, err := b.Blocks(ctx, win.hashes)
		if err != nil {
			win.err = err
			return win
		}
		win.blocks = blocks
		return win
	}
	win.filters, win.err = b.Filters(ctx, win.hashes)
	if errors.Is(win.err, chain.ErrNotFound) {
		// The backend's filter index lags behind its chain: this
		// window is scanned block by block.
		win.filters = make([]*chain.Filter, len(heights))
		win.err = nil
	}
	if win.err != nil {
		return win
	}
	win.err = s.fetchMatching(ctx, win, 0, scripts)
	return win
}

// fetchMatching fetches the blocks of win from index from on whose filter
// matches scripts and that are not fetched yet. A block without a filter is
// fetched.
func (s *Scanner) fetchMatching(ctx context.Context, win *window, from int, scripts *chain.Watch) error {
	var want []chainhash.Hash
	var idx []int
	for i := from; i < len(win.hashes); i++ {
		if win.blocks[i] != nil {
			continue
		}
		ok := true
		if f := win.filters[i]; f != nil {
			ok = f.MatchWatch(scripts)
		}
		if ok {
			want = append(want, win.hashes[i])
			idx = append(idx, i)
		}
	}
	if len(want) == 0 {
		return nil
	}
	blocks, err := s.cfg.Backend.Blocks(ctx, want)
	if err != nil {
		return err
	}
	for j, i := range idx {
		win.blocks[i] = blocks[j]
	}
	return nil
}

// rematch matches the filters of win from index from on against scripts
// and fetches the blocks that now match.
func (s *Scanner) rematch(ctx context.Context, win *window, from int, scripts *chain.Watch) error {
	return s.fetchMatching(ctx, win, from, scripts)
}
