package walletscan

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/safego"
	"github.com/descwallet/descwallet/internal/scan"
	"github.com/descwallet/descwallet/internal/wallet"
)

// TimestampWindow is how far before a key's creation time a rescan starts
// (Core's TIMESTAMP_WINDOW).
const TimestampWindow = 7200

// Config sets up a Service.
type Config struct {
	// Backend is the full node.
	Backend chain.Backend
	// Net is the network.
	Net *chaincfg.Params
	// Wallets is the manager whose loaded wallets are followed; it may be
	// set later with Attach.
	Wallets *wallet.Manager
	// Log receives the scan log; nil discards it.
	Log *slog.Logger
	// Poll is the interval of tip polling; zero means
	// scan.DefaultPollInterval.
	Poll time.Duration
	// NoFilters makes scans fetch every block.
	NoFilters bool
	// TipChanged, when set, is called with the backend's new best block
	// each time a poll finds the tip changed since the previous one (the
	// tip found at start is not a change); it must not block.
	TipChanged func(hash chainhash.Hash, height int32)
	// Leader, when set, makes the service follow the chain only while
	// this node leads among the nodes serving the same wallets from one
	// database: it blocks until this node leads (or ctx ends) and
	// returns the leadership. Meanwhile the wallets' rescans are recorded
	// for the leader to run, and their chain state is read from the
	// database (wallet.Sync).
	Leader func(ctx context.Context) (Leadership, error)
	// ResendInterval, when positive, replaces Core's random 12 to 36
	// hours between the periodic resubmissions of the wallets'
	// transactions outside the mempool, and takes them whatever their
	// age (tests only: the hidden -walletresendinterval).
	ResendInterval time.Duration
}

// Leadership is a held leadership of the chain following (a PostgreSQL
// advisory lock of pgstore).
type Leadership interface {
	// Lost is closed when the leadership is lost.
	Lost() <-chan struct{}
	// Fence returns a context whose database writes commit only while
	// the leadership holds.
	Fence(ctx context.Context) context.Context
	// Release gives the leadership up.
	Release()
}

// Service follows the chain for the loaded wallets.
type Service struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// follower follows the tip for every attached wallet; with a Leader,
	// a new one for each term of leadership. Guarded by mu.
	follower *scan.Follower
	// rescans holds the wallets' rescan reservations.
	rescans *Rescans
	// shared is the backend the follower and the rescans fetch through.
	shared *scan.SharedFetches

	mu      sync.Mutex
	wallets *wallet.Manager
	scans   map[*wallet.Wallet]*walletScan
	started bool
	// term is the context of the current term of following: the
	// service's own without a Leader; with one, that of the leadership
	// (fenced, ending when it is lost), nil while another node leads.
	term context.Context
	// remote are the rescans this node waits for another node to run.
	remote map[*wallet.Wallet]*remoteScan
	// termStarted wakes the service's loop when a term starts.
	termStarted chan struct{}

	mtp     atomic.Int64 // median time past of the tip, 0 when unknown
	mtpHash atomic.Pointer[chainhash.Hash]
	// tipSeen is the last tip read (nil before the first); only the
	// service's loop touches it.
	tipSeen *chainhash.Hash
	// tipFailed: the last tip read failed (only the service's loop
	// touches it); reconnects counts the reads that succeeded after a
	// failure, which make the wallets resubmit their transactions.
	tipFailed  bool
	reconnects atomic.Uint64
}

// walletScan is one wallet's place in the follower and its rescanner.
type walletScan struct {
	w         *wallet.Wallet
	member    *scan.Member
	sc        *scan.Scanner   // rescans only
	ctx       context.Context // ends when the wallet is detached
	stop      context.CancelFunc
	userAbort atomic.Bool
	// resumed is closed when the rescan resumed at attachment ends; nil
	// when none was resumed.
	resumed chan struct{}
	// running is set while run scans, so that a pending rescan is run
	// once.
	running atomic.Bool
	// bg is, while a background run of the pending rescan goes (one
	// resumed, or recorded by another node or by an import), the channel
	// closed when it ends.
	bg atomic.Pointer[chan struct{}]
}

// New returns a service; Start runs it.
func New(cfg Config) *Service {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = scan.DefaultPollInterval
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Rescans and the follower share their fetches.
	shared := scan.NewSharedFetches(cfg.Backend)
	f := scan.NewFollower(scan.Config{Backend: shared, Log: cfg.Log,
		NoFilters: cfg.NoFilters})
	s := &Service{cfg: cfg, ctx: ctx, cancel: cancel, wallets: cfg.Wallets,
		follower: f, shared: shared, scans: map[*wallet.Wallet]*walletScan{}, rescans: NewRescans(),
		remote: map[*wallet.Wallet]*remoteScan{}, termStarted: make(chan struct{}, 1)}
	s.rescans.busy = s.Busy
	return s
}

// Backend returns the backend.
func (s *Service) Backend() chain.Backend { return s.cfg.Backend }

// Attach sets the wallet manager to follow.
func (s *Service) Attach(m *wallet.Manager) {
	s.mu.Lock()
	s.wallets = m
	s.mu.Unlock()
}

// Start begins following: it attaches the loaded wallets and keeps
// looking for new ones every poll interval. With a Leader it follows only
// while this node leads.
func (s *Service) Start() {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return
	}
	s.started = true
	if s.cfg.Leader == nil {
		s.term = s.ctx
	}
	s.mu.Unlock()
	if s.cfg.Leader == nil {
		s.follow(s.ctx, s.follower)
	} else {
		s.wg.Add(1)
		safego.Go("chain leadership", func() error {
			defer s.wg.Done()
			s.lead()
			return nil
		})
	}
	s.startResubmission()
	s.wg.Add(1)
	safego.Go("wallet scan service", func() error {
		defer s.wg.Done()
		t := time.NewTicker(s.cfg.Poll)
		defer t.Stop()
		var last context.Context
		for {
			// A panic in one round is logged and the next round runs.
			safego.Run("wallet scan service round", func() error {
				s.mu.Lock()
				term := s.term
				s.mu.Unlock()
				if term != nil && term.Err() == nil {
					// The first round of a term catches up.
					s.reconcile(term != last)
					last = term
				}
				s.updateMTP()
				return nil
			})
			select {
			case <-s.ctx.Done():
				return nil
			case <-t.C:
			case <-s.termStarted:
			}
		}
	})
}

// follow runs f until ctx ends.
func (s *Service) follow(ctx context.Context, f *scan.Follower) {
	s.wg.Add(1)
	safego.Go("chain follower", func() error {
		defer s.wg.Done()
		// A follower that panicked is restarted, less and less often.
		for backoff := time.Second; ; backoff = min(2*backoff, time.Minute) {
			err := safego.Run("chain follower", func() error {
				f.Follow(ctx, s.cfg.Poll)
				return nil
			})
			if err == nil || ctx.Err() != nil {
				return err
			}
			s.cfg.Log.Error("chain follower failed; restarting", "err", err, "delay", backoff)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
		}
	})
}

// lead waits for the leadership, follows the chain while it holds, and
// waits again when it is lost, until the service stops.
func (s *Service) lead() {
	for s.ctx.Err() == nil {
		l, err := s.cfg.Leader(s.ctx)
		if err != nil || l == nil {
			if s.ctx.Err() == nil {
				s.cfg.Log.Warn("cannot take the chain leadership; retrying", "err", err)
				select {
				case <-s.ctx.Done():
				case <-time.After(time.Second):
				}
			}
			continue
		}
		s.cfg.Log.Info("this node leads: following the chain")
		term, end := context.WithCancel(l.Fence(s.ctx))
		f := scan.NewFollower(scan.Config{Backend: s.shared, Log: s.cfg.Log, NoFilters: s.cfg.NoFilters})
		s.mu.Lock()
		s.follower, s.term = f, term
		s.mu.Unlock()
		s.follow(term, f)
		select {
		case s.termStarted <- struct{}{}:
		default:
		}
		select {
		case <-l.Lost():
			s.cfg.Log.Warn("chain leadership lost: following stops")
		case <-s.ctx.Done():
		}
		// Nothing is written after the loss: the term's writes are
		// fenced, and everything of the term ends here.
		end()
		s.mu.Lock()
		s.term = nil
		for w, ws := range s.scans {
			ws.member.Remove()
			ws.stop()
			delete(s.scans, w)
		}
		s.mu.Unlock()
		l.Release()
	}
}

// Leading reports whether this node follows the chain now (always, when
// the service has no Leader and runs).
func (s *Service) Leading() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.term != nil && s.term.Err() == nil
}

// Stop ends every follower and rescan and waits for them.
func (s *Service) Stop() {
	s.cancel()
	s.wg.Wait()
}

// Now returns the median time past of the backend's tip, or the genesis
// block's time when it is not known yet.
func (s *Service) Now() int64 {
	if v := s.mtp.Load(); v > 0 {
		return v
	}
	return s.cfg.Net.GenesisBlock.Header.Timestamp.Unix()
}

// updateMTP reads the tip's median time past when the tip changed.
func (s *Service) updateMTP() {
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	b := s.cfg.Backend
	tip, err := b.Tip(ctx)
	if err != nil {
		s.tipFailed = true
		return
	}
	if s.tipFailed {
		s.tipFailed = false
		s.reconnects.Add(1)
	}
	if s.tipSeen == nil || *s.tipSeen != tip.Hash {
		if s.tipSeen != nil && s.cfg.TipChanged != nil {
			s.cfg.TipChanged(tip.Hash, tip.Height)
		}
		h := tip.Hash
		s.tipSeen = &h
	}
	if h := s.mtpHash.Load(); h != nil && *h == tip.Hash && s.mtp.Load() > 0 {
		return
	}
	var heights []int32
	for h := max(0, tip.Height-10); h <= tip.Height; h++ {
		heights = append(heights, h)
	}
	hashes, err := b.BlockHashes(ctx, heights)
	if err != nil {
		return
	}
	hdrs, err := b.Headers(ctx, hashes)
	if err != nil {
		return
	}
	ts := make([]int64, len(hdrs))
	for i, h := range hdrs {
		ts[i] = h.Timestamp.Unix()
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	s.mtp.Store(ts[len(ts)/2])
	hash := tip.Hash
	s.mtpHash.Store(&hash)
}

// reconcile attaches newly loaded wallets and detaches unloaded ones. At
// the first look (startup), a wallet that never processed a block but has
// descriptors catches up from its birth time: it was used offline.
func (s *Service) reconcile(startup bool) {
	s.mu.Lock()
	m := s.wallets
	s.mu.Unlock()
	if m == nil {
		return
	}
	live := map[*wallet.Wallet]bool{}
	for _, name := range m.List() {
		if w, ok := m.Get(name); ok {
			live[w] = true
			if startup {
				s.catchUp(w)
			} else if ws, err := s.scanOf(w); err == nil && s.cfg.Leader != nil {
				// Other nodes' imports and rescan requests.
				s.runPending(ws)
			}
		}
	}
	s.mu.Lock()
	for w, ws := range s.scans {
		if !live[w] || w.Closed() {
			ws.member.Remove()
			ws.stop()
			delete(s.scans, w)
		}
	}
	s.mu.Unlock()
}

// errNotLeading is the failure of an attachment while another node
// follows the chain.
func errNotLeading() error {
	return &scan.Error{Kind: scan.ErrBusy, Description: "another node follows the chain"}
}

// scanOf returns the wallet's scanner, attaching the wallet first when
// needed.
func (s *Service) scanOf(w *wallet.Wallet) (*walletScan, error) {
	s.mu.Lock()
	ws, ok := s.scans[w]
	term, f := s.term, s.follower
	s.mu.Unlock()
	if ok {
		return ws, nil
	}
	if s.ctx.Err() != nil {
		return nil, s.ctx.Err()
	}
	if term == nil || term.Err() != nil {
		return nil, errNotLeading()
	}
	// A wallet other nodes serve starts from what the database holds
	// (the former leader's chain state, rescan record and imports).
	if err := w.Sync(term, true); err != nil {
		return nil, err
	}
	recent, err := w.RecentBlocks(term)
	if err != nil {
		return nil, err
	}
	if len(recent) == 0 {
		// A wallet that processed nothing starts at the current tip,
		// recorded before any rescan of it begins, so that the blocks
		// found after a rescan's end are the follower's to scan.
		if tip, err := s.cfg.Backend.Tip(term); err == nil {
			recent = []wallet.BlockRef{{Height: tip.Height, Hash: tip.Hash}}
			if err := w.Checkpoint(term, recent); err != nil {
				return nil, err
			}
		}
	}
	st := scan.ChainState{}
	for _, b := range recent {
		st.Recent = append(st.Recent, chain.BlockID{Height: b.Height, Hash: chainhash.Hash(b.Hash)})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ws, ok := s.scans[w]; ok {
		return ws, nil
	}
	if s.term != term || s.follower != f {
		return nil, errNotLeading()
	}
	a := &adapter{w: w}
	log := s.cfg.Log.With("wallet", w.Name())
	ws = &walletScan{w: w, sc: scan.New(scan.Config{Backend: s.shared, Source: a, Sink: a,
		Log: log, NoFilters: s.cfg.NoFilters, MempoolPerPoll: -1}),
		member: f.Add(a, a, st)}
	ctx, cancel := context.WithCancel(term)
	ws.ctx, ws.stop = ctx, cancel
	s.scans[w] = ws
	f.Kick()
	if p, err := w.PendingRescan(ctx); err == nil && p != nil {
		log.Info("resuming interrupted rescan", "next", p.Next, "stop", p.Stop, "from_time", p.From)
		ws.resumed = s.background(ws, "resumed rescan")
	}
	return ws, nil
}

// background runs the wallet's pending rescan in the background; the
// channel returned is closed when it ends.
func (s *Service) background(ws *walletScan, what string) chan struct{} {
	done := make(chan struct{})
	ws.bg.Store(&done)
	s.wg.Add(1)
	safego.Go(what, func() error {
		defer s.wg.Done()
		defer close(done)
		defer ws.bg.CompareAndSwap(&done, nil)
		// An empty request: run scans what is pending.
		err := safego.Run(what, func() error {
			_, err := s.run(ws.ctx, ws, math.MaxInt32, -1)
			return err
		})
		if err != nil && ws.ctx.Err() == nil && !errors.Is(err, scan.ErrBusy) {
			s.cfg.Log.Warn(what+" failed", "wallet", ws.w.Name(), "err", err)
		}
		return nil
	})
	return done
}

// runPending starts the wallet's pending rescan, when there is one that
// no scan runs (one another node recorded: a rescan request or an import
// with a timestamp), after reading the wallet's changes.
func (s *Service) runPending(ws *walletScan) {
	if ws.running.Load() || ws.ctx.Err() != nil {
		return
	}
	if err := ws.w.Sync(ws.ctx, true); err != nil {
		return
	}
	if p, err := ws.w.PendingRescan(ws.ctx); err != nil || p == nil {
		return
	}
	s.cfg.Log.Info("running a rescan another node recorded", "wallet", ws.w.Name())
	s.background(ws, "recorded rescan")
}

// catchUp attaches w and, when it had processed no block, rescans from
// its oldest descriptor's timestamp in the background.
func (s *Service) catchUp(w *wallet.Wallet) {
	recent, err := w.RecentBlocks(s.ctx)
	fresh := err == nil && len(recent) == 0
	ws, err := s.scanOf(w)
	if err != nil || !fresh {
		return
	}
	bt := w.Info().Birthtime
	if bt == nil {
		return
	}
	if p, err := w.PendingRescan(ws.ctx); err != nil || p != nil {
		return
	}
	s.wg.Add(1)
	safego.Go("catch-up rescan", func() error {
		defer s.wg.Done()
		err := safego.Run("catch-up rescan", func() error {
			start, err := scan.StartHeight(ws.ctx, s.cfg.Backend, *bt-TimestampWindow)
			if err == nil {
				s.cfg.Log.Info("catching up a wallet used offline", "wallet", w.Name(), "start", start)
				_, err = s.run(ws.ctx, ws, start, -1)
			}
			return err
		})
		if err != nil && ws.ctx.Err() == nil {
			s.cfg.Log.Warn("catch-up rescan failed", "wallet", w.Name(), "err", err)
		}
		return nil
	})
}

// Track starts following w at once, without waiting for the next look at
// the loaded wallets. A wallet just created starts at the current tip, so
// that no block mined after its creation is missed; a wallet just loaded
// that never processed a block catches up from its birth time, as at
// startup.
func (s *Service) Track(w *wallet.Wallet, created bool) {
	if created {
		s.scanOf(w)
		return
	}
	s.catchUp(w)
}

// Load attaches a wallet just loaded and returns once it caught up with
// the chain, as Core's loadwallet does: a wallet that processed blocks
// scans from its last processed block to the tip, one that never processed
// a block scans from its birth time (less TimestampWindow) to the tip, and
// a rescan interrupted by a shutdown is resumed and waited for. The
// catch-up runs in the service's context: the end of ctx makes Load return
// early but does not stop it. abortrescan stops the birth-time scan; Load
// then fails with an error of kind scan.ErrAborted.
func (s *Service) Load(ctx context.Context, w *wallet.Wallet) error {
	if s.cfg.Leader != nil && !s.Leading() {
		// The leader catches the wallet up; its state is read from
		// the database.
		return w.Sync(ctx, true)
	}
	s.wg.Add(1)
	done := safego.Go("wallet load catch-up", func() error {
		defer s.wg.Done()
		err := s.attachCaughtUp(w)
		if err != nil && s.ctx.Err() == nil {
			s.cfg.Log.Warn("catching up a loaded wallet failed", "wallet", w.Name(), "err", err)
		}
		return err
	})
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// attachCaughtUp attaches w and brings it to the tip (see Load).
func (s *Service) attachCaughtUp(w *wallet.Wallet) error {
	recent, err := w.RecentBlocks(s.ctx)
	if err != nil {
		return err
	}
	pending, err := w.PendingRescan(s.ctx)
	if err != nil {
		return err
	}
	fresh := len(recent) == 0
	ws, err := s.scanOf(w)
	if err != nil {
		return err
	}
	if ws.resumed != nil {
		select {
		case <-ws.resumed:
		case <-ws.ctx.Done():
			return ws.ctx.Err()
		}
	}
	if !fresh {
		return ws.member.Sync(ws.ctx)
	}
	bt := w.Info().Birthtime
	if bt == nil || pending != nil {
		return nil
	}
	start, err := scan.StartHeight(ws.ctx, s.cfg.Backend, *bt-TimestampWindow)
	if err != nil {
		return err
	}
	s.cfg.Log.Info("catching up a loaded wallet", "wallet", w.Name(), "start", start)
	_, err = s.run(ws.ctx, ws, start, -1)
	return err
}

// Busy reports whether a rescan of w runs.
func (s *Service) Busy(w *wallet.Wallet) bool {
	_, ok := s.Progress(w)
	return ok
}

// Progress returns the running rescan's progress: on a node that does not
// lead, that of a rescan it waits for as the leader recorded it.
func (s *Service) Progress(w *wallet.Wallet) (scan.Progress, bool) {
	s.mu.Lock()
	ws := s.scans[w]
	rs := s.remote[w]
	s.mu.Unlock()
	if ws != nil {
		if p, ok := ws.sc.Progress(); ok {
			return p, true
		}
	}
	if rs == nil {
		return scan.Progress{}, false
	}
	p := scan.Progress{Started: rs.started, Start: rs.start, Stop: rs.stop, Height: rs.start}
	if pr, err := w.PendingRescan(context.Background()); err == nil && pr != nil && pr.HasHeights() {
		p.Height = max(rs.start, min(pr.Next, rs.stop+1))
	}
	return p, true
}

// Abort stops w's running rescan; it reports whether one ran.
func (s *Service) Abort(w *wallet.Wallet) bool {
	s.mu.Lock()
	ws := s.scans[w]
	s.mu.Unlock()
	if ws == nil {
		return false
	}
	ws.userAbort.Store(true)
	if !ws.sc.Abort() {
		ws.userAbort.Store(false)
		return false
	}
	return true
}

// Rescan scans heights start to stop (stop < 0: the tip) for w and returns
// when it ends. It runs in the service's context: the caller's context only
// carries values.
func (s *Service) Rescan(ctx context.Context, w *wallet.Wallet, start, stop int32) (scan.Result, error) {
	if s.cfg.Leader != nil && !s.Leading() {
		return s.remoteRescan(w, start, stop, false)
	}
	ws, err := s.scanOf(w)
	if err != nil {
		return scan.Result{}, err
	}
	res, err := s.run(ws.ctx, ws, start, stop)
	if s.lostMidway(ws, err) {
		return s.remoteRescan(w, start, stop, true)
	}
	return res, err
}

// lostMidway reports whether a rescan of this node failed because its
// term of leadership ended (not a stop, not abortrescan): its record stays
// in the database, and the next leader finishes it.
func (s *Service) lostMidway(ws *walletScan, err error) bool {
	return err != nil && s.cfg.Leader != nil && ws.ctx.Err() != nil && s.ctx.Err() == nil && !ws.userAbort.Load()
}

// RescanFrom rescans w from the first block whose time is at least
// timestamp minus TimestampWindow through the tip.
func (s *Service) RescanFrom(ctx context.Context, w *wallet.Wallet, timestamp int64) (scan.Result, error) {
	if s.cfg.Leader != nil && !s.Leading() {
		start, err := scan.StartHeight(s.ctx, s.cfg.Backend, timestamp-TimestampWindow)
		if err != nil {
			return scan.Result{}, err
		}
		return s.remoteRescan(w, start, -1, true)
	}
	ws, err := s.scanOf(w)
	if err != nil {
		return scan.Result{}, err
	}
	if _, busy := ws.sc.Progress(); busy && ws.bg.Load() == nil {
		return scan.Result{}, &scan.Error{Kind: scan.ErrBusy, Description: "a rescan is running"}
	}
	start, err := scan.StartHeight(ws.ctx, s.cfg.Backend, timestamp-TimestampWindow)
	if err != nil {
		return scan.Result{}, err
	}
	// An import records its rescan before it asks for it, and the poll
	// of the leader may start that record in the background first: the
	// import waits for such a run to end, then runs (covering whatever
	// is still pending), rather than fail as busy.
	res, err := s.run(ws.ctx, ws, start, -1)
	for errors.Is(err, scan.ErrBusy) {
		done := ws.bg.Load()
		if done == nil {
			break
		}
		select {
		case <-*done:
			res, err = s.run(ws.ctx, ws, start, -1)
		case <-ws.ctx.Done():
			res, err = scan.Result{}, ws.ctx.Err()
		}
	}
	if s.lostMidway(ws, err) {
		return s.remoteRescan(w, start, -1, true)
	}
	return res, err
}

// run runs one rescan of heights start to stop (stop < 0: the tip) widened
// to cover the wallet's pending rescan, if any (an interrupted one, or an
// import's recorded by its creation time and not resolved to heights yet).
// It records the range in the wallet before it starts, so that a restart
// resumes it; the pending record stays until then, so that a failure (an
// unreachable backend) leaves it to the next run or the next start.
func (s *Service) run(ctx context.Context, ws *walletScan, start, stop int32) (scan.Result, error) {
	if _, busy := ws.sc.Progress(); busy || !ws.running.CompareAndSwap(false, true) {
		return scan.Result{}, &scan.Error{Kind: scan.ErrBusy, Description: "a rescan is running"}
	}
	defer ws.running.Store(false)
	if stop < 0 {
		tip, err := s.cfg.Backend.Tip(ctx)
		if err != nil {
			return scan.Result{}, err
		}
		stop = tip.Height
	}
	if start < 0 {
		start = 0
	}
	p, err := ws.w.PendingRescan(ctx)
	if err != nil {
		return scan.Result{}, err
	}
	var from int64
	if p != nil {
		if p.From > 0 {
			h, err := scan.StartHeight(ctx, s.cfg.Backend, p.From-TimestampWindow)
			if err != nil {
				return scan.Result{}, err
			}
			start, from = min(start, h), p.From
		}
		if p.HasHeights() {
			start, stop = min(start, p.Next), max(stop, p.Stop)
		}
	}
	if start > stop {
		if from > 0 {
			// Nothing to scan (the creation time is past the tip):
			// the pending rescan is done.
			if err := ws.w.SetRescanProgress(ctx, &wallet.RescanState{Next: 1, Stop: 0, From: from}); err != nil {
				return scan.Result{}, err
			}
		}
		return scan.Result{Start: start, Stop: stop}, nil
	}
	if err := ws.w.SetRescanProgress(ctx, &wallet.RescanState{Next: start, Stop: stop, From: from}); err != nil {
		return scan.Result{}, err
	}
	ws.userAbort.Store(false)
	res, err := ws.sc.Rescan(ctx, start, stop)
	// The rescan may have found outputs the follower's index lacks.
	ws.member.Stale()
	if err != nil && errors.Is(err, scan.ErrAborted) && ws.userAbort.Load() {
		// abortrescan: the rescan is not to be resumed.
		ws.w.SetRescanProgress(context.WithoutCancel(ctx), nil)
	}
	return res, err
}

// remoteScan is a rescan this node waits for the leader to run.
type remoteScan struct {
	started     time.Time
	start, stop int32
}

// remoteWait is how often a node that does not lead looks whether the
// leader finished a rescan it waits for.
const remoteWait = 250 * time.Millisecond

// remoteRescan is Rescan on a node that does not lead: the range is
// recorded in the database as the wallet's pending rescan (the record a
// crash leaves to resume), which the leader runs (wallet changes are read
// every poll), and the call returns once the record is gone. An import
// with a timestamp recorded its rescan with its descriptors already; the
// heights are added. A rescan the leader still runs makes it fail as
// Core's busy wallet does, unless join is set (an import's rescan, which
// the pending one covers once the leader read the import).
func (s *Service) remoteRescan(w *wallet.Wallet, start, stop int32, join bool) (scan.Result, error) {
	ctx := s.ctx
	if stop < 0 {
		tip, err := s.cfg.Backend.Tip(ctx)
		if err != nil {
			return scan.Result{}, err
		}
		stop = tip.Height
	}
	start = max(start, 0)
	s.mu.Lock()
	if s.remote[w] != nil {
		s.mu.Unlock()
		return scan.Result{}, &scan.Error{Kind: scan.ErrBusy, Description: "a rescan is running"}
	}
	s.remote[w] = &remoteScan{started: time.Now(), start: start, stop: stop}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.remote, w)
		s.mu.Unlock()
	}()
	if err := w.Sync(ctx, true); err != nil {
		return scan.Result{}, err
	}
	p, err := w.PendingRescan(ctx)
	if err != nil {
		return scan.Result{}, err
	}
	switch {
	case p != nil && join:
		// The import's own record.
	case p != nil && p.HasHeights():
		return scan.Result{}, &scan.Error{Kind: scan.ErrBusy, Description: "a rescan is running"}
	case start <= stop:
		if err := w.SetRescanProgress(ctx, &wallet.RescanState{Next: start, Stop: stop}); err != nil {
			return scan.Result{}, err
		}
		s.cfg.Log.Info("rescan recorded for the leading node", "wallet", w.Name(), "start", start, "stop", stop)
	}
	t := time.NewTicker(remoteWait)
	defer t.Stop()
	for {
		if err := w.Sync(ctx, true); err != nil && ctx.Err() == nil {
			s.cfg.Log.Warn("reading the wallet's changes failed", "wallet", w.Name(), "err", err)
		}
		p, err := w.PendingRescan(ctx)
		if err == nil && p == nil {
			return scan.Result{Start: start, Stop: stop}, nil
		}
		if w.Closed() {
			return scan.Result{}, &scan.Error{Kind: scan.ErrAborted, Description: "the wallet was unloaded"}
		}
		select {
		case <-ctx.Done():
			return scan.Result{}, ctx.Err()
		case <-t.C:
		}
	}
}

// adapter makes a wallet a scan.Source, scan.Sink and scan.RescanRecorder.
type adapter struct{ w *wallet.Wallet }

var (
	_ scan.Source         = (*adapter)(nil)
	_ scan.Sink           = (*adapter)(nil)
	_ scan.RescanRecorder = (*adapter)(nil)
	_ scan.MempoolSink    = (*adapter)(nil)
	_ scan.ChangeCounter  = (*adapter)(nil)
	_ scan.TipAdvancer    = (*adapter)(nil)
	_ scan.ScriptMatcher  = (*adapter)(nil)
)

func (a *adapter) WatchList(ctx context.Context) (*scan.WatchList, error) {
	gen, scripts, ops, err := a.w.WatchList(ctx)
	if err != nil {
		return nil, err
	}
	return &scan.WatchList{Generation: gen, Scripts: scripts, Outpoints: ops, ByMatch: a.w.ScriptsInStore()}, nil
}

// MatchScripts asks the wallet (its database, for a wallet whose scripts
// stay there) which scripts are its own.
func (a *adapter) MatchScripts(ctx context.Context, scripts [][]byte) ([]bool, error) {
	return a.w.MatchScripts(ctx, scripts)
}

func (a *adapter) Generation() uint64 { return a.w.ScriptGeneration() }

func (a *adapter) Changes() uint64 { return a.w.TxsAddedElsewhere() }

// BlockConnected records a block's transactions: the follower's own
// deliveries apart from a rescan's, which the follower has not watched.
func (a *adapter) BlockConnected(ctx context.Context, blk scan.BlockInfo, txs []*wire.MsgTx) error {
	b := wallet.BlockInfo{Height: blk.Height, Hash: blk.Hash, Time: blk.Time.Unix(), Rescan: blk.Rescan}
	if blk.Rescan {
		return a.w.BlockConnected(ctx, b, txs, blk.TxIndex)
	}
	if blk.State != nil {
		// The block's checkpoint goes with it (one store transaction).
		b.Recent = blockRefs(*blk.State)
	}
	return a.w.FollowerBlock(ctx, b, txs, blk.TxIndex)
}

// blockRefs is st in the wallet's terms.
func blockRefs(st scan.ChainState) []wallet.BlockRef {
	recent := make([]wallet.BlockRef, len(st.Recent))
	for i, b := range st.Recent {
		recent[i] = wallet.BlockRef{Height: b.Height, Hash: b.Hash}
	}
	return recent
}

func (a *adapter) Checkpoint(ctx context.Context, st scan.ChainState) error {
	return a.w.Checkpoint(ctx, blockRefs(st))
}

func (a *adapter) AdvanceTip(ctx context.Context, st scan.ChainState) (bool, error) {
	return a.w.AdvanceTip(ctx, blockRefs(st))
}

func (a *adapter) Rollback(ctx context.Context, height int32) error {
	return a.w.Rollback(ctx, height)
}

func (a *adapter) RescanProgress(ctx context.Context, next, stop int32) error {
	return a.w.SetRescanProgress(ctx, &wallet.RescanState{Next: next, Stop: stop})
}

func (a *adapter) MempoolTxs(ctx context.Context, txs []*wire.MsgTx) error {
	return a.w.FollowerMempool(ctx, txs)
}

func (a *adapter) MempoolLeft(ctx context.Context, inMempool func(chainhash.Hash) bool) error {
	_, err := a.w.MempoolLeft(ctx, inMempool)
	return err
}
