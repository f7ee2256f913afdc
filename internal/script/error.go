package script

import (
	"github.com/descwallet/descwallet/errkind"
)

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// ErrorKind identifies a kind of error returned by this package. It
// satisfies the error interface so that callers can use errors.Is.
type ErrorKind = errkind.Kind[tag]

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

// Error is an error of this package: a Kind for errors.Is, a human
// description and an optional cause.
type Error = errkind.Error[tag]

func newError(kind ErrorKind, desc string) *Error { return errkind.New(kind, desc) }
