package musig

import "github.com/descwallet/descwallet/errkind"

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// ErrorKind identifies a key aggregation failure. It satisfies the error
// interface so that callers can use errors.Is.
type ErrorKind = errkind.Kind[tag]

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

// kindError is the shared kind, description and cause that Error embeds.
type kindError = errkind.Error[tag]

// Error is a key aggregation failure.
type Error struct {
	kindError
	// Index is the position of the offending key for ErrInvalidPubKey, -1
	// otherwise.
	Index int
}

func newError(kind ErrorKind, index int, desc string, err error) *Error {
	return &Error{kindError: kindError{Kind: kind, Description: desc, Err: err}, Index: index}
}
