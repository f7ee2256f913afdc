// Package walletdb connects the wallet to its SQLite database: it adapts a
// store.Store to the wallet.Store interface the wallet declares, so that
// neither package imports the other.
package walletdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/descwallet/descwallet/internal/store"
	"github.com/descwallet/descwallet/internal/wallet"
)

// Opener creates and opens SQLite wallet databases. It implements
// wallet.Opener.
type Opener struct {
	// Log receives the databases' debug lines (the STOR subsystem):
	// opens, closes, backups, rewrites and each write transaction, with
	// paths and durations, never their content. Nil discards them.
	Log *slog.Logger
}

// Create makes a new wallet database for path; it appears there when the
// wallet publishes it.
func (o Opener) Create(ctx context.Context, path string) (wallet.Store, error) {
	t0 := time.Now()
	s, err := store.CreatePending(ctx, path)
	if err != nil {
		return nil, lockedErr(err)
	}
	d := db{s: s, log: o.Log, path: path}
	d.debug("database created", "took", since(t0))
	return d, nil
}

// Open opens the wallet database at path.
func (o Opener) Open(ctx context.Context, path string) (wallet.Store, error) {
	t0 := time.Now()
	s, err := store.Open(ctx, path)
	if err != nil {
		return nil, lockedErr(err)
	}
	d := db{s: s, log: o.Log, path: path}
	d.debug("database opened", "took", since(t0))
	return d, nil
}

// Recover removes the remnants of a creation that crashed at path and, when
// the database there was not closed (its log is still there), opens and
// closes it so that the store finishes a pending rewrite. A database in
// use is left alone.
func (Opener) Recover(ctx context.Context, path string) (bool, error) {
	removed, err := store.RemoveLeftovers(path)
	if errors.Is(err, store.ErrLocked) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := os.Lstat(path + "-wal"); err != nil {
		return removed, nil
	}
	s, err := store.Open(ctx, path)
	if errors.Is(err, store.ErrLocked) || errors.Is(err, store.ErrNotFound) {
		return removed, nil
	}
	if err != nil {
		return removed, err
	}
	return removed, s.Close()
}

// lockedErr marks the store's ErrLocked with the wallet's ErrStoreLocked.
func lockedErr(err error) error {
	if errors.Is(err, store.ErrLocked) {
		return fmt.Errorf("%w: %w", wallet.ErrStoreLocked, err)
	}
	return err
}

type db struct {
	s    *store.Store
	log  *slog.Logger
	path string
}

// debug logs msg with the database's path when debug logging is on.
func (d db) debug(msg string, args ...any) {
	if d.log == nil || !d.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	d.log.Debug(msg, append([]any{"path", d.path}, args...)...)
}

func since(t0 time.Time) time.Duration { return time.Since(t0).Round(time.Microsecond) }

func (d db) Close() error {
	err := d.s.Close()
	d.debug("database closed", "ok", err == nil)
	return err
}

func (d db) Backup(ctx context.Context, dest string) error {
	t0 := time.Now()
	err := d.s.Backup(ctx, dest)
	d.debug("database backed up", "dest", dest, "ok", err == nil, "took", since(t0))
	return err
}

func (d db) Rewrite(ctx context.Context) error {
	t0 := time.Now()
	err := d.s.Rewrite(ctx)
	d.debug("database rewritten", "ok", err == nil, "took", since(t0))
	return err
}

func (d db) Checkpoint(ctx context.Context) error {
	t0 := time.Now()
	err := d.s.Checkpoint(ctx)
	d.debug("database checkpointed", "ok", err == nil, "took", since(t0))
	return err
}

func (d db) Publish(ctx context.Context) error {
	err := d.s.Publish(ctx)
	d.debug("database published", "ok", err == nil)
	return err
}

func (d db) Update(ctx context.Context, fn func(wallet.StoreTx) error) error {
	t0 := time.Now()
	err := d.s.Update(ctx, func(tx *store.Tx) error { return fn(txn{tx}) })
	d.debug("write transaction", "committed", err == nil, "took", since(t0))
	return err
}

func (d db) Load(ctx context.Context) (*wallet.Snapshot, error) {
	snap, err := d.s.Load(ctx)
	if err != nil {
		return nil, err
	}
	return walletSnapshot(snap.Meta, snap.Descriptors, snap.Secrets, snap.Chunks, snap.Active, snap.Labels,
		snap.LockedCoins, snap.UsedScripts, snap.MasterKey), nil
}

type txn struct{ tx *store.Tx }

func (t txn) PutMeta(key string, value []byte) error { return t.tx.PutMeta(key, value) }

func (t txn) PutDescriptor(d wallet.DescriptorRecord) (int64, error) {
	return t.tx.PutDescriptor(store.Descriptor(d))
}

func (t txn) SetNextIndex(id [32]byte, next, rangeEnd int64) error {
	return t.tx.SetNextIndex(id, next, rangeEnd)
}

func (t txn) PutSecret(s wallet.SecretRecord) error { return t.tx.PutSecret(store.Secret(s)) }

func (t txn) PutChunk(c wallet.ChunkRecord) error { return t.tx.PutChunk(store.Chunk(c)) }

func (t txn) DeleteChunks(id [32]byte) error { return t.tx.DeleteChunks(id) }

func (t txn) SetActive(a wallet.ActiveRecord) error { return t.tx.SetActive(store.Active(a)) }

func (t txn) ClearActive(outputType string, internal bool) error {
	return t.tx.ClearActive(outputType, internal)
}

func (t txn) PutLabel(l wallet.LabelRecord) error { return t.tx.PutLabel(store.Label(l)) }

func (t txn) DeleteLabel(script []byte) error { return t.tx.DeleteLabel(script) }

func (t txn) PutLockedCoin(op wallet.OutpointRecord) error {
	return t.tx.PutLockedCoin(store.Outpoint(op))
}

func (t txn) PutUsedScript(script []byte) error { return t.tx.PutUsedScript(script) }

func (t txn) DeleteLockedCoin(op wallet.OutpointRecord) error {
	return t.tx.DeleteLockedCoin(store.Outpoint(op))
}

func (t txn) Secrets() ([]wallet.SecretRecord, error) {
	recs, err := t.tx.Secrets()
	if err != nil {
		return nil, err
	}
	return walletSecrets(recs), nil
}

func (t txn) MasterKey() (*wallet.MasterKeyRecord, error) {
	mk, err := t.tx.MasterKey()
	if err != nil {
		return nil, err
	}
	return walletMasterKey(mk), nil
}

func (t txn) MarkRewrite() error { return t.tx.MarkRewrite() }

func (t txn) PutMasterKey(mk wallet.MasterKeyRecord) error {
	return t.tx.PutMasterKey(store.MasterKey(mk))
}
