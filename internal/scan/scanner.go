package scan

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/chain"
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

	// ByMatch tells that Scripts is empty because the wallet's scripts
	// are too many to list: the Source is a ScriptMatcher, asked about
	// the output scripts of every block (each fetched whole).
	ByMatch bool
}

// ScriptMatcher is an optional Source interface for a wallet whose
// scripts stay in its database (WatchList.ByMatch): the scan fetches every
// block of its range whole (at that size nearly every filter matches) and
// asks MatchScripts, once per block or mempool batch, which output scripts
// are the wallet's. An error takes the wallet out of the scan, as a
// failed delivery does.
type ScriptMatcher interface {
	MatchScripts(ctx context.Context, scripts [][]byte) ([]bool, error)
}

// Source is the wallet side the scanner reads its watch list from.
type Source interface {
	// WatchList returns the current watch list.
	WatchList(ctx context.Context) (*WatchList, error)

	// Generation returns the current watch list's generation, cheaply:
	// the scanner asks after each block it delivers.
	Generation() uint64
}

// ChangeCounter is an optional Source interface: a counter of the
// transactions the source recorded other than through the Follower's own
// deliveries (its spends, a proof-carrying import, a rescan). A Follower
// reads a member's watch list again when the counter moved: such a
// transaction may hold outputs the follower does not watch. The source
// counts them apart itself: a follower that compared the counter around
// its deliveries could not tell a change recorded meanwhile from its own.
type ChangeCounter interface {
	Changes() uint64
}

// TipAdvancer is an optional Sink interface for the members of a
// Follower: AdvanceTip records the chain state in memory only, when that is
// all a Checkpoint would do, and reports false, recording nothing,
// otherwise (something is due to be written). A Follower checkpoints a
// member whose state it advanced this way when it is handed transactions,
// when AdvanceTip declines, after a rollback, and when the tip passes a
// multiple of CheckpointEvery; a restart resumes from the last checkpoint.
type TipAdvancer interface {
	AdvanceTip(ctx context.Context, st ChainState) (bool, error)
}

// CheckpointEvery is the interval of heights at which a Follower writes
// every member's chain state (see TipAdvancer).
const CheckpointEvery = 144

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

	// State, set on the last block of a Follower's sync, is the chain
	// state the block leaves the member at: the Checkpoint that follows
	// carries the same one. A sink may record it with the block's
	// transactions, so that the Checkpoint has nothing left to write.
	State *ChainState
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

// Scanner scans one wallet: its rescans, and a Follower of its own for
// Sync, PollMempool and Follow. Sync and Follow are serialized; one rescan
// runs at a time, alongside them.
type Scanner struct {
	cfg Config
	f   *Follower
	m   *Member

	mu       sync.Mutex
	progress *Progress
	cancel   context.CancelFunc
	lastLog  time.Time
	noFilter bool
}

// withDefaults fills in cfg's zero fields.
func withDefaults(cfg Config) Config {
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
	return cfg
}

// New returns a scanner.
func New(cfg Config) *Scanner {
	cfg = withDefaults(cfg)
	f := NewFollower(cfg)
	return &Scanner{cfg: cfg, f: f, m: f.Add(cfg.Source, cfg.Sink, cfg.State),
		noFilter: cfg.NoFilters}
}

// State returns the chain state Sync last recorded.
func (s *Scanner) State() ChainState {
	s.f.syncMu.Lock()
	defer s.f.syncMu.Unlock()
	return ChainState{Recent: append([]chain.BlockID(nil), s.m.m.state.Recent...)}
}

// Sync brings the wallet from its last processed block to the backend's
// tip: it rolls back to the fork point when the recent blocks it processed
// left the best chain, scans the new blocks, and records the new chain
// state. A wallet that processed nothing yet starts at the tip without
// scanning (imports scan their own history). It returns the number of blocks
// scanned.
func (s *Scanner) Sync(ctx context.Context) (int, error) {
	n, err := s.f.Sync(ctx)
	if err != nil {
		return n, err
	}
	s.f.syncMu.Lock()
	defer s.f.syncMu.Unlock()
	if m := s.m.m; !m.joined && m.err != nil {
		return n, m.err
	}
	return n, nil
}

// PollMempool reads the backend's mempool, delivers the wallet's
// transactions in it that it has not examined yet (at most
// Config.MempoolPerPoll fetched per poll) and lets the sink drop the
// unconfirmed transactions that left it. It does nothing when the sink is
// not a MempoolSink or polling is off. It returns the number of
// transactions delivered.
func (s *Scanner) PollMempool(ctx context.Context) (int, error) {
	if s.cfg.MempoolPerPoll < 0 {
		return 0, nil
	}
	s.f.syncMu.Lock()
	defer s.f.syncMu.Unlock()
	return s.f.pollMempool(ctx, true)
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
// rescan runs already and with ErrAborted when aborted. It reads the
// wallet's watch list into an index of its own: the follower's goes on
// meanwhile.
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
	s.mu.Lock()
	e := &engine{cfg: s.cfg, x: newIndex(), noFilter: s.noFilter, path: s.f.e.path}
	s.mu.Unlock()
	m := &member{src: s.cfg.Source, sink: s.cfg.Sink}
	e.members = []*member{m}
	if err := e.x.load(ctx, m); err != nil {
		return Result{}, s.wrapCtx(ctx, err)
	}
	set := &scanSet{members: []*member{m}, lone: true, rescan: true,
		onWindow: func(next int32, blocks int) error {
			s.advance(next, blocks)
			if rr, ok := s.cfg.Sink.(RescanRecorder); ok {
				return rr.RescanProgress(ctx, next, stop)
			}
			return nil
		}}
	res, err := e.scanRange(ctx, set, start, stop)
	e.mu.Lock()
	noFilter := e.noFilter
	e.mu.Unlock()
	s.mu.Lock()
	s.noFilter = noFilter
	s.mu.Unlock()
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
