package wallet

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/safego"
)

// ChainStore is the optional part of a Store that keeps the wallet's
// transactions and chain state. A store without it keeps them in memory
// only.
type ChainStore interface {
	// LoadChain reads the transactions and the chain state.
	LoadChain(ctx context.Context) (*ChainSnapshot, error)
	// UpdateChain runs fn in one write transaction.
	UpdateChain(ctx context.Context, fn func(ChainStoreTx) error) error
}

// ChainStoreTx is a write transaction of a ChainStore: the descriptor
// writes of StoreTx (key-pool top-ups, labels of used addresses) and the
// chain writes, committed together.
type ChainStoreTx interface {
	StoreTx
	// PutTx inserts a transaction or updates its block; it returns the
	// transaction's sequence number.
	PutTx(r TxRecord) (int64, error)
	// DeleteTx removes a transaction (removeprunedfunds), its marks too.
	DeleteTx(txid [32]byte) error
	// PutTxMarks records a transaction's marks (abandoned, fee-bump
	// links); zero marks remove them.
	PutTxMarks(txid [32]byte, m TxMarks) error
	// UnconfirmAbove clears the block of every transaction above height.
	UnconfirmAbove(height int32) error
	// SetRecentBlocks replaces the recorded last processed blocks.
	SetRecentBlocks(blocks []BlockRef) error
	// SetRescan records a rescan in progress; nil clears it.
	SetRescan(rs *RescanState) error
	// AppendEvent adds an event to the wallet's event log and returns
	// its cursor.
	AppendEvent(e EventRecord) (int64, error)
	// SetEventDepth records the highest confirmation depth the event log
	// reported for a transaction (TxRecord.EventDepth).
	SetEventDepth(txid [32]byte, depth int32) error
	// PruneEvents removes the oldest events: all but the newest keep
	// (when above 0) and those older than the first one written at or
	// after before (UNIX seconds, when above 0), but none after the
	// acknowledged cursor of a delivery target in held (0 when it has
	// none). It returns the highest cursor removed so far and how many
	// this call removed.
	PruneEvents(keep, before int64, held []string) (through, removed int64, err error)
}

// TxRecord is a stored wallet transaction; Height is -1 when it has no
// block.
type TxRecord struct {
	TxID         [32]byte
	Seq          int64
	Raw          []byte
	TimeReceived int64
	// TimeSmart is the time the listings show, fixed at first record
	// (Core's nTimeSmart); zero means TimeReceived.
	TimeSmart  int64
	Height     int32
	BlockHash  [32]byte
	BlockTime  int64
	BlockIndex int32
	// EventDepth is the highest confirmation depth the event log reported
	// since the transaction last entered a block (0: none), or followTip
	// (-1): the recorded chain position gives it (see followTip).
	EventDepth int32
}

// BlockRef is a processed block.
type BlockRef struct {
	Height int32
	Hash   [32]byte
}

// RescanState is a rescan in progress: heights below Next are done, Stop
// is the last one to scan (none when Next > Stop). From, when not zero, is
// a creation time (UNIX seconds) whose rescan is recorded but not resolved
// to heights yet: the blocks from the first one whose time is at least From
// less the timestamp window through the tip are to be scanned as well. An
// import records From in the transaction that stores its descriptor, so
// that a crash before the heights are known still leaves the rescan to be
// resumed.
type RescanState struct {
	Next, Stop int32
	From       int64
}

// HasHeights reports whether the state holds a range of heights.
func (r *RescanState) HasHeights() bool { return r.Next <= r.Stop }

// metaRescanFrom is the meta key of RescanState.From: 8 bytes big-endian,
// empty for none. It lives among the settings rather than in the rescan
// record because an import writes it through the descriptor transaction.
const metaRescanFrom = "rescan_from"

func encodeRescanFrom(from int64) []byte {
	if from <= 0 {
		return nil
	}
	return binary.BigEndian.AppendUint64(nil, uint64(from))
}

func decodeRescanFrom(v []byte) int64 {
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// ChainSnapshot is the chain content of a wallet database.
type ChainSnapshot struct {
	Txs    []TxRecord
	Recent []BlockRef
	Rescan *RescanState
	// Marks are the transactions' recorded marks.
	Marks map[[32]byte]TxMarks
}

// BlockInfo names a block that holds wallet transactions.
type BlockInfo struct {
	Height int32
	Hash   chainhash.Hash
	Time   int64
	// Rescan tells that a rescan delivers the block rather than the
	// following of the tip: its new transactions get the block's time.
	Rescan bool
	// Recent, when set, is the chain state the block leaves the wallet
	// at: the last processed blocks, lowest first, this block last. The
	// chain follower sets it on the last block of a sync (FollowerBlock),
	// so that the block's transactions and the checkpoint of that state
	// are written in one store transaction (one commit a block where
	// there were two); the Checkpoint that follows with the same blocks
	// then writes nothing.
	Recent []BlockRef
}

// walletTx is a transaction of the wallet in memory.
type walletTx struct {
	rec      TxRecord
	tx       *wire.MsgTx
	txid     chainhash.Hash
	coinbase bool
	// own lists the outputs paying the wallet's scripts and foreign the
	// others with their script digests, worked out at script generation
	// ownGen (0: not yet); credit is the value of the outputs in own that
	// no wallet transaction spends, valid when credOK (creditChanged
	// clears it); see balance.go. Guarded by chainData.credMu under c.mu
	// read-locked, or by c.mu write-locked.
	own     []uint32
	foreign []foreignOut
	ownGen  uint64
	credit  int64
	credOK  bool
	// evDepth is the highest confirmation depth reported in the event
	// log since the transaction last entered a block (0: none); the
	// stored rec.EventDepth follows it, unless evFollow: then it is
	// followTip, and the written chain position gives the depth (see
	// followTip).
	evDepth  int32
	evFollow bool
	// description is what its first events reported of it, kept while
	// deeper depths are pending (see described).
	description *description
	// marks are the recorded abandoned state and fee-bump links.
	marks TxMarks
	// inMempool: an unconfirmed transaction the backend's mempool holds
	// (or the wallet just committed); Core's TxStateInMempool. An
	// unconfirmed one outside it is inactive (Core's TxStateInactive).
	inMempool bool
	// conflictHeight is the lowest height of a block holding a
	// transaction that spends one of its inputs or an input of one of its
	// unconfirmed wallet ancestors (Core's TxStateBlockConflicted), -1
	// for none; mempoolConflicts are the wallet's mempool transactions
	// doing so (Core's mempool_conflicts). Both are derived
	// (refreshStates).
	conflictHeight   int32
	mempoolConflicts []chainhash.Hash
	// spending is spends() as refreshStates last saw it.
	spending bool
}

func (t *walletTx) confirmed() bool { return t.rec.Height >= 0 }

// chainData is what the wallet knows of the chain: its transactions, the
// outputs they spend, the last processed blocks and a running rescan. It
// is read from the database at first use.
type chainData struct {
	once    sync.Once
	loadErr error

	// mu starts a new generation at every write lock: the balances
	// computed under a generation hold while it lasts (balance.go).
	mu    genRWMutex
	txs   map[chainhash.Hash]*walletTx
	order []*walletTx // by Seq
	// spenders are the wallet transactions spending each outpoint
	// (Core's mapTxSpends): more than one when they conflict.
	spenders map[wire.OutPoint][]*walletTx
	// spendHint is the length of SpendCoins' last answer, to size the
	// next one (written under the read lock, hence atomic).
	spendHint atomic.Int64
	// credMu guards the balance memo and the walletTx fields balance.go
	// fills.
	credMu  sync.Mutex
	balMemo map[balanceKey]Balances
	recent  []BlockRef
	// recentUnwritten is set while recent holds blocks AdvanceTip
	// recorded in memory only; close writes them.
	recentUnwritten bool
	rescan          *RescanState
	nextSeq         int64
	// loadedFrom is the recorded RescanState.From read with the wallet's
	// settings, merged into rescan when the chain data loads.
	loadedFrom int64
	// byScript lists the transactions paying each script (paydetect.go).
	byScript map[string][]*walletTx
	// evPending are the confirmed transactions whose deepest configured
	// confirmation depth is not reported yet (events.go).
	evPending map[chainhash.Hash]struct{}
	// evPendingPeak is the most evPending held since it was last made.
	evPendingPeak int
	// written is the height of the last processed block written to the
	// store (-1: none); recent may be ahead of it (AdvanceTip, or a
	// block not yet checkpointed).
	written int32
	// depthsAt is the tip at which the confirmed events due were last
	// written (-1: none), when evGen was depthsGen: a Checkpoint at that
	// tip with the position written has nothing to add. evGen counts
	// the changes of the transactions pending a depth (trackDepth,
	// Rollback).
	depthsAt         int32
	evGen, depthsGen uint64
	// followDepths is the metaEventDepths setting: the configured
	// depths the followTip transactions on disk were stored under.
	followDepths string
	// committed are the wallet's own transactions (CommitTx) not yet seen
	// in the backend's mempool: DropUnconfirmed keeps them, as Core keeps
	// its own transactions, so that a mempool read taken before the relay
	// does not forget them.
	committed map[chainhash.Hash]bool
	// pool are the mempool transactions the wallet does not record that
	// conflict with its unconfirmed ones (conflicts.go).
	pool foreignPool

	// added counts the transactions recorded (TxsAdded); elsewhere
	// those not handed in by the chain follower (TxsAddedElsewhere).
	added, elsewhere atomic.Uint64

	scriptsMu sync.Mutex
	scripts   map[uint32]*scriptCache
}

// scriptCache holds the derived scripts of one descriptor over
// [start, end), in chunks of consecutive indexes: each chunk keeps its
// scripts back to back in one buffer, so that ten million scripts are a
// few hundred allocations, not ten million.
type scriptCache struct {
	d          *descriptor.Descriptor
	start, end int64
	chunks     []scriptChunk
}

// count returns the number of scripts the cache holds.
func (sc *scriptCache) count() int {
	n := 0
	for i := range sc.chunks {
		n += sc.chunks[i].count()
	}
	return n
}

// appendTo appends the cache's scripts to dst, in index order.
func (sc *scriptCache) appendTo(dst [][]byte) [][]byte {
	for i := range sc.chunks {
		dst = sc.chunks[i].appendTo(dst)
	}
	return dst
}

// scriptChunk is the scripts of a run of consecutive indexes, back to back
// in buf: every script is width bytes long, or (width 0) script i ends at
// ends[i].
type scriptChunk struct {
	buf   []byte
	width int
	ends  []uint32
	n     int
}

// count returns the number of scripts in the chunk.
func (ch *scriptChunk) count() int { return ch.n }

// appendTo appends the chunk's scripts to dst as slices of its buffer
// (capped, so that an append to one never writes over the next).
func (ch *scriptChunk) appendTo(dst [][]byte) [][]byte {
	if ch.width > 0 {
		for i := 0; i < ch.n; i++ {
			lo, hi := i*ch.width, (i+1)*ch.width
			dst = append(dst, ch.buf[lo:hi:hi])
		}
		return dst
	}
	lo := uint32(0)
	for _, hi := range ch.ends {
		dst = append(dst, ch.buf[lo:hi:hi])
		lo = hi
	}
	return dst
}

// add appends the scripts of one index; sizeHint is how many more
// indexes the chunk will get, to size its buffer once.
func (ch *scriptChunk) add(scripts [][]byte, sizeHint int) error {
	if ch.buf == nil {
		total := 0
		for _, s := range scripts {
			total += len(s)
		}
		ch.buf = make([]byte, 0, total*sizeHint)
		if len(scripts) > 0 {
			ch.width = len(scripts[0])
		}
	}
	for _, s := range scripts {
		if ch.width > 0 && len(s) != ch.width {
			// Mixed lengths: record every end from here on.
			ch.ends = make([]uint32, ch.n, ch.n+sizeHint*len(scripts))
			for i := range ch.ends {
				ch.ends[i] = uint32((i + 1) * ch.width)
			}
			ch.width = 0
		}
		if uint64(len(ch.buf))+uint64(len(s)) > math.MaxUint32 {
			return walletErr(ErrWallet, "too many script bytes for one watch-list chunk")
		}
		ch.buf = append(ch.buf, s...)
		if ch.width == 0 {
			ch.ends = append(ch.ends, uint32(len(ch.buf)))
		}
		ch.n++
	}
	return nil
}

// loadChain reads the chain data once.
func (w *Wallet) loadChain(ctx context.Context) error {
	c := &w.chain
	c.once.Do(func() {
		c.txs = map[chainhash.Hash]*walletTx{}
		c.spenders = map[wire.OutPoint][]*walletTx{}
		c.scripts = map[uint32]*scriptCache{}
		c.nextSeq = 1
		cs, ok := w.store.(ChainStore)
		if !ok {
			return
		}
		snap, err := cs.LoadChain(ctx)
		if err != nil {
			c.loadErr = storageErr(err)
			return
		}
		w.fillChain(snap)
		c.loadErr = w.pinAllFollowers(ctx)
	})
	return c.loadErr
}

// fillChain puts a chain snapshot into the wallet's empty chain data. The
// caller holds c.mu for writing (or runs in loadChain's once).
func (w *Wallet) fillChain(snap *ChainSnapshot) {
	c := &w.chain
	c.written, c.depthsAt = -1, -1
	if n := len(snap.Recent); n > 0 {
		c.written = snap.Recent[n-1].Height
	}
	stored := parseDepths(c.followDepths)
	if stored == nil {
		stored = w.eventDepths()
	}
	for _, r := range snap.Txs {
		wt, err := newWalletTx(r)
		if err != nil {
			continue
		}
		wt.evDepth = r.EventDepth
		if r.EventDepth == followTip {
			wt.evDepth = 0
			if r.Height >= 0 {
				wt.evFollow = true
				wt.evDepth = derivedDepth(stored, r.Height, c.written)
			}
		}
		wt.marks = snap.Marks[r.TxID]
		// Until the first mempool read says otherwise, an unconfirmed
		// transaction that was not abandoned is taken to be in the
		// mempool, unless the node reading the mempool of a shared
		// wallet saw it leave.
		wt.inMempool = !wt.confirmed() && !wt.coinbase && !wt.marks.Abandoned && !wt.marks.LeftMempool
		c.add(wt)
		c.elsewhere.Add(1)
		w.trackDepth(wt)
	}
	c.refreshStates()
	c.recent = snap.Recent
	c.rescan = snap.Rescan
	if c.loadedFrom > 0 {
		if c.rescan == nil {
			c.rescan = &RescanState{Next: 1, Stop: 0}
		}
		c.rescan.From = c.loadedFrom
	}
}

// reloadChain reads the chain data again, for a wallet other nodes write
// too: the transactions, the last processed blocks and the rescan record
// become the database's. What this node knows of its unconfirmed
// transactions (which the backend's mempool holds) is kept, except where
// the node reading the mempool recorded since that one left it or came
// back (the mark LeftMempool changed). The caller holds no chain lock.
func (w *Wallet) reloadChain(ctx context.Context, cs ChainStore) error {
	if err := w.loadChain(ctx); err != nil {
		return err
	}
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	snap, err := cs.LoadChain(ctx)
	if err != nil {
		return storageErr(err)
	}
	type pooled struct{ in, left bool }
	inMempool := map[chainhash.Hash]pooled{}
	for id, wt := range c.txs {
		if !wt.confirmed() {
			inMempool[id] = pooled{wt.inMempool, wt.marks.LeftMempool}
		}
	}
	c.txs = map[chainhash.Hash]*walletTx{}
	c.order = nil
	c.spenders = map[wire.OutPoint][]*walletTx{}
	c.byScript = nil
	c.evPending = nil
	c.credMu.Lock()
	c.balMemo = nil
	c.credMu.Unlock()
	c.nextSeq = 1
	c.recentUnwritten = false
	w.fillChain(snap)
	if err := w.pinAllFollowers(ctx); err != nil {
		return err
	}
	for id, was := range inMempool {
		wt := c.txs[id]
		if wt == nil || wt.confirmed() || wt.marks.Abandoned {
			continue
		}
		switch {
		case wt.marks.LeftMempool != was.left:
			// Another node's mempool read changed it.
			wt.inMempool = !wt.marks.LeftMempool
			if wt.marks.LeftMempool {
				delete(c.committed, id)
			}
		default:
			wt.inMempool = was.in || c.committed[id]
		}
	}
	c.refreshStates()
	return nil
}

// setRescanFrom records the rescan creation time read with the wallet's
// settings (a reload after another node's import).
func (w *Wallet) setRescanFrom(from int64) {
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadedFrom = from
	if c.txs == nil {
		return // not loaded yet: loadChain merges it
	}
	switch {
	case from > 0 && c.rescan == nil:
		c.rescan = &RescanState{Next: 1, Stop: 0, From: from}
	case c.rescan != nil:
		c.rescan.From = from
		if from <= 0 && !c.rescan.HasHeights() {
			c.rescan = nil
		}
	}
}

func newWalletTx(r TxRecord) (*walletTx, error) {
	var tx wire.MsgTx
	if err := tx.Deserialize(bytes.NewReader(r.Raw)); err != nil {
		return nil, err
	}
	return &walletTx{rec: r, tx: &tx, txid: chainhash.Hash(r.TxID), coinbase: isCoinbase(&tx)}, nil
}

func isCoinbase(tx *wire.MsgTx) bool {
	if len(tx.TxIn) != 1 {
		return false
	}
	p := tx.TxIn[0].PreviousOutPoint
	return p.Index == wire.MaxPrevOutIndex && p.Hash == (chainhash.Hash{})
}

// add records a new transaction. The caller holds c.mu.
func (c *chainData) add(wt *walletTx) {
	c.added.Add(1)
	c.txs[wt.txid] = wt
	c.order = append(c.order, wt)
	c.indexScripts(wt)
	if wt.rec.Seq >= c.nextSeq {
		c.nextSeq = wt.rec.Seq + 1
	}
	wt.conflictHeight = -1
	if !wt.coinbase {
		for _, in := range wt.tx.TxIn {
			c.spenders[in.PreviousOutPoint] = append(c.spenders[in.PreviousOutPoint], wt)
			c.creditChanged(in.PreviousOutPoint.Hash)
		}
	}
}

// TxsAdded counts the transactions the wallet recorded since it was
// loaded, whatever recorded them (blocks, the mempool, its own spends,
// importprunedfunds): a chain follower that sees it move other than by its
// own deliveries reads the wallet's outpoints again.
func (w *Wallet) TxsAdded() uint64 { return w.chain.added.Load() }

// TxsAddedElsewhere counts the transactions the wallet recorded since it
// was loaded other than through the chain follower's deliveries
// (FollowerBlock, FollowerMempool): its own spends, importprunedfunds,
// rescans, what other nodes wrote. A follower reads the wallet's outpoints
// again when it moves; counting its own deliveries apart, which it used
// to subtract by comparing the count around them, lost a spend the wallet
// recorded during a delivery (its outputs were then never watched).
func (w *Wallet) TxsAddedElsewhere() uint64 { return w.chain.elsewhere.Load() }

// ScriptGeneration changes whenever the wallet gains scripts (imports,
// key-pool top-ups, new addresses past the derived range).
func (w *Wallet) ScriptGeneration() uint64 {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var g uint64
	for _, wd := range w.descs {
		g++
		if wd.rec.Ranged {
			g += uint64(wd.rec.RangeEnd - wd.rec.RangeStart)
		}
	}
	return g
}

// WatchList returns what a chain scan must look for: every scriptPubKey
// the wallet derives (none when ScriptsInStore: the scan asks
// MatchScripts), and the outputs it owns and has not seen spent in a
// block, with the generation of the scripts.
func (w *Wallet) WatchList(ctx context.Context) (uint64, [][]byte, []wire.OutPoint, error) {
	if err := w.loadChain(ctx); err != nil {
		return 0, nil, nil, err
	}
	type job struct {
		slot       uint32
		d          *descriptor.Descriptor
		cache      *descriptor.Cache
		start, end int64
	}
	w.mu.RLock()
	var jobs []job
	var gen uint64
	for _, wd := range w.descs {
		gen++
		j := job{slot: wd.slot, d: wd.d, cache: wd.cache, start: 0, end: 1}
		if wd.rec.Ranged {
			gen += uint64(wd.rec.RangeEnd - wd.rec.RangeStart)
			j.start, j.end = wd.rec.RangeStart, wd.rec.RangeEnd
		}
		jobs = append(jobs, j)
	}
	w.mu.RUnlock()
	if w.ScriptsInStore() {
		// The database answers MatchScripts: no script is held. The
		// outputs of the wallet's transactions are asked about at once.
		c := &w.chain
		c.mu.RLock()
		var scripts [][]byte
		for _, wt := range c.order {
			for _, o := range wt.tx.TxOut {
				scripts = append(scripts, o.PkScript)
			}
		}
		c.mu.RUnlock()
		if err := w.prefetchScripts(ctx, scripts); err != nil {
			return 0, nil, nil, err
		}
		before := w.lookupFailures()
		ops := w.unspentOutpoints()
		if w.lookupFailures() != before {
			return 0, nil, nil, storageErr(errScriptLookup)
		}
		return gen, nil, ops, nil
	}

	c := &w.chain
	c.scriptsMu.Lock()
	defer c.scriptsMu.Unlock()
	for _, j := range jobs {
		sc := c.scripts[j.slot]
		if sc == nil || sc.d != j.d && sc.d.Public().String() != j.d.Public().String() {
			sc = nil
		}
		if sc == nil {
			chunks, err := deriveScripts(ctx, j.d, j.cache, j.start, j.end)
			if err != nil {
				return 0, nil, nil, err
			}
			sc = &scriptCache{d: j.d, start: j.start, end: j.end, chunks: chunks}
		} else {
			if j.start < sc.start {
				lo, err := deriveScripts(ctx, j.d, j.cache, j.start, sc.start)
				if err != nil {
					return 0, nil, nil, err
				}
				sc.chunks = append(lo, sc.chunks...)
				sc.start = j.start
			}
			if j.end > sc.end {
				hi, err := deriveScripts(ctx, j.d, j.cache, sc.end, j.end)
				if err != nil {
					return 0, nil, nil, err
				}
				sc.chunks = append(sc.chunks, hi...)
				sc.end = j.end
			}
		}
		c.scripts[j.slot] = sc
	}
	// The list's slices point into the caches' buffers: no script is
	// copied.
	n := 0
	for _, j := range jobs {
		n += c.scripts[j.slot].count()
	}
	scripts := make([][]byte, 0, n)
	for _, j := range jobs {
		scripts = c.scripts[j.slot].appendTo(scripts)
	}
	return gen, scripts, w.unspentOutpoints(), nil
}

// scriptChunkIndexes is the number of indexes one chunk of a scriptCache
// holds, and the unit of work of deriveScripts.
const scriptChunkIndexes = 1 << 16

// deriveScripts derives the scriptPubKeys of indexes [start, end) of d, in
// chunks of scriptChunkIndexes indexes taken in turn by GOMAXPROCS
// goroutines. Each chunk is derived by descriptor.ForEachScript, which
// adds points between consecutive indexes where the descriptor allows it
// (one key, ranged, unhardened) and expands each index otherwise.
func deriveScripts(ctx context.Context, d *descriptor.Descriptor, cache *descriptor.Cache, start, end int64) ([]scriptChunk, error) {
	if end <= start {
		return nil, nil
	}
	if start < 0 || end-1 > math.MaxUint32 {
		return nil, walletErr(ErrWallet, "descriptor range out of bounds")
	}
	nchunks := int((end - start + scriptChunkIndexes - 1) / scriptChunkIndexes)
	out := make([]scriptChunk, nchunks)
	workers := min(runtime.GOMAXPROCS(0), nchunks)
	var next atomic.Int64
	var g safego.Group
	for range workers {
		g.Go("script derivation", func() error {
			for {
				k := int(next.Add(1) - 1)
				if k >= nchunks {
					return nil
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				lo := start + int64(k)*scriptChunkIndexes
				hi := min(lo+scriptChunkIndexes, end)
				ch := &out[k]
				err := d.ForEachScript(uint32(lo), uint32(hi-1), cache, func(i uint32, scripts [][]byte) error {
					if i%4096 == 0 && ctx.Err() != nil {
						return ctx.Err()
					}
					return ch.add(scripts, int(hi-int64(i)))
				})
				if err != nil {
					return err
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// unspentOutpoints returns the wallet's outputs no confirmed wallet
// transaction spends, and the other inputs of its unconfirmed
// transactions. An output spent only by an unconfirmed transaction
// (one seen in the mempool, or one a reorg took out of its block) stays
// watched: the block that confirms that spend, or a conflicting one, must
// match, else a spend that pays nothing back to the wallet would never be
// seen mined.
func (w *Wallet) unspentOutpoints() []wire.OutPoint {
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	var ops []wire.OutPoint
	for _, wt := range c.order {
		for i, out := range wt.tx.TxOut {
			op := wire.OutPoint{Hash: wt.txid, Index: uint32(i)}
			if c.spentInBlock(op) {
				continue
			}
			if w.IsMine(out.PkScript) {
				ops = append(ops, op)
			}
		}
	}
	// The foreign inputs of unconfirmed wallet transactions too: a block
	// spending one elsewhere conflicts with the transaction (a payment
	// whose sender spent the coin again).
	for _, wt := range c.order {
		if wt.confirmed() || wt.coinbase {
			continue
		}
		for _, in := range wt.tx.TxIn {
			op := in.PreviousOutPoint
			if p := c.txs[op.Hash]; p != nil && int(op.Index) < len(p.tx.TxOut) && w.IsMine(p.tx.TxOut[op.Index].PkScript) {
				continue // listed above when not spent in a block
			}
			if !c.spentInBlock(op) {
				ops = append(ops, op)
			}
		}
	}
	return ops
}

// isFromMe reports whether one of tx's inputs spends an output of the
// wallet. The caller holds c.mu.
func (w *Wallet) isFromMe(tx *wire.MsgTx) bool { return w.spendsFrom(tx, w.chain.walletPrev) }

// spendsFrom reports whether one of tx's inputs spends an output of the
// wallet, prev finding the transactions the inputs spend.
func (w *Wallet) spendsFrom(tx *wire.MsgTx, prev func(chainhash.Hash) *wire.MsgTx) bool {
	for _, in := range tx.TxIn {
		p := prev(in.PreviousOutPoint.Hash)
		if p == nil || int(in.PreviousOutPoint.Index) >= len(p.TxOut) {
			continue
		}
		if w.IsMine(p.TxOut[in.PreviousOutPoint.Index].PkScript) {
			return true
		}
	}
	return false
}

// usedIndex is the highest index of a ranged descriptor a block's
// transactions pay.
type usedIndex struct {
	wd    *walletDesc
	index int64
}

// MempoolTxs records the wallet's transactions among txs, mempool
// transactions, as unconfirmed (no block, zero confirmations). Those the
// wallet knows already, mined or not, are left as they are; when one is
// mined later, BlockConnected gives it its block.
func (w *Wallet) MempoolTxs(ctx context.Context, txs []*wire.MsgTx) error {
	return w.BlockConnected(ctx, BlockInfo{Height: -1}, txs, nil)
}

// BlockConnected records the wallet's transactions of a block, in block
// order, with their positions in the block (indexes may be nil). Delivering
// the same block again only updates what changed. Outputs to ranged
// descriptors move their next index past the used one and top the key pool
// up; an active receive descriptor also labels the addresses up to it "".
func (w *Wallet) BlockConnected(ctx context.Context, blk BlockInfo, txs []*wire.MsgTx, indexes []int) error {
	return w.connect(ctx, blk, txs, indexes, nil, false)
}

// FollowerBlock is BlockConnected for the chain follower's deliveries:
// the transactions it records do not count in TxsAddedElsewhere.
func (w *Wallet) FollowerBlock(ctx context.Context, blk BlockInfo, txs []*wire.MsgTx, indexes []int) error {
	return w.connect(ctx, blk, txs, indexes, nil, true)
}

// FollowerMempool is MempoolTxs for the chain follower's deliveries: the
// transactions it records do not count in TxsAddedElsewhere.
func (w *Wallet) FollowerMempool(ctx context.Context, txs []*wire.MsgTx) error {
	return w.connect(ctx, BlockInfo{Height: -1}, txs, nil, nil, true)
}

// connect is BlockConnected; comments are those of the wallet's own
// transactions (CommitTx), written with their records when they are new;
// follower tells a delivery of the chain follower.
// A wallet whose database indexes its scripts asks about every output at
// once; a lookup that fails meanwhile fails the delivery, which is made
// again.
func (w *Wallet) connect(ctx context.Context, blk BlockInfo, txs []*wire.MsgTx, indexes []int, comments map[chainhash.Hash]TxComments, follower bool) error {
	var scripts [][]byte
	if w.ScriptsInStore() {
		for _, tx := range txs {
			for _, o := range tx.TxOut {
				scripts = append(scripts, o.PkScript)
			}
		}
	}
	if err := w.prefetchScripts(ctx, scripts); err != nil {
		return err
	}
	before := w.lookupFailures()
	err := w.connectTxs(ctx, blk, txs, indexes, comments, follower)
	if err == nil && w.lookupFailures() != before {
		return storageErr(errScriptLookup)
	}
	return err
}

// connectTxs is connect once the scripts are asked about.
func (w *Wallet) connectTxs(ctx context.Context, blk BlockInfo, txs []*wire.MsgTx, indexes []int, comments map[chainhash.Hash]TxComments, follower bool) error {
	if err := w.loadChain(ctx); err != nil {
		return err
	}
	w.importMu.Lock()
	defer w.importMu.Unlock()
	if w.isClosed() {
		return walletErr(ErrNotFound, "Requested wallet does not exist or is not loaded")
	}
	c := &w.chain
	now := time.Now().Unix()
	// A lookup of a database script index that fails answers "not the
	// wallet's": the delivery then writes nothing (connect fails it, and
	// it is made again), least of all the block's position.
	lookups := w.lookupFailures()
	// fold: the block's chain state is written with it (BlockInfo.Recent).
	// Its checkpoint needs c.mu held from the reading of the state to
	// the update in memory, as Checkpoint holds it; other deliveries
	// read under the read lock and release it while they write.
	fold := w.foldsCheckpoint(blk, follower)
	exclusive := fold
	// unlock releases what the reading below holds, on the ways out
	// before the write.
	unlock := c.mu.RUnlock
	if exclusive {
		c.mu.Lock()
		unlock = c.mu.Unlock
		if blk.Height <= c.written {
			fold = false
		}
	} else {
		c.mu.RLock()
	}

	var recs []TxRecord
	var recTxs []*wire.MsgTx
	var depths []int32
	// newFollow: a transaction is stored with a followTip depth under
	// depths not recorded yet (metaEventDepths).
	newFollow := false
	// back are known unconfirmed transactions seen in the mempool again.
	var back []*walletTx
	used := map[*walletDesc]int64{}
	// A transaction may spend an output of one recorded before it in the
	// same block (or mempool batch): prev finds both kinds.
	batch := map[chainhash.Hash]*wire.MsgTx{}
	prev := func(h chainhash.Hash) *wire.MsgTx {
		if t := batch[h]; t != nil {
			return t
		}
		return c.walletPrev(h)
	}
	// foreign are the block's transactions the wallet does not record:
	// one may spend an input of a wallet transaction.
	var foreign []*wire.MsgTx
	// pooled are the mempool transactions the wallet does not record
	// that spend an input of an unconfirmed wallet transaction (a
	// payment's sender replacing it): Core's mempool_conflicts.
	var pooled []*wire.MsgTx
	for i, tx := range txs {
		mine := false
		w.mu.RLock()
		for _, out := range tx.TxOut {
			for _, m := range w.findScript(out.PkScript) {
				mine = true
				if m.wd.rec.Ranged {
					if old, ok := used[m.wd]; !ok || int64(m.index) > old {
						used[m.wd] = int64(m.index)
					}
				}
			}
		}
		w.mu.RUnlock()
		if !mine && !w.spendsFrom(tx, prev) {
			switch {
			case blk.Height >= 0:
				foreign = append(foreign, tx)
			case c.conflictsUnconfirmed(tx):
				pooled = append(pooled, tx)
			}
			continue
		}
		if blk.Height < 0 {
			if old, known := c.txs[tx.TxHash()]; known {
				// A mempool transaction already recorded, mined
				// or not: its record stands; an inactive one is
				// in the mempool again.
				if !old.confirmed() && !old.inMempool {
					back = append(back, old)
				}
				continue
			}
		}
		var buf bytes.Buffer
		if err := tx.Serialize(&buf); err != nil {
			unlock()
			return err
		}
		r := TxRecord{TxID: tx.TxHash(), Raw: buf.Bytes(), TimeReceived: now,
			Height: blk.Height, BlockHash: blk.Hash, BlockTime: blk.Time}
		if i < len(indexes) {
			r.BlockIndex = int32(indexes[i])
		}
		// depth is the depth reported in memory, r.EventDepth the
		// one stored (followTip: derived, see followTip).
		var depth int32
		switch old, ok := c.txs[chainhash.Hash(r.TxID)]; {
		case ok:
			r.Seq, r.TimeReceived, r.TimeSmart = old.rec.Seq, old.rec.TimeReceived, old.rec.TimeSmart
			if old.confirmed() {
				// Moved from another block: its depth
				// events are Checkpoint's to work out
				// once it is recorded here.
				fold = false
			}
			r.EventDepth, depth = old.rec.EventDepth, old.evDepth
			if old.rec.Height != r.Height || old.rec.BlockHash != r.BlockHash {
				r.EventDepth, depth = w.blockDepth(), w.blockDepth()
				if w.followsTip(r.Height) {
					r.EventDepth = followTip
				}
			}
		case blk.Height < 0:
			// Unconfirmed: listed at the time it was received.
			r.Height, r.BlockHash, r.BlockTime, r.BlockIndex = -1, [32]byte{}, 0, 0
			r.TimeSmart = now
		default:
			r.TimeSmart = c.smartTime(blk, now, recs)
			r.EventDepth, depth = w.blockDepth(), w.blockDepth()
			if w.followsTip(r.Height) {
				r.EventDepth = followTip
			}
		}
		if r.EventDepth == followTip && c.followDepths != w.depthsKey() {
			newFollow = true
		}
		recs = append(recs, r)
		depths = append(depths, depth)
		recTxs = append(recTxs, tx)
		batch[chainhash.Hash(r.TxID)] = tx
	}
	// events are the block's events, then (fold) its checkpoint's from
	// blockEvents on.
	var events []EventRecord
	// kept are the descriptions of the block's transactions, kept on
	// them once recorded for their deeper confirmed events.
	var kept map[chainhash.Hash]*description
	if !w.noEvents && len(recs) > 0 {
		events = make([]EventRecord, 0, 2*len(recs)+2)
		kept = make(map[chainhash.Hash]*description, len(recs))
	}
	for i, r := range recs {
		if w.noEvents {
			break
		}
		events = w.appendRecordEvents(events, c.txs[chainhash.Hash(r.TxID)], r, recTxs[i], prev, now, kept)
	}
	blockEvents := len(events)
	transitions := c.conflictTransitions(recTxs, blk)
	// Abandonment ends when the transaction is seen again. unabandon
	// holds every change of marks to write (also the conflicts and
	// comments below).
	unabandon := map[chainhash.Hash]TxMarks{}
	for _, wt := range back {
		if wt.marks.Abandoned {
			m := wt.marks
			m.Abandoned = false
			unabandon[wt.txid] = m
		}
	}
	for _, r := range recs {
		if old, ok := c.txs[chainhash.Hash(r.TxID)]; ok && old.marks.Abandoned && r.Height >= 0 {
			m := old.marks
			m.Abandoned = false
			unabandon[old.txid] = m
		}
	}
	// The wallet's own new transaction gets its comments.
	for _, r := range recs {
		id := chainhash.Hash(r.TxID)
		if cm, ok := comments[id]; ok {
			if _, known := c.txs[id]; !known {
				unabandon[id] = TxMarks{Comment: cm.Comment, To: cm.To}
			}
		}
	}
	// A block transaction the wallet does not record that spends an
	// input of an unconfirmed wallet transaction conflicts with it.
	for _, tx := range foreign {
		id := tx.TxHash()
		for _, in := range tx.TxIn {
			for _, s := range c.spenders[in.PreviousOutPoint] {
				if s.txid == id || s.confirmed() {
					continue
				}
				m, ok := unabandon[s.txid]
				if !ok {
					m = s.marks
				}
				if m.ConflictHash != ([32]byte{}) && m.ConflictHeight <= blk.Height {
					continue
				}
				m.ConflictHash, m.ConflictHeight = blk.Hash, blk.Height
				unabandon[s.txid] = m
			}
		}
	}
	if len(foreign) > 0 {
		transitions = append(transitions, c.conflictTransitions(foreign, blk)...)
	}
	transitions = append(transitions, c.poolTransitions(pooled, unabandon)...)
	// A block conflict replaces the abandoned state for good (Core's
	// MarkConflicted overwrites it): a reorg of the block leaves the
	// transaction inactive, spending its inputs again, not abandoned.
	for _, t := range transitions {
		if t.Kind != TransitionConflicted {
			continue
		}
		m, ok := unabandon[t.TxID]
		if !ok {
			wt := c.txs[t.TxID]
			if wt == nil {
				continue
			}
			m = wt.marks
		}
		if m.Abandoned {
			m.Abandoned = false
			unabandon[t.TxID] = m
		}
	}
	if len(recs) == 0 && len(back) == 0 && len(unabandon) == 0 {
		unlock()
		if len(pooled) > 0 {
			c.mu.Lock()
			c.refreshTxs(c.pool.add(c, pooled))
			c.mu.Unlock()
		}
		return nil
	}
	// The checkpoint's depth events are those due at the new tip of the
	// transactions recorded before (those of this block are not moved
	// from another one: see above).
	var reached map[*walletTx]int32
	if fold && !w.noEvents {
		events, reached = w.appendDepthEvents(events, blk.Height, now)
	}
	newUsed := w.spentScripts(txs)
	if !exclusive {
		c.mu.RUnlock()
	}

	// Key-pool top-ups for the used indexes.
	type topUp struct {
		wd     *walletDesc
		next   int64
		end    int64
		blocks []derived
		labels []LabelRecord
	}
	var tops []topUp
	w.mu.RLock()
	activeExt := map[*walletDesc]bool{}
	for k, wd := range w.active {
		if !k.internal {
			activeExt[wd] = true
		}
	}
	var useds []usedIndex
	for wd, idx := range used {
		if idx >= wd.rec.NextIndex {
			useds = append(useds, usedIndex{wd, idx})
		}
	}
	w.mu.RUnlock()
	sort.Slice(useds, func(i, j int) bool { return useds[i].wd.slot < useds[j].wd.slot })
	for _, u := range useds {
		wd := u.wd
		t := topUp{wd: wd, next: u.index + 1, end: wd.rec.RangeEnd}
		if e := t.next + int64(w.cfg.Keypool); e > t.end {
			t.end = min(e, maxIndex+1)
		}
		if t.end > wd.rec.RangeEnd {
			blocks, err := deriveDigests(ctx, wd.d, wd.cache, wd.rec.RangeEnd, t.end, wd.perIndex)
			if err != nil {
				// Hardened steps of a locked wallet: no top-up now.
				t.end = wd.rec.RangeEnd
			} else {
				t.blocks = blocks
			}
		}
		if activeExt[wd] {
			w.mu.RLock()
			for i := wd.rec.NextIndex; i <= u.index; i++ {
				outs, err := wd.expand(uint32(i))
				if err != nil || len(outs) == 0 {
					continue
				}
				spk := outs[0].ScriptPubKey
				if _, ok := address.Encode(spk, w.cfg.Net); !ok {
					continue
				}
				if _, ok := w.book[string(spk)]; ok {
					continue
				}
				l := ""
				t.labels = append(t.labels, LabelRecord{Script: spk, Label: &l, Purpose: purposeReceive})
			}
			w.mu.RUnlock()
		}
		tops = append(tops, t)
	}
	// A receiving address the transactions paid without its having been
	// handed out gets the label "" with them (Core's address book entry):
	// their events show it, as every later one does.
	if len(events) > 0 {
		var payees map[string]bool
		for _, t := range tops {
			for _, l := range t.labels {
				if a, ok := address.Encode(l.Script, w.cfg.Net); ok {
					if payees == nil {
						payees = map[string]bool{}
					}
					payees[a] = true
				}
			}
		}
		labelPayees(events, payees)
	}

	if w.lookupFailures() != lookups {
		if exclusive {
			c.mu.Unlock()
		}
		return storageErr(errScriptLookup)
	}

	seqs := make([]int64, len(recs))
	var pins []pinned
	err := w.updateChain(ctx, func(tx ChainStoreTx) error {
		for i, r := range recs {
			seq, err := tx.PutTx(r)
			if err != nil {
				return err
			}
			seqs[i] = seq
		}
		// The events keep the order of a block then its checkpoint:
		// the block's, its transitions', then the depths reached (in
		// one statement when there are no transitions).
		evs := events
		if len(transitions) > 0 {
			evs = events[:blockEvents]
		}
		if err := appendEvents(tx, evs); err != nil {
			return err
		}
		if newFollow {
			if err := tx.PutMeta(metaEventDepths, []byte(w.depthsKey())); err != nil {
				return err
			}
		}
		for id, m := range unabandon {
			if err := tx.PutTxMarks(id, m); err != nil {
				return err
			}
		}
		if err := w.recordTransitions(tx, transitions, now); err != nil {
			return err
		}
		if fold {
			ck := events[blockEvents:]
			if len(transitions) == 0 {
				ck = nil // written above
			}
			var err error
			if pins, err = w.writeCheckpoint(tx, blk.Recent, ck, reached); err != nil {
				return err
			}
		}
		for _, spk := range newUsed {
			if err := tx.PutUsedScript(spk); err != nil {
				return err
			}
		}
		for _, t := range tops {
			if err := tx.SetNextIndex(t.wd.rec.ID, t.next, t.end); err != nil {
				return err
			}
			for _, ch := range chunkRecords(t.wd.rec.ID, t.blocks) {
				if err := tx.PutChunk(ch); err != nil {
					return err
				}
			}
			for _, l := range t.labels {
				if err := tx.PutLabel(l); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		if exclusive {
			c.mu.Unlock()
		}
		return err
	}

	var notices []TxNotice
	// changed are the transactions whose state is derived again.
	changed := make([]*walletTx, 0, len(recs)+len(back)+len(unabandon))
	if !exclusive {
		c.mu.Lock()
	}
	if newFollow {
		c.followDepths = w.depthsKey()
	}
	for i, r := range recs {
		if r.Seq == 0 {
			if seqs[i] > 0 {
				r.Seq = seqs[i]
			} else {
				r.Seq = c.nextSeq
			}
		}
		if old, ok := c.txs[chainhash.Hash(r.TxID)]; ok {
			if old.rec.Height != r.Height || old.rec.BlockHash != r.BlockHash {
				notices = append(notices, noticeOf(r))
			}
			old.rec = r
			if r.Height >= 0 {
				old.inMempool = false
			}
			if m, ok := unabandon[old.txid]; ok {
				old.marks = m
			}
			old.evDepth, old.evFollow = depths[i], r.EventDepth == followTip
			if d := kept[old.txid]; d != nil {
				old.description = d
			}
			w.trackDepth(old)
			changed = append(changed, old)
			continue
		}
		notices = append(notices, noticeOf(r))
		wt, err := newWalletTx(r)
		if err != nil {
			continue
		}
		wt.evDepth, wt.evFollow = depths[i], r.EventDepth == followTip
		wt.inMempool = r.Height < 0
		wt.description = kept[wt.txid]
		c.add(wt)
		if !follower {
			c.elsewhere.Add(1)
		}
		w.trackDepth(wt)
		changed = append(changed, wt)
	}
	for _, wt := range back {
		wt.inMempool = true
		changed = append(changed, wt)
	}
	for id, m := range unabandon {
		if wt := c.txs[id]; wt != nil {
			wt.marks = m
			changed = append(changed, wt)
		}
	}
	// The wallet's position moves with the block's transactions, as
	// Core's do under one lock: a reader never sees a transaction
	// confirmed in a block past the last processed one. Unless written
	// here, the follower's Checkpoint or AdvanceTip replaces the list
	// next; close writes it if neither did.
	if fold {
		w.applyCheckpoint(blk.Recent, reached, pins)
	} else if n := len(c.recent); n > 0 && !blk.Rescan && c.recent[n-1].Height == blk.Height-1 {
		c.recent = append(c.recent, BlockRef{Height: blk.Height, Hash: blk.Hash})
		c.recentUnwritten = true
	}
	notices = append(c.conflictNotices(transitions), notices...)
	if blk.Height < 0 {
		for _, tx := range recTxs {
			changed = append(changed, c.replacedIn(tx)...)
		}
	}
	changed = append(changed, c.pool.add(c, pooled)...)
	changed = append(changed, c.pool.drop(c, recs, foreign)...)
	c.refreshTxs(changed)
	// What the transactions change outside c.mu (the labels "" of the
	// receiving addresses they used, the key pool, the scripts marked
	// used) shows with them, as Core changes both under one lock: a
	// reader never lists a payment without its address's label, nor
	// counts a coin of a script the block spent from as unused. c.mu
	// is taken before w.mu.
	if len(tops) > 0 {
		w.mu.Lock()
		for _, t := range tops {
			t.wd.rec.NextIndex = t.next
			t.wd.rec.RangeEnd = t.end
			w.indexBlocks(t.wd, t.blocks)
			for _, l := range t.labels {
				w.book[string(l.Script)] = &bookEntry{label: l.Label, purpose: l.Purpose}
			}
		}
		w.mu.Unlock()
	}
	w.markUsed(newUsed)
	c.mu.Unlock()
	w.notifyTxs(notices)
	return w.unlockSpent(ctx, txs)
}

// smartTime is the time a transaction first recorded from block blk at
// now is listed with (Core's ComputeTimeSmart). A rescan gives it the
// block's time. A newly connected block gives it the block's time unless
// that is later than now, or than the latest earlier transaction's time
// when that is later than now by at most five minutes, and never less than
// that transaction's time: the latest earlier transaction (the last of
// batch, which the caller records before it, else the last recorded) whose
// time is at most now plus 300 s. Core's rescan time is the highest time of
// the block and its ancestors; the block's own time is that value unless an
// earlier block carries a later timestamp. The caller holds c.mu.
func (c *chainData) smartTime(blk BlockInfo, now int64, batch []TxRecord) int64 {
	if blk.Rescan {
		return blk.Time
	}
	latestNow, latestEntry := now, int64(0)
	tolerated := now + 300
	consider := func(r *TxRecord) bool {
		t := r.TimeSmart
		if t == 0 {
			t = r.TimeReceived
		}
		if t > tolerated {
			return false
		}
		latestEntry = t
		latestNow = max(latestNow, t)
		return true
	}
	found := false
	for i := len(batch) - 1; i >= 0 && !found; i-- {
		if _, known := c.txs[chainhash.Hash(batch[i].TxID)]; known {
			continue
		}
		found = consider(&batch[i])
	}
	for i := len(c.order) - 1; i >= 0 && !found; i-- {
		found = consider(&c.order[i].rec)
	}
	return max(latestEntry, min(blk.Time, latestNow))
}

// updateChain runs fn in one transaction of the chain store; without one it
// runs nothing and succeeds (the data stays in memory).
func (w *Wallet) updateChain(ctx context.Context, fn func(ChainStoreTx) error) error {
	cs, ok := w.store.(ChainStore)
	if !ok {
		return nil
	}
	var appended int
	if err := cs.UpdateChain(ctx, func(tx ChainStoreTx) error {
		appended = 0 // a retried transaction counts afresh
		return fn(eventCounter{tx, &appended})
	}); err != nil {
		return storageErr(err)
	}
	w.chainWrites.Add(1)
	if appended > 0 {
		w.evsig.fire()
	}
	return nil
}

// Rollback unconfirms every transaction above height (the blocks a reorg
// dropped) and forgets the processed blocks above it.
func (w *Wallet) Rollback(ctx context.Context, height int32) error {
	if err := w.loadChain(ctx); err != nil {
		return err
	}
	var notices []TxNotice
	// Runs after the lock is released (deferred calls run last first).
	defer func() { w.notifyTxs(notices) }()
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	var kept []BlockRef
	for _, b := range c.recent {
		if b.Height <= height {
			kept = append(kept, b)
		}
	}
	now := time.Now().Unix()
	// Conflicts with transactions of the blocks that leave the chain end.
	cleared := map[*walletTx]TxMarks{}
	for _, wt := range c.order {
		if wt.marks.ConflictHash != ([32]byte{}) && wt.marks.ConflictHeight > height {
			m := wt.marks
			m.ConflictHash, m.ConflictHeight = [32]byte{}, 0
			cleared[wt] = m
		}
	}
	tip := tipHeight(kept)
	// The reorged events describe their transactions (content reads
	// w.mu) before the store transaction: a holder of w.mu may be
	// waiting for the store (SetFlag, close).
	var reorged []EventRecord
	for _, wt := range c.order {
		if wt.rec.Height > height {
			reorged = append(reorged, txEvent(EventReorged, wt.rec, 0, now, w.content(wt.tx, c.walletPrev)))
		}
	}
	var pins []pinned
	err := w.updateChain(ctx, func(tx ChainStoreTx) error {
		if err := tx.UnconfirmAbove(height); err != nil {
			return err
		}
		var err error
		if pins, err = w.pinFollowers(tx, tip, height, nil); err != nil {
			return err
		}
		for wt, m := range cleared {
			if err := tx.PutTxMarks(wt.txid, m); err != nil {
				return err
			}
		}
		for _, e := range reorged {
			if _, err := tx.AppendEvent(e); err != nil {
				return err
			}
		}
		return tx.SetRecentBlocks(kept)
	})
	if err != nil {
		return err
	}
	for _, wt := range c.order {
		if wt.rec.Height > height {
			wt.rec.Height, wt.rec.BlockHash, wt.rec.BlockTime, wt.rec.BlockIndex = -1, [32]byte{}, 0, 0
			wt.evDepth, wt.rec.EventDepth, wt.evFollow = 0, 0, false
			c.untrackDepth(wt.txid)
			// Back to the mempool, as a node takes the transactions
			// of disconnected blocks back; the next mempool read
			// tells.
			wt.inMempool = !wt.coinbase
			notices = append(notices, noticeOf(wt.rec))
		}
	}
	for wt, m := range cleared {
		wt.marks = m
	}
	applyPins(pins)
	c.refreshStates()
	c.recent = kept
	c.written = tip
	c.evGen++ // the depths due at a tip are worked out again
	return nil
}

// tipHeight is the height of the last of recent, -1 when it is empty.
func tipHeight(recent []BlockRef) int32 {
	if len(recent) == 0 {
		return -1
	}
	return recent[len(recent)-1].Height
}

// foldsCheckpoint tells whether connect writes blk.Recent, the chain state
// the block leaves the wallet at, with the block's transactions: only for
// the chain follower's delivery of a block (not a rescan's) ending at
// that block, to a wallet this node alone writes. connect also leaves the
// fold to Checkpoint for a block at or below the written position and for
// a transaction moved from another block.
func (w *Wallet) foldsCheckpoint(blk BlockInfo, follower bool) bool {
	n := len(blk.Recent)
	if !follower || blk.Rescan || blk.Height < 0 || n == 0 ||
		blk.Recent[n-1] != (BlockRef{Height: blk.Height, Hash: blk.Hash}) {
		return false
	}
	return w.writesChainAlone()
}

// writesChainAlone tells whether the wallet's chain data is written to a
// store that only this node writes (not a wallet several nodes serve, whose
// position the others read from the database).
func (w *Wallet) writesChainAlone() bool {
	if _, ok := w.store.(ChainStore); !ok {
		return false
	}
	_, shared := w.store.(SharedStore)
	return !shared
}

// Checkpoint records the last processed blocks, lowest first. It writes
// nothing when the wallet's written position is recent already and no
// confirmation depth is due at it (a block that carried its own
// checkpoint, BlockInfo.Recent).
func (w *Wallet) Checkpoint(ctx context.Context, recent []BlockRef) error {
	if err := w.loadChain(ctx); err != nil {
		return err
	}
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	var events []EventRecord
	var reached map[*walletTx]int32
	tip := tipHeight(recent)
	written := w.positionWritten(recent)
	if written && c.depthsAt == tip && c.depthsGen == c.evGen {
		return nil // the block that carried it wrote it, or the last Checkpoint
	}
	if len(recent) > 0 && !w.noEvents {
		events, reached = w.depthEvents(tip, time.Now().Unix())
	}
	if len(events) == 0 && written {
		c.depthsAt, c.depthsGen = tip, c.evGen
		return nil
	}
	var pins []pinned
	err := w.updateChain(ctx, func(tx ChainStoreTx) error {
		var err error
		pins, err = w.writeCheckpoint(tx, recent, events, reached)
		return err
	})
	if err != nil {
		return err
	}
	w.applyCheckpoint(recent, reached, pins)
	return nil
}

// positionWritten tells whether recent is the position the store holds
// (the last Checkpoint, Rollback, flushTip or folded block wrote it and
// nothing moved it since), on a wallet this node alone writes. The caller
// holds c.mu.
func (w *Wallet) positionWritten(recent []BlockRef) bool {
	c := &w.chain
	return w.writesChainAlone() && !c.recentUnwritten && c.written == tipHeight(recent) && slices.Equal(c.recent, recent)
}

// writeCheckpoint writes, in tx, recent as the last processed blocks with
// what goes with them: the confirmed events due at its tip (events, the
// depths each transaction reaches in reached) and the pinned depths of
// pinFollowers. The caller holds c.mu and applies the result with
// applyCheckpoint once tx commits.
func (w *Wallet) writeCheckpoint(tx ChainStoreTx, recent []BlockRef, events []EventRecord, reached map[*walletTx]int32) ([]pinned, error) {
	if err := appendEvents(tx, events); err != nil {
		return nil, err
	}
	for wt, d := range reached {
		if wt.evFollow {
			continue // the position written below gives it
		}
		if err := tx.SetEventDepth(wt.rec.TxID, d); err != nil {
			return nil, err
		}
	}
	tip := tipHeight(recent)
	pins, err := w.pinFollowers(tx, tip, tip, reached)
	if err != nil {
		return nil, err
	}
	return pins, tx.SetRecentBlocks(recent)
}

// applyCheckpoint records in memory what writeCheckpoint wrote. The caller
// holds c.mu for writing.
func (w *Wallet) applyCheckpoint(recent []BlockRef, reached map[*walletTx]int32, pins []pinned) {
	c := &w.chain
	for wt, d := range reached {
		wt.evDepth = d
		if !wt.evFollow {
			wt.rec.EventDepth = d
		}
		if d >= w.topDepth() {
			c.untrackDepth(wt.txid)
		}
	}
	applyPins(pins)
	c.recent = append([]BlockRef(nil), recent...)
	c.recentUnwritten = false
	c.written = tipHeight(recent)
	c.depthsAt, c.depthsGen = c.written, c.evGen
}

// AdvanceTip records recent as the last processed blocks, lowest first,
// in memory only, when that is all a Checkpoint would do: it reports false
// and records nothing when confirmation-depth events are due at the new
// tip (Checkpoint writes them). Until a later Checkpoint writes the blocks,
// a restart resumes from the last written ones (delivering blocks again is
// harmless), so that a chain follower serving many wallets writes each
// one's position only when it changed or now and then.
func (w *Wallet) AdvanceTip(ctx context.Context, recent []BlockRef) (bool, error) {
	if err := w.loadChain(ctx); err != nil {
		return false, err
	}
	if _, shared := w.store.(SharedStore); shared {
		// The other nodes serving the wallet read its chain position
		// from the database: every block is written.
		return false, nil
	}
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(recent) > 0 {
		if evs, _ := w.depthEvents(recent[len(recent)-1].Height, 0); len(evs) > 0 {
			return false, nil
		}
	}
	c.recent = append([]BlockRef(nil), recent...)
	c.recentUnwritten = true
	return true, nil
}

// flushTip writes the last processed blocks AdvanceTip kept in memory
// only, so that a clean shutdown or unload resumes where the wallet was
// (as Core writes its best block when it closes a wallet).
func (w *Wallet) flushTip(ctx context.Context) error {
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.recentUnwritten {
		return nil
	}
	recent := append([]BlockRef(nil), c.recent...)
	tip := tipHeight(recent)
	var pins []pinned
	err := w.updateChain(ctx, func(tx ChainStoreTx) error {
		// The confirmed events due at the position are left to the
		// next Checkpoint, as before the position was written here.
		var err error
		if pins, err = w.pinFollowers(tx, tip, tip, nil); err != nil {
			return err
		}
		return tx.SetRecentBlocks(recent)
	})
	if err != nil {
		return err
	}
	applyPins(pins)
	c.recentUnwritten = false
	c.written = tip
	return nil
}

// RecentBlocks returns the recorded last processed blocks, lowest first.
func (w *Wallet) RecentBlocks(ctx context.Context) ([]BlockRef, error) {
	if err := w.loadChain(ctx); err != nil {
		return nil, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	return append([]BlockRef(nil), c.recent...), nil
}

// LastProcessedBlock returns the last processed block, false when none.
func (w *Wallet) LastProcessedBlock() (BlockRef, bool) {
	if w.loadChain(context.Background()) != nil {
		return BlockRef{}, false
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.lastBlock()
}

// lastBlock returns the last processed block, false when none. The caller
// holds c.mu.
func (c *chainData) lastBlock() (BlockRef, bool) {
	return lastOf(c.recent)
}

// lastOf returns the last of recent, false when it is empty.
func lastOf(recent []BlockRef) (BlockRef, bool) {
	if len(recent) == 0 {
		return BlockRef{}, false
	}
	return recent[len(recent)-1], true
}

// SetRescanProgress records how far a rescan got: rs's heights replace the
// recorded ones (next past stop: none). The recorded From is kept unless
// rs.From is set and at most it (the caller resolved that rescan to rs's
// heights). rs nil clears the whole record.
func (w *Wallet) SetRescanProgress(ctx context.Context, rs *RescanState) error {
	if err := w.loadChain(ctx); err != nil {
		return err
	}
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	var next *RescanState
	if rs != nil {
		n := RescanState{Next: rs.Next, Stop: rs.Stop}
		if !n.HasHeights() {
			n.Next, n.Stop = 1, 0
		}
		if c.rescan != nil && c.rescan.From > 0 && (rs.From <= 0 || rs.From > c.rescan.From) {
			n.From = c.rescan.From
		}
		if n.HasHeights() || n.From > 0 {
			next = &n
		}
	}
	if next == nil && c.rescan == nil {
		return nil
	}
	oldFrom := int64(0)
	if c.rescan != nil {
		oldFrom = c.rescan.From
	}
	err := w.updateChain(ctx, func(tx ChainStoreTx) error {
		var heights *RescanState
		if next != nil && next.HasHeights() {
			heights = next
		}
		if err := tx.SetRescan(heights); err != nil {
			return err
		}
		newFrom := int64(0)
		if next != nil {
			newFrom = next.From
		}
		if newFrom != oldFrom {
			return tx.PutMeta(metaRescanFrom, encodeRescanFrom(newFrom))
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.rescan = next
	return nil
}

// PendingRescan returns the recorded rescan in progress, nil when none.
func (w *Wallet) PendingRescan(ctx context.Context) (*RescanState, error) {
	if err := w.loadChain(ctx); err != nil {
		return nil, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.rescan == nil {
		return nil, nil
	}
	r := *c.rescan
	return &r, nil
}

// Closed reports whether the wallet was unloaded.
func (w *Wallet) Closed() bool { return w.isClosed() }
