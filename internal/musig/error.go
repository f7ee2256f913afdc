package musig

// ErrorKind identifies a key aggregation failure. It satisfies the error
// interface so that callers can use errors.Is.
type ErrorKind string

const (
	// ErrNoKeys is an aggregation of zero keys.
	ErrNoKeys = ErrorKind("ErrNoKeys")

	// ErrInvalidPubKey is a participant key that is not a 33-byte
	// compressed point on the curve (BIP 327 invalid_contribution "pubkey").
	// Error.Index names the participant.
	ErrInvalidPubKey = ErrorKind("ErrInvalidPubKey")

	// ErrInfinity is an aggregate that is the point at infinity, which only
	// adversarially chosen keys can produce.
	ErrInfinity = ErrorKind("ErrInfinity")
)

// Error satisfies the error interface and prints the kind's name.
func (e ErrorKind) Error() string { return string(e) }

// Error is a key aggregation failure.
type Error struct {
	Kind        ErrorKind
	Description string
	// Index is the position of the offending key for ErrInvalidPubKey, -1
	// otherwise.
	Index int
	Err   error
}

// Error returns the human-readable description.
func (e *Error) Error() string { return e.Description }

// Unwrap returns the kind and the underlying error, if any, so that
// errors.Is matches either.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}
