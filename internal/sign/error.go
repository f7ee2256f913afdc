package sign

import (
	"github.com/descwallet/descwallet/errkind"
)

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// ErrorKind identifies a kind of error returned by this package. It
// satisfies the error interface so that callers can use errors.Is.
type ErrorKind = errkind.Kind[tag]

const (
	// ErrTxDecode is a hex transaction that does not decode the way Core
	// decodes one (bad hex, truncated, trailing bytes, zero inputs). The
	// caller reports Core's deserialization error.
	ErrTxDecode = ErrorKind("ErrTxDecode")

	// ErrInvalidKey is a private key string that is not a WIF key of the
	// node's network, or whose scalar is out of range. The caller reports
	// Core's "Invalid private key".
	ErrInvalidKey = ErrorKind("ErrInvalidKey")

	// ErrPrevoutMismatch is a previous output given twice with different
	// scriptPubKeys. The description carries Core's message with both
	// scripts in asm form.
	ErrPrevoutMismatch = ErrorKind("ErrPrevoutMismatch")

	// ErrMissingAmount is a segwit or taproot input that got a witness while
	// its amount was unknown (the MAX_MONEY sentinel). Core fails the whole
	// call; the description carries Core's message naming the output.
	ErrMissingAmount = ErrorKind("ErrMissingAmount")

	// ErrSignFailed is a message signature that did not verify against
	// its own key. The caller reports Core's "Sign failed".
	ErrSignFailed = ErrorKind("ErrSignFailed")
)

// Error is an error of this package: a Kind for errors.Is, a human
// description (Core's text where Core has one) and an optional cause.
type Error = errkind.Error[tag]

func newError(kind ErrorKind, desc string) *Error { return errkind.New(kind, desc) }
