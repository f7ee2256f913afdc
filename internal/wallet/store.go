package wallet

import (
	"context"
	"errors"
)

// ErrStoreLocked is wrapped by an Opener's error when the database is open
// elsewhere (under another name in this process, or by another process).
var ErrStoreLocked = errors.New("wallet database is in use")

// Store is what a wallet needs of its database. The wallet reads everything
// once, when it loads, and afterwards only writes; each Update is one atomic
// transaction that is on disk when Update returns nil.
type Store interface {
	// Load returns the whole content of the database.
	Load(ctx context.Context) (*Snapshot, error)
	// Update runs fn in one write transaction.
	Update(ctx context.Context, fn func(StoreTx) error) error
	// Backup writes a consistent copy of the database to dest, which must
	// not exist.
	Backup(ctx context.Context, dest string) error
	// Rewrite rebuilds the database files from their live content so that
	// no overwritten page (a private key before encryption, a master key
	// wrapped under an old passphrase) stays in them, and clears the
	// marker of StoreTx.MarkRewrite.
	Rewrite(ctx context.Context) error
	// Checkpoint moves the write-ahead log into the database file and
	// empties the log.
	Checkpoint(ctx context.Context) error
	// Publish makes a database made by Opener.Create appear at its path,
	// whole; before it, a crash leaves nothing there. It does nothing for
	// an opened database.
	Publish(ctx context.Context) error
	// Close closes the database.
	Close() error
}

// StoreTx is a write transaction of a Store.
type StoreTx interface {
	PutMeta(key string, value []byte) error
	PutDescriptor(d DescriptorRecord) (seq int64, err error)
	SetNextIndex(id [32]byte, next, rangeEnd int64) error
	PutSecret(s SecretRecord) error
	PutChunk(c ChunkRecord) error
	DeleteChunks(id [32]byte) error
	SetActive(a ActiveRecord) error
	ClearActive(outputType string, internal bool) error
	PutLabel(l LabelRecord) error
	DeleteLabel(script []byte) error
	// PutLockedCoin records a persistent lock (lockunspent's persistent
	// flag); DeleteLockedCoin removes one, if there is one.
	PutLockedCoin(op OutpointRecord) error
	DeleteLockedCoin(op OutpointRecord) error
	// PutUsedScript marks an output script used (avoid_reuse).
	PutUsedScript(script []byte) error
	// Secrets reads every private key record inside the transaction.
	Secrets() ([]SecretRecord, error)
	// MasterKey reads the wrapped master key, nil when there is none.
	MasterKey() (*MasterKeyRecord, error)
	// PutMasterKey stores the wrapped master key.
	PutMasterKey(mk MasterKeyRecord) error
	// MarkRewrite records that the file must be rebuilt (Store.Rewrite)
	// before it holds no overwritten secret; if the process dies first,
	// the next open finishes the rebuild.
	MarkRewrite() error
}

// Opener creates and opens wallet databases. An open database is locked:
// opening it a second time fails with an error wrapping ErrStoreLocked.
type Opener interface {
	// Create makes a new database for path (which must not exist). It
	// appears at path only when Store.Publish succeeds; closing the Store
	// before that removes it.
	Create(ctx context.Context, path string) (Store, error)
	// Open opens the database at path.
	Open(ctx context.Context, path string) (Store, error)
	// Recover cleans up after a crash at path: it removes the remnants of
	// a creation that did not finish (reporting whether there were any)
	// and finishes the pending work of a database that was not closed. A
	// database in use is left alone.
	Recover(ctx context.Context, path string) (removed bool, err error)
}

// DescriptorRecord is a stored descriptor (see the store package for the
// meaning of each field).
type DescriptorRecord struct {
	ID                   [32]byte
	Seq                  int64
	Public               string
	Ranged               bool
	RangeStart, RangeEnd int64
	NextIndex            int64
	Timestamp            int64
	Cache                []byte
}

// SecretRecord is private key material of a descriptor.
type SecretRecord struct {
	DescriptorID [32]byte
	KeyID        []byte
	Secret       []byte
}

// ChunkRecord is a block of scriptPubKey digests of consecutive indexes.
type ChunkRecord struct {
	DescriptorID [32]byte
	Chunk        int64
	FirstIndex   int64
	Data         []byte
}

// ActiveRecord names the active descriptor of an output type and side.
type ActiveRecord struct {
	OutputType   string
	Internal     bool
	DescriptorID [32]byte
}

// LabelRecord is an address book entry; a nil Label is a change entry.
type LabelRecord struct {
	Script  []byte
	Label   *string
	Purpose string
}

// OutpointRecord is a stored output reference: txid in internal byte order
// and output index.
type OutpointRecord struct {
	TxID [32]byte
	Vout uint32
}

// Snapshot is the content of a wallet database.
type Snapshot struct {
	Meta        map[string][]byte
	Descriptors []DescriptorRecord
	Secrets     []SecretRecord
	Chunks      []ChunkRecord
	Active      []ActiveRecord
	Labels      []LabelRecord
	// LockedCoins are the persistently locked outputs.
	LockedCoins []OutpointRecord
	// UsedScripts are the output scripts marked used (avoid_reuse).
	UsedScripts [][]byte
	// MasterKey is the wrapped master key of an encrypted wallet, nil
	// otherwise.
	MasterKey *MasterKeyRecord
}

// Catalog is implemented by an Opener whose databases are not files at
// their paths (PostgreSQL, where a path stands for a wallet's name): the
// manager then asks it, not the file system, whether a database exists,
// which ones there are, how to restore a backup file into one and how to
// clean up after a crash.
type Catalog interface {
	// Exists reports whether a database is at path.
	Exists(ctx context.Context, path string) (bool, error)
	// List returns the paths of the databases there are.
	List(ctx context.Context) ([]string, error)
	// Restore makes a database at path (which must not exist) holding
	// the content of a backup file, a wallet file as Store.Backup
	// writes them; a file that is not one gives an error wrapping
	// ErrBackupFormat.
	Restore(ctx context.Context, path, backupFile string) error
	// Remove deletes the database at path unless it is open.
	Remove(ctx context.Context, path string) error
	// RecoverAll does Opener.Recover for every database there is and
	// returns the paths it could not clean.
	RecoverAll(ctx context.Context) map[string]error
}

// ErrBackupFormat is wrapped by Catalog.Restore's error when the backup
// file is not a wallet file.
var ErrBackupFormat = errors.New("backup file is not a wallet file")

// ScriptStore is an optional Store interface: a database that indexes the
// wallet's scripts itself (PostgreSQL). Its Load leaves the script chunks
// out, the wallet holds no script index in memory and asks LookupScripts
// instead, through a bounded cache, so that its memory does not grow with
// the number of scripts. The chunks the wallet writes (StoreTx.PutChunk)
// feed the database's index in the same transaction.
type ScriptStore interface {
	// LookupScripts returns the index entries of the given script
	// digests (the first 8 bytes of SHA-256 of a script, read
	// little-endian) in any order; a digest without an entry is left
	// out. It reads committed data.
	LookupScripts(ctx context.Context, digests []uint64) ([]ScriptRef, error)
}

// ScriptRef is an entry of a ScriptStore's index: the descriptor (by its
// seq) whose chunk starting at FirstIndex holds Digest at position Pos;
// the derivation index is FirstIndex + Pos / (scripts per index).
type ScriptRef struct {
	Digest        uint64
	DescriptorSeq int64
	FirstIndex    int64
	Pos           int32
}
