package store

import "github.com/descwallet/descwallet/errkind"

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// CauseInMessage makes Error() end with the underlying error's message.
func (tag) CauseInMessage() {}

// ErrorKind identifies a kind of store failure. It satisfies the error
// interface so that errors.Is(err, store.ErrExists) works on an *Error.
type ErrorKind = errkind.Kind[tag]

const (
	// ErrExists is returned by Create when a database (or anything) is
	// already at the path. The caller reports that the wallet exists.
	ErrExists = ErrorKind("ErrExists")

	// ErrNotFound is returned by Open when no database file is at the path.
	ErrNotFound = ErrorKind("ErrNotFound")

	// ErrSchema is returned when the file is not a wallet database of a
	// version this code knows (for example one written by a newer release).
	ErrSchema = ErrorKind("ErrSchema")

	// ErrLocked is returned by Create, CreatePending and Open when the
	// database is open elsewhere (another Store of this process or another
	// process holds its lock).
	ErrLocked = ErrorKind("ErrLocked")

	// ErrDatabase is any failure of SQLite itself (I/O, corruption, a
	// constraint). The underlying error is wrapped.
	ErrDatabase = ErrorKind("ErrDatabase")
)

// Error is a store failure: a kind, a description and the underlying error,
// if any; its message ends with the underlying error's.
type Error = errkind.Error[tag]

func storeErr(kind ErrorKind, desc string, err error) error { return errkind.Wrap(kind, desc, err) }
