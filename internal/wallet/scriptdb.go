package wallet

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// scriptIndex answers which (descriptor slot, index) pairs may derive a
// script, by the script's digest. Two implementations: spkIndex holds every
// digest in memory (SQLite wallets), dbIndex asks the database (a
// ScriptStore) through a bounded cache. Callers hold w.mu (for reading at
// least); a hit is a candidate that findScript checks in full.
type scriptIndex interface {
	// lookup appends the candidate pairs (packRef) of digest h to buf.
	lookup(h uint64, buf []uint64) []uint64
	// may reports false when no script of digest h is the wallet's;
	// true when one may be.
	may(h uint64) bool
	// generation changes whenever scripts may have joined the wallet.
	generation() uint64
	// indexed records the derived blocks of wd, stored already. The
	// caller holds w.mu for writing.
	indexed(wd *walletDesc, blocks []derived)
}

func (x *spkIndex) may(h uint64) bool {
	_, ok := x.m[h]
	return ok
}

func (x *spkIndex) generation() uint64 { return x.adds }

func (x *spkIndex) indexed(wd *walletDesc, blocks []derived) {
	n := 0
	for _, b := range blocks {
		n += len(b.digest)
	}
	x.grow(n)
	for _, b := range blocks {
		for i, h := range b.digest {
			x.add(h, wd.slot, uint32(b.first+int64(i/wd.perIndex)))
		}
	}
}

// dbIndex is the script index of a wallet whose database holds it: answers
// come from the database, one query for a batch of digests (prefetch, for
// the outputs of a block or of the wallet's transactions) or for a single
// one, and recent answers (those that found nothing included) are kept in a
// bounded cache of two generations, so that a batch just fetched stays
// while it is used.
type dbIndex struct {
	w     *Wallet
	store ScriptStore

	mu       sync.Mutex
	cur, old map[uint64][]ScriptRef
	// epoch moves at every forget: an answer read before is not cached
	// after it.
	epoch uint64

	// gen is the generation of the wallet's scripts.
	gen atomic.Uint64
	// failures counts the lookups that failed (answered "not the
	// wallet's" for want of the database); a chain delivery that saw one
	// fails, so that it is delivered again.
	failures atomic.Uint64
}

// dbIndexCache is the number of digests one cache generation holds.
const dbIndexCache = 1 << 16

// dbLookupTimeout bounds a lookup made where no context is at hand.
const dbLookupTimeout = 30 * time.Second

func newDBIndex(w *Wallet, st ScriptStore) *dbIndex {
	x := &dbIndex{w: w, store: st, cur: map[uint64][]ScriptRef{}}
	x.gen.Store(1)
	return x
}

// cached returns the cached answer of h. The caller holds x.mu.
func (x *dbIndex) cached(h uint64) ([]ScriptRef, bool) {
	if r, ok := x.cur[h]; ok {
		return r, true
	}
	if r, ok := x.old[h]; ok {
		return r, true
	}
	return nil, false
}

// keep caches the answers of a query made at epoch. The caller holds
// x.mu.
func (x *dbIndex) keep(epoch uint64, digests []uint64, refs []ScriptRef) {
	if epoch != x.epoch {
		return
	}
	if len(x.cur)+len(digests) > dbIndexCache {
		x.old, x.cur = x.cur, make(map[uint64][]ScriptRef, min(len(digests), dbIndexCache))
	}
	found := make(map[uint64][]ScriptRef, len(refs))
	for _, r := range refs {
		found[r.Digest] = append(found[r.Digest], r)
	}
	for _, h := range digests {
		x.cur[h] = found[h]
	}
}

// prefetch asks the database about every digest of hs it has no answer
// cached for, in one query per few thousand digests.
func (x *dbIndex) prefetch(ctx context.Context, hs []uint64) error {
	x.mu.Lock()
	epoch := x.epoch
	var miss []uint64
	seen := make(map[uint64]bool, len(hs))
	for _, h := range hs {
		if _, ok := x.cached(h); !ok && !seen[h] {
			seen[h] = true
			miss = append(miss, h)
		}
	}
	x.mu.Unlock()
	if len(miss) == 0 {
		return nil
	}
	refs, err := x.store.LookupScripts(ctx, miss)
	if err != nil {
		return err
	}
	x.mu.Lock()
	x.keep(epoch, miss, refs)
	x.mu.Unlock()
	return nil
}

// refs returns the database's answer for h, from the cache when it has
// one.
func (x *dbIndex) refs(h uint64) []ScriptRef {
	x.mu.Lock()
	r, ok := x.cached(h)
	epoch := x.epoch
	x.mu.Unlock()
	if ok {
		return r
	}
	ctx, cancel := context.WithTimeout(context.Background(), dbLookupTimeout)
	defer cancel()
	one := []uint64{h}
	got, err := x.store.LookupScripts(ctx, one)
	if err != nil {
		x.failures.Add(1)
		if l := x.w.cfg.Log; l != nil {
			l.Warn("script lookup failed", "wallet", x.w.cfg.Name, "err", err)
		}
		return nil
	}
	x.mu.Lock()
	x.keep(epoch, one, got)
	x.mu.Unlock()
	return got
}

func (x *dbIndex) lookup(h uint64, buf []uint64) []uint64 {
	for _, r := range x.refs(h) {
		if slot, index, ok := x.resolve(r); ok {
			buf = append(buf, packRef(slot, index))
		}
	}
	return buf
}

// resolve turns a database entry into the descriptor's slot and the
// derivation index. The caller holds w.mu.
func (x *dbIndex) resolve(r ScriptRef) (slot, index uint32, ok bool) {
	for _, wd := range x.w.descs {
		if wd.rec.Seq == r.DescriptorSeq {
			if wd.perIndex <= 0 {
				return 0, 0, false
			}
			return wd.slot, uint32(r.FirstIndex + int64(r.Pos)/int64(wd.perIndex)), true
		}
	}
	return 0, 0, false
}

func (x *dbIndex) may(h uint64) bool { return true }

func (x *dbIndex) generation() uint64 { return x.gen.Load() }

// smallForget is the most digests whose cached answers are dropped one by
// one; a larger addition empties the cache.
const smallForget = 4096

func (x *dbIndex) indexed(wd *walletDesc, blocks []derived) {
	n := 0
	for _, b := range blocks {
		n += len(b.digest)
	}
	x.mu.Lock()
	x.epoch++
	if n > smallForget {
		x.cur, x.old = map[uint64][]ScriptRef{}, nil
	} else {
		for _, b := range blocks {
			for _, h := range b.digest {
				delete(x.cur, h)
				delete(x.old, h)
			}
		}
	}
	x.mu.Unlock()
	x.gen.Add(1)
}

// forgetAll drops every cached answer (scripts were added that the caller
// did not derive itself: a streamed import, another node's change).
func (x *dbIndex) forgetAll() {
	x.mu.Lock()
	x.epoch++
	x.cur, x.old = map[uint64][]ScriptRef{}, nil
	x.mu.Unlock()
	x.gen.Add(1)
}

// errScriptLookup is returned by a chain delivery during which a script
// lookup failed.
var errScriptLookup = errors.New("the wallet's script index could not be read")

// ScriptsInStore reports whether the wallet's scripts are indexed by its
// database rather than in memory: its watch list then holds no scripts,
// and a chain follower asks MatchScripts.
func (w *Wallet) ScriptsInStore() bool {
	_, ok := w.index.(*dbIndex)
	return ok
}

// MatchScripts reports which of scripts are the wallet's, asking the
// database once for all of them (in-memory wallets answer from memory).
func (w *Wallet) MatchScripts(ctx context.Context, scripts [][]byte) ([]bool, error) {
	if err := w.prefetchScripts(ctx, scripts); err != nil {
		return nil, err
	}
	x, _ := w.index.(*dbIndex)
	var before uint64
	if x != nil {
		before = x.failures.Load()
	}
	out := make([]bool, len(scripts))
	w.mu.RLock()
	for i, s := range scripts {
		out[i] = len(w.findScript(s)) > 0
	}
	w.mu.RUnlock()
	if x != nil && x.failures.Load() != before {
		return nil, errScriptLookup
	}
	return out, nil
}

// prefetchScripts brings the database's answers for scripts into the
// cache in one query; it does nothing for an in-memory index.
func (w *Wallet) prefetchScripts(ctx context.Context, scripts [][]byte) error {
	x, ok := w.index.(*dbIndex)
	if !ok || len(scripts) == 0 {
		return nil
	}
	hs := make([]uint64, len(scripts))
	for i, s := range scripts {
		hs[i] = scriptDigest(s)
	}
	if err := x.prefetch(ctx, hs); err != nil {
		return storageErr(err)
	}
	return nil
}

// lookupFailures returns the count of failed lookups of a database index
// (0 for an in-memory one), to compare before and after a delivery.
func (w *Wallet) lookupFailures() uint64 {
	if x, ok := w.index.(*dbIndex); ok {
		return x.failures.Load()
	}
	return 0
}
