package pgstore

import "github.com/descwallet/descwallet/errkind"

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// CauseInMessage puts the server's error after the description: it is the
// useful part of a database failure.
func (tag) CauseInMessage() {}

// ErrorKind identifies a kind of store failure; errors.Is matches it.
type ErrorKind = errkind.Kind[tag]

const (
	// ErrExists is returned by Create when a wallet of that name exists.
	ErrExists = ErrorKind("ErrExists")

	// ErrNotFound is returned by Open when no wallet has that name.
	ErrNotFound = ErrorKind("ErrNotFound")

	// ErrSchema is returned when the database's schema is newer than this
	// program's or a migration fails.
	ErrSchema = ErrorKind("ErrSchema")

	// ErrLocked is returned by Create and Open when the wallet is open
	// elsewhere (in this process or on another node).
	ErrLocked = ErrorKind("ErrLocked")

	// ErrDatabase is any failure of the server or the connection; the
	// underlying error is wrapped.
	ErrDatabase = ErrorKind("ErrDatabase")
)

// Error is a store failure: a kind, a description and the cause, if any.
type Error = errkind.Error[tag]

func storeErr(kind ErrorKind, desc string, err error) error {
	if err == nil {
		return errkind.New(kind, desc)
	}
	return errkind.Wrap(kind, desc, err)
}
