// Package store keeps one wallet in one SQLite file. It is the only package
// of the node with SQL in it.
//
// # Model
//
// A wallet database holds its settings (meta), its descriptors in public
// form with their range, next index, creation time and derivation cache, the
// private key material of those descriptors in a table of its own (so that
// encryption can wrap it without touching the rest), the scriptPubKey digests
// of every derived index in chunks of consecutive indexes (the wallet rebuilds
// its in-memory index from them without deriving a key), the active
// descriptor of each output type and side, the address book, and for an
// encrypted wallet its wrapped master key (MasterKey; the store treats it
// and the sealed secrets as opaque bytes).
//
// It also holds the wallet's transactions and chain position, and its event
// log: the events one write transaction appends are one row of
// wallet_event_packs, written when the transaction commits (eventpack.go);
// events of older files stay rows of wallet_events, read in the same cursor
// order.
//
// The file is opened in WAL mode with synchronous=FULL, foreign keys on, a
// busy timeout and a page cache of up to 64 MiB. Writes run in Update, one immediate transaction per call: when
// Update returns nil the change is on disk and survives a crash of the process
// or of the machine. The schema is versioned by PRAGMA user_version and
// upgraded by numbered migrations embedded in the binary.
//
// An open Store holds an exclusive advisory lock on a lock file beside the
// database (path+LockSuffix), so that the same file is never open twice,
// whether from this process under another name or from another process.
//
// CreatePending builds a new database under a temporary name and Publish
// renames it into place once it is whole, so a crash during creation leaves
// nothing at the database's path (RemoveLeftovers clears the remnant).
//
// Backup writes a consistent copy of a database that stays open and in use
// (VACUUM INTO) to a temporary file with mode 0600, syncs it and renames it
// to its name, which Open accepts like any wallet file. Rewrite rebuilds the
// file in place (VACUUM) and empties the log, so that overwritten secrets
// leave no trace in free pages; secure_delete zeroes deleted content inside
// pages. A transaction that overwrites a secret marks a rewrite as pending
// (MarkRewrite); Open finishes a rewrite that a crash interrupted before it
// returns the Store.
//
// # Errors
//
// Failures are *Error values carrying an ErrorKind: ErrExists (Create on a
// path that exists), ErrNotFound (Open on a missing file), ErrSchema (a file
// written by a newer version, or not a wallet), ErrDatabase (any SQLite
// failure; the underlying error is wrapped), ErrLocked (the database is open
// elsewhere). Use errors.Is with the kinds.
//
// # Concurrency
//
// A Store is safe for concurrent use. Writes are serialised on one
// connection; the wallet keeps what it reads in memory and reads the database
// only when it loads.
package store
