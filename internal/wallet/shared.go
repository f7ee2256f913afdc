package wallet

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/descwallet/descwallet/internal/address"
)

// Changes are the change counters of a wallet that several nodes serve:
// Change moves with every write of keys, descriptors, the address book or
// settings except address handouts, Handout with every handout, Chain
// with every write of transactions, chain position, rescan record or
// events.
type Changes struct {
	Change, Handout, Chain int64
}

// SharedStore is a Store that other nodes write too (a PostgreSQL wallet
// opened shared). Its writes move the wallet's change counters in the
// transaction of the write; a node reads them at the start of a call and
// reloads the wallet when another node moved them, so that what one node
// acknowledged is seen by the next call on any other.
type SharedStore interface {
	Store
	// Changes reads the wallet's change counters.
	Changes(ctx context.Context) (Changes, error)
	// Stale reports whether c shows writes of keys, descriptors, address
	// book or settings this node's state does not reflect; handouts says
	// whether address handouts count.
	Stale(c Changes, handouts bool) bool
	// Seen records that this node's state of those reflects c (read
	// before the Load the state came from).
	Seen(c Changes)
	// ChainStale reports whether c shows writes of the chain side this
	// node's state does not reflect.
	ChainStale(c Changes) bool
	// SeenChain records that this node's chain state reflects the chain
	// counter n (read before the LoadChain the state came from).
	SeenChain(n int64)
	// Hold takes the wallet's exclusive-operation lock, one holder among
	// all the nodes, until release is called.
	Hold(ctx context.Context) (release func(), err error)
}

// IndexReserver is implemented by the write transactions of a
// SharedStore: ReserveNext hands out the next index of a ranged
// descriptor from the database and tops its range up to that index plus
// keypool (at most limit), returning the index and the range end before
// and after; the descriptor stays locked until the transaction ends, so
// the caller derives and stores the scripts of [oldEnd, newEnd) alone.
type IndexReserver interface {
	ReserveNext(id [32]byte, keypool, limit int64) (n, oldEnd, newEnd int64, err error)
}

// Sync brings a wallet that other nodes serve too up to date with the
// database: when another node wrote keys, descriptors, the address book
// or settings since this node's state was read it reloads them, and when
// another node wrote transactions, the chain position or the rescan record
// (the chain follower of the node that leads) it reloads the chain side.
// handouts says whether address handouts by other nodes count (calls that
// only hand out addresses need not see the others' handouts: the database
// gives each index once). It does nothing for a wallet only this node
// serves. The RPC methods call it before they use the wallet.
func (w *Wallet) Sync(ctx context.Context, handouts bool) error {
	ss, ok := w.store.(SharedStore)
	if !ok {
		return nil
	}
	c, err := ss.Changes(ctx)
	if err != nil {
		return storageErr(err)
	}
	if ss.Stale(c, handouts) {
		if err := w.syncKeys(ctx, ss, handouts); err != nil {
			return err
		}
	}
	if ss.ChainStale(c) {
		return w.syncChain(ctx, ss)
	}
	return nil
}

// syncKeys reloads the keys, descriptors, address book and settings when
// they are still stale under importMu.
func (w *Wallet) syncKeys(ctx context.Context, ss SharedStore, handouts bool) error {
	return w.reloadIfStale(ctx, ss, func(c Changes) bool { return ss.Stale(c, handouts) },
		func(c Changes) error { return w.reload(ctx, ss, c) })
}

// syncChain reloads the chain side when it is still stale under importMu
// (which block deliveries hold too).
func (w *Wallet) syncChain(ctx context.Context, ss SharedStore) error {
	cs, ok := w.store.(ChainStore)
	if !ok {
		return nil
	}
	return w.reloadIfStale(ctx, ss, ss.ChainStale, func(c Changes) error {
		t0 := time.Now()
		if err := w.reloadChain(ctx, cs); err != nil {
			return err
		}
		ss.SeenChain(c.Chain)
		w.debug(w.cfg.Log, "chain state reloaded after another node's change", "took",
			time.Since(t0).Round(time.Microsecond).String())
		return nil
	})
}

// reloadIfStale takes importMu and, unless the wallet is closed, reads the
// change counters again (another call may have reloaded meanwhile): when
// stale still says so for them, it runs reload with them, under the lock.
func (w *Wallet) reloadIfStale(ctx context.Context, ss SharedStore, stale func(Changes) bool, reload func(Changes) error) error {
	w.importMu.Lock()
	defer w.importMu.Unlock()
	if w.isClosed() {
		return nil
	}
	c, err := ss.Changes(ctx)
	if err != nil {
		return storageErr(err)
	}
	if !stale(c) {
		return nil
	}
	return reload(c)
}

// reload rebuilds the wallet's state from the database, read after the
// counters c. An unlocked wallet whose master key did not change stays
// unlocked. The caller holds importMu.
func (w *Wallet) reload(ctx context.Context, ss SharedStore, c Changes) error {
	t0 := time.Now()
	snap, err := w.store.Load(ctx)
	if err != nil {
		return storageErr(err)
	}
	fresh := newWallet(w.cfg, w.store)
	if err := fresh.restore(snap); err != nil {
		return err
	}
	w.mu.Lock()
	var master []byte
	if sameMasterKey(w.crypt.rec, fresh.crypt.rec) {
		master = w.crypt.master
	} else {
		w.lockNow()
	}
	for _, wd := range w.descs {
		wd.expansions.wipe()
	}
	w.flags = fresh.flags
	w.descs, w.byID, w.active = fresh.descs, fresh.byID, fresh.active
	w.book = fresh.book
	if x, ok := w.index.(*dbIndex); ok {
		// The database's index is the same; what is cached may not be.
		x.forgetAll()
	} else {
		w.index = fresh.index
	}
	w.crypt.rec = fresh.crypt.rec
	w.mu.Unlock()
	// An import of another node may have recorded a rescan to run.
	w.setRescanFrom(fresh.chain.loadedFrom)
	// Persistent coin locks another node took or released are followed;
	// this node's own locks (persistent or not) stay.
	w.mergeLocks(&fresh.locks)
	if master != nil {
		if err := w.openKeys(ctx, master); err != nil {
			w.mu.Lock()
			w.lockNow()
			w.mu.Unlock()
			return err
		}
	}
	ss.Seen(c)
	w.debug(w.cfg.Log, "reloaded after another node's change", "took", time.Since(t0).Round(time.Microsecond).String())
	return nil
}

// sameMasterKey reports whether two wrapped master keys are the same
// (both absent included).
func sameMasterKey(a, b *MasterKeyRecord) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.KDF == b.KDF && a.TimeCost == b.TimeCost && a.MemoryKiB == b.MemoryKiB && a.Threads == b.Threads &&
		bytes.Equal(a.Salt, b.Salt) && bytes.Equal(a.Wrapped, b.Wrapped)
}

// exclusive runs the start of an operation that must not overlap with the
// same operation of another node serving the wallet (imports, rescans,
// encryption, spending): for a shared wallet it takes the wallet's
// exclusive-operation lock and then brings the wallet up to date; release
// ends it. For a wallet only this node serves it does nothing.
func (w *Wallet) exclusive(ctx context.Context) (release func(), err error) {
	ss, ok := w.store.(SharedStore)
	if !ok {
		return func() {}, nil
	}
	// The calls of this node queue here, one of them in the database.
	select {
	case w.exclusiveSem <- struct{}{}:
	case <-ctx.Done():
		return nil, storageErr(ctx.Err())
	}
	held, err := ss.Hold(ctx)
	if err != nil {
		<-w.exclusiveSem
		return nil, storageErr(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			held()
			<-w.exclusiveSem
		})
	}
	if err := w.Sync(ctx, true); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// Exclusive is exclusive for callers outside the package (the RPC
// methods' spending pipeline and rescans): release must be called.
func (w *Wallet) Exclusive(ctx context.Context) (release func(), err error) {
	return w.exclusive(ctx)
}

// errReserved carries a wallet error out of a store transaction.
var errReserved = errors.New("address handout refused")

// newAddressShared is NewAddress's handout for a shared wallet: the index
// comes from the database (no two nodes give the same address) and the
// key pool top-up beyond the database's range end is derived and stored
// in the same transaction. The caller holds importMu.
func (w *Wallet) newAddressShared(ctx context.Context, wd *walletDesc, ot OutputType, internal bool, label *string) (string, error) {
	var (
		n, oldEnd, newEnd int64
		spk               []byte
		addr              string
		blocks            []derived
		werr              error
	)
	derivedAt := time.Now()
	err := w.store.Update(ctx, func(tx StoreTx) error {
		r, ok := tx.(IndexReserver)
		if !ok {
			return errors.New("the wallet database cannot hand out indexes")
		}
		var err error
		n, oldEnd, newEnd, err = r.ReserveNext(wd.rec.ID, int64(w.cfg.Keypool), maxIndex+1)
		if err != nil {
			return err
		}
		if n > maxIndex {
			werr = walletErr(ErrKeypoolRanOut, "Error: Keypool ran out, please call keypoolrefill first")
			return errReserved
		}
		outs, err := wd.expand(uint32(n))
		if err != nil || len(outs) == 0 {
			werr = walletErr(ErrKeypoolRanOut, "Error: Keypool ran out, please call keypoolrefill first")
			if uerr := w.EnsureUnlocked(); uerr != nil {
				werr = uerr
			}
			return errReserved
		}
		spk = outs[0].ScriptPubKey
		a, ok := address.Encode(spk, w.cfg.Net)
		if !ok {
			werr = walletErr(ErrKeypoolRanOut, "Error: No "+string(ot)+" addresses available.")
			return errReserved
		}
		addr = a
		blocks, err = deriveDigests(ctx, wd.d, wd.cache, oldEnd, newEnd, wd.perIndex)
		if err != nil {
			werr = walletErr(ErrKeypoolRanOut, "Error: Keypool ran out, please call keypoolrefill first")
			if uerr := w.EnsureUnlocked(); uerr != nil {
				werr = uerr
			}
			return errReserved
		}
		for _, c := range chunkRecords(wd.rec.ID, blocks) {
			if err := tx.PutChunk(c); err != nil {
				return err
			}
		}
		if !internal {
			l := ""
			if label != nil {
				l = *label
			}
			return tx.PutLabel(LabelRecord{Script: spk, Label: &l, Purpose: purposeReceive})
		}
		return nil
	})
	if werr != nil {
		return "", werr
	}
	if err != nil {
		return "", storageErr(err)
	}
	if len(blocks) > 0 {
		w.logDerived("key pool", wd.rec.ID, oldEnd, newEnd, blocks, time.Since(derivedAt))
	}
	w.mu.Lock()
	if n+1 > wd.rec.NextIndex {
		wd.rec.NextIndex = n + 1
	}
	// The scripts derived here extend this node's index only when it
	// already holds every script below them; otherwise the handouts of
	// another node are missing, and the next call that needs them
	// reloads the wallet (Sync).
	if oldEnd == wd.rec.RangeEnd {
		w.indexBlocks(wd, blocks)
		wd.rec.RangeEnd = newEnd
	}
	if !internal {
		l := ""
		if label != nil {
			l = *label
		}
		w.book[string(spk)] = &bookEntry{label: &l, purpose: purposeReceive}
	}
	w.mu.Unlock()
	w.debug(w.cfg.Log, "address handed out", "type", string(ot), "internal", internal,
		"descriptor", descTag(wd.rec.ID), "index", n, "shared", true)
	return addr, nil
}
