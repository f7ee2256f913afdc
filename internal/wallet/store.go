package wallet

import "context"

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
	// wrapped under an old passphrase) stays in them.
	Rewrite(ctx context.Context) error
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
	// Secrets reads every private key record inside the transaction.
	Secrets() ([]SecretRecord, error)
	// MasterKey reads the wrapped master key, nil when there is none.
	MasterKey() (*MasterKeyRecord, error)
	// PutMasterKey stores the wrapped master key.
	PutMasterKey(mk MasterKeyRecord) error
}

// Opener creates and opens wallet databases.
type Opener interface {
	// Create makes a new database at path (which must not exist).
	Create(ctx context.Context, path string) (Store, error)
	// Open opens the database at path.
	Open(ctx context.Context, path string) (Store, error)
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

// Snapshot is the content of a wallet database.
type Snapshot struct {
	Meta        map[string][]byte
	Descriptors []DescriptorRecord
	Secrets     []SecretRecord
	Chunks      []ChunkRecord
	Active      []ActiveRecord
	Labels      []LabelRecord
	// MasterKey is the wrapped master key of an encrypted wallet, nil
	// otherwise.
	MasterKey *MasterKeyRecord
}
