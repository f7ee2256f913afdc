package store

// ErrorKind identifies a kind of store failure. It satisfies the error
// interface so that errors.Is(err, store.ErrExists) works on an *Error.
type ErrorKind string

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

// Error satisfies the error interface.
func (k ErrorKind) Error() string { return string(k) }

// Error is a store failure: a kind, a description and the underlying error,
// if any.
type Error struct {
	Kind        ErrorKind
	Description string
	Err         error
}

// Error satisfies the error interface.
func (e *Error) Error() string {
	if e.Err != nil {
		return e.Description + ": " + e.Err.Error()
	}
	return e.Description
}

// Unwrap returns the kind and the underlying error, so errors.Is matches
// both.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

func storeErr(kind ErrorKind, desc string, err error) error {
	return &Error{Kind: kind, Description: desc, Err: err}
}
