package psbt

import "github.com/descwallet/descwallet/errkind"

// tag makes this package's kinds distinct from every other package's.
type tag struct{}

// ErrorKind identifies a kind of PSBT error, for errors.Is.
type ErrorKind = errkind.Kind[tag]

// Error kinds.
const (
	// ErrBase64 is text that is not strict base64.
	ErrBase64 = ErrorKind("ErrBase64")
	// ErrMalformed is a PSBT Core's reader rejects; the description is
	// the text of Core's exception.
	ErrMalformed = ErrorKind("ErrMalformed")
	// ErrExtraData is a PSBT followed by more bytes.
	ErrExtraData = ErrorKind("ErrExtraData")
	// ErrMismatch is an operation over PSBTs of different transactions.
	ErrMismatch = ErrorKind("ErrMismatch")
	// ErrConvert is a packet that cannot change version.
	ErrConvert = ErrorKind("ErrConvert")
)

// Error is a PSBT error: its kind and Core's description.
type Error = errkind.Error[tag]
