package walletdb

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/descwallet/descwallet/internal/pgstore"
	"github.com/descwallet/descwallet/internal/store"
	"github.com/descwallet/descwallet/internal/wallet"
)

// copyTx is a write transaction that can also put events with the
// cursors they carry.
type copyTx interface {
	wallet.ChainStoreTx
	PutEvent(e wallet.EventRecord) error
	PutDelivery(d delivery) error
}

// delivery is where one event delivery target (a webhook) stands.
type delivery struct {
	Target string
	Cursor int64
	Time   int64
}

// copySource is a wallet database read whole.
type copySource interface {
	Load(ctx context.Context) (*wallet.Snapshot, error)
	LoadChain(ctx context.Context) (*wallet.ChainSnapshot, error)
	Events(ctx context.Context, after int64, limit int) ([]wallet.EventRecord, int64, error)
	deliveries(ctx context.Context) ([]delivery, error)
}

// copySink is a wallet database written in one transaction.
type copySink interface {
	update(ctx context.Context, fn func(copyTx) error) error
}

// transfer copies everything src holds into the empty dst in one
// transaction: settings, descriptors and their (possibly sealed) secrets,
// script chunks, active descriptors, address book, locks, used scripts,
// master key, transactions in their order, chain state, rescan state, the
// event log with its cursors and the delivery targets' positions in it.
func transfer(ctx context.Context, src copySource, dst copySink) error {
	load := src.Load
	if f, ok := src.(interface {
		loadFull(ctx context.Context) (*wallet.Snapshot, error)
	}); ok {
		// A store whose Load leaves the script chunks out.
		load = f.loadFull
	}
	snap, err := load(ctx)
	if err != nil {
		return err
	}
	chain, err := src.LoadChain(ctx)
	if err != nil {
		return err
	}
	var events []wallet.EventRecord
	for after := int64(0); ; {
		page, _, err := src.Events(ctx, after, 10000)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		events = append(events, page...)
		after = page[len(page)-1].Cursor
	}
	dels, err := src.deliveries(ctx)
	if err != nil {
		return err
	}
	return dst.update(ctx, func(tx copyTx) error {
		for k, v := range snap.Meta {
			if err := tx.PutMeta(k, v); err != nil {
				return err
			}
		}
		for _, d := range snap.Descriptors {
			if _, err := tx.PutDescriptor(d); err != nil {
				return err
			}
		}
		for _, s := range snap.Secrets {
			if err := tx.PutSecret(s); err != nil {
				return err
			}
		}
		for _, c := range snap.Chunks {
			if err := tx.PutChunk(c); err != nil {
				return err
			}
		}
		for _, a := range snap.Active {
			if err := tx.SetActive(a); err != nil {
				return err
			}
		}
		for _, l := range snap.Labels {
			if err := tx.PutLabel(l); err != nil {
				return err
			}
		}
		for _, op := range snap.LockedCoins {
			if err := tx.PutLockedCoin(op); err != nil {
				return err
			}
		}
		for _, spk := range snap.UsedScripts {
			if err := tx.PutUsedScript(spk); err != nil {
				return err
			}
		}
		if snap.MasterKey != nil {
			if err := tx.PutMasterKey(*snap.MasterKey); err != nil {
				return err
			}
		}
		for _, t := range chain.Txs {
			if _, err := tx.PutTx(t); err != nil {
				return err
			}
		}
		for id, m := range chain.Marks {
			if err := tx.PutTxMarks(id, m); err != nil {
				return err
			}
		}
		if err := tx.SetRecentBlocks(chain.Recent); err != nil {
			return err
		}
		if chain.Rescan != nil {
			if err := tx.SetRescan(chain.Rescan); err != nil {
				return err
			}
		}
		for _, e := range events {
			if err := tx.PutEvent(e); err != nil {
				return err
			}
		}
		for _, d := range dels {
			if err := tx.PutDelivery(d); err != nil {
				return err
			}
		}
		return nil
	})
}

// backupTo writes src as a new SQLite wallet file at dest, which must not
// exist: built under a temporary name in dest's folder, synced, given its
// name only when whole (never over another file), mode 0600.
func backupTo(ctx context.Context, src copySource, dest string) error {
	if _, err := os.Lstat(dest); err == nil {
		return errors.New("backup destination exists")
	}
	dir := filepath.Dir(dest)
	f, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".tmp*")
	if err != nil {
		return err
	}
	temp := f.Name()
	f.Close()
	os.Remove(temp)
	cleanup := func() {
		for _, sfx := range []string{"", "-wal", "-shm", "-journal", store.LockSuffix} {
			os.Remove(temp + sfx)
		}
	}
	s, err := store.Create(ctx, temp)
	if err != nil {
		cleanup()
		return err
	}
	err = transfer(ctx, src, db{s: s})
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncPath(temp)
	}
	if err == nil {
		err = os.Chmod(temp, 0o600)
	}
	if err == nil {
		if lerr := os.Link(temp, dest); lerr != nil {
			if errors.Is(lerr, fs.ErrExist) {
				err = errors.New("backup destination exists")
			} else if _, serr := os.Lstat(dest); serr == nil {
				err = errors.New("backup destination exists")
			} else {
				err = os.Rename(temp, dest)
			}
		}
	}
	cleanup()
	if err != nil {
		return err
	}
	return syncPath(dir)
}

// syncPath flushes a file or folder to stable storage.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	serr := f.Sync()
	cerr := f.Close()
	if serr != nil {
		return serr
	}
	return cerr
}

// update runs fn in one transaction of the SQLite store.
func (d db) update(ctx context.Context, fn func(copyTx) error) error {
	return d.s.Update(ctx, func(tx *store.Tx) error { return fn(chainTxn{txn{tx}}) })
}

func (t chainTxn) PutEvent(e wallet.EventRecord) error {
	return t.tx.PutEvent(store.Event{Cursor: e.Cursor, Kind: e.Kind, TxID: e.TxID, Depth: e.Depth, Height: e.Height,
		BlockHash: e.BlockHash, Time: e.Time, Detail: wallet.EncodeEventDetail(e)})
}

func (t chainTxn) PutDelivery(d delivery) error { return t.tx.PutDelivery(store.Delivery(d)) }

func (d db) deliveries(ctx context.Context) ([]delivery, error) {
	ds, err := d.s.Deliveries(ctx)
	out := make([]delivery, len(ds))
	for i, x := range ds {
		out[i] = delivery(x)
	}
	return out, err
}

func (t pgTxn) PutDelivery(d delivery) error { return t.tx.PutDelivery(pgstore.Delivery(d)) }

func (d pgdb) deliveries(ctx context.Context) ([]delivery, error) {
	ds, err := d.s.Deliveries(ctx)
	out := make([]delivery, len(ds))
	for i, x := range ds {
		out[i] = delivery(x)
	}
	return out, err
}
