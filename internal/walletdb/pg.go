package walletdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/descwallet/descwallet/internal/pgstore"
	"github.com/descwallet/descwallet/internal/store"
	"github.com/descwallet/descwallet/internal/wallet"
)

// PGOpener creates and opens wallets in a PostgreSQL database (package
// pgstore). It implements wallet.Opener and wallet.Catalog: the path the
// manager gives for a wallet (<Root>/<name>/wallet.sqlite) stands for its
// name, and Namespace keeps the wallets of one network apart from those of
// another in the same database.
type PGOpener struct {
	DB *pgstore.DB
	// Root is the wallets folder the manager's paths start with.
	Root string
	// Namespace is the wallets' namespace (the network's name).
	Namespace string
	// Log receives the debug lines of the STOR subsystem; nil discards
	// them.
	Log *slog.Logger
	// Shared opens wallets without their open lock, for several nodes
	// serving them together (wallet.SharedStore).
	Shared bool
}

var (
	_ wallet.Opener  = PGOpener{}
	_ wallet.Catalog = PGOpener{}
)

// name returns the wallet name a path stands for: the folder relative to
// Root, or the absolute folder of a wallet outside it.
func (o PGOpener) name(path string) string {
	dir := filepath.Dir(path)
	rel, err := filepath.Rel(o.Root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return dir
	}
	if rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

// path is the inverse of name.
func (o PGOpener) path(name string) string {
	if filepath.IsAbs(name) {
		return filepath.Join(name, wallet.DatabaseFile)
	}
	return filepath.Join(o.Root, filepath.FromSlash(name), wallet.DatabaseFile)
}

// pgLockedErr marks pgstore's ErrLocked with the wallet's ErrStoreLocked.
func pgLockedErr(err error) error {
	if errors.Is(err, pgstore.ErrLocked) {
		return fmt.Errorf("%w: %w", wallet.ErrStoreLocked, err)
	}
	return err
}

// Create makes a new wallet for path; it becomes visible when the wallet
// publishes it.
func (o PGOpener) Create(ctx context.Context, path string) (wallet.Store, error) {
	t0 := time.Now()
	s, err := o.DB.Create(ctx, o.Namespace, o.name(path))
	if err != nil {
		return nil, pgLockedErr(err)
	}
	d := pgdb{s: s, log: o.Log, name: s.Name()}
	d.debug("database created", "took", since(t0))
	if o.Shared {
		// Shared from its Publish on.
		return sharedPG{d}, nil
	}
	return d, nil
}

// Open opens the wallet path stands for.
func (o PGOpener) Open(ctx context.Context, path string) (wallet.Store, error) {
	t0 := time.Now()
	if o.Shared {
		s, err := o.DB.OpenShared(ctx, o.Namespace, o.name(path))
		if err != nil {
			return nil, err
		}
		d := sharedPG{pgdb{s: s, log: o.Log, name: s.Name()}}
		d.debug("database opened shared", "took", since(t0))
		return d, nil
	}
	s, err := o.DB.Open(ctx, o.Namespace, o.name(path))
	if err != nil {
		return nil, pgLockedErr(err)
	}
	d := pgdb{s: s, log: o.Log, name: s.Name()}
	d.debug("database opened", "took", since(t0))
	return d, nil
}

// Recover does the work of RecoverAll; the paths of a PostgreSQL database
// are cleaned all at once.
func (o PGOpener) Recover(ctx context.Context, path string) (bool, error) {
	removed, err := o.DB.Recover(ctx, o.Namespace)
	for _, n := range removed {
		if n == o.name(path) {
			return true, err
		}
	}
	return false, err
}

// RecoverAll removes the unfinished creations nobody holds and finishes
// the pending rewrites.
func (o PGOpener) RecoverAll(ctx context.Context) map[string]error {
	out := map[string]error{}
	if _, err := o.DB.Recover(ctx, o.Namespace); err != nil {
		out["postgres"] = err
	}
	return out
}

// Exists reports whether the wallet path stands for exists.
func (o PGOpener) Exists(ctx context.Context, path string) (bool, error) {
	return o.DB.Exists(ctx, o.Namespace, o.name(path))
}

// List returns the paths of the namespace's wallets.
func (o PGOpener) List(ctx context.Context) ([]string, error) {
	names, err := o.DB.List(ctx, o.Namespace)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = o.path(n)
	}
	return paths, nil
}

// Remove deletes the wallet path stands for, unless it is open.
func (o PGOpener) Remove(ctx context.Context, path string) error {
	s, err := o.DB.Open(ctx, o.Namespace, o.name(path))
	if err != nil {
		return err
	}
	return s.Remove(ctx)
}

// Restore copies a wallet file (a backup of either store) into a new
// wallet for path. The file itself is not touched: a temporary copy of it
// is opened.
func (o PGOpener) Restore(ctx context.Context, path, backupFile string) error {
	t0 := time.Now()
	src, err := openBackupCopy(ctx, backupFile)
	if err != nil {
		return err
	}
	defer src.close()
	s, err := o.DB.Create(ctx, o.Namespace, o.name(path))
	if err != nil {
		return pgLockedErr(err)
	}
	d := pgdb{s: s, log: o.Log, name: s.Name()}
	if err := transfer(ctx, db{s: src.s}, d); err != nil {
		s.Close()
		return err
	}
	if err := s.Publish(ctx); err != nil {
		s.Close()
		return err
	}
	d.debug("database restored", "took", since(t0))
	return s.Close()
}

// backupCopy is a SQLite wallet file opened from a temporary copy of a
// backup.
type backupCopy struct {
	s   *store.Store
	dir string
}

func (b backupCopy) close() {
	b.s.Close()
	os.RemoveAll(b.dir)
}

// openBackupCopy copies a backup file to a private temporary folder and
// opens it there (opening may upgrade the copy's schema; the backup stays
// as it was). A file that is not a wallet gives wallet.ErrBackupFormat.
func openBackupCopy(ctx context.Context, backupFile string) (backupCopy, error) {
	in, err := os.Open(backupFile)
	if err != nil {
		return backupCopy{}, err
	}
	defer in.Close()
	dir, err := os.MkdirTemp("", "descwallet-restore-")
	if err != nil {
		return backupCopy{}, err
	}
	file := filepath.Join(dir, wallet.DatabaseFile)
	out, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = out.ReadFrom(in)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return backupCopy{}, err
	}
	s, err := store.Open(ctx, file)
	if err == nil {
		// A file SQLite opens may still be something else than a wallet.
		if _, lerr := s.Load(ctx); lerr != nil {
			s.Close()
			err = lerr
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return backupCopy{}, fmt.Errorf("%w: %w", wallet.ErrBackupFormat, err)
	}
	return backupCopy{s: s, dir: dir}, nil
}

type pgdb struct {
	s    *pgstore.Store
	log  *slog.Logger
	name string
}

var (
	_ wallet.Store         = pgdb{}
	_ wallet.ChainStore    = pgdb{}
	_ wallet.EventStore    = pgdb{}
	_ wallet.DeliveryStore = pgdb{}
	_ wallet.ScriptStore   = pgdb{}
)

func (d pgdb) debug(msg string, args ...any) {
	if d.log == nil || !d.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	d.log.Debug(msg, append([]any{"wallet", d.name}, args...)...)
}

func (d pgdb) Close() error {
	err := d.s.Close()
	d.debug("database closed", "ok", err == nil)
	return err
}

// Backup writes the wallet as a SQLite wallet file to dest (the portable
// format restorewallet reads into either store): a new file in dest's
// folder, synced, given its name only when whole, mode 0600.
func (d pgdb) Backup(ctx context.Context, dest string) error {
	t0 := time.Now()
	err := backupTo(ctx, d, dest)
	d.debug("database backed up", "dest", dest, "ok", err == nil, "took", since(t0))
	return err
}

func (d pgdb) Rewrite(ctx context.Context) error {
	t0 := time.Now()
	err := d.s.Rewrite(ctx)
	d.debug("database rewritten", "ok", err == nil, "took", since(t0))
	return err
}

func (d pgdb) Checkpoint(ctx context.Context) error { return d.s.Checkpoint(ctx) }

func (d pgdb) Publish(ctx context.Context) error {
	err := d.s.Publish(ctx)
	d.debug("database published", "ok", err == nil)
	return err
}

// Load reads the wallet without its script chunks: the wallet asks the
// database's script index (LookupScripts) instead of holding them.
func (d pgdb) Load(ctx context.Context) (*wallet.Snapshot, error) {
	return d.load(ctx, false)
}

// loadFull reads the wallet with its script chunks, for a copy to another
// store.
func (d pgdb) loadFull(ctx context.Context) (*wallet.Snapshot, error) {
	return d.load(ctx, true)
}

// LookupScripts makes pgdb a wallet.ScriptStore.
func (d pgdb) LookupScripts(ctx context.Context, digests []uint64) ([]wallet.ScriptRef, error) {
	refs, err := d.s.LookupScripts(ctx, digests)
	if err != nil {
		return nil, err
	}
	out := make([]wallet.ScriptRef, len(refs))
	for i, r := range refs {
		out[i] = wallet.ScriptRef(r)
	}
	return out, nil
}

func (d pgdb) load(ctx context.Context, chunks bool) (*wallet.Snapshot, error) {
	var snap *pgstore.Snapshot
	var err error
	if chunks {
		snap, err = d.s.Load(ctx)
	} else {
		snap, err = d.s.LoadIndexed(ctx)
	}
	if err != nil {
		return nil, err
	}
	return walletSnapshot(snap.Meta, snap.Descriptors, snap.Secrets, snap.Chunks, snap.Active, snap.Labels,
		snap.LockedCoins, snap.UsedScripts, snap.MasterKey), nil
}

func (d pgdb) LoadChain(ctx context.Context) (*wallet.ChainSnapshot, error) {
	snap, err := d.s.LoadChain(ctx)
	if err != nil {
		return nil, err
	}
	return walletChain(snap.Txs, snap.Recent, snap.Rescan, snap.Marks), nil
}

func (d pgdb) Events(ctx context.Context, after int64, limit int) ([]wallet.EventRecord, int64, error) {
	evs, pruned, err := d.s.Events(ctx, after, limit)
	if err != nil {
		return nil, 0, err
	}
	out, err := walletEvents(evs)
	if err != nil {
		return nil, 0, err
	}
	return out, pruned, nil
}

func (d pgdb) Update(ctx context.Context, fn func(wallet.StoreTx) error) error {
	t0 := time.Now()
	err := d.s.Update(ctx, func(tx *pgstore.Tx) error { return fn(pgTxn{tx}) })
	d.debug("write transaction", "committed", err == nil, "took", since(t0))
	return err
}

func (d pgdb) UpdateChain(ctx context.Context, fn func(wallet.ChainStoreTx) error) error {
	t0 := time.Now()
	err := d.s.Update(ctx, func(tx *pgstore.Tx) error { return fn(pgTxn{tx}) })
	d.debug("chain write transaction", "committed", err == nil, "took", since(t0))
	return err
}

// update runs fn in one transaction that can also write events with
// their cursors (a copy from another wallet).
func (d pgdb) update(ctx context.Context, fn func(copyTx) error) error {
	return d.s.Update(ctx, func(tx *pgstore.Tx) error { return fn(pgTxn{tx}) })
}

type pgTxn struct{ tx *pgstore.Tx }

// ReserveNext makes pgTxn a wallet.IndexReserver.
func (t pgTxn) ReserveNext(id [32]byte, keypool, limit int64) (n, oldEnd, newEnd int64, err error) {
	return t.tx.ReserveNext(id, keypool, limit)
}

// sharedPG is a wallet opened shared (pgstore's OpenShared): a
// wallet.SharedStore, served by several nodes at once.
type sharedPG struct{ pgdb }

var _ wallet.SharedStore = sharedPG{}

// Publish publishes a created wallet and shares it with the other nodes.
func (d sharedPG) Publish(ctx context.Context) error {
	if err := d.pgdb.Publish(ctx); err != nil {
		return err
	}
	d.s.Share()
	return nil
}

func (d sharedPG) Changes(ctx context.Context) (wallet.Changes, error) {
	c, err := d.s.Changes(ctx)
	return wallet.Changes(c), err
}

func (d sharedPG) Stale(c wallet.Changes, handouts bool) bool {
	return d.s.Stale(pgstore.Changes(c), handouts)
}

func (d sharedPG) Seen(c wallet.Changes) { d.s.Seen(pgstore.Changes(c)) }

func (d sharedPG) ChainStale(c wallet.Changes) bool { return d.s.ChainStale(pgstore.Changes(c)) }

func (d sharedPG) SeenChain(n int64) { d.s.SeenChain(n) }

func (d sharedPG) Hold(ctx context.Context) (func(), error) {
	t0 := time.Now()
	release, err := d.s.Hold(ctx)
	d.debug("exclusive operation lock", "taken", err == nil, "waited", since(t0))
	return release, err
}

func (t pgTxn) PutMeta(key string, value []byte) error { return t.tx.PutMeta(key, value) }

func (t pgTxn) PutDescriptor(d wallet.DescriptorRecord) (int64, error) {
	return t.tx.PutDescriptor(pgstore.Descriptor(d))
}

func (t pgTxn) SetNextIndex(id [32]byte, next, rangeEnd int64) error {
	return t.tx.SetNextIndex(id, next, rangeEnd)
}

func (t pgTxn) PutSecret(s wallet.SecretRecord) error { return t.tx.PutSecret(pgstore.Secret(s)) }

func (t pgTxn) PutChunk(c wallet.ChunkRecord) error { return t.tx.PutChunk(pgstore.Chunk(c)) }

func (t pgTxn) DeleteChunks(id [32]byte) error { return t.tx.DeleteChunks(id) }

func (t pgTxn) SetActive(a wallet.ActiveRecord) error { return t.tx.SetActive(pgstore.Active(a)) }

func (t pgTxn) ClearActive(outputType string, internal bool) error {
	return t.tx.ClearActive(outputType, internal)
}

func (t pgTxn) PutLabel(l wallet.LabelRecord) error { return t.tx.PutLabel(pgstore.Label(l)) }

func (t pgTxn) DeleteLabel(script []byte) error { return t.tx.DeleteLabel(script) }

func (t pgTxn) PutLockedCoin(op wallet.OutpointRecord) error {
	return t.tx.PutLockedCoin(pgstore.Outpoint(op))
}

func (t pgTxn) DeleteLockedCoin(op wallet.OutpointRecord) error {
	return t.tx.DeleteLockedCoin(pgstore.Outpoint(op))
}

func (t pgTxn) PutUsedScript(script []byte) error { return t.tx.PutUsedScript(script) }

func (t pgTxn) Secrets() ([]wallet.SecretRecord, error) {
	recs, err := t.tx.Secrets()
	if err != nil {
		return nil, err
	}
	return walletSecrets(recs), nil
}

func (t pgTxn) MasterKey() (*wallet.MasterKeyRecord, error) {
	mk, err := t.tx.MasterKey()
	if err != nil {
		return nil, err
	}
	return walletMasterKey(mk), nil
}

func (t pgTxn) PutMasterKey(mk wallet.MasterKeyRecord) error {
	return t.tx.PutMasterKey(pgstore.MasterKey(mk))
}

func (t pgTxn) MarkRewrite() error { return t.tx.MarkRewrite() }

func (t pgTxn) PutTx(r wallet.TxRecord) (int64, error) {
	return t.tx.PutWalletTx(pgstore.WalletTx(r))
}

func (t pgTxn) DeleteTx(txid [32]byte) error { return t.tx.DeleteWalletTx(txid) }

func (t pgTxn) PutTxMarks(txid [32]byte, m wallet.TxMarks) error {
	return t.tx.PutTxMarks(txid, pgstore.TxMarks(m))
}

func (t pgTxn) UnconfirmAbove(height int32) error { return t.tx.UnconfirmAbove(height) }

func (t pgTxn) SetRecentBlocks(blocks []wallet.BlockRef) error {
	return t.tx.SetRecentBlocks(storeBlocks[pgstore.BlockRef](blocks))
}

func (t pgTxn) SetRescan(rs *wallet.RescanState) error {
	if rs == nil {
		return t.tx.SetRescan(nil)
	}
	return t.tx.SetRescan(&pgstore.RescanState{Next: rs.Next, Stop: rs.Stop})
}

func (t pgTxn) AppendEvent(e wallet.EventRecord) (int64, error) {
	return t.tx.AppendEvent(storeEvent[pgstore.Event](e))
}

func (t pgTxn) PutEvent(e wallet.EventRecord) error {
	return t.tx.PutEvent(storeEvent[pgstore.Event](e))
}

func (t pgTxn) SetEventDepth(txid [32]byte, depth int32) error {
	return t.tx.SetEventDepth(txid, depth)
}

func (t pgTxn) PruneEvents(keep, before int64, held []string) (int64, int64, error) {
	return t.tx.PruneEvents(keep, before, held)
}

// DeliveryCursor reads where a delivery target stands in the event log.
func (d pgdb) DeliveryCursor(ctx context.Context, target string) (int64, error) {
	return d.s.DeliveryCursor(ctx, target)
}

// SetDeliveryCursor records a delivery target's acknowledged cursor.
func (d pgdb) SetDeliveryCursor(ctx context.Context, target string, cursor int64) error {
	return d.s.SetDeliveryCursor(ctx, target, cursor, time.Now().Unix())
}
