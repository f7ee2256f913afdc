package miniscript

// ErrorKind identifies a kind of miniscript error; usable with errors.Is.
type ErrorKind string

// The error kinds.
const (
	// ErrKey is a key index that has no key.
	ErrKey = ErrorKind("ErrKey")
)

// Error returns the kind's name.
func (e ErrorKind) Error() string { return string(e) }

// Error is a miniscript error.
type Error struct {
	Kind        ErrorKind
	Description string
}

// Error returns the description.
func (e *Error) Error() string { return e.Description }

// Unwrap returns the kind, so that errors.Is matches it.
func (e *Error) Unwrap() error { return e.Kind }

func makeError(k ErrorKind, d string) *Error { return &Error{Kind: k, Description: d} }
