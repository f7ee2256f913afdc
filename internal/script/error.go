package script

// ErrorKind identifies a kind of error returned by this package. It
// satisfies the error interface so that callers can use errors.Is.
type ErrorKind string

const (
	// ErrTooManyKeys is a multisig script asked for with more than 20 keys
	// (Core's MAX_PUBKEYS_PER_MULTISIG). The caller must reject the request.
	ErrTooManyKeys = ErrorKind("ErrTooManyKeys")

	// ErrInvalidThreshold is a multisig threshold below 1 or above the number
	// of keys. The caller must reject the request.
	ErrInvalidThreshold = ErrorKind("ErrInvalidThreshold")

	// ErrInvalidPubKey is a public key of a size no serialization allows
	// (33 bytes with prefix 02/03, 65 bytes with prefix 04/06/07).
	ErrInvalidPubKey = ErrorKind("ErrInvalidPubKey")
)

// Error satisfies the error interface and prints the kind's name.
func (e ErrorKind) Error() string { return string(e) }

// Error is an error of this package: a Kind for errors.Is and a human
// description.
type Error struct {
	Kind        ErrorKind
	Description string
	Err         error
}

// Error returns the human-readable description.
func (e *Error) Error() string { return e.Description }

// Unwrap returns the kind, and the underlying error when there is one, so
// that errors.Is matches either.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

func newError(kind ErrorKind, desc string) *Error {
	return &Error{Kind: kind, Description: desc}
}
